"""Deep mode: an analyst drafts, a critic checks, a writer revises, up to N rounds.

For a question the router marks hard (or that asks to be checked carefully), or always
with the setting ``deep_mode = "on"``, the answer step becomes an actor-critic loop:

- the **analyst** drafts the answer from the numbered evidence (the AnswerQuestion program);
- the **critic** checks each claim against the pages it cites (the lexical check: words,
  numbers and codes), against the manuals' precedence (a newer revision over an older
  one, the exact model's manual over a family manual; ``app.agent.precedence``) and with
  the CritiqueAnswer signature on the model;
- the **writer** revises the draft with the critique and the sources (ReviseAnswer).

It stops when the critic approves or after ``deep_iterations`` rounds; claims still
unsupported then are dropped, as the plain critic does. Each round (inputs, outputs,
verdicts, timings) is written as JSON in ``<traces>/<run id>.deep/`` and shown in the
timeline as analyst, critic and writer steps.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

from app.agent.critic import CITATION, Verdict, check_lexically, revise
from app.agent.events import Answer, Error, Event, Result, Status
from app.agent.precedence import SourceInfo, precedence_problems, sources
from app.agent.state import TreeData
from app.agent.tools import ToolResult
from app.agent.tools.answer import AnswerInputs, AnswerTool, citation_for, render_evidence
from app.agent.tools.answer import stream_text as stream

log = logging.getLogger(__name__)


class ModelFailed(Exception):
    """A deep-mode model call failed (the message says why)."""


class DeepMode:
    """One question's analyst-critic-writer loop over the answer tool's evidence.

    Args:
        tool: The answer tool (its evidence, program and extractive fallback).
        folder: Where the rounds are written (None: nowhere).
        iterations: Most critic-writer rounds.
    """

    def __init__(self, tool: AnswerTool, folder: Path | None, iterations: int) -> None:
        self.tool = tool
        self.res = tool.resources
        self.folder = folder
        self.iterations = iterations
        self.files: list[str] = []

    def run(self, state: TreeData, inputs: AnswerInputs) -> Generator[Event, None, ToolResult]:
        tool = self.tool
        pages = tool.evidence_pages(state, inputs.refs)
        texts = {n: tool.page_text(state, item) for n, item in enumerate(pages, start=1)}
        evidence = render_evidence(pages, texts)
        products = {m.document_id: m.product for m in state.atlas.manuals}
        numbered = [(n, p.document_id, p.label) for n, p in enumerate(pages, start=1)]
        infos = sources(state.prompt, numbered, self.res.library.store, products)
        source_text = "\n".join(i.describe() for i in infos)
        yield Status("Deep mode: the analyst drafts the answer…", "analyst")
        try:
            started = time.perf_counter()
            draft_out = self._call(
                tool.program().predict, tool.program().inputs(state, evidence=evidence)
            )
            seconds = _since(started)
        except ModelFailed as exc:
            yield Error(
                f"deep mode: the analyst failed ({exc}); quoting the manuals instead", "analyst"
            )
            return (yield from tool.extractive(state, reset=True))
        answerable = bool(draft_out.get("answerable"))
        draft = str(draft_out.get("answer") or "").strip() if answerable else ""
        confidence = draft_out.get("confidence")
        said = (
            f"drafted {len(check_lexically(draft, texts).claims)} claims"
            if draft
            else ("found the evidence does not answer it")
        )
        yield Result("analyst", said, [], seconds, state.iteration)
        self._write(
            0,
            {
                "role": "analyst",
                "question": state.prompt,
                "evidence": evidence,
                "sources": source_text,
            },
            {"draft": draft, "answerable": answerable, "confidence": confidence},
            {},
            {"analyst": seconds},
        )
        base = {"answerable": answerable, "confidence": confidence}
        if not draft:
            event = tool.abstain(state, mode="llm")
            yield from stream(event.text)
            detail = {**base, "deep": self._summary(0, False), "critic": None}
            return ToolResult("abstained", "answer", answer=event, detail=detail)
        final, rounds, approved = yield from self._rounds(
            state, draft, evidence, texts, infos, source_text
        )
        verdict = check_lexically(final, texts)
        text = final if verdict.grounded else revise(final, verdict)
        if text is None:
            yield Status("Deep mode: no claim survived the critic; quoting the manuals", "critic")
            return (yield from tool.extractive(state, reset=True))
        yield from stream(text)
        numbers = [int(n) for n in CITATION.findall(text) if 0 < int(n) <= len(pages)]
        citations = [citation_for(item) for item in pages[: max(numbers, default=0)]]
        first = state.searches[0] if state.searches else None
        event = Answer(text, citations, False, tool.pages(state, first), 1.0, "llm")
        detail = {**base, "critic": _record(verdict), "deep": self._summary(rounds, approved)}
        cited = len(set(numbers))
        summary = f"answered after {rounds} deep round{'s' * (rounds != 1)}, {cited} citations"
        return ToolResult(summary, "answer", answer=event, detail=detail)

    def _rounds(
        self,
        state: TreeData,
        draft: str,
        evidence: str,
        texts: dict[int, str],
        infos: list[SourceInfo],
        source_text: str,
    ) -> Generator[Event, None, tuple[str, int, bool]]:
        """Critic and writer rounds: (the last draft, rounds run, approved)."""
        import dspy

        from app.agent.signatures import CritiqueAnswer, ReviseAnswer

        for round_ in range(1, self.iterations + 1):
            started = time.perf_counter()
            lexical = check_lexically(draft, texts)
            problems = [
                f"“{c.text}” is not supported by the evidence it cites" for c in lexical.unsupported
            ]
            problems += precedence_problems(lexical.claims, infos)
            critique_in = {"draft": draft, "evidence": evidence, "sources": source_text}
            try:
                model = self._call(dspy.Predict(CritiqueAnswer), critique_in)
                model_problems = [str(p) for p in model.get("problems") or [] if str(p).strip()]
                model_ok = bool(model.get("approved")) and not model_problems
            except ModelFailed as exc:
                model_problems, model_ok = [f"(the model's critique failed: {exc})"], True
            problems += [p for p in model_problems if not p.startswith("(")]
            approved = model_ok and not problems
            critic_seconds = _since(started)
            said = (
                "approved every claim" if approved else f"{len(problems)} problem(s): {problems[0]}"
            )
            yield Result("critic", f"round {round_}: {said}", [], critic_seconds, state.iteration)
            verdicts = {
                "lexical": _record(lexical),
                "precedence": precedence_problems(lexical.claims, infos),
                "model": {"approved": model_ok, "problems": model_problems},
                "approved": approved,
            }
            timings = {"critic": critic_seconds}
            if approved:
                self._write(round_, {"draft": draft}, {"critique": []}, verdicts, timings)
                return draft, round_, True
            started = time.perf_counter()
            revise_in = {**critique_in, "critique": "\n".join(problems)}
            try:
                revised = str(
                    self._call(dspy.Predict(ReviseAnswer), revise_in).get("answer") or ""
                ).strip()
            except ModelFailed as exc:
                revised = ""
                yield Error(f"deep mode: the writer failed ({exc})", "writer")
            timings["writer"] = _since(started)
            self._write(
                round_,
                {"draft": draft, "sources": source_text},
                {"critique": problems, "revised": revised},
                verdicts,
                timings,
            )
            if not revised:
                return draft, round_, False
            yield Result(
                "writer",
                f"round {round_}: revised the answer for {len(problems)} problem(s)",
                [],
                timings["writer"],
                state.iteration,
            )
            draft = revised
        return draft, self.iterations, False

    def _call(self, predict: Callable[..., Any], inputs: dict[str, Any]) -> dict[str, Any]:
        """One model call on the question's (counted) LLM; ModelFailed when it fails."""
        from app.agent.context import call_with_retry, classify_error, run_predict

        llm = self.res.llm
        assert llm is not None
        try:
            with self.res.clock.timing("llm"):
                outputs, _, _ = call_with_retry(
                    lambda: run_predict(
                        llm(), predict, inputs, cancel=self.res.cancel, max_tokens=768
                    )
                )
        except Exception as exc:
            if classify_error(exc) == "cancelled":
                raise
            raise ModelFailed(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from exc
        return outputs

    def _write(
        self,
        round_: int,
        inputs: dict[str, Any],
        outputs: dict[str, Any],
        verdicts: dict[str, Any],
        timings: dict[str, float],
    ) -> None:
        """Save one round as ``iteration-NN.json`` (never failing the question)."""
        if self.folder is None:
            return
        path = self.folder / f"iteration-{round_:02d}.json"
        record = {
            "iteration": round_,
            "inputs": inputs,
            "outputs": outputs,
            "verdicts": verdicts,
            "timings": timings,
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(record, ensure_ascii=False, indent=1, default=str), "utf-8")
        except OSError as exc:
            log.warning("cannot write the deep-mode round %s: %s", path, exc)
            return
        self.files.append(str(path))

    def _summary(self, rounds: int, approved: bool) -> dict[str, Any]:
        return {
            "rounds": rounds,
            "approved": approved,
            "files": list(self.files),
            "folder": str(self.folder or ""),
        }


def _record(verdict: Verdict) -> dict[str, Any]:
    return {
        "grounded": verdict.grounded,
        "method": verdict.method,
        "unsupported": [c.text for c in verdict.unsupported],
    }


def _since(started: float) -> float:
    return round(time.perf_counter() - started, 4)


def wanted(setting: str, state: TreeData) -> bool:
    """Whether deep mode runs for this question: always when "on"; when "automatic", for a
    question routed as hard or one that asks to be checked carefully; never when "off"."""
    from app.agent.route import asks_carefully

    if setting == "on":
        return True
    hard = bool(getattr(state.route, "hard", False)) or asks_carefully(state.prompt)
    return setting == "automatic" and hard
