"""Who picks the next tool: the rule-based policy, and the LLM policy with its guards.

The rule-based policy is the whole of no-LLM mode and the fallback of LLM mode: search
the question's text; if the best page is weakly supported, search once more with the
question's content words within the manuals the Atlas routes it to; look at page images
when visual search exists; then answer. It reads only confidences and what has run,
never page text, so nothing written in a manual can steer it.

The LLM policy asks the DecideNextStep signature (with the shared context). A reply that
cannot be read, names a tool that is not available, or gives inputs the tool rejects is
malformed: it is retried once with the problem in the context, then the rules decide.
Transient model errors are retried with backoff; a permanent one turns the LLM policy off
for the rest of the question.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from app.agent.follow_up import follow_up_query, previous_context
from app.agent.shadow import stated_confidence
from app.agent.state import TreeData
from app.agent.tools import ExternalClock, Tool
from app.agent.tools.answer import AnswerInputs
from app.agent.tools.text_search import TextSearchInputs
from app.agent.tools.visual_search import VisualSearchInputs
from app.retrieval.query import content_terms
from app.runtime.types import TextBackend

# Below this best-page confidence the question gets a second, reformulated search.
WEAK_CONFIDENCE = 0.5
# Below this, and with visual search installed, page images are searched too.
STRONG_CONFIDENCE = 0.8
# Words that ask to set products side by side; with two products named, each is searched.
COMPARISON = frozenset("compare comparison difference differences differ versus vs both".split())
MAX_PRODUCTS = 3
UNREAD = "the decision could not be read (fields missing or malformed)"


@dataclass(frozen=True, slots=True)
class Choice:
    """A decided step: the tool, its validated inputs, why, and who decided."""

    tool: str
    inputs: BaseModel
    reasoning: str
    source: str  # "rules", "llm", "auto" or "limit"


@dataclass(frozen=True, slots=True)
class PolicyOutcome:
    """A policy's answer: a choice, or None with the problems met on the way."""

    choice: Choice | None
    problems: tuple[str, ...] = ()
    permanent: bool = False  # the model cannot be used again this question
    calls: tuple[dict[str, Any], ...] = ()  # prompts and replies, for the trace
    confidence: float | None = None  # what the model stated for its choice


class RulePolicy:
    """The deterministic policy of no-LLM mode (see the module docstring)."""

    def decide(self, state: TreeData, tools: Mapping[str, Tool]) -> Choice:
        options = (self._first_search, self._per_product, self._second_search, self._visual)
        for option in options:
            choice = option(state, tools)
            if choice is not None and not _has_run(state, tools, choice):
                return choice
        why = "the searches found what the manuals hold on this; answer from it"
        return Choice("answer", AnswerInputs(), why, "rules")

    def _first_search(self, state: TreeData, tools: Mapping[str, Tool]) -> Choice | None:
        if "text_search" not in tools or state.searches:
            return None
        query, why = follow_up_query(state)
        documents: list[int] = []
        if query != state.prompt and not state.atlas.products_named(state.prompt):
            # A follow-up that names no manual: first where the last answer was found.
            documents = list(previous_context(state).documents)
            if documents:
                why += f", within {', '.join(state.atlas.titles(documents))} as last time"
        inputs = TextSearchInputs(query=query, documents=documents)
        return Choice("text_search", inputs, why, "rules")

    def _per_product(self, state: TreeData, tools: Mapping[str, Tool]) -> Choice | None:
        """A comparison of several products gets one search within each product's manuals,
        so each side is found on its own instead of the stronger one filling the list."""
        groups = state.atlas.products_named(state.prompt)
        words = {w.lower() for w in state.prompt.replace("?", " ").split()}
        if "text_search" not in tools or len(groups) < 2 or not words & COMPARISON:
            return None
        done = {frozenset(run.documents) for run in state.searches}
        for group in groups[:MAX_PRODUCTS]:
            if frozenset(group) not in done:
                others = [d for g in groups if g != group for d in g]
                query = key_words(state.prompt, state.atlas.product_words(others))
                titles = ", ".join(state.atlas.titles(group))
                why = f"a comparison: search {titles} on its own"
                return Choice(
                    "text_search",
                    TextSearchInputs(query=query, documents=list(group)),
                    why,
                    "rules",
                )
        return None

    def _second_search(self, state: TreeData, tools: Mapping[str, Tool]) -> Choice | None:
        best = state.best_confidence()
        if "text_search" not in tools or len(state.searches) != 1 or best >= WEAK_CONFIDENCE:
            return None
        first = state.searches[0].query
        documents = list(
            state.atlas.route(state.prompt) if state.route is None else state.route.documents
        )
        drop = state.atlas.product_words(documents) if documents else set()
        inputs = TextSearchInputs(query=key_words(first, drop) or first, documents=documents)
        where = ", ".join(state.atlas.titles(documents)) if documents else "every manual"
        why = (
            f"the best page is weakly supported ({best:.2f}): search again with the "
            f"question's key words in {where}"
        )
        return Choice("text_search", inputs, why, "rules")

    def _visual(self, state: TreeData, tools: Mapping[str, Tool]) -> Choice | None:
        if "visual_search" not in tools or state.best_confidence() >= STRONG_CONFIDENCE:
            return None
        why = "the text found is not conclusive: look for a table or diagram by its look"
        return Choice("visual_search", VisualSearchInputs(query=state.prompt), why, "rules")


