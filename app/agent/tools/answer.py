"""answer: write the final answer with numbered citations, check it, and end the loop.

Without an LLM the extractive answerer quotes the sentences that answer the question
(trying each search the question ran and keeping the best supported quotes). With one, the
AnswerQuestion signature streams the answer token by token from the best pages. Either way
the critic checks every claim against the page it cites before the answer is final; an
unsupported answer is revised, or replaced by "the manuals don't say" naming what was
searched.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from app.agent.critic import CITATION, abstention, check_lexically, revise
from app.agent.events import Answer, CitationOut, Error, Event, PageOut, Status, Token
from app.agent.extractive import (
    Citation,
    Evidence,
    ExtractiveAnswer,
    answer_from_search,
    answer_manuals,
    foreign_in,
)
from app.agent.state import Found, SearchRun, TreeData
from app.agent.tools import Tool, ToolResult, ToolRun
from app.library.models import Box
from app.retrieval.fusion import fuse
from app.runtime.dspy_bridge import GenerationCancelled

T = TypeVar("T")
# A later search's quotes replace the first search's only when the abstention model is
# clearly surer they answer the question.
PROBABILITY_MARGIN = 0.05
TOKEN_CHARS = 24
EVIDENCE_PAGES = 4
EVIDENCE_CHARS = 1800
# The answer signature sees the question, the conversation and the Atlas; the environment
# reaches it as the numbered evidence instead.
ANSWER_CONTEXT = ("question", "history", "atlas")


class AnswerInputs(BaseModel):
    refs: list[str] = Field(
        default_factory=list,
        description="reference ids of the pages to answer from (empty: the best ones)",
    )


class AnswerTool(Tool):
    """Write the final answer from the pages found so far, with numbered citations, or say
    the manuals don't answer it. Ends the run: choose it when the environment holds the
    answer or when more searching will not help."""

    name = "answer"
    Inputs = AnswerInputs
    ends_loop = True

    def run_key(self, inputs: BaseModel) -> str:
        return "answer"  # one answer per question, whatever it is asked to cite

    def __call__(self, state: TreeData, inputs: BaseModel) -> ToolRun:
        assert isinstance(inputs, AnswerInputs)
        if self.resources.llm is not None and state.environment.pages():
            return (yield from self.with_llm(state, inputs))
        return (yield from self.extractive(state))

    def foreign(self, state: TreeData) -> tuple[str, ...]:
        """The equipment the question names that no manual mentions (``foreign_in``), read
        once per question: an LLM answer that falls back to quotes asks again."""
        key = (self.name, "foreign")
        if key not in state.cache:
            state.cache[key] = foreign_in(state.prompt, self.resources.text_search)
        return tuple(state.cache[key])

    # ---- LLM ---------------------------------------------------------------------------
    def with_llm(self, state: TreeData, inputs: AnswerInputs) -> Generator[Event, None, ToolResult]:
        """Stream the AnswerQuestion signature's answer, then let the critic judge it. A
        question about equipment no manual of the library mentions is declined first: a
        model handed another manual's pages would answer from them."""
        foreign = self.foreign(state)
        if foreign:
            event = self.abstain(state, mode="llm", foreign=foreign)
            yield from stream_text(event.text)
            return ToolResult("abstained", "answer", answer=event, detail={"critic": None})
        evidence = self.evidence_pages(state, inputs.refs)
        texts = {n: self.page_text(state, item) for n, item in enumerate(evidence, start=1)}
        yield Status("Writing the answer…", self.name)
        written = yield from self._write(state, render_evidence(evidence, texts))
        if written is None:
            return (yield from self.extractive(state, reset=True))
        text, detail = written
        if not text:
            event = self.abstain(state, mode="llm")
            yield from stream_text(event.text, reset=True)
            return ToolResult("abstained", "answer", answer=event, detail=detail)
        final = self._critique(text, detail, texts)
        if final is None:
            return (yield from self.extractive(state, reset=True))
        if final != text:
            yield from stream_text(final, reset=True)
        numbers = [int(n) for n in CITATION.findall(final) if 0 < int(n) <= len(evidence)]
        citations = [citation_for(item) for item in evidence[: max(numbers, default=0)]]
        event = Answer(final, citations, False, self.pages(state, _first(state)), 1.0, "llm")
        summary = f"answered, {len(set(numbers))} citations"
        return ToolResult(summary, "answer", answer=event, detail=detail)

    def _write(
        self, state: TreeData, evidence: str
    ) -> Generator[Event, None, tuple[str, dict[str, Any]] | None]:
        """Stream the model's answer as tokens; ("", detail) when it says the evidence does
        not answer, None when the model failed (reported as a recoverable error)."""
        from app.agent.signatures import stream_field

        llm = self.resources.llm
        assert llm is not None
        program = self.program()
        prompt_inputs = program.inputs(state, evidence=evidence)
        try:
            with self.resources.clock.timing("llm"):
                pieces = stream_field(
                    llm(), program.predict, prompt_inputs, "answer", cancel=self.resources.cancel
                )
                outputs, prompt, reply = yield from as_tokens(pieces)
        except GenerationCancelled:
            raise
        except Exception as exc:
            message = f"the model could not answer ({exc}); quoting the manuals instead"
            yield Error(message, self.name)
            return None
        detail: dict[str, Any] = {"prompt": prompt, "reply": reply, "evidence": evidence}
        # The model's answer-or-abstain decision, for the arbiter (app.agent.arbiter).
        detail["answerable"] = bool(outputs.get("answerable"))
        detail["confidence"] = outputs.get("confidence")
        text = str(outputs.get("answer") or "").strip() if outputs.get("answerable") else ""
        return text, detail

    def _critique(self, text: str, detail: dict[str, Any], texts: dict[int, str]) -> str | None:
        """The answer as the grounding check leaves it (None: nothing supported is left)."""
        from app.agent.critic import check_with_model

        llm = self.resources.llm
        assert llm is not None
        with self.resources.clock.timing("llm"):
            verdict = check_with_model(
                llm(), text, detail["evidence"], texts, cancel=self.resources.cancel
            )
        detail["critic"] = _verdict_record(verdict)
        return text if verdict.grounded else revise(text, verdict)

    def program(self) -> Any:
        """The answer's DSPy program (built once; an optimised one may be loaded into it)."""
        if getattr(self, "_program", None) is None:
            from app.agent.context import ContextPredict
            from app.agent.signatures import AnswerQuestion

            self._program = ContextPredict(AnswerQuestion, fields=ANSWER_CONTEXT)
        return self._program

    def evidence_pages(self, state: TreeData, refs: Sequence[str]) -> list[Found]:
        """The pages to answer from: those asked for, else the best few (``Environment.pages``)."""
        env = state.environment
        chosen = [
            env.objects[r] for r in refs if r in env.objects and env.objects[r].kind == "page"
        ]
        return chosen or env.pages()[:EVIDENCE_PAGES]

    def page_text(self, state: TreeData, item: Found) -> str:
        """A page's text for the prompt, with what the vision model read off it."""
        store = self.resources.library.store
        text = " ".join((store.page_text(item.document_id, item.page) or "").split())
        readings = [
            r.excerpt
            for r in state.environment.of_kind("reading")
            if (r.document_id, r.page) == (item.document_id, item.page)
        ]
        extra = "".join(f"\n(read from the page image) {r}" for r in readings)
        return text[:EVIDENCE_CHARS] + extra

    # ---- no-LLM ------------------------------------------------------------------------
    def extractive(
        self, state: TreeData, reset: bool = False
    ) -> Generator[Event, None, ToolResult]:
        """Quote the best supported sentences, checked by the lexical critic."""
        yield Status("Picking the passages that answer it…", self.name)
        best = self.best_quotes(state)
        detail: dict[str, Any] = {"critic": None}
        if best is None or best[1].abstained:
            unprinted = best[1].unprinted if best else ()
            unlisted = best[1].unlisted if best else ()
            foreign = best[1].foreign if best else ()
            unrelated = best[1].unrelated if best else ()
            support = best[1].support if best else 0.0
            event = self.abstain(
                state,
                support,
                unprinted=unprinted,
                unlisted=unlisted,
                foreign=foreign,
                unrelated=unrelated,
            )
        else:
            run, quotes = best
            event, detail = self._checked(state, run, quotes)
        yield from stream_text(event.text, reset)
        summary = "abstained" if event.abstained else f"answered, {len(event.citations)} citations"
        return ToolResult(summary, "answer", answer=event, detail=detail)

    def best_quotes(self, state: TreeData) -> tuple[SearchRun, ExtractiveAnswer] | None:
        """The quotes of the first search, or of a later one when clearly better; for a
        comparison searched product by product, each product's quotes together.

        A later search counts only when its best page is in a manual the first search's
        answer may quote (``answer_manuals``: those the question names, else that of its
        best page): the ranking shown is the first search's, and a search narrowed to
        another manual finds words in common ("press and hold") in equipment nobody asked
        about. A question naming equipment no manual mentions (``foreign_in``, read from the
        question as the technician wrote it: a later search is lower-cased) is declined by
        the first search's quotes."""
        compared = self._compared(state)
        if compared is not None:
            return compared
        first = state.searches[0] if state.searches else None
        foreign = self.foreign(state)
        if foreign and first is not None:
            return first, self._quotes(first, first, foreign)
        manuals = answer_manuals(first.result) if first is not None else set()
        best: tuple[SearchRun, ExtractiveAnswer] | None = None
        for run in state.searches:
            top = run.result.pages[0].document_id if run.result.pages else None
            if run is not first and manuals and top not in manuals:
                continue
            quotes = self._quotes(run, first)
            if best is None or _better(quotes, best[1]):
                best = (run, quotes)
        return best

    def _compared(self, state: TreeData) -> tuple[SearchRun, ExtractiveAnswer] | None:
        groups = {frozenset(g) for g in state.atlas.products_named(state.prompt)}
        runs = [r for r in state.searches[1:] if frozenset(r.documents) in groups]
        first = state.searches[0]
        parts = [(r, q) for r in runs if not (q := self._quotes(r, first)).abstained]
        if len(parts) < 2:
            return None
        titled = [(", ".join(state.atlas.titles(r.documents)), q) for r, q in parts]
        return state.searches[0], combine_quotes(titled)

    def _quotes(
        self, run: SearchRun, first: SearchRun | None = None, foreign: Sequence[str] = ()
    ) -> ExtractiveAnswer:
        """Quotes from one search's pages. What is asked for (the parts and quantities of
        the question) and the codes it names are the technician's question's, read by the
        ``first`` search: a later search's words ("factory code unlock settings") no longer
        say them. ``foreign``: the equipment the question names that no manual mentions."""
        res = self.resources
        result = run.result
        if first is not None and first is not run:
            asked = first.result.query
            query = replace(
                result.query,
                parts=asked.parts,
                quantities=asked.quantities,
                identifiers=asked.identifiers,
            )
            result = replace(result, query=query)
        with res.clock.timing("answerer"):
            return answer_from_search(result, res.text_search, res.library.store, foreign)

    def _checked(
        self, state: TreeData, run: SearchRun, quotes: ExtractiveAnswer
    ) -> tuple[Answer, dict[str, Any]]:
        citations = [_citation(c.document, c.title, c.page, c.regions) for c in quotes.citations]
        verdict = check_lexically(quotes.text, self.evidence_texts(citations))
        detail: dict[str, Any] = {"critic": _verdict_record(verdict), "query": run.query}
        text = quotes.text if verdict.grounded else revise(quotes.text, verdict)
        if text is None:
            return self.abstain(state, quotes.support), detail
        # The ranking shown is the first, unrestricted search's in every mode: a later
        # search narrowed to a product's manual may quote better, but it ranks only the
        # pages of that manual (measured on both development corpora: it never ranked the
        # right page higher, and three times lower).
        pages = self.pages(state, _first(state))
        return Answer(text, citations, False, pages, round(quotes.support, 3)), detail

    # ---- shared ------------------------------------------------------------------------
    def abstain(
        self,
        state: TreeData,
        support: float = 0.0,
        mode: str = "no-llm",
        unprinted: Sequence[str] = (),
        unlisted: Sequence[str] = (),
        foreign: Sequence[str] = (),
        unrelated: Sequence[str] = (),
    ) -> Answer:
        """The manuals don't say: which manuals and queries were searched, the closest page,
        the quantities asked for that the manual gives no value of (``unprinted``) or only
        for other things (``unrelated``), the codes it lists others of its form but not
        (``unlisted``) and those of equipment no manual mentions (``foreign``)."""
        pages = self.pages(state, state.searches[0] if state.searches else None)
        found = state.environment.pages()
        titles = [p.title for p in found[:5]] or state.atlas.titles()
        closest = found[0].label if found else ""
        # A question naming its equipment whose closest passage is in another manual.
        named = state.searches[0].result.query.products if state.searches else ()
        elsewhere = bool(found) and bool(named) and found[0].document_id not in named
        subject = state.atlas.titles(named) if elsewhere else []
        queries = state.searched_queries() or [state.prompt]
        text = abstention(
            titles, queries, closest, subject, unprinted, unlisted, foreign, unrelated
        )
        return Answer(text, [], True, pages, round(support, 3), mode)

    def pages(self, state: TreeData, primary: SearchRun | None) -> list[PageOut]:
        """The ranked pages looked at: the chosen text search's, fused by reciprocal rank
        with the page-image search's when it ran (a table or a diagram that text search
        ranks low can be the page that looks most like the question), then the rest."""
        out: dict[tuple[str, int], PageOut] = {}
        text = [(h.file_name, h.page) for h in primary.result.pages] if primary else []
        scores = {(h.file_name, h.page): h.score for h in primary.result.pages} if primary else {}
        visual = visual_ranking(state)
        for key, fused in fuse([text, visual] if visual else [text]):
            out[key] = PageOut(key[0], key[1], round(fused, 6) if visual else scores[key])
        for item in state.environment.pages():
            out.setdefault(
                (item.file_name, item.page), PageOut(item.file_name, item.page, item.score)
            )
        return list(out.values())

    def evidence_texts(self, citations: Sequence[CitationOut]) -> dict[int, str]:
        """What each citation number points at: its page's text and section headings."""
        store = self.resources.library.store
        texts = {}
        for number, cite in enumerate(citations, start=1):
            doc = store.get_document(cite.document)
            if doc is None:
                continue
            heads = " ".join({c.heading for c in store.page_chunks(doc.id, cite.page)})
            texts[number] = f"{heads}\n{store.page_text(doc.id, cite.page) or ''}"
        return texts


