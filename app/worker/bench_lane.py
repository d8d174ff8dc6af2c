"""The worker process's benchmark lane: runs a dataset blind, judges, saves the run;
answers and judges single questions for the interactive mode; optimises the prompts.

A lane of its own (own thread, own SQLite connection, own answerer built the way the
answer lane builds it) so a long run never holds up a question asked in the conversation.
A run goes one question at a time and looks at its stop flag between questions; each
finished record goes to the window at once. No Qt here: this runs in the worker process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from app.config import Settings
from app.worker.answerers import load_factory
from app.worker.bench_messages import (
    AutoOptimiseRequest,
    BenchAnswered,
    BenchAskRequest,
    BenchFinished,
    BenchJudgeRequest,
    BenchRunRequest,
    BenchStarted,
    BenchStep,
    BenchVerdict,
    LearningRequest,
    OptimizeRequest,
    OptimizeUpdate,
)
from app.worker.lanes import Lane, Send, llm_choice_of, llm_of, plain


def mode_of(answerer: Any) -> str:
    """The answerer's mode as a saved run records it: the LLM's model id, or "no-LLM"."""
    if getattr(answerer, "mode", "") != "llm":
        return "no-LLM"
    return llm_choice_of(answerer).model_id or "LLM"


class BenchLane(Lane):
    """Benchmark runs, interactive questions and judging, and prompt optimisation."""

    def __init__(
        self, settings: Settings, send: Send, factory: str, on_programs_changed: Callable[[], None]
    ) -> None:
        super().__init__("bench", settings, send)
        self.factory = factory
        self.on_programs_changed = on_programs_changed
        self.stops: dict[int, threading.Event] = {}
        self.library_version = 0
        self._answerer: tuple[int, Any] | None = None
        self._judge: tuple[int, Any] | None = None

    def stop_event(self, job: int) -> threading.Event:
        return self.stops.setdefault(job, threading.Event())

    def answerer(self) -> Any:
        """Built on first use and again after the library (or the saved programs) changed."""
        if self._answerer is None or self._answerer[0] != self.library_version:
            assert self.library is not None
            made = load_factory(self.factory)(self.library, self.settings)
            self._answerer = (self.library_version, made)
        return self._answerer[1]

    def judge(self) -> Any:
        """The LLM judge on the answerer's LLM, else the deterministic key-fact check."""
        answerer = self.answerer()
        if self._judge is None or self._judge[0] != id(answerer):
            from app.bench.judge import make_judge

            self._judge = (id(answerer), make_judge(llm_of(answerer)))
        return self._judge[1]

    def ask(self, question: str) -> Iterator[Any]:
        """Blind: the answerer gets the question text and nothing else."""
        return self.answerer().ask(question, [], None)  # type: ignore[no-any-return]

    def handle(self, request: Any) -> None:
        if isinstance(request, BenchRunRequest):
            try:
                self._run(request)
            except Exception as exc:  # the window must learn that the run ended
                self.send(BenchFinished(request.job, None, error=f"{type(exc).__name__}: {exc}"))
            finally:
                self.stops.pop(request.job, None)
        elif isinstance(request, BenchAskRequest):
            self._ask(request)
        elif isinstance(request, BenchJudgeRequest):
            self._judge_one(request)
        elif isinstance(request, OptimizeRequest):
            self._optimize(request)
        elif isinstance(request, LearningRequest | AutoOptimiseRequest):
            from app.worker import learning_lane

            learning_lane.handle(self, request)

    # ---- a run -------------------------------------------------------------------------
    def _run(self, request: BenchRunRequest) -> None:
        from app.bench.dataset import DatasetError, load_dataset
        from app.bench.runner import BenchProgress, run_bench
        from app.bench.runs import now_iso

        stop = self.stop_event(request.job)
        try:
            items = load_dataset(Path(request.dataset))
        except DatasetError as exc:
            self.send(BenchFinished(request.job, None, error=str(exc)))
            return
        started = now_iso()
        answerer, judge = self.answerer(), self.judge()
        mode = mode_of(answerer)
        self.send(BenchStarted(request.job, len(items), items[0].query, mode, judge.method))
        result: dict[str, Any] = {}
        from app.bench.outcomes import judge_labeller

        assert self.library is not None
        label = judge_labeller(self.library.store)  # the judge's scores label the decisions
        for event in run_bench(
            items, self.ask, judge=judge, should_stop=stop.is_set, on_judged=label
        ):
            if isinstance(event, BenchProgress):
                more = event.done < len(items) and not stop.is_set()
                following = items[event.done].query if more else ""
                self.send(
                    BenchStep(request.job, event.done, event.total, event.record or {}, following)
                )
            else:
                result = event
        self._add_regions(items, result)
        meta = self._meta(request.dataset, started, mode, judge, result)
        run_id, run = self._save(result, meta)
        self.send(BenchFinished(request.job, run, run_id, bool(result.get("stopped"))))
        from app.worker import learning_lane

        learning_lane.after_run(self)  # the judge labelled decisions: an optimisation due?

    def _add_regions(self, items: list[Any], result: dict[str, Any]) -> None:
        """The highlights' figures, as the ``bench`` command adds them."""
        from app.bench.regions import region_figures, summarise_regions

        assert self.library is not None
        records = result["records"]
        done = {r["id"] for r in records}
        by_id = {i.id: i for i in items if i.id in done}
        for record in records:
            record["regions"] = region_figures(self.library.store, by_id[record["id"]], record)
        result["summary"]["regions"] = summarise_regions([by_id[r["id"]] for r in records], records)

    def _meta(
        self, dataset: str, started: str, mode: str, judge: Any, result: dict[str, Any]
    ) -> Any:
        from app.bench.runs import RunMeta, now_iso

        assert self.library is not None
        return RunMeta(
            dataset_path=str(Path(dataset).resolve()),
            dataset_name=Path(dataset).stem,
            library_path=str(self.library.root),
            started=started,
            finished=now_iso(),
            mode=mode,
            judge_method=judge.method,
            program_version=_run_version(result["records"]) or self._program_version(),
            questions=len(result["records"]),
            stopped=bool(result.get("stopped")),
        )

    def _program_version(self) -> str | None:
        """The saved program version the agent loaded (None: the built-in prompts)."""
        from app.agent.service import program_version

        tree = getattr(self.answerer(), "_tree", None)
        return program_version(tree) if tree is not None else None

    def _save(self, result: dict[str, Any], meta: Any) -> tuple[str, dict[str, Any]]:
        from app.bench.runs import RunStore, runs_dir

        assert self.library is not None
        store = RunStore(runs_dir(self.library.root))
        info = store.save(result, meta)
        return info.id, store.load(info.id)

    # ---- interactive mode --------------------------------------------------------------
    def _ask(self, request: BenchAskRequest) -> None:
        from app.bench.runner import ask_blind

        try:
            record = ask_blind(request.question, self.ask)
        except Exception as exc:
            self.send(BenchAnswered(request.job, None, f"{type(exc).__name__}: {exc}"))
            return
        self.send(BenchAnswered(request.job, record))

    def _judge_one(self, request: BenchJudgeRequest) -> None:
        if request.repeats > 1:
            self._judge_repeatedly(request)
            return
        try:
            verdict = self.judge().judge(request.item, request.answer, request.abstained)
        except Exception as exc:
            self.send(BenchVerdict(request.job, None, f"{type(exc).__name__}: {exc}"))
            return
        self.send(BenchVerdict(request.job, verdict.to_dict()))

    def _judge_repeatedly(self, request: BenchJudgeRequest) -> None:
        """The same answer judged ``repeats`` times: how steady the judge's score is."""
        from app.bench.judge import judge_consistency

        try:
            figures = judge_consistency(
                self.judge(), request.item, request.answer, request.abstained, request.repeats
            )
        except Exception as exc:
            self.send(BenchVerdict(request.job, None, f"{type(exc).__name__}: {exc}"))
            return
        self.send(BenchVerdict(request.job, None, consistency=figures))

    # ---- optimisation ------------------------------------------------------------------
    def _optimize(self, request: OptimizeRequest) -> None:
        job = request.job
        try:
            llm = llm_of(self.answerer())
            if llm is None:
                raise RuntimeError("optimising the prompts needs an LLM, and none is installed")
            report = self._run_optimizer(request, llm)
        except Exception as exc:
            self.send(OptimizeUpdate(job, "", True, None, f"{exc}"))
            return
        finally:
            self.stops.pop(job, None)
        if report.get("version"):
            self._answerer = None  # the next run loads the new programs, as does the chat
            self.on_programs_changed()
        self.send(OptimizeUpdate(job, "finished", True, report))

    def _run_optimizer(self, request: OptimizeRequest, llm: Callable[[], Any]) -> dict[str, Any]:
        from app.bench.dataset import load_dataset
        from app.bench.optimize import optimize

        assert self.library is not None
        items = load_dataset(Path(request.dataset))
        if request.with_feedback:
            from app.bench.feedback import FeedbackStore

            items += FeedbackStore(self.library.store).training_items()
        stop = self.stop_event(request.job)

        def progress(step: Any) -> None:
            total = f"/{step.total}" if step.total else ""
            text = f"{step.stage}: {step.done}{total} {step.message}".strip()
            self.send(OptimizeUpdate(request.job, text))

        report = optimize(
            self.library,
            self.settings,
            items,
            backend=llm(),
            optimizer=request.optimizer,
            val_share=request.val_share,
            progress=progress,
            should_stop=stop.is_set,
            dataset=request.dataset,
        )
        return plain(report.to_dict())


def _run_version(records: list[dict[str, Any]]) -> str | None:
    """The program version the run's answers name (their traces' version)."""
    versions = {str(r.get("program_version") or "") for r in records} - {""}
    return ", ".join(sorted(versions)) or None