def key_words(question: str, drop: Collection[str] = ()) -> str:
    """The question's content words (no function words) without ``drop`` (product
    names, once the search is limited to the product)."""

    def dropped(term: str) -> bool:
        return any(term == d or (len(term) >= 3 and d.startswith(term)) for d in drop)

    words = [t for t in content_terms(question) if not dropped(t)]
    return " ".join(words)


def _has_run(state: TreeData, tools: Mapping[str, Tool], choice: Choice) -> bool:
    tool = tools[choice.tool]
    return (choice.tool, tool.run_key(choice.inputs)) in state.ran


class LlmPolicy:
    """Decisions by the DecideNextStep signature on the local LLM, with the guards above.

    Args:
        llm: Returns the loaded backend (a registry handle's ``backend``).
        cancel: Returns the current question's cancel flag.
        sleep: Waits between retries of transient errors (tests pass a no-op).
        clock: Where the model calls' time is counted (the loop's cost is the rest).
    """

    def __init__(
        self,
        llm: Callable[[], TextBackend],
        cancel: Callable[[], Any] = lambda: None,
        sleep: Callable[[float], None] = time.sleep,
        clock: ExternalClock | None = None,
    ) -> None:
        from app.agent.context import ContextPredict
        from app.agent.signatures import DecideNextStep

        self.llm = llm
        self.cancel = cancel
        self.sleep = sleep
        self.clock = clock or ExternalClock()
        self.program = ContextPredict(DecideNextStep)

    def decide(
        self, state: TreeData, tools: Mapping[str, Tool], unavailable: Mapping[str, str]
    ) -> PolicyOutcome:
        """The model's choice; a malformed one is asked again once, with the problem added
        to the context's errors; None (and why) when it still is, or the model failed."""
        problems: list[str] = []
        calls: list[dict[str, Any]] = []
        for _attempt in range(2):
            outputs, call, kind = self._ask(state, tools, unavailable)
            calls.append(call)
            if kind not in ("ok", "malformed"):
                problems.append(f"the model could not decide: {call['error']}")
                return PolicyOutcome(None, tuple(problems), kind == "permanent", tuple(calls))
            choice, problem = validate(outputs, tools) if outputs is not None else (None, UNREAD)
            if choice is not None:
                stated = stated_confidence((outputs or {}).get("confidence"))
                return PolicyOutcome(choice, tuple(problems), False, tuple(calls), stated)
            problems.append(problem)
            state.add_error("decision", problem)
        return PolicyOutcome(None, tuple(problems), False, tuple(calls))

    def _ask(
        self, state: TreeData, tools: Mapping[str, Tool], unavailable: Mapping[str, str]
    ) -> tuple[dict[str, Any] | None, dict[str, Any], str]:
        """One decision call (transient errors retried): (outputs, trace record, kind)."""
        from app.agent.context import call_with_retry, classify_error, run_predict

        inputs = self.program.inputs(state, tools=tools_text(tools, unavailable))

        def call() -> tuple[dict[str, Any], list[dict[str, Any]], str]:
            return run_predict(self.llm(), self.program.predict, inputs, cancel=self.cancel())

        try:
            with self.clock.timing("llm"):
                outputs, prompt, reply = call_with_retry(call, sleep=self.sleep)
        except Exception as exc:
            kind = classify_error(exc)
            if kind == "cancelled":
                raise
            return None, {"error": str(exc), "reply": str(getattr(exc, "lm_response", ""))}, kind
        return outputs, {"prompt": prompt, "reply": reply}, "ok"


def validate(outputs: Mapping[str, Any], tools: Mapping[str, Tool]) -> tuple[Choice | None, str]:
    """A decision's outputs as a Choice, or why they are malformed."""
    name = str(outputs.get("tool") or "").strip().strip("`'\"").lower()
    if name not in tools:
        return None, f"{name!r} is not an available tool (choose one of {', '.join(tools)})"
    raw = outputs.get("tool_inputs") or {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            return None, f"the inputs for {name} are not a JSON object"
    try:
        inputs = tools[name].Inputs.model_validate(raw)
    except ValidationError as exc:
        return None, f"bad inputs for {name}: {exc.errors()[0]['msg']}"
    reasoning = str(outputs.get("reasoning") or "").strip() or "(no reason given)"
    return Choice(name, inputs, reasoning, "llm"), ""


def tools_text(tools: Mapping[str, Tool], unavailable: Mapping[str, str] | None = None) -> str:
    """The tools as the decision prompt lists them: signature and description."""
    lines = [f"{t.signature_text()} -- {' '.join(t.description().split())}" for t in tools.values()]
    for name, reason in (unavailable or {}).items():
        lines.append(f"(not available now: {name}: {reason})")
    return "\n".join(lines)


__all__: Sequence[str] = ("Choice", "LlmPolicy", "PolicyOutcome", "RulePolicy", "validate")
