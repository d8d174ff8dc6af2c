"""text_search: the hybrid text search of the library, as a tool.

Results are cached within a question (same query and manuals, same answer without a
second search), and every search is kept whole in the state for the answerer.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.agent.events import Status
from app.agent.state import Found, SearchRun, TreeData
from app.agent.tools import Available, Tool, ToolError, ToolResult, ToolRun
from app.retrieval.text import PageHit, SearchResult

PAGES = 10
EXCERPT_CHARS = 500


class TextSearchInputs(BaseModel):
    query: str = Field(min_length=1, description="what to look for, in the manuals' words")
    documents: list[int] = Field(
        default_factory=list, description="ids of the manuals to search (empty: all of them)"
    )


class TextSearchTool(Tool):
    """Search the manuals' text by meaning and by exact words and codes; returns the best
    pages with the lines that match and how confident the match is. Use it first; use it
    again with other words, or limited to the manual the Atlas routes to, when the best
    confidence is low."""

    name = "text_search"
    Inputs = TextSearchInputs

    def is_available(self, state: TreeData) -> Available:
        if not state.atlas.manuals:
            return Available(False, "the library is empty")
        return Available(True)

    def __call__(self, state: TreeData, inputs: BaseModel) -> ToolRun:
        assert isinstance(inputs, TextSearchInputs)
        known = {m.document_id for m in state.atlas.manuals}
        unknown = [d for d in inputs.documents if d not in known]
        if unknown:
            return ToolError(
                f"no manual has id {unknown[0]}",
                suggestion="use the ids listed in the Atlas, or none to search every manual",
            )
        yield Status(f"Searching the manuals for “{inputs.query}”…", self.name)
        result = self._search(state, inputs)
        state.searches.append(SearchRun(inputs.query, tuple(inputs.documents), result))
        return ToolResult(summarise(result), inputs.query, tuple(_found(h) for h in result.pages))

    def _search(self, state: TreeData, inputs: TextSearchInputs) -> SearchResult:
        key = (self.name, self.run_key(inputs))
        cached = state.cache.get(key)
        if isinstance(cached, SearchResult):
            return cached
        with self.resources.clock.timing("search"):
            result = self._search_steady(inputs)
        result = within(result, inputs.documents)
        state.cache[key] = result
        return result

    def _search_steady(self, inputs: TextSearchInputs, attempts: int = 3) -> SearchResult:
        """The search, run again when another process committed a manual in the middle of
        it (its chunks were found, but not in the list of manuals read a moment before)."""
        for attempt in range(attempts):
            try:
                return self.resources.text_search.search(
                    inputs.query, k=PAGES, documents=inputs.documents or None
                )
            except KeyError:
                if attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")


def within(result: SearchResult, documents: list[int]) -> SearchResult:
    """Only the pages of the manuals asked for (TextSearch lets whole-page BM25 matches of
    other manuals through its ``documents`` filter)."""
    if not documents or all(p.document_id in documents for p in result.pages):
        return result
    pages = tuple(p for p in result.pages if p.document_id in documents)
    best = pages[0].confidence if pages else 0.0
    return SearchResult(result.query, pages, best, result.timings)


def summarise(result: SearchResult) -> str:
    """One line for the next decision: how many pages, the best one and its confidence."""
    if not result.pages:
        return "nothing found"
    top = result.pages[0]
    others = ", ".join(f"{p.title} p.{p.page}" for p in result.pages[1:3])
    also = f"; then {others}" if others else ""
    return (
        f"{len(result.pages)} pages; best {top.title} p.{top.page} "
        f"(confidence {top.confidence:.2f}){also}"
    )


def _found(hit: PageHit) -> Found:
    lines = [r.text for r in hit.regions] or [c.text for c in hit.chunks[:2]]
    excerpt = " / ".join(line.strip() for line in lines if line.strip())
    return Found(
        kind="page",
        title=hit.title,
        file_name=hit.file_name,
        document_id=hit.document_id,
        page=hit.page,
        score=hit.score,
        confidence=hit.confidence,
        excerpt=excerpt[:EXCERPT_CHARS],
        regions=tuple(r.box for r in hit.regions),
    )
