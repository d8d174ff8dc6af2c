"""Follow-up questions: what the previous turn looked at, as context for the next one.

A turn keeps its sources as citation labels ("Hybrid Installation Guide p.21", the title
or file name and the page). A follow-up ("and the one for output 2?") is searched first
within the manuals the last answer quoted, unless it names other manuals itself; the
LLM sees the labels with the earlier answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.agent.state import TreeData, Turn
from app.retrieval.query import content_terms

LABEL = re.compile(r"^(?P<name>.+?) p\.(?P<page>\d+)$")
_REFERS_BACK = frozenset(
    "it its that this those these they them same also there one ones other".split()
)


@dataclass(frozen=True, slots=True)
class PreviousContext:
    """The manuals and pages the last answered turn quoted."""

    documents: tuple[int, ...] = ()
    pages: tuple[tuple[int, int], ...] = ()


def source_label(name: str, page: int) -> str:
    return f"{name} p.{page}"


def previous_context(state: TreeData) -> PreviousContext:
    """The manuals (ids in the Atlas) and pages of the latest turn that quoted any."""
    by_name: dict[str, int] = {}
    for manual in state.atlas.manuals:
        by_name.setdefault(manual.title.casefold(), manual.document_id)
        by_name[manual.file_name.casefold()] = manual.document_id
    for turn in reversed(state.history):
        pages = [p for p in (_resolve(label, by_name) for label in turn.sources) if p]
        if pages:
            documents = tuple(dict.fromkeys(doc for doc, _ in pages))
            return PreviousContext(documents, tuple(dict.fromkeys(pages)))
    return PreviousContext()


def follow_up_pages(state: TreeData) -> tuple[tuple[int, int], ...]:
    """The pages the last answer quoted, when this question follows up on it (it leans on
    the previous one: see ``follow_up_query``); () otherwise."""
    if not state.history or follow_up_query(state)[0] == state.prompt:
        return ()
    return previous_context(state).pages


def _resolve(label: str, by_name: dict[str, int]) -> tuple[int, int] | None:
    match = LABEL.match(label.strip())
    if match is None:
        return None
    doc = by_name.get(match["name"].casefold())
    return (doc, int(match["page"])) if doc is not None else None


def render_sources(turn: Turn) -> str:
    """' (sources: A p.3, B p.7)' for the history shown to the LLM, or ''."""
    return f" (sources: {', '.join(turn.sources[:6])})" if turn.sources else ""


def follow_up_query(state: TreeData) -> tuple[str, str]:
    """The first search's query: the question, completed with the previous question's key
    words when it leans on it ("and the restore code for it?")."""
    if not state.history:
        return state.prompt, "search the manuals' text for the question"
    words = content_terms(state.prompt)
    if len(words) > 3 and not _REFERS_BACK & {w.lower() for w in state.prompt.split()}:
        return state.prompt, "search the manuals' text for the question"
    previous = [t for t in content_terms(state.history[-1].question) if t not in words]
    query = f"{state.prompt} {' '.join(previous)}".strip()
    return query, "a follow-up: search for it with the previous question's key words"
