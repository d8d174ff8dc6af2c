"""Datasets in both formats, and the metrics a technician reads off the summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.bench.dataset import DatasetError, load_dataset
from app.bench.metrics import fact_found, score_record, summarise
from app.bench.runner import format_summary


def _write(tmp_path: Path, items: list[dict]) -> Path:
    path = tmp_path / "set.json"
    path.write_text(json.dumps(items))
    return path


def test_reads_the_design_format_and_the_older_chapter_variant(tmp_path: Path) -> None:
    items = load_dataset(
        _write(
            tmp_path,
            [
                {
                    "id": "a",
                    "category": "direct",
                    "query": "q?",
                    "answer": "x",
                    "key_facts": ["12 V"],
                    "evidence": {"document": "A.pdf", "locations": [{"page": 3}]},
                    "additional_evidence": [{"document": "B.pdf", "locations": [{"page": 7}]}],
                },
                {
                    "id": "b",
                    "category": "direct",
                    "query": "old?",
                    "answer": "y",
                    "evidence": {"document": "A.pdf", "locations": [{"chapter": "2", "page": 5}]},
                },
            ],
        )
    )
    assert items[0].gold_pages() == {("A.pdf", 3), ("B.pdf", 7)}
    assert items[1].key_facts == () and items[1].gold_pages() == {("A.pdf", 5)}


def test_a_broken_dataset_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(DatasetError, match="cannot read"):
        load_dataset(bad)


def test_key_facts_match_ignoring_case_and_unit_spacing() -> None:
    assert fact_found("12 V", "the output is 12V DC")
    assert fact_found("PROG", "default P-word: prog")
    assert not fact_found("1301", "CID 3301")


def test_summary_counts_hits_abstentions_and_facts(tmp_path: Path) -> None:
    items = load_dataset(
        _write(
            tmp_path,
            [
                {
                    "id": "a",
                    "category": "direct",
                    "query": "q",
                    "answer": "",
                    "key_facts": ["7982"],
                    "evidence": {"document": "A.pdf", "locations": [{"page": 2}]},
                },
                {
                    "id": "u",
                    "category": "unanswerable",
                    "query": "q",
                    "answer": "",
                    "evidence": {"document": None, "locations": []},
                },
            ],
        )
    )
    records = [
        {
            "answer": "installer code 7982",
            "abstained": False,
            "citations": [],
            "pages": [
                {"document": "A.pdf", "page": 9, "score": 1},
                {"document": "A.pdf", "page": 2, "score": 0.5},
            ],
            "timings": {"total": 0.1},
        },
        {
            "answer": "The manuals don't say.",
            "abstained": True,
            "citations": [],
            "pages": [],
            "timings": {"total": 0.2},
        },
    ]
    for item, record in zip(items, records, strict=True):
        record["score"] = score_record(item, record)
    summary = summarise(items, records)
    assert summary["hit@1"] == 0.0 and summary["hit@3"] == 1.0 and summary["mrr"] == 0.5
    assert summary["key_fact_recall"] == 1.0
    assert summary["abstention_accuracy"] == 1.0 and summary["false_abstentions"] == 0
    assert "unanswerable" in format_summary(summary)
