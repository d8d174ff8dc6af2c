"""The benchmark panel without a worker: loading datasets in both formats, reading saved
runs, comparing two runs and exporting one. A stand-in controller records what the panel
would send; the saved runs are written with ``app.bench.runs.RunStore`` as the worker does."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtWidgets import QMessageBox

from app.bench.dataset import load_dataset
from app.bench.metrics import score_record, summarise
from app.bench.runs import RunMeta, RunStore, runs_dir
from app.ui import theme
from app.ui.benchmark.panel import BenchmarkPanel
from app.ui.main import application
from app.worker.bench_messages import (
    BenchRunRequest,
    BenchStopRequest,
    OptimizeRequest,
    OptimizeUpdate,
)
from app.worker.messages import WorkerReady
from tests.gui.conftest import gui_settings

DOC = "Lumen_AX200_Installation_Manual.pdf"
DESIGN_ITEMS = [
    {"id": "a1", "category": "direct", "query": "What does AUX+ supply?", "answer": "13.8 V DC",
     "key_facts": ["13.8 V"], "evidence": {"document": DOC, "locations": [{"page": 6}]}},
    {"id": "a2", "category": "visual", "query": "Which jumper sets PGM to 12 V?", "answer": "J2",
     "key_facts": ["J2"], "evidence": {"document": DOC, "locations": [{"page": 9}]},
     "additional_evidence": [{"document": DOC, "locations": [{"page": 10}]}]},
    {"id": "a3", "category": "unanswerable", "query": "What is the weather?", "answer": "",
     "evidence": {}},
]  # fmt: skip
OLD_ITEMS = [
    {"id": "o1", "category": "direct", "question": "Old style?", "answer": "yes",
     "evidence": {"document": DOC, "locations": [{"chapter": "3", "page": 6}]}},
]  # fmt: skip


class StubController(QObject):
    """The controller's signals and ``send_bench``, with no worker behind them."""

    bench_reply = Signal(object)
    ready = Signal(object)
    library_changed = Signal(object)
    restarted = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[Any] = []

    def send_bench(self, request: Any) -> None:
        self.sent.append(request)