def visual_ranking(state: TreeData) -> list[tuple[str, int]]:
    """The pages of the first page-image search, best first (empty when none ran)."""
    results = state.environment.results.get("visual_search", {})
    for refs in results.values():
        pages = [state.environment.objects[r] for r in refs]
        return [(p.file_name, p.page) for p in pages if p.kind == "page"]
    return []


def combine_quotes(parts: Sequence[tuple[str, ExtractiveAnswer]]) -> ExtractiveAnswer:
    """Several answers as one, under their headings, citations renumbered in order."""
    blocks: list[str] = []
    citations: list[Citation] = []
    evidence: list[Evidence] = []
    for heading, part in parts:
        offset = len(citations)

        def shifted(match: re.Match[str], offset: int = offset) -> str:
            return f" [{int(match.group(1)) + offset}]"

        body = part.text.split("\n\nSources:")[0].removeprefix("From the manuals:").strip()
        body = CITATION.sub(shifted, body)
        blocks.append(f"{heading}:\n{body}")
        citations.extend(part.citations)
        evidence.extend(part.evidence)
    sources = "\n".join(f"[{i}] {c.label()}" for i, c in enumerate(citations, start=1))
    text = "From the manuals:\n" + "\n".join(blocks) + "\n\nSources:\n" + sources
    support = min(p.support for _, p in parts)
    return ExtractiveAnswer(text, tuple(citations), False, support, tuple(evidence))


