"""Learning from use: the technician's verdicts on answers, kept in the library.

A thumbs up or down on an answer, or "this is the right page" on an evidence page, is
stored with the question, what the agent answered, the steps it took and the pages it
looked at (``feedback`` table, migration m005). Those verdicts become training items for
the prompt optimiser (``training_items``), and a verified answer becomes a new benchmark
item in the design's dataset format in one call (``append_to_dataset``).

Pages are named as citations name them: the manual's file name and the 1-based page.
"""

from __future__ import annotations

import builtins
import json
import logging
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, is_dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.bench.dataset import BenchItem, DatasetError, EvidenceRef
from app.library.feedback_rows import feedback_rows, insert_feedback, update_feedback
from app.library.store import Store

log = logging.getLogger(__name__)
RATINGS = (-1, 0, 1)
MAX_KEY_FACTS = 6
# A value worth checking in a later answer: a number with its unit, or a code like J3/PGM2.
_VALUE = re.compile(
    r"\b[A-Z]{1,4}\d{1,3}\b"
    r"|(?<![\w.,])\d+(?:[.,]\d+)?(?:\s?[-–]\s?\d+(?:[.,]\d+)?)?"
    r"(?:\s?(?:kΩ|Ω|mA|Ah|VA|V|A|W|mm|cm|m|°C|%|AWG|seconds|minutes|hours|years|s|h|min))?"
    r"(?!\w)"
)
_CITATION = re.compile(r"\s?\[\d+\]")
_PAGE_REF = re.compile(r"\bp\.\s?\d+")


class FeedbackError(Exception):
    """A feedback entry is missing, or cannot become what was asked of it."""


@dataclass(frozen=True, slots=True)
class Feedback:
    """One stored verdict on an answer.

    ``rating`` is +1 (right), -1 (wrong) or 0 (no thumbs, e.g. only a right page marked);
    ``right_pages`` are (file name, page) pairs the technician marked as holding the answer.
    """

    id: int
    created: str
    question: str
    answer: str
    abstained: bool
    rating: int
    right_pages: tuple[tuple[str, int], ...] = ()
    decisions: list[dict[str, Any]] = field(default_factory=list)
    citations: list[dict[str, Any]] = field(default_factory=list)
    pages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        """The technician said the answer is right."""
        return self.rating == 1

    def evidence_pages(self) -> list[tuple[str, int]]:
        """Where the answer is: the pages marked right, else (if verified) the pages cited."""
        if self.right_pages:
            return list(self.right_pages)
        if not self.verified:
            return []
        cited = [(str(c["document"]), int(c["page"])) for c in self.citations]
        return list(dict.fromkeys(cited))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["right_pages"] = [list(p) for p in self.right_pages]
        return data