def write(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def record(item: Any, answer: str, pages: list[int], abstained: bool, judge: int, secs: float):  # type: ignore[no-untyped-def]
    rec = {
        "id": item.id, "category": item.category, "query": item.query, "answer": answer,
        "abstained": abstained,
        "pages": [{"document": DOC, "page": p, "score": 1.0} for p in pages],
        "citations": [{"document": DOC, "title": "Installation Manual", "page": p,
                       "regions": [[10.0, 10.0, 50.0, 20.0]]} for p in pages[:1]],
        "timings": {"total": secs},
        "judge": {"score": judge, "reasoning": "r", "missing_facts": [] if judge else ["x"],
                  "incorrect_facts": [], "method": "key-facts"},
    }  # fmt: skip
    rec["score"] = score_record(item, rec)
    return rec


def save_run(library: Path, dataset: Path, started: str, answers: list[tuple]) -> str:  # type: ignore[type-arg]
    items = load_dataset(dataset)
    records = [record(item, *a) for item, a in zip(items, answers, strict=True)]
    summary = summarise(items, records)
    summary["judge_method"] = "key-facts"
    meta = RunMeta(str(dataset), dataset.stem, str(library), started, started, "no-LLM",
                   "key-facts", None, len(records), False)  # fmt: skip
    result = {"summary": summary, "records": records, "stopped": False}
    return RunStore(runs_dir(library)).save(result, meta).id


@pytest.fixture
def panel(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    colors = theme.apply(application())
    state = QSettings(str(tmp_path / "state.ini"), QSettings.Format.IniFormat)
    widget = BenchmarkPanel(StubController(), gui_settings(tmp_path / "library"), colors, state)
    qtbot.addWidget(widget)
    widget.resize(1400, 860)
    widget.show()
    return widget


def test_loads_both_dataset_formats_and_remembers_the_choice(panel, tmp_path, monkeypatch):
    design = write(tmp_path / "design.json", DESIGN_ITEMS)
    monkeypatch.setattr(
        "app.ui.benchmark.panel.QFileDialog.getOpenFileName", lambda *a, **k: (str(design), "")
    )
    panel.bar.choose_button.click()
    assert [i.id for i in panel.items] == ["a1", "a2", "a3"]
    assert panel.items[1].gold_pages() == {(DOC, 9), (DOC, 10)}
    assert panel.bar.dataset_label.text() == "design.json"
    assert "3 questions" in panel.bar.status.text() and "unanswerable" in panel.bar.status.text()
    assert panel.state.value("benchmark/dataset") == str(design)
    assert panel.bar.run_button.isEnabled() and panel.interactive.suggest_button.isEnabled()

    old = write(tmp_path / "old.json", OLD_ITEMS)
    assert panel.load_dataset(old)
    assert panel.items[0].query == "Old style?" and panel.items[0].key_facts == ()
    assert panel.items[0].gold_pages() == {(DOC, 6)}

    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert not panel.load_dataset(broken)
    assert "cannot read" in panel.bar.status.text() and panel.bar.status.property("error")
    assert panel.dataset == str(old), "a broken file leaves the loaded dataset in place"

    panel.bar.run_button.click()
    [request] = panel.controller.sent
    assert isinstance(request, BenchRunRequest) and request.dataset == str(old)
    assert (
        panel.running and not panel.bar.run_button.isEnabled() and panel.bar.stop_button.isEnabled()
    )


def test_shows_the_newest_saved_run_with_its_summary(panel, tmp_path):
    library = panel.library_dir
    dataset = write(tmp_path / "set.json", DESIGN_ITEMS)
    save_run(library, dataset, "2025-01-01T10:00:00+00:00",
             [("13.8 V DC", [7, 6], False, 100, 1.0), ("no", [], False, 0, 2.0),
              ("The manuals do not say.", [], True, 100, 0.5)])  # fmt: skip
    newest = save_run(library, dataset, "2025-01-02T10:00:00+00:00",
                      [("13.8 V DC", [6], False, 100, 1.5), ("J2", [10], False, 100, 2.5),
                       ("It is sunny.", [], False, 0, 0.5)])  # fmt: skip
    panel.refresh_runs(show_newest=True)
    assert panel.runs.ids()[0] == newest and panel.run["id"] == newest
    results = panel.results
    assert results.model.rowCount() == 3
    assert results.cards.text("hit@1") == "100%" and results.cards.text("mrr") == "1.00"
    assert results.cards.text("abstention_accuracy") == "0%"
    assert results.categories.value("visual", "hit@1") == "100%"
    assert results.categories.value("All", "judge_mean") == "67"
    assert results.judge.text() == "Judge: key-fact check: no LLM installed"
    texts = [results.proxy.index(r, 2).data() for r in range(3)]
    assert texts == ["#1", "#1", "answered ✗"]
    results.table.sortByColumn(7, Qt.SortOrder.DescendingOrder)
    assert results.proxy.index(0, 0).data() == "a2", "sorted by time, slowest first"


def test_compares_two_runs_side_by_side(panel, tmp_path, qtbot):
    library = panel.library_dir
    dataset = write(tmp_path / "set.json", DESIGN_ITEMS)
    before = save_run(library, dataset, "2025-01-01T10:00:00+00:00",
                      [("13.8 V DC", [7, 6], False, 100, 1.0), ("no", [], False, 0, 2.0),
                       ("The manuals do not say.", [], True, 100, 0.5)])  # fmt: skip
    after = save_run(library, dataset, "2025-01-02T10:00:00+00:00",
                     [("13.8 V DC", [6], False, 100, 1.5), ("J2", [10], False, 100, 2.5),
                      ("It is sunny.", [], False, 0, 0.5)])  # fmt: skip
    panel.refresh_runs()
    panel.runs.compare_button.click()
    compare = panel.compare
    assert panel.current_tab() is compare
    assert (compare.before.currentData(), compare.after.currentData()) == (before, after)
    rows = {compare.table.item(r, 0).text(): [compare.table.item(r, c).text() for c in (1, 2, 3)]
            for r in range(compare.table.rowCount())}  # fmt: skip
    assert rows["Hit@1"] == ["0%", "100%", "+100 pts"]
    assert rows["MRR"] == ["0.25", "1.00", "+0.75"]
    assert rows["Abstention accuracy"] == ["100%", "0%", "-100 pts"]
    hit1 = next(
        r for r in range(compare.table.rowCount()) if compare.table.item(r, 0).text() == "Hit@1"
    )
    assert compare.table.item(hit1, 3).foreground().color().name() == panel.compare.good.name()
    better = [compare.better.item(i).text() for i in range(compare.better.count())]
    worse = [compare.worse.item(i).text() for i in range(compare.worse.count())]
    assert better[0].endswith("\nWhat does AUX+ supply?"), "each line names its question"
    better = [b.splitlines()[0] for b in better]
    worse = [w.splitlines()[0] for w in worse]
    assert better == ["a1 (direct): page #2 → #1", "a2 (visual): page miss → #1, judge 0 → 100"]
    assert worse == ["a3 (unanswerable): judge 100 → 0"]
    assert compare.worse_title.text() == "Got worse (1)"
    compare.scope.setCurrentText("visual")
    rows = {compare.table.item(r, 0).text(): compare.table.item(r, 2).text()
            for r in range(compare.table.rowCount())}  # fmt: skip
    assert rows["Hit@3"] == "100%" and rows["Questions"] == "1"
    compare.swap()
    assert compare.before.currentData() == after and compare.worse.count() == 2


def test_exports_the_run_as_json_csv_and_html(panel, tmp_path, monkeypatch):
    dataset = write(tmp_path / "set.json", DESIGN_ITEMS)
    save_run(panel.library_dir, dataset, "2025-01-02T10:00:00+00:00",
             [("13.8 V DC", [6], False, 100, 1.5), ("J2", [10], False, 100, 2.5),
              ("It is sunny.", [], False, 0, 0.5)])  # fmt: skip
    panel.refresh_runs(show_newest=True)
    out = tmp_path / "out"
    for kind in ("json", "csv", "html"):
        target = out / f"run.{kind}"
        monkeypatch.setattr(
            "app.ui.benchmark.exports.QFileDialog.getSaveFileName",
            lambda *a, t=target, **k: (str(t), ""),
        )
        panel.bar.exports.buttons[kind].click()
        assert target.is_file(), kind
        assert panel.bar.status.text() == f"Wrote {target}"
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["summary"] == panel.run["summary"] and len(run["records"]) == 3
    with (out / "run.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["id"] for r in rows] == ["a1", "a2", "a3"] and rows[1]["answer"] == "J2"
    html = (out / "run.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") >= 2
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in html


def test_exports_are_disabled_without_a_run_and_optimising_without_an_llm(panel):
    assert panel.run is None
    assert not any(b.isEnabled() for b in panel.bar.exports.buttons.values())
    assert not panel.optimise.button.isEnabled()
    assert "needs an LLM" in panel.optimise.button.toolTip()


def test_optimising_shows_progress_then_before_and_after(panel, tmp_path):
    panel.load_dataset(write(tmp_path / "set.json", DESIGN_ITEMS))
    panel.controller.ready.emit(WorkerReady(str(panel.library_dir), "LLM · Qwen2.5-3B", ()))
    view = panel.optimise
    assert view.button.isEnabled() and view.status.text() == ""
    view.optimizer.setCurrentIndex(view.optimizer.findData("gepa"))
    view.button.click()
    [request] = panel.controller.sent
    assert isinstance(request, OptimizeRequest) and request.optimizer == "gepa"
    assert request.dataset == panel.dataset and not view.button.isEnabled()
    view.stop_button.click()
    assert panel.controller.sent[-1] == BenchStopRequest(request.job)
    reply = panel.controller.bench_reply.emit
    reply(OptimizeUpdate(request.job, "baseline: 1/2"))
    report = {"optimizer": "gepa", "model": "Qwen2.5-3B", "train_ids": ["a1", "a3"],
              "val_ids": ["a2"], "before": 0.25, "after": 0.75, "version": "v0002",
              "path": "/lib/programs/v0002", "note": ""}  # fmt: skip
    reply(OptimizeUpdate(request.job, "finished", True, report))
    assert view.log.toPlainText() == "baseline: 1/2"
    assert "0.250 → 0.750" in view.result.text() and "v0002" in view.result.text()
    assert "Saved as v0002" in view.status.text() and view.button.isEnabled()


def test_a_run_the_worker_lost_ends_with_a_reason(panel, tmp_path):
    panel.load_dataset(write(tmp_path / "set.json", DESIGN_ITEMS))
    panel.bar.run_button.click()
    assert panel.running
    panel.controller.restarted.emit()
    assert not panel.running and panel.bar.run_button.isEnabled()
    assert "background worker stopped" in panel.bar.status.text()


def test_deleting_a_saved_run(panel, tmp_path, monkeypatch):
    dataset = write(tmp_path / "set.json", DESIGN_ITEMS)
    run_id = save_run(panel.library_dir, dataset, "2025-01-02T10:00:00+00:00",
                      [("13.8 V DC", [6], False, 100, 1.5), ("J2", [10], False, 100, 2.5),
                       ("It is sunny.", [], False, 0, 0.5)])  # fmt: skip
    panel.refresh_runs(show_newest=True)
    monkeypatch.setattr(
        "app.ui.benchmark.panel.QMessageBox.question",
        lambda *a, **k: QMessageBox.StandardButton.Yes,
    )
    panel.runs.list.item(0).setSelected(True)
    panel.runs.delete_button.click()
    assert RunStore(runs_dir(panel.library_dir)).list() == [] and panel.runs.ids() == []
    assert panel.run is None and panel.results.model.rowCount() == 0
    assert not any(b.isEnabled() for b in panel.bar.exports.buttons.values())
    assert run_id not in panel.compare.before.currentText()


def test_interactive_answer_opens_its_evidence(panel, tmp_path, qtbot):
    dataset = write(
        tmp_path / "d.json", [{"id": "q1", "query": "AUX voltage?", "answer": "13.8 V"}]
    )
    panel.load_dataset(str(dataset))
    view = panel.interactive
    view.suggest()
    assert not view.evidence_button.isEnabled(), "nothing to show before Lantern answers"
    rec = record(view.item, "13.8 V [1]", [6], False, 100, 0.5)

    view.on_answered(rec)

    assert view.evidence_button.isEnabled()
    with qtbot.waitSignal(panel.answer_requested) as shown:
        view.evidence_button.click()
    answer = shown.args[0]
    assert [(c.document, c.page) for c in answer.citations] == [(DOC, 6)]
    view.suggest()
    assert not view.evidence_button.isEnabled(), "a new question has no answer yet"
