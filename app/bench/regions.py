"""How tight and how right the highlighted regions are.

For each answer, the text under its citations' regions is read back from the stored page
lines: a region is right when it holds the question's key facts, and tight when it covers
a small share of the page.
"""

from __future__ import annotations

from typing import Any

from app.bench.dataset import BenchItem
from app.bench.metrics import fact_found
from app.library.models import Box
from app.library.store import Store


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def region_figures(store: Store, item: BenchItem, record: dict[str, Any]) -> dict[str, Any]:
    """Share of key facts under the regions, and the regions' share of their pages."""
    texts, areas = [], []
    docs = {d.file_name: d.id for d in store.list_documents()}
    for citation in record["citations"]:
        doc_id = docs.get(citation["document"])
        size = store.page_size(doc_id, citation["page"]) if doc_id else None
        if doc_id is None or size is None:
            continue
        boxes = [tuple(r) for r in citation["regions"]]
        lines = store.page_lines(doc_id, citation["page"])
        texts += [ln.text for ln in lines if any(_overlaps(ln.box, b) for b in boxes)]
        covered = sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes)
        areas.append(covered / max(size[0] * size[1], 1.0))
    under = " ".join(texts)
    found = [f for f in item.key_facts if fact_found(f, under)]
    return {
        "facts_in_regions": len(found),
        "region_area": round(sum(areas) / len(areas), 4) if areas else None,
    }


def summarise_regions(items: list[BenchItem], records: list[dict[str, Any]]) -> dict[str, Any]:
    """Key-fact recall under the regions and the mean region share of a page."""
    pairs = [(i, r) for i, r in zip(items, records, strict=True) if i.key_facts]
    total = sum(len(i.key_facts) for i, _ in pairs)
    found = sum(r["regions"]["facts_in_regions"] for _, r in pairs)
    areas = [r["regions"]["region_area"] for r in records if r["regions"]["region_area"]]
    return {
        "region_fact_recall": round(found / total, 3) if total else None,
        "region_page_share": round(sum(areas) / len(areas), 4) if areas else None,
    }