class FeedbackStore:
    """The feedback table of a library's store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def add(
        self,
        question: str,
        answer: str,
        *,
        abstained: bool = False,
        rating: int = 0,
        right_pages: Iterable[tuple[str, int]] = (),
        decisions: Iterable[Any] = (),
        citations: Iterable[Any] = (),
        pages: Iterable[Any] = (),
    ) -> int:
        """Store a verdict on an answer; returns its id.

        ``decisions``, ``citations`` and ``pages`` may be the agent's event dataclasses
        (Decision, CitationOut, PageOut) or plain dicts.
        """
        _check_rating(rating)
        created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        row = (
            created,
            question.strip(),
            answer,
            int(abstained),
            rating,
            _dumps(_pages(right_pages)),
            _dumps(_plain(decisions)),
            _dumps(_plain(citations)),
            _dumps(_plain(pages)),
        )
        feedback_id = insert_feedback(self.store, row)
        self._learn(feedback_id)
        return feedback_id

    def _learn(self, feedback_id: int) -> None:
        """Let the verdict label the decisions of the question it is about (never failing
        the feedback itself)."""
        from app.bench.outcomes import label_feedback

        try:
            label_feedback(self.store, self.get(feedback_id))
        except Exception as exc:
            log.warning("cannot label the decisions of feedback %s: %s", feedback_id, exc)

    def set_rating(self, feedback_id: int, rating: int) -> None:
        """Change the thumbs of an entry (0 takes them back)."""
        _check_rating(rating)
        self._update(feedback_id, "rating", rating)
        self._learn(feedback_id)

    def set_right_page(self, feedback_id: int, document: str, page: int) -> None:
        """Mark (file name, page) as a page that holds the answer; marking it twice is once."""
        entry = self.get(feedback_id)
        marked = list(dict.fromkeys([*entry.right_pages, (str(document), int(page))]))
        self._update(feedback_id, "right_pages", _dumps([list(p) for p in marked]))
        self._learn(feedback_id)

    def get(self, feedback_id: int) -> Feedback:
        rows = self._select(feedback_id)
        if not rows:
            raise FeedbackError(f"no feedback with id {feedback_id}")
        return rows[0]

    def list(self) -> builtins.list[Feedback]:
        """Every entry, oldest first."""
        return self._select(None)

    def training_items(self) -> builtins.list[BenchItem]:
        """The verdicts the optimiser can learn from, as benchmark items.

        A verified answer is an item whose key facts are the values it states and whose
        evidence is the pages marked right, else those it cited; a verified abstention is
        an unanswerable item; an answer with its right page marked (whatever its thumbs) is
        an item scored on finding that page. Other entries say too little to learn from.
        """
        items = []
        for entry in self.list():
            item = training_item(entry)
            if item is not None:
                items.append(item)
        return items

    def append_to_dataset(self, feedback_id: int, path: Path) -> str:
        """Add a verified answer to the dataset at ``path`` (created if missing) as a new
        item in the design's format; returns its id. Adding the same question and answer
        twice adds it once; an id another item has is not reused. Raises FeedbackError for
        an answer not marked right, DatasetError for a file that is not a dataset."""
        entry = self.get(feedback_id)
        if not entry.verified:
            raise FeedbackError(
                f"feedback {feedback_id} is not marked right: only a verified answer "
                "(thumbs up) can become a benchmark item"
            )
        path = Path(path)
        document, items = _read_dataset(path)
        item = dataset_entry(entry)
        for existing in items:
            if existing.get("query") == item["query"] and existing.get("answer") == item["answer"]:
                return str(existing.get("id"))
        # Ids of another library's feedback (or of this one before it was reset) may be
        # taken already: the new item gets the first free one.
        taken = {str(existing.get("id")) for existing in items}
        base, n = str(item["id"]), 2
        while item["id"] in taken:
            item["id"], n = f"{base}-{n}", n + 1
        items.append(item)
        _write_json(path, document)
        return str(item["id"])

    def _update(self, feedback_id: int, column: str, value: object) -> None:
        if not update_feedback(self.store, feedback_id, column, value):
            raise FeedbackError(f"no feedback with id {feedback_id}")

    def _select(self, feedback_id: int | None) -> builtins.list[Feedback]:
        return [
            Feedback(
                id=r[0],
                created=r[1],
                question=r[2],
                answer=r[3],
                abstained=bool(r[4]),
                rating=r[5],
                right_pages=tuple((str(d), int(p)) for d, p in json.loads(r[6])),
                decisions=json.loads(r[7]),
                citations=json.loads(r[8]),
                pages=json.loads(r[9]),
            )
            for r in feedback_rows(self.store, feedback_id)
        ]


def training_item(entry: Feedback) -> BenchItem | None:
    """One entry as a benchmark item (see ``FeedbackStore.training_items``), or None."""
    extra: dict[str, object] = {"source": "feedback", "feedback_id": entry.id}
    item_id = f"fb{entry.id}"
    if entry.verified and entry.abstained and not entry.right_pages:
        return BenchItem(item_id, "unanswerable", entry.question, entry.answer, extra=extra)
    evidence = _evidence(entry.evidence_pages())
    if not evidence:
        return None
    if entry.verified:
        answer = answer_text(entry.answer)
        facts = key_facts(answer)
        return BenchItem(item_id, "direct", entry.question, answer, facts, evidence, extra=extra)
    return BenchItem(item_id, "direct", entry.question, "", (), evidence, extra=extra)


def dataset_entry(entry: Feedback) -> dict[str, Any]:
    """A verified entry as a dataset item in the design's format."""
    refs = _evidence(entry.evidence_pages())
    blocks = [
        {"document": ref.document, "locations": [{"page": p} for p in ref.pages]} for ref in refs
    ]
    answer = answer_text(entry.answer)
    evidence = {**blocks[0], "section": None, "visual_element": None} if blocks else {}
    if not blocks:
        evidence = {"document": None, "locations": [], "section": None, "visual_element": None}
    return {
        "id": f"fb{entry.id}",
        "category": "unanswerable" if entry.abstained and not blocks else "direct",
        "query": entry.question,
        "answer": answer,
        "key_facts": [] if entry.abstained else list(key_facts(answer)),
        "evidence": evidence,
        "additional_evidence": blocks[1:],
        "routing_trap": False,
        "notes": f"added from the technician's feedback #{entry.id} of {entry.created}",
    }


def answer_text(answer: str) -> str:
    """An answer without its sources list and citation numbers: the ground truth's words."""
    body = answer.split("\n\nSources:")[0].removeprefix("From the manuals:")
    return _CITATION.sub("", body).strip()


def key_facts(answer: str) -> tuple[str, ...]:
    """The values an answer states (numbers with units, codes like J3), which a later
    answer to the same question must contain too."""
    text = _PAGE_REF.sub(" ", answer_text(answer))
    found = [m.group(0).strip() for m in _VALUE.finditer(text)]
    return tuple(dict.fromkeys(f for f in found if f))[:MAX_KEY_FACTS]


def _evidence(pages: Sequence[tuple[str, int]]) -> tuple[EvidenceRef, ...]:
    by_document: dict[str, list[int]] = {}
    for document, page in pages:
        by_document.setdefault(document, []).append(page)
    return tuple(EvidenceRef(doc, tuple(dict.fromkeys(p))) for doc, p in by_document.items())


def _read_dataset(path: Path) -> tuple[Any, list[dict[str, Any]]]:
    """The file's JSON and its list of items (a new list when the file does not exist)."""
    if not path.exists():
        items: list[dict[str, Any]] = []
        return items, items
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{path}: cannot read dataset ({exc})") from exc
    if isinstance(document, list):
        return document, document
    if isinstance(document, dict):
        for key in ("questions", "items"):
            if isinstance(document.get(key), list):
                return document, document[key]
    raise DatasetError(f"{path}: expected a JSON list of questions")


def _write_json(path: Path, document: Any) -> None:
    """Write atomically (a temporary file renamed over the old one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(document, fh, ensure_ascii=False, indent=2)
            fh.write("\n")
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        raise


def _check_rating(rating: int) -> None:
    if rating not in RATINGS:
        raise FeedbackError(f"a rating is +1, -1 or 0, not {rating!r}")


def _pages(pages: Iterable[tuple[str, int]]) -> list[list[Any]]:
    return [[str(d), int(p)] for d, p in dict.fromkeys((str(d), int(p)) for d, p in pages)]


def _plain(values: Iterable[Any]) -> list[Any]:
    out = []
    for value in values:
        if is_dataclass(value) and not isinstance(value, type):
            out.append(asdict(value))
        elif isinstance(value, Mapping):
            out.append(dict(value))
        else:
            out.append(value)
    return out


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
