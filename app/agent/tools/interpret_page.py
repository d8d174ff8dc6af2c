"""interpret_page: read a page image with the vision model.

Available once a search has put pages in the environment and a VLM is installed. The page
is rendered from the library's PDF copy; the model's reading joins the environment as a
"reading" of that page, which the answer cites as the page itself.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.agent.events import Status
from app.agent.state import Found, TreeData
from app.agent.tools import Available, Tool, ToolError, ToolResult, ToolRun

READING_CHARS = 800


class InterpretPageInputs(BaseModel):
    ref: str = Field(min_length=1, description="reference id of a page in the environment (P2)")
    question: str = Field(default="", description="what to read off it (default: the question)")


class InterpretPageTool(Tool):
    """Read a page image with the vision model: tables, wiring diagrams, LED and terminal
    charts, scanned pages. Use it on a page the searches found when its text alone does not
    hold the answer."""

    name = "interpret_page"
    Inputs = InterpretPageInputs

    def is_available(self, state: TreeData) -> Available:
        if self.resources.vlm is None:
            return Available(False, "no vision model is installed")
        if not state.environment.pages():
            return Available(False, "no page found yet: search first")
        return Available(True)

    def __call__(self, state: TreeData, inputs: BaseModel) -> ToolRun:
        assert isinstance(inputs, InterpretPageInputs)
        item = state.environment.objects.get(inputs.ref.strip().upper())
        if item is None or item.kind != "page":
            refs = ", ".join(p.ref for p in state.environment.pages()[:8])
            return ToolError(f"no page {inputs.ref!r} in the environment", suggestion=f"use {refs}")
        doc = self.resources.library.store.get_document(item.document_id)
        if doc is None or self.resources.vlm is None:
            return ToolError(f"{item.label} cannot be read now", suggestion="answer from its text")
        yield Status(f"Reading {item.label} with the vision model…", self.name)
        try:
            reading = self._read(doc, item, inputs.question or state.prompt)
        except Exception as exc:
            from app.agent.context import classify_error

            kind = classify_error(exc)
            if kind == "cancelled":
                raise
            return ToolError(
                f"the vision model failed on {item.label}: {exc}",
                recoverable=kind != "permanent",
                suggestion="answer from the page text",
            )
        found = Found(
            "reading", item.title, item.file_name, item.document_id, item.page,
            confidence=item.confidence, excerpt=reading[:READING_CHARS], regions=item.regions,
        )  # fmt: skip
        return ToolResult(f"{item.label}: {reading[:160]}", item.ref, (found,))

    def _read(self, doc: object, item: Found, question: str) -> str:
        from app.agent.context import call_with_retry
        from app.agent.signatures import read_image

        assert self.resources.vlm is not None
        image = self.resources.library.render_page(doc, item.page)  # type: ignore[arg-type]
        vlm = self.resources.vlm
        with self.resources.clock.timing("vlm"):
            return call_with_retry(
                lambda: read_image(vlm(), question, item.label, image, cancel=self.resources.cancel)
            )
