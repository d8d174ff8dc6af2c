"""One definition per metric: a figure added to METRICS is computed and shown everywhere."""

from __future__ import annotations

import pytest

import app.bench.metrics as metrics
from app.bench.compare import FIGURES as COMPARED
from app.bench.compare import LOWER_IS_BETTER
from app.bench.dataset import BenchItem, _item
from app.bench.export import FIGURE_LABELS
from app.bench.metrics import METRICS, Metric, summarise
from app.bench.runner import format_summary


def items_and_records() -> tuple[list[BenchItem], list[dict]]:
    item = _item(
        {"id": "a", "category": "direct", "query": "q", "answer": "", "key_facts": ["7982"],
         "evidence": {"document": "A.pdf", "locations": [{"page": 2}]}}, 0
    )  # fmt: skip
    record = {
        "answer": "code 7982", "abstained": False, "citations": [], "timings": {"total": 0.5},
        "pages": [{"document": "A.pdf", "page": 2, "score": 1.0}],
    }  # fmt: skip
    record["score"] = metrics.score_record(item, record)
    return [item], [record]


def test_every_metric_is_in_the_summary_and_its_views() -> None:
    summary = summarise(*items_and_records())
    assert [k for k in summary if k != "per_category"] == [m.key for m in METRICS]
    assert list(COMPARED) == [m.key for m in METRICS] and set(FIGURE_LABELS) == set(COMPARED)
    assert {"false_abstentions", "latency_p50_s", "latency_p95_s"} == LOWER_IS_BETTER
    head_line = format_summary(summary).splitlines()[0]
    assert head_line.split(maxsplit=1)[1].split() == " ".join(m.head for m in METRICS).split()


def test_a_new_metric_is_computed_for_the_run_and_each_category(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cited = Metric("cited", "Cited answers", "cited", "rate", lambda b: b.share(lambda r: 1))
    monkeypatch.setattr(metrics, "METRICS", (*METRICS, cited))
    summary = summarise(*items_and_records())
    assert summary["cited"] == 1.0 and summary["per_category"]["direct"]["cited"] == 1.0
    assert cited.format(summary["cited"]) == "100%"
