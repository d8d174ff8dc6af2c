"""Prompt optimisation: tune the agent's decision and answer programs on benchmark items.

The optimiser's student is ``AgentProgram``, a DSPy module holding the agent's two
predictors (decide and answer) whose ``forward`` runs the real decision loop on a
question with those predictors in place, and returns the answer, whether it abstained and
the ranked pages. MIPROv2 or GEPA rewrites the predictors' instructions (and MIPROv2 adds
worked examples) to raise ``score``: the right page's place (1/rank of the first gold
page, weight 0.5) and the answer's quality (key-fact recall, or for an unanswerable item
whether it abstained, weight 0.5). The questions go in blind; only the metric sees the
ground truth.

The items are split into train and validation per category (seeded); the program in use
and the optimised one are both scored on validation, and the optimised one is saved as the
library's next program version (``programs/vNNNN/``) with a ``meta.json`` saying how it
was made, unless it scores worse. The agent loads the newest version at start.
"""

from __future__ import annotations

import contextlib
import random
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import dspy

from app.agent.events import Answer
from app.agent.loop import Tree
from app.agent.mode import LlmChoice
from app.agent.service import (
    ModelChoice,
    build_answerer,
    program_version,
    programs,
    save_programs,
    set_programs,
)
from app.bench.dataset import BenchItem
from app.bench.metrics import fact_found, first_hit_rank
from app.config import Settings
from app.library.embedding import Embedder
from app.library.library import Library
from app.runtime.types import TextBackend

OPTIMIZERS = ("miprov2", "gepa")
PROGRAMS = ("decide", "answer", "route")
PAGE_WEIGHT = 0.5
ANSWER_WEIGHT = 0.5
# A run scoring this much is a worked example worth showing the model (MIPROv2's demos):
# the right page first and most facts, or the right page second and every fact.
DEMO_SCORE = 0.75
Stage = Literal["baseline", "optimising", "checking", "saved"]


class OptimizeError(Exception):
    """Optimisation cannot start: too few items, an unknown optimiser, no LLM."""


class OptimizeStopped(BaseException):
    """Raised inside a run to stop the optimiser; a BaseException so that DSPy's handlers,
    which count ordinary exceptions as failed examples, let it through."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How hard the optimiser searches. ``auto`` is DSPy's own light/medium/heavy budget;
    None uses the explicit figures below (quick tries, tests)."""

    auto: Literal["light", "medium", "heavy"] | None = "light"
    candidates: int = 3  # MIPROv2: instructions (and demo sets) to choose from
    trials: int = 4  # MIPROv2: programs tried on the validation set
    metric_calls: int = 30  # GEPA: questions run in all
    # Local models have small contexts, and a decision demo carries a whole environment.
    demos: int = 1


@dataclass(frozen=True, slots=True)
class OptimizeProgress:
    """Where the optimisation is: the stage and questions run in it (total if known)."""

    stage: Stage
    done: int
    total: int | None = None
    message: str = ""


@dataclass(frozen=True, slots=True)
class OptimizeReport:
    """What an optimisation did: the split, the validation scores before and after, and
    where the new program version was saved (None when it was not)."""

    optimizer: str
    model: str
    train_ids: tuple[str, ...]
    val_ids: tuple[str, ...]
    before: float
    after: float | None
    seconds: float
    version: str | None
    path: Path | None
    from_version: str | None = None  # the saved version the run started from
    per_item: dict[str, tuple[float, float | None]] = field(default_factory=dict)
    questions_run: int = 0
    stopped: bool = False
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["path"] = str(self.path) if self.path else None
        data["per_item"] = {k: list(v) for k, v in self.per_item.items()}
        return data


@dataclass(frozen=True, slots=True)
class Score:
    value: float
    feedback: str


