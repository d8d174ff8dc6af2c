"""The judge: how good an answer is next to the dataset's ground truth, as a 0-100 score.

Only the judge sees the ground truth (the agent answers blind). ``LlmJudge`` runs the
``JudgeAnswer`` signature on the local LLM at temperature 0; ``KeyFactJudge`` is the
deterministic check used without an LLM, and what a malformed LLM verdict falls back to.
Both follow the same rule for unanswerable questions (abstaining scores 100, answering 0)
and for abstentions on answerable ones (0), so the model is asked only about real answers.
``judge_consistency`` judges one answer repeatedly to show how steady the scores are.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import dspy

from app.bench.dataset import BenchItem
from app.bench.metrics import fact_found
from app.retrieval.query import content_terms, stem, stems_of
from app.runtime.types import Cancel, TextBackend

JudgeMethod = Literal["llm", "key-facts"]
NO_LLM = "Deterministic key-fact check, because no LLM is installed"


class JudgeAnswer(dspy.Signature):
    """Grade an answer to a technician's question against the ground truth from the manuals.

    List the key facts the answer leaves out and the facts it gets wrong (a different value,
    code, terminal or step than the ground truth). Then score it from 0 to 100: 100 when it
    states every key fact correctly and contradicts nothing, 0 when it is wrong or says the
    manuals don't answer. Wording, extra detail and citations like [1] do not lower the
    score; a wrong value lowers it more than a missing one."""

    question: str = dspy.InputField()
    ground_truth: str = dspy.InputField(desc="the correct answer, from the manuals")
    key_facts: list[str] = dspy.InputField(desc="values a correct answer must contain")
    answer: str = dspy.InputField(desc="the answer to grade")
    reasoning: str = dspy.OutputField(desc="one or two sentences: why this score")
    missing_facts: list[str] = dspy.OutputField(desc="key facts the answer lacks; [] if none")
    incorrect_facts: list[str] = dspy.OutputField(
        desc="statements of the answer that contradict the ground truth; [] if none"
    )
    score: int = dspy.OutputField(desc="0 to 100")


@dataclass(frozen=True, slots=True)
class Verdict:
    """One judged answer. ``method`` says which judge reached it: "llm" or "key-facts"
    (the deterministic check, also used when the LLM's verdict did not parse)."""

    score: int
    reasoning: str
    missing_facts: tuple[str, ...] = ()
    incorrect_facts: tuple[str, ...] = ()
    method: JudgeMethod = "key-facts"

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "reasoning": self.reasoning,
            "missing_facts": list(self.missing_facts),
            "incorrect_facts": list(self.incorrect_facts),
            "method": self.method,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        method = data.get("method", "key-facts")
        return cls(
            score=int(data.get("score", 0)),
            reasoning=str(data.get("reasoning", "")),
            missing_facts=tuple(str(f) for f in data.get("missing_facts") or ()),
            incorrect_facts=tuple(str(f) for f in data.get("incorrect_facts") or ()),
            method="llm" if method == "llm" else "key-facts",
        )


def rule_verdict(item: BenchItem, abstained: bool, method: JudgeMethod) -> Verdict | None:
    """The verdict no judging is needed for: unanswerable questions, and abstentions."""
    if item.unanswerable:
        if abstained:
            return Verdict(
                100, "The manuals do not answer this; the answer says so.", (), (), method
            )
        return Verdict(
            0, "The manuals do not answer this, yet an answer was given.", (), (), method
        )
    if abstained:
        return Verdict(
            0, "The answer abstains, but the manuals answer this.", item.key_facts, (), method
        )
    return None


class KeyFactJudge:
    """The deterministic judge: the share of the item's key facts found in the answer.

    Items without key facts (the older dataset format) are scored by the share of the
    ground-truth answer's words the answer contains. ``note`` opens every reasoning, so a
    reader knows why no model judged it.
    """

    method: JudgeMethod = "key-facts"

    def __init__(self, note: str = NO_LLM) -> None:
        self.note = note

    @property
    def description(self) -> str:
        return self.note

    def judge(self, item: BenchItem, answer: str, abstained: bool) -> Verdict:
        ruled = rule_verdict(item, abstained, self.method)
        if ruled is not None:
            return ruled
        if item.key_facts:
            found = [f for f in item.key_facts if fact_found(f, answer)]
            missing = tuple(f for f in item.key_facts if f not in found)
            score = round(100 * len(found) / len(item.key_facts))
            why = f"{len(found)} of {len(item.key_facts)} key facts found in the answer."
            return Verdict(score, f"{self.note}: {why}", missing, (), self.method)
        return self._overlap(item, answer)

    def _overlap(self, item: BenchItem, answer: str) -> Verdict:
        words = {stem(t) for t in content_terms(item.answer)}
        if not words:
            why = "the item has neither key facts nor a ground-truth answer to compare with."
            return Verdict(0, f"{self.note}: {why}", (), (), self.method)
        shared = words & stems_of(answer)
        why = (
            f"the item has no key facts, so the score is the share of the ground-truth "
            f"answer's words found in the answer ({len(shared)} of {len(words)})."
        )
        score = round(100 * len(shared) / len(words))
        return Verdict(score, f"{self.note}: {why}", (), (), self.method)


class LlmJudge:
    """The JudgeAnswer signature run on a Lantern text backend through the DSPy bridge.

    Args:
        backend: The text backend, or a function returning it (loaded on first use).
        temperature: 0 for a repeatable verdict; above 0 only to probe consistency.
        max_tokens: Room for the reasoning and the fact lists.
        cancel: Flag checked between tokens; a cancelled verdict raises GenerationCancelled
            instead of falling back.
    """

    method: JudgeMethod = "llm"

    def __init__(
        self,
        backend: TextBackend | Callable[[], TextBackend],
        *,
        temperature: float = 0.0,
        max_tokens: int = 400,
        cancel: Cancel = None,
    ) -> None:
        self._backend = backend
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.cancel = cancel

    @property
    def backend(self) -> TextBackend:
        if not hasattr(self._backend, "stream"):
            self._backend = self._backend()  # type: ignore[operator]
        return self._backend  # type: ignore[return-value]

    @property
    def description(self) -> str:
        return f"LLM judge ({self.backend.model_id}, temperature {self.temperature:g})"

    def with_temperature(self, temperature: float) -> LlmJudge:
        return LlmJudge(
            self._backend, temperature=temperature, max_tokens=self.max_tokens, cancel=self.cancel
        )

    def judge(self, item: BenchItem, answer: str, abstained: bool) -> Verdict:
        ruled = rule_verdict(item, abstained, self.method)
        if ruled is not None:
            return ruled
        try:
            outputs = self._ask(item, answer)
            return self._verdict(outputs)
        except Exception as exc:
            from app.agent.context import classify_error
            from app.runtime.dspy_bridge import GenerationCancelled

            if classify_error(exc) == "cancelled":
                raise GenerationCancelled("cancelled while the judge was answering") from exc
            note = (
                f"The judge model's reply could not be used ({_first_line(exc)}); "
                "deterministic key-fact check instead"
            )
            return KeyFactJudge(note).judge(item, answer, abstained)

    def _ask(self, item: BenchItem, answer: str) -> dict[str, Any]:
        from app.runtime.dspy_bridge import make_dspy_lm

        lm = make_dspy_lm(
            self.backend,
            cancel=self.cancel,
            default_max_tokens=self.max_tokens,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
        )
        inputs = {
            "question": item.query,
            "ground_truth": item.answer,
            "key_facts": list(item.key_facts),
            "answer": answer,
        }
        # No JSON retry: a malformed verdict falls back to the key-fact check at once.
        with dspy.context(lm=lm, adapter=dspy.ChatAdapter(use_json_adapter_fallback=False)):
            return dict(dspy.Predict(JudgeAnswer)(**inputs).items())

    def _verdict(self, outputs: dict[str, Any]) -> Verdict:
        score = outputs.get("score")
        if not isinstance(score, int | float):
            raise ValueError(f"score is not a number: {score!r}")
        return Verdict(
            score=max(0, min(100, round(score))),
            reasoning=str(outputs.get("reasoning") or "").strip(),
            missing_facts=_strings(outputs.get("missing_facts")),
            incorrect_facts=_strings(outputs.get("incorrect_facts")),
            method="llm",
        )


class Judge(Protocol):
    """What the runner needs of a judge (KeyFactJudge, LlmJudge, or a test's own)."""

    method: JudgeMethod

    def judge(self, item: BenchItem, answer: str, abstained: bool) -> Verdict: ...


def make_judge(
    llm_backend: TextBackend | Callable[[], TextBackend] | None, *, cancel: Cancel = None
) -> KeyFactJudge | LlmJudge:
    """The LLM judge when there is an LLM, else the deterministic key-fact judge."""
    if llm_backend is None:
        return KeyFactJudge()
    return LlmJudge(llm_backend, cancel=cancel)


def judge_consistency(
    judge: Judge,
    item: BenchItem,
    answer: str,
    abstained: bool,
    repeats: int = 5,
    *,
    temperature: float | None = None,
) -> dict[str, Any]:
    """Judge the same answer ``repeats`` times: the scores and how far apart they are.

    At temperature 0 a steady judge gives one score every time; ``temperature`` (LLM judge
    only) samples instead, to see how much the verdict depends on chance.
    """
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    if temperature is not None and isinstance(judge, LlmJudge):
        judge = judge.with_temperature(temperature)
    verdicts = [judge.judge(item, answer, abstained) for _ in range(repeats)]
    scores = [v.score for v in verdicts]
    return {
        "repeats": repeats,
        "method": judge.method,
        "temperature": getattr(judge, "temperature", None),
        "scores": scores,
        "mean": round(statistics.fmean(scores), 2),
        "stdev": round(statistics.pstdev(scores), 2),
        "min": min(scores),
        "max": max(scores),
        "spread": max(scores) - min(scores),
        "fallbacks": sum(v.method != judge.method for v in verdicts),
    }


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value] if value.strip() not in ("", "[]") else []
    return tuple(str(v).strip() for v in value if str(v).strip())


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0].strip()}" if text else type(exc).__name__
