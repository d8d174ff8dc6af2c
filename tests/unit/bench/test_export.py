"""Exports: JSON and CSV read back as the run, the HTML report stands on its own."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from app.bench.export import (
    CSV_COLUMNS,
    export_csv,
    export_html,
    export_json,
    latency_histogram,
)
from tests.unit.bench.fake_runs import ITEMS, finished_run


def test_json_export_reads_back_as_the_run(tmp_path: Path) -> None:
    run = finished_run()

    path = export_json(run, tmp_path / "out" / "run.json")

    assert json.loads(path.read_text(encoding="utf-8")) == run


def test_csv_has_one_row_per_question_with_the_verdict(tmp_path: Path) -> None:
    run = finished_run()

    path = export_csv(run, tmp_path / "run.csv")
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))

    assert [r["id"] for r in rows] == [i.id for i in ITEMS]
    assert tuple(rows[0]) == CSV_COLUMNS
    assert rows[0]["query"] == ITEMS[0].query and rows[0]["rank"] == "1"
    assert rows[0]["cited_pages"] == "Install.pdf p.21" and rows[0]["judge_score"] == "100"
    assert rows[1]["missing_facts"] == "amber" and rows[1]["rank"] == "2"
    assert rows[2]["abstained"] == "True"


def test_html_report_is_self_contained_with_charts_and_every_question(tmp_path: Path) -> None:
    run = finished_run()
    run["records"][1]["answer"] = "Red <b>LED</b> & more"

    page = export_html(run, tmp_path / "report.html").read_text(encoding="utf-8")

    assert not re.search(r"https?://", page)
    assert not re.search(r"""(src|href)\s*=""", page)
    assert page.count("<svg") == 2 and "<rect" in page
    assert "<style>" in page and "<link" not in page and "<script" not in page
    for item in ITEMS:
        assert f"<td>{item.id}</td>" in page
    assert "Red &lt;b&gt;LED&lt;/b&gt; &amp; more" in page
    assert "deterministic key-fact check" in page
    assert "Hit@1" in page and "unanswerable" in page


def test_a_stopped_run_says_how_far_it_got(tmp_path: Path) -> None:
    run = finished_run()
    run["meta"]["stopped"] = True
    run["records"] = run["records"][:1]
    run["summary"]["questions"] = 1

    page = export_html(run, tmp_path / "report.html").read_text(encoding="utf-8")

    assert "after 1 of 3 questions" in page


def test_latency_histogram_counts_every_answer() -> None:
    records = [{"timings": {"total": t}} for t in (0.1, 0.2, 0.2, 1.1)]

    bins = latency_histogram(records, bins=4)

    assert [n for _, _, n in bins] == [3, 0, 0, 1]
    assert bins[0][0] == 0.1 and bins[-1][1] == 1.1
    assert latency_histogram([]) == []