def score(
    item: BenchItem, answer: str, abstained: bool, pages: Sequence[Mapping[str, Any]]
) -> Score:
    """The metric for one answered item, with a sentence saying why (GEPA reflects on it)."""
    if item.unanswerable:
        if abstained:
            return Score(1.0, "Correct: the manuals do not answer this, and the agent said so.")
        return Score(0.0, "The manuals do not answer this; the agent should have said so.")
    notes = []
    if abstained:
        quality = 0.0
        notes.append("The agent said the manuals don't answer it, but they do.")
    elif item.key_facts:
        missing = [f for f in item.key_facts if not fact_found(f, answer)]
        quality = 1 - len(missing) / len(item.key_facts)
        if missing:
            notes.append("The answer lacks " + ", ".join(repr(f) for f in missing) + ".")
    else:
        quality = 1.0
    if not item.gold_pages():
        return Score(round(quality, 4), " ".join(notes) or "Good answer.")
    rank = first_hit_rank(item, pages)
    gold = ", ".join(f"{doc} p.{page}" for doc, page in sorted(item.gold_pages()))
    if rank is None:
        notes.insert(0, f"The right page ({gold}) was not among the pages looked at.")
    elif rank > 1:
        notes.insert(0, f"The right page ({gold}) came only at rank {rank}.")
    value = PAGE_WEIGHT * (1 / rank if rank else 0.0) + ANSWER_WEIGHT * quality
    return Score(round(value, 4), " ".join(notes) or "Right page first, every key fact given.")


def make_metric(items: Mapping[str, BenchItem]) -> Callable[..., Any]:
    """The DSPy metric over ``items`` (by id), in the shapes each caller wants: a float to
    evaluate, pass/fail while bootstrapping demos (a trace is given), score and feedback
    for GEPA (a predictor is named)."""

    def metric(
        gold: dspy.Example,
        pred: dspy.Prediction,
        trace: Any = None,
        pred_name: str | None = None,
        pred_trace: Any = None,
    ) -> Any:
        result = score(items[gold.item_id], pred.answer, pred.abstained, pred.pages)
        if pred_name is not None:
            return dspy.Prediction(score=result.value, feedback=result.feedback)
        if trace is not None:
            return result.value >= DEMO_SCORE
        return result.value

    return metric


