"""TreeData: everything a step of the decision loop sees, as plain typed dataclasses.

A question gets a fresh TreeData: the prompt, the conversation so far, the Atlas, the
environment of retrieved objects, the tasks completed (the train of thought), the errors
each tool reported and the iteration count. Tools read it and the loop writes it; nothing
here runs a model or touches the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from app.agent.atlas import Atlas
from app.agent.turn import Turn as Turn
from app.library.models import Box
from app.retrieval.text import SearchResult

FoundKind = Literal["page", "reading", "summary"]
_PREFIX = {"page": "P", "reading": "R", "summary": "S"}


@dataclass(frozen=True, slots=True)
class Found:
    """One object a tool retrieved: a page, a reading of a page image, or a summary.

    ``excerpt`` is text from a manual (or a model's reading of one): data, never an
    instruction. ``ref`` is set by the Environment and stays the same for the question.
    """

    kind: FoundKind
    title: str
    file_name: str
    document_id: int
    page: int
    score: float = 0.0
    confidence: float = 0.0
    excerpt: str = ""
    regions: tuple[Box, ...] = ()
    found_by: tuple[str, ...] = ()
    ref: str = ""

    @property
    def key(self) -> tuple[object, ...]:
        """Identity for duplicate detection: a page is the same page whoever found it."""
        if self.kind == "page":
            return (self.kind, self.document_id, self.page)
        return (self.kind, self.document_id, self.page, self.excerpt)

    @property
    def label(self) -> str:
        return f"{self.title} p.{self.page}"


@dataclass(slots=True)
class Environment:
    """Every object retrieved for a question, keyed by tool and result name.

    Objects are stored once: finding a page again records the result's reference to it
    and marks it a duplicate (``duplicates[ref]`` counts the repeats).
    """

    objects: dict[str, Found] = field(default_factory=dict)
    results: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    duplicates: dict[str, int] = field(default_factory=dict)
    _index: dict[tuple[object, ...], str] = field(default_factory=dict)

    def add(self, tool: str, name: str, found: Sequence[Found]) -> list[tuple[Found, bool]]:
        """Store a result's objects; returns each stored object and whether it was a repeat."""
        refs = self.results.setdefault(tool, {}).setdefault(name, [])
        out = []
        for item in found:
            ref = self._index.get(item.key)
            if ref is not None:
                old = self.objects[ref]
                if tool not in old.found_by:
                    self.objects[ref] = replace(old, found_by=(*old.found_by, tool))
                self.duplicates[ref] = self.duplicates.get(ref, 0) + 1
                out.append((self.objects[ref], True))
            else:
                prefix = _PREFIX[item.kind]
                ref = f"{prefix}{1 + sum(r.startswith(prefix) for r in self.objects)}"
                self.objects[ref] = replace(item, ref=ref, found_by=(tool,))
                self._index[item.key] = ref
                out.append((self.objects[ref], False))
            if ref not in refs:
                refs.append(ref)
        return out

    def pages(self) -> list[Found]:
        """Retrieved pages, best first: by their place in the results that listed them
        (every result's first page, then every result's second...: a search lists its
        pages in the page ranker's order), then most confident first; order of discovery
        breaks ties. Confidence alone (a page's closest chunk and coverage) is a far worse
        order than the ranker's: on the development sets' 129 answerable questions a right
        page was among the first four pages by confidence for 111, by place for 121
        (``bench/cross_corpus.py``, "pages an LLM answers from")."""
        place: dict[str, int] = {}
        for by_name in self.results.values():
            for refs in by_name.values():
                for i, ref in enumerate(refs):
                    place[ref] = min(place.get(ref, i), i)
        pages = [o for o in self.objects.values() if o.kind == "page"]
        return sorted(pages, key=lambda o: (place.get(o.ref, len(self.objects)), -o.confidence))

    def of_kind(self, kind: FoundKind) -> list[Found]:
        return [o for o in self.objects.values() if o.kind == kind]

    def update(self, ref: str, **changes: Any) -> None:
        self.objects[ref] = replace(self.objects[ref], **changes)

    def tokens(self) -> int:
        """A rough token count of what a prompt would carry (4 characters a token)."""
        return sum(len(o.excerpt) + len(o.title) + 16 for o in self.objects.values()) // 4


@dataclass(frozen=True, slots=True)
class Task:
    """One step taken: the train of thought the next decision reads."""

    step: int
    tool: str
    inputs: dict[str, Any]
    reasoning: str
    summary: str
    seconds: float
    ok: bool = True
    source: str = ""


@dataclass(frozen=True, slots=True)
class SearchRun:
    """A text search the question ran, kept whole for the answerer."""

    query: str
    documents: tuple[int, ...]
    result: SearchResult


@dataclass(slots=True)
class TreeData:
    """The state of one question's run of the decision loop."""

    prompt: str
    atlas: Atlas
    history: tuple[Turn, ...] = ()
    environment: Environment = field(default_factory=Environment)
    tasks: list[Task] = field(default_factory=list)
    errors: dict[str, list[str]] = field(default_factory=dict)
    iteration: int = 0
    max_steps: int = 6
    ran: set[tuple[str, str]] = field(default_factory=set)
    searches: list[SearchRun] = field(default_factory=list)
    cache: dict[tuple[str, str], Any] = field(default_factory=dict)
    summarised_at: int = 0  # environment tokens when it was last summarised
    llm_off: str = ""  # why the LLM no longer decides this question ("" while it does)
    route: Any = None  # the question's Route (app.agent.route), once routed

    def add_error(self, tool: str, message: str) -> None:
        self.errors.setdefault(tool, []).append(message)

    def best_confidence(self) -> float:
        """The best page confidence any text search has reached (0 before one ran)."""
        return max((run.result.confidence for run in self.searches), default=0.0)

    def has_run(self, tool: str) -> bool:
        return any(t.tool == tool and t.ok for t in self.tasks)

    def searched_queries(self) -> list[str]:
        return [run.query for run in self.searches]
