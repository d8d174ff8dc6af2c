"""The arbiter: for each decision of a question, the rules' choice and the LLM's, one picked.

Three decisions are arbitrated (see ``app.agent.shadow``): the ``route`` at the start of a
question, each ``next_step``, and whether to ``answer`` or abstain. The LLM's choice runs
only when its calibrated confidence reaches the threshold; both sides are written to the
question's ShadowLog, which goes to the trace and the decision book.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator
from typing import Any

from app.agent.events import Event, Status
from app.agent.policy import Choice, PolicyOutcome
from app.agent.route import Route, llm_route, rule_route
from app.agent.shadow import Calibrator, ShadowLog, ShadowRecord, arbitrate, stated_confidence
from app.agent.state import TreeData
from app.agent.tools import ExternalClock, Tool, ToolResult

log = logging.getLogger(__name__)
ROUTE_CONTEXT = ("question", "history", "atlas")


class Arbiter:
    """Arbitrates one agent's decisions; ``start`` readies it for a question.

    Args:
        threshold: The calibrated confidence the LLM needs to override the rules.
        clock: Where model time is counted.
    """

    def __init__(self, threshold: float, clock: ExternalClock | None = None) -> None:
        self.threshold = threshold
        self.clock = clock or ExternalClock()
        self.calibrator = Calibrator()
        self.log = ShadowLog()
        self.route_calls: list[dict[str, Any]] = []
        self._route_program: Any = None

    def start(self, calibrator: Calibrator) -> None:
        self.calibrator = calibrator
        self.log = ShadowLog()
        self.route_calls = []

    # ---- route -----------------------------------------------------------------------
    def route(self, state: TreeData, llm: Callable[[], Any] | None, cancel: Any = None) -> Route:
        """The question's route (set on the state): the rules', or the model's when it is
        confident enough."""
        rule = rule_route(state)
        inputs = {"question": state.prompt}
        if llm is None or state.llm_off:
            state.route = rule
            self.log.add(
                ShadowRecord(
                    "route",
                    0,
                    inputs,
                    rule.choice(state),
                    None,
                    None,
                    None,
                    "rules",
                    "no model asked",
                )
            )
            return rule
        outputs, why = self._ask_route(state, llm, cancel)
        model = llm_route(outputs, state) if outputs is not None else None
        stated = stated_confidence((outputs or {}).get("confidence"))
        if model is None:
            why = why or "the model's route could not be read"
            used, calibrated = "rules", None
        else:
            wins, calibrated, why = arbitrate("route", stated, self.calibrator, self.threshold)
            used = "llm" if wins else "rules"
        chosen = model if used == "llm" and model is not None else rule
        state.route = chosen
        self.log.add(
            ShadowRecord(
                "route",
                0,
                inputs,
                rule.choice(state),
                model.choice(state) if model else None,
                stated,
                calibrated,
                used,
                why,
            )
        )
        return chosen

    def _ask_route(
        self, state: TreeData, llm: Callable[[], Any], cancel: Any
    ) -> tuple[dict[str, Any] | None, str]:
        from app.agent.context import ContextPredict, call_with_retry, classify_error, run_predict
        from app.agent.signatures import RouteQuestion

        if self._route_program is None:
            self._route_program = ContextPredict(RouteQuestion, fields=ROUTE_CONTEXT)
        inputs = self._route_program.inputs(state)
        try:
            with self.clock.timing("llm"):
                outputs, prompt, reply = call_with_retry(
                    lambda: run_predict(llm(), self._route_program.predict, inputs, cancel=cancel)
                )
        except Exception as exc:
            if classify_error(exc) == "cancelled":
                raise
            log.info("the model's route failed: %s", exc)
            self.route_calls.append({"error": str(exc)})
            return None, f"the model could not route: {exc}"
        self.route_calls.append({"prompt": prompt, "reply": reply})
        return outputs, ""

    @property
    def route_program(self) -> Any:
        """The route's DSPy program (built on first use), to optimise, save and load."""
        if self._route_program is None:
            from app.agent.context import ContextPredict
            from app.agent.signatures import RouteQuestion

            self._route_program = ContextPredict(RouteQuestion, fields=ROUTE_CONTEXT)
        return self._route_program

    @route_program.setter
    def route_program(self, program: Any) -> None:
        self._route_program = program

    # ---- next step -------------------------------------------------------------------
    def next_step(
        self, state: TreeData, rule: Choice, outcome: PolicyOutcome | None, model: Choice | None
    ) -> Choice:
        """The step to take: the model's choice when it stands, else the rules'."""
        step = state.iteration + 1
        inputs = {"question": state.prompt, "step": step, "tasks": [t.tool for t in state.tasks]}
        if model is None:
            why = "no model asked" if outcome is None else "the model gave no usable choice"
            self.log.add(
                ShadowRecord("next_step", step, inputs, _step(rule), None, None, None, "rules", why)
            )
            return rule
        stated = outcome.confidence if outcome is not None else None
        wins, calibrated, why = arbitrate("next_step", stated, self.calibrator, self.threshold)
        used = "llm" if wins else "rules"
        self.log.add(
            ShadowRecord(
                "next_step", step, inputs, _step(rule), _step(model), stated, calibrated, used, why
            )
        )
        if wins:
            return model
        note = f" (the model chose {model.tool}; {why})"
        return Choice(rule.tool, rule.inputs, rule.reasoning + note, rule.source)

    # ---- answer or abstain -----------------------------------------------------------
    def answer(
        self, state: TreeData, tool: Tool, result: ToolResult
    ) -> Generator[Event, None, ToolResult]:
        """Whether the question is answered or declined: the model's call (its
        ``answerable``) when it stands, else the rules' (the extractive answerer's)."""
        assert result.answer is not None
        step = state.iteration
        inputs = {"question": state.prompt, "pages": [p.ref for p in state.environment.pages()]}
        detail = result.detail
        if "answerable" not in detail:
            rule = {"abstain": result.answer.abstained}
            self.log.add(
                ShadowRecord(
                    "answer",
                    step,
                    inputs,
                    rule,
                    None,
                    None,
                    None,
                    "rules",
                    "answered without the model",
                )
            )
            return result
        best = tool.best_quotes(state)  # type: ignore[attr-defined]
        rule_abstains = best is None or best[1].abstained
        model = {"abstain": not detail["answerable"]}
        stated = stated_confidence(detail.get("confidence"))
        wins, calibrated, why = arbitrate("answer", stated, self.calibrator, self.threshold)
        used = "llm" if wins or model["abstain"] == rule_abstains else "rules"
        self.log.add(
            ShadowRecord(
                "answer",
                step,
                inputs,
                {"abstain": rule_abstains},
                model,
                stated,
                calibrated,
                used,
                why,
            )
        )
        if used == "llm":
            return result
        yield Status(f"The rules decide whether to answer: {why}", tool.name)
        replaced: ToolResult = yield from tool.extractive(state, reset=True)  # type: ignore[attr-defined]
        return replaced


def _step(choice: Choice) -> dict[str, Any]:
    return {"tool": choice.tool, "inputs": choice.inputs.model_dump()}