class _SharedAgent:
    """The one agent every copy of the student runs on (DSPy deep-copies students; an
    agent holds a database and a model, which must not be copied)."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.lock = threading.Lock()
        self.runs = 0
        self.stage: Stage = "baseline"
        self.progress: Callable[[OptimizeProgress], None] = lambda _p: None
        self.should_stop: Callable[[], bool] = lambda: False

    def __deepcopy__(self, memo: dict[int, Any]) -> _SharedAgent:
        return self


class AgentProgram(dspy.Module):
    """The agent as one DSPy program: its decide and answer predictors, run by the loop."""

    def __init__(self, agent: _SharedAgent) -> None:
        super().__init__()
        found = programs(agent.tree)
        self.decide = found["decide"]
        self.answer = found["answer"]
        self.route = found["route"]
        self.agent = agent

    def forward(self, question: str) -> dspy.Prediction:
        agent = self.agent
        with agent.lock:
            if agent.should_stop():
                raise OptimizeStopped
            set_programs(
                agent.tree, {"decide": self.decide, "answer": self.answer, "route": self.route}
            )
            answer = None
            for event in agent.tree.ask(question):
                if isinstance(event, Answer):
                    answer = event
            agent.runs += 1
            agent.progress(OptimizeProgress(agent.stage, agent.runs, None, question))
        if answer is None:
            return dspy.Prediction(answer="", abstained=True, pages=[])
        pages = [asdict(p) for p in answer.pages]
        return dspy.Prediction(answer=answer.text, abstained=answer.abstained, pages=pages)


def split_items(
    items: Sequence[BenchItem], val_share: float, seed: int
) -> tuple[list[BenchItem], list[BenchItem]]:
    """Train and validation items: ``val_share`` of each category (rounded, seeded) goes
    to validation, with at least one item on each side; dataset order is kept."""
    if len(items) < 2:
        raise OptimizeError(f"optimising needs at least 2 questions, got {len(items)}")
    if not 0 < val_share < 1:
        raise OptimizeError(f"the validation share must be between 0 and 1, not {val_share}")
    rng = random.Random(seed)
    by_category: dict[str, list[int]] = defaultdict(list)
    for index, item in enumerate(items):
        by_category[item.category].append(index)
    val: set[int] = set()
    for category in sorted(by_category):
        group = by_category[category][:]
        rng.shuffle(group)
        val.update(group[: round(len(group) * val_share)])
    if not val:
        val.add(rng.randrange(len(items)))
    if len(val) == len(items):
        val.discard(min(val))
    train = [item for i, item in enumerate(items) if i not in val]
    return train, [item for i, item in enumerate(items) if i in val]


def optimize(
    library: Library,
    settings: Settings,
    items: Sequence[BenchItem],
    *,
    backend: TextBackend,
    optimizer: str = "miprov2",
    val_share: float = 0.3,
    seed: int = 0,
    budget: Budget | None = None,
    progress: Callable[[OptimizeProgress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    embedder: Embedder | None = None,
    dataset: str = "",
    only: Sequence[str] = (),
    require_gain: bool = False,
) -> OptimizeReport:
    """Optimise the agent's programs on ``items`` with ``backend`` as the LLM (see the
    module docstring). Stopping (``should_stop``) ends it without saving anything.

    ``only`` names the programs to change (``decide``, ``answer``, ``route``; all when
    empty): the others are put back as they were before the held-out check.
    ``require_gain`` keeps the new program only when it scores better there, not as well.
    """
    if optimizer not in OPTIMIZERS:
        raise OptimizeError(f"unknown optimiser {optimizer!r}: use {' or '.join(OPTIMIZERS)}")
    by_id = {item.id: item for item in items}
    if len(by_id) != len(items):
        raise OptimizeError("question ids repeat: each item needs its own id")
    budget = budget or Budget()
    train, val = split_items(items, val_share, seed)
    started = time.perf_counter()
    chosen = LlmChoice.chosen(backend.model_id)
    models = ModelChoice(lambda: backend, None, chosen.reason, chosen.model_id)
    tree = build_answerer(library, settings, embedder=embedder, models=models)
    agent = _SharedAgent(tree)
    agent.progress = progress or agent.progress
    agent.should_stop = should_stop or agent.should_stop
    student = AgentProgram(agent)
    metric = make_metric(by_id)
    ids = (tuple(i.id for i in train), tuple(i.id for i in val))
    report = _Report(optimizer, backend.model_id, ids, program_version(tree), started, agent)
    # Traces of the optimiser's many runs would bury the technician's own questions.
    with tempfile.TemporaryDirectory(prefix="lantern-optimize-") as traces:
        tree.traces_dir = Path(traces)
        try:
            before = evaluate(student, val, metric, agent, "baseline")
            agent.stage = "optimising"
            kept = {n: getattr(student, n).deepcopy() for n in PROGRAMS if only and n not in only}
            tuned = _compile(optimizer, student, train, val, metric, backend, budget, seed)
            for name, program in kept.items():
                setattr(tuned, name, program)
            after = evaluate(tuned, val, metric, agent, "checking")
        except OptimizeStopped:
            return report.finish(None, None, None, stopped=True, note="stopped: nothing saved")
    mean_before, mean_after = _mean(before), _mean(after)
    if mean_after < mean_before or (require_gain and mean_after <= mean_before):
        worse = "no better" if mean_after == mean_before else "worse"
        note = f"not saved: it scored {worse} than the program in use on the validation questions"
        return report.finish(before, after, None, note=note)
    meta = {
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "optimizer": optimizer,
        "model": backend.model_id,
        "dataset": dataset,
        "library": str(library.root),
        "train_ids": list(ids[0]),
        "val_ids": list(ids[1]),
        "before": mean_before,
        "after": mean_after,
        "seconds": round(time.perf_counter() - started, 2),
        "from_version": report.from_version,
        "feedback_items": sum(1 for i in items if i.extra.get("source") == "feedback"),
        "budget": asdict(budget),
        "only": list(only),
        "seed": seed,
        "val_share": val_share,
    }
    path = save_programs(
        {"decide": tuned.decide, "answer": tuned.answer, "route": tuned.route},
        library.programs_dir,
        meta,
    )
    agent.progress(OptimizeProgress("saved", agent.runs, None, path.name))
    return report.finish(before, after, path)


def evaluate(
    program: AgentProgram,
    items: Sequence[BenchItem],
    metric: Callable[..., Any],
    agent: _SharedAgent,
    stage: Stage,
) -> dict[str, float]:
    """Each item's metric for ``program``, by id (the before and after figures)."""
    agent.stage = stage
    scores = {}
    for item in items:
        example = to_example(item)
        scores[item.id] = float(metric(example, program(**example.inputs())))
    return scores