def citation_for(item: Found) -> CitationOut:
    return _citation(item.file_name, item.title, item.page, item.regions)


def _citation(document: str, title: str, page: int, regions: Sequence[Box]) -> CitationOut:
    return CitationOut(document, title, page, [[round(v, 2) for v in box] for box in regions])


def render_evidence(evidence: Sequence[Found], texts: dict[int, str]) -> str:
    from app.agent.context import fence

    return "\n\n".join(
        f"[{n}] {item.label} ({item.file_name})\n{fence(texts[n])}"
        for n, item in enumerate(evidence, start=1)
    )


def _first(state: TreeData) -> SearchRun | None:
    return state.searches[0] if state.searches else None


def _better(new: ExtractiveAnswer, old: ExtractiveAnswer) -> bool:
    """Whether a later search's quotes replace the first's: by the abstention model's
    probability that they answer the question, the figure that decides to decline (a
    narrowed search's quotes can hold more of the question's words and answer it less)."""
    return new.probability > old.probability + PROBABILITY_MARGIN


def _verdict_record(verdict: Any) -> dict[str, Any]:
    return {
        "grounded": verdict.grounded,
        "method": verdict.method,
        "unsupported": [c.text for c in verdict.unsupported],
    }


def as_tokens(pieces: Generator[str, None, T]) -> Generator[Token, None, T]:
    """A generator of text pieces as Token events, keeping its return value."""
    while True:
        try:
            piece = next(pieces)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        yield Token(piece)


def stream_text(text: str, reset: bool = False) -> Generator[Token, None, None]:
    """A finished text as small token events, so it streams like a model's output."""
    for start in range(0, len(text), TOKEN_CHARS):
        yield Token(text[start : start + TOKEN_CHARS], reset=reset and start == 0)
    if not text and reset:
        yield Token("", reset=True)
