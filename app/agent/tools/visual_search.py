"""visual_search: find pages by how they look, with the ColQwen visual model.

Unavailable (with the reason shown in the tool list) when no ColQwen model is configured or
no page has been embedded with it; a search that fails says why instead of raising.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.agent.events import Status
from app.agent.state import Found, TreeData
from app.agent.tools import Available, Tool, ToolError, ToolResult, ToolRun
from app.retrieval.visual import VisualHit

PAGES = 5
EXCERPT_CHARS = 300


class VisualSearchInputs(BaseModel):
    query: str = Field(min_length=1, description="what the page shows, in plain words")


class VisualSearchTool(Tool):
    """Find pages by how they look: tables, wiring diagrams, LED and terminal figures,
    scanned pages whose text layer is poor. Use it when text search is weak on a question
    about something drawn or tabulated."""

    name = "visual_search"
    Inputs = VisualSearchInputs

    def is_available(self, state: TreeData) -> Available:
        key = (self.name, "available")
        cached = state.cache.get(key)
        if isinstance(cached, Available):
            return cached
        search = self.resources.visual_search
        if search is None:
            found = Available(False, "no ColQwen model is configured (setting 'colqwen')")
        else:
            usable = search.available()
            found = Available(bool(usable), usable.reason)
        state.cache[key] = found
        return found

    def __call__(self, state: TreeData, inputs: BaseModel) -> ToolRun:
        assert isinstance(inputs, VisualSearchInputs)
        search = self.resources.visual_search
        if search is None:
            return ToolError("visual search is not set up", suggestion="use text_search")
        yield Status(f"Looking through page images for “{inputs.query}”…", self.name)
        with self.resources.clock.timing("visual search"):
            results = search.search(inputs.query, k=PAGES)
        if results.reason:
            return ToolError(
                f"visual search failed: {results.reason}", suggestion="use text_search"
            )
        found = tuple(self._found(state, hit) for hit in results.hits)
        return ToolResult(_summary(found), inputs.query, found)

    def _found(self, state: TreeData, hit: VisualHit) -> Found:
        manual = next((m for m in state.atlas.manuals if m.document_id == hit.document_id), None)
        text = self.resources.library.store.page_text(hit.document_id, hit.page) or ""
        return Found(
            kind="page",
            title=manual.title if manual else f"document {hit.document_id}",
            file_name=manual.file_name if manual else "",
            document_id=hit.document_id,
            page=hit.page,
            score=hit.score,
            confidence=hit.confidence,
            excerpt=" ".join(text.split())[:EXCERPT_CHARS],
            regions=hit.regions,
        )


def _summary(found: tuple[Found, ...]) -> str:
    if not found:
        return "no page looks like it"
    best = ", ".join(f"{f.label} ({f.confidence:.2f})" for f in found[:3])
    return f"{len(found)} pages by look; best {best}"
