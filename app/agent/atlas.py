"""The Atlas: who the agent is, how it answers, and what the library holds.

Every decision sees it. One line per manual, built from the manual's profile, carries a
kind of manual and the manual's own topics (its headings), so a model can tell which
manual a question belongs to. The rule-based policy
routes only by the products a question names, with the same names as the search.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.library.models import DocumentInfo, ManualProfile, ManualType
from app.retrieval.query import QueryAnalysis, analyse

IDENTITY = (
    "Lantern, an offline assistant for field technicians working from the manuals of the "
    "equipment in front of them."
)
STYLE = (
    "Plain, short and exact: values, codes and steps as the manual gives them, each claim "
    "with a numbered citation to a manual page."
)
GOAL = (
    "Answer the technician's question from the manuals in the library, citing pages; when "
    "the manuals do not answer it, say so and name what was searched."
)


@dataclass(frozen=True, slots=True)
class ManualEntry:
    """One manual as the agent knows it."""

    document_id: int
    file_name: str
    title: str
    product: str
    manual_type: ManualType
    topics: tuple[str, ...]
    pages: int
    names: frozenset[str] | None = None  # what names its product in a question
    kinds: frozenset[str] = frozenset()  # what names it by its kind ("radio")

    @property
    def routing_hint(self) -> str:
        return f"{self.manual_type} manual"

    def line(self) -> str:
        topics = ", ".join(self.topics[:6])
        about = f"; topics: {topics}" if topics else ""
        return (
            f"- [{self.document_id}] {self.title} ({self.file_name}, {self.pages} pages), "
            f"product {self.product or 'unknown'}; {self.routing_hint}{about}"
        )


@dataclass(frozen=True, slots=True)
class Atlas:
    """The agent's identity, style and goal, and one entry per manual."""

    manuals: tuple[ManualEntry, ...] = ()
    identity: str = IDENTITY
    style: str = STYLE
    goal: str = GOAL

    def render(self) -> str:
        """The Atlas as prompt text."""
        lines = [f"You are {self.identity}", f"Style: {self.style}", f"Goal: {self.goal}"]
        lines.append("Manuals in the library (id, title, what to look up in each):")
        lines.extend(m.line() for m in self.manuals)
        if not self.manuals:
            lines.append("- (none: the library is empty)")
        return "\n".join(lines)

    def route(self, question: str) -> tuple[int, ...]:
        """Documents a question belongs to: the ones whose product it names; () when the
        question does not say."""
        return tuple(self._analyse(question).products)

    def products_named(self, question: str) -> list[tuple[int, ...]]:
        """The manuals of each product the question names, one group per product (a
        product with an installation guide and a user manual is one group)."""
        named = self._analyse(question).products
        groups: dict[str, list[int]] = {}
        for manual in self.manuals:
            if manual.document_id in named:
                key = manual.product.lower() or str(manual.document_id)
                groups.setdefault(key, []).append(manual.document_id)
        return [tuple(ids) for ids in groups.values()]

    def product_words(self, ids: Sequence[int]) -> set[str]:
        """Lower-cased words of the products of some manuals (to leave out of a query)."""
        return {w for m in self.manuals if m.document_id in ids for w in m.product.lower().split()}

    def _analyse(self, question: str) -> QueryAnalysis:
        documents = [_as_document(m) for m in self.manuals]
        if any(m.names is None for m in self.manuals):
            return analyse(question, documents)
        return analyse(
            question,
            documents,
            {m.document_id: m.names or frozenset() for m in self.manuals},
            {m.document_id: m.kinds for m in self.manuals if m.kinds},
        )

    def titles(self, ids: Sequence[int] = ()) -> list[str]:
        return [m.title for m in self.manuals if not ids or m.document_id in ids]


def build_atlas(
    documents: Sequence[DocumentInfo],
    names: Mapping[int, frozenset[str]] | None = None,
    kinds: Mapping[int, frozenset[str]] | None = None,
) -> Atlas:
    """The Atlas of a library, from its documents' profiles; ``names`` are the product
    names of each (``TextSearch.product_names``), else worked out from the profiles alone,
    and ``kinds`` the words that name one by its kind (``TextSearch.kind_names``)."""
    return Atlas(
        tuple(
            ManualEntry(
                document_id=d.id,
                file_name=d.file_name,
                title=d.title,
                product=d.profile.product,
                manual_type=d.profile.manual_type,
                topics=d.profile.topics,
                pages=d.pages,
                names=names.get(d.id, frozenset()) if names is not None else None,
                kinds=(kinds or {}).get(d.id, frozenset()),
            )
            for d in documents
        )
    )


def _as_document(entry: ManualEntry) -> DocumentInfo:
    profile = ManualProfile(product=entry.product, manual_type=entry.manual_type)
    return DocumentInfo(
        entry.document_id, "", entry.file_name, entry.title, entry.pages, 0, "", profile
    )
