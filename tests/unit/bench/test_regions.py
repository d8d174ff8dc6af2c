"""Region figures: the text under a highlight is read back from the stored page lines."""

from __future__ import annotations

import numpy as np

from app.bench.dataset import BenchItem, EvidenceRef
from app.bench.regions import region_figures
from app.library.models import ManualProfile, TextLine
from app.library.store import NewDocument, PageRecord, Store


def test_a_region_over_the_fact_line_counts_it_and_is_small(store: Store) -> None:
    lines = [TextLine("Baud rate: 600", (50, 100, 200, 112)), TextLine("Other", (50, 500, 90, 512))]
    store.add_document(
        NewDocument(
            "ab" * 32,
            "M.pdf",
            "M",
            "",
            [PageRecord(1, 600, 800, "x", "x", False, lines)],
            [],
            [],
            np.zeros((0, 8), np.float32),
            ManualProfile(),
        )
    )
    item = BenchItem("q", "direct", "baud?", "600", ("600",), (EvidenceRef("M.pdf", (1,)),))
    record = {"citations": [{"document": "M.pdf", "page": 1, "regions": [[48, 98, 202, 114]]}]}
    figures = region_figures(store, item, record)
    assert figures["facts_in_regions"] == 1
    assert figures["region_area"] < 0.01
