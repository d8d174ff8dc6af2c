"""Benchmark datasets: the design's format and the older one (locations with chapters, no
key facts), read into one typed shape."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path


class DatasetError(Exception):
    """The dataset file is missing or not in a known format."""


@dataclass(frozen=True, slots=True)
class EvidenceRef:
    document: str
    pages: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BenchItem:
    id: str
    category: str
    query: str
    answer: str
    key_facts: tuple[str, ...] = ()
    evidence: tuple[EvidenceRef, ...] = ()
    routing_trap: bool = False
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def unanswerable(self) -> bool:
        return self.category == "unanswerable"

    def gold_pages(self) -> set[tuple[str, int]]:
        return {(ref.document, page) for ref in self.evidence for page in ref.pages}

    def gold_documents(self) -> set[str]:
        return {ref.document for ref in self.evidence}


def load_dataset(path: Path) -> list[BenchItem]:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{path}: cannot read dataset ({exc})") from exc
    if isinstance(raw, dict):
        raw = raw.get("questions") or raw.get("items") or []
    if not isinstance(raw, list) or not raw:
        raise DatasetError(f"{path}: expected a non-empty JSON list of questions")
    return [_item(entry, i) for i, entry in enumerate(raw)]


def _item(entry: dict, index: int) -> BenchItem:
    if "query" not in entry and "question" not in entry:
        raise DatasetError(f"item {index}: no 'query'")
    refs = [_ref(entry.get("evidence") or {})]
    refs += [_ref(e) for e in entry.get("additional_evidence") or []]
    return BenchItem(
        id=str(entry.get("id", f"q{index + 1:02d}")),
        category=str(entry.get("category", "direct")),
        query=str(entry.get("query") or entry.get("question")),
        answer=str(entry.get("answer", "")),
        key_facts=tuple(str(f) for f in entry.get("key_facts") or ()),
        evidence=tuple(r for r in refs if r is not None),
        routing_trap=bool(entry.get("routing_trap", False)),
        extra={k: v for k, v in entry.items() if k in ("notes", "difficulty")},
    )


def _ref(evidence: dict) -> EvidenceRef | None:
    document = evidence.get("document")
    if not document:
        return None
    pages = []
    for loc in evidence.get("locations") or []:
        page = loc.get("page") if isinstance(loc, dict) else loc
        if isinstance(page, int | str) and str(page).isdigit():
            pages.append(int(page))
    return EvidenceRef(str(document), tuple(pages))
