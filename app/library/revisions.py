"""Revisions: one manual, several documents over time, the newest answering by default.

A document is identified by its content (sha256) and its id; its file name and title are
labels. A manual is the line of documents sharing ``documents.manual_id`` (the id of its
first revision), numbered by ``documents.revision``. Importing a file whose name or title
matches a manual already there either records it as that manual's next revision
(``revision``), keeps it as a separate manual under a distinct label (``keep-both``), or is
refused with a reason saying how to choose (``ask``, what the command line does without a
flag; a match by title alone is then kept as another manual with a warning saying so).
Nothing is deleted: older revisions stay until removed, searchable on request.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal

from app.library.store import Store

OnMatch = Literal["ask", "revision", "keep-both"]
ON_MATCH: tuple[OnMatch, ...] = ("ask", "revision", "keep-both")

OLDER_REVISION_PRIOR = 0.8
"""Ranking weight of an older revision when older ones are searched: the newer takes
precedence where two revisions say different things."""


@dataclass(frozen=True, slots=True)
class Revision:
    """One document as a revision of its manual."""

    document_id: int
    manual_id: int
    revision: int
    of: int  # how many revisions the manual has
    file_name: str
    title: str
    imported_at: str

    @property
    def current(self) -> bool:
        return self.revision == self.of

    def label(self) -> str:
        """'revision 2 of 2 (imported 2026-11-25)'."""
        return f"revision {self.revision} of {self.of} (imported {self.imported_at[:10]})"

    def to_dict(self) -> dict[str, object]:
        return {
            "document_id": self.document_id,
            "manual_id": self.manual_id,
            "revision": self.revision,
            "revisions": self.of,
            "current": self.current,
            "file_name": self.file_name,
            "title": self.title,
            "imported_at": self.imported_at,
        }


_SELECT = (
    "SELECT d.id, d.manual_id, d.revision,"
    " (SELECT MAX(n.revision) FROM documents n WHERE n.manual_id = d.manual_id),"
    " d.file_name, d.title, d.imported_at FROM documents d"
)


def revisions(store: Store, manual_id: int | None = None) -> list[Revision]:
    """Every document as a revision, by manual then revision (one manual if given)."""
    where = " WHERE d.manual_id = ?" if manual_id is not None else ""
    args = (manual_id,) if manual_id is not None else ()
    rows = store.db.execute(f"{_SELECT}{where} ORDER BY d.manual_id, d.revision", args)
    return [Revision(*row) for row in rows]


def revision_of(store: Store, document_id: int) -> Revision | None:
    row = store.db.execute(f"{_SELECT} WHERE d.id = ?", (document_id,)).fetchone()
    return Revision(*row) if row else None


def matching_manual(store: Store, file_name: str, title: str = "") -> Revision | None:
    """The current revision of the manual whose file name or title matches (case and
    spacing ignored), or None. A file name matches first: it is what a vendor keeps."""
    name, wanted = _key(file_name), _key(title)
    current = [r for r in revisions(store) if r.current]
    for rev in current:
        if _key(rev.file_name) == name:
            return rev
    if wanted:
        for rev in current:
            if _key(rev.title) == wanted:
                return rev
    return None


def distinct_label(store: Store, file_name: str) -> str:
    """``file_name``, or 'Name (2).pdf' ... when a manual already carries it (keep-both),
    so a file name still names one manual."""
    taken = {_key(r.file_name) for r in revisions(store)}
    if _key(file_name) not in taken:
        return file_name
    path = PurePath(file_name)
    for n in range(2, 1000):
        label = f"{path.stem} ({n}){path.suffix}"
        if _key(label) not in taken:
            return label
    return file_name


def current_ids(store: Store) -> list[int]:
    """The documents that answer by default: the newest revision of each manual."""
    return store.current_revision_ids()


def revision_prior(store: Store, older: float = OLDER_REVISION_PRIOR) -> dict[int, float]:
    """A ranking weight per document id: 1.0 for the newest revision of a manual, ``older``
    for older ones. Text search multiplies a page's score by it (see the lead's note in
    ``app.agent.library_search``)."""
    return {r.document_id: 1.0 if r.current else older for r in revisions(store)}


def conflict_message(file_name: str, match: Revision) -> str:
    return (
        f"{file_name} matches the manual '{match.title}' ({match.file_name}, id "
        f"{match.document_id}) already in the library: import it with --replace to make it "
        f"revision {match.of + 1} of that manual, or --keep-both to keep it as another manual"
    )


def title_match_warning(match: Revision) -> str:
    return (
        f"its title matches the manual {match.file_name} (id {match.document_id}); it was kept "
        "as another manual: if it is a newer revision, remove it and import it with --replace"
    )


def described(store: Store, ids: Iterable[int]) -> dict[int, Revision]:
    """Revision records for these document ids (those of manuals with several revisions)."""
    wanted = set(ids)
    return {r.document_id: r for r in revisions(store) if r.document_id in wanted and r.of > 1}


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def revision_note(store: Store, cited: Sequence[str]) -> str:
    """One sentence saying which revision each cited manual with several revisions is
    quoted from ('' when none has more than one)."""
    parts = []
    for label in dict.fromkeys(cited):
        doc = store.get_document(label)
        rev = revision_of(store, doc.id) if doc is not None else None
        if rev is None or rev.of < 2:
            continue
        newer = "" if rev.current else "; a newer revision exists"
        parts.append(f"{rev.title}: {rev.label()}{newer}")
    return f"Quoted from {'; '.join(parts)}." if parts else ""