def to_example(item: BenchItem) -> dspy.Example:
    """An item as the optimiser sees it: the question is the only input."""
    return dspy.Example(question=item.query, item_id=item.id).with_inputs("question")


def _compile(
    optimizer: str,
    student: AgentProgram,
    train: Sequence[BenchItem],
    val: Sequence[BenchItem],
    metric: Callable[..., Any],
    backend: TextBackend,
    budget: Budget,
    seed: int,
) -> AgentProgram:
    """Run the optimiser with ``backend`` as its prompt/reflection model. DSPy prints its
    progress bars to stdout; they go to stderr, where progress belongs."""
    from app.runtime.dspy_bridge import make_dspy_lm

    lm = make_dspy_lm(backend, max_tokens=1024)
    trainset, valset = [to_example(i) for i in train], [to_example(i) for i in val]
    with dspy.context(lm=lm), contextlib.redirect_stdout(sys.stderr):
        if optimizer == "gepa":
            from dspy.teleprompt.gepa.instruction_proposal import InstructionProposer

            auto = budget.auto
            gepa = dspy.GEPA(
                metric=metric,
                reflection_lm=lm,
                auto=auto,
                max_metric_calls=None if auto else budget.metric_calls,
                # The field format the agent's own prompts use: small models follow it best.
                instruction_proposer=InstructionProposer(adapter=dspy.ChatAdapter()),
                reflection_minibatch_size=min(3, len(trainset)),
                num_threads=1,
                seed=seed,
            )
            tuned = gepa.compile(student, trainset=trainset, valset=valset)
        else:
            mipro = dspy.MIPROv2(
                metric=metric,
                prompt_model=lm,
                task_model=lm,
                auto=budget.auto,
                num_candidates=None if budget.auto else budget.candidates,
                max_bootstrapped_demos=budget.demos,
                max_labeled_demos=0,  # a bare question is no demo for either predictor
                num_threads=1,  # one agent, one question at a time
                seed=seed,
                track_stats=False,
            )
            tuned = mipro.compile(
                student,
                trainset=trainset,
                valset=valset,
                num_trials=None if budget.auto else budget.trials,
                minibatch=False,
            )
    assert isinstance(tuned, AgentProgram)
    return tuned


class _Report:
    """Collects what the report needs while an optimisation runs."""

    def __init__(
        self,
        optimizer: str,
        model: str,
        ids: tuple[tuple[str, ...], tuple[str, ...]],
        from_version: str | None,
        started: float,
        agent: _SharedAgent,
    ) -> None:
        self.optimizer, self.model, self.ids = optimizer, model, ids
        self.from_version, self.started, self.agent = from_version, started, agent

    def finish(
        self,
        before: dict[str, float] | None,
        after: dict[str, float] | None,
        path: Path | None,
        *,
        stopped: bool = False,
        note: str = "",
    ) -> OptimizeReport:
        before = before or {}
        per_item = {i: (s, after.get(i) if after else None) for i, s in before.items()}
        return OptimizeReport(
            optimizer=self.optimizer,
            model=self.model,
            train_ids=self.ids[0],
            val_ids=self.ids[1],
            before=_mean(before),
            after=_mean(after) if after is not None else None,
            seconds=round(time.perf_counter() - self.started, 2),
            version=path.name if path else None,
            path=path,
            from_version=self.from_version,
            per_item=per_item,
            questions_run=self.agent.runs,
            stopped=stopped,
            note=note,
        )


def _mean(scores: Mapping[str, float] | None) -> float:
    return round(sum(scores.values()) / len(scores), 4) if scores else 0.0


def format_report(report: OptimizeReport) -> str:
    """The report as a few plain lines (the command line prints it)."""
    after = "-" if report.after is None else f"{report.after:.3f}"
    lines = [
        f"optimiser: {report.optimizer} on {report.model}"
        + (f", starting from {report.from_version}" if report.from_version else ""),
        f"train ({len(report.train_ids)}): {', '.join(report.train_ids)}",
        f"validation ({len(report.val_ids)}): {', '.join(report.val_ids)}",
        f"validation score: before {report.before:.3f}, after {after}",
        f"questions run: {report.questions_run} in {report.seconds:.1f} s",
    ]
    if report.path is not None:
        lines.append(f"saved {report.version}: {report.path}")
    if report.note:
        lines.append(report.note)
    return "\n".join(lines)
