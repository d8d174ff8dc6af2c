"""The benchmark panel with the real worker process and the scripted answerer: a run fills
the table live and ends with the summary ``app.bench.metrics.summarise`` gives for the same
records; a run stops between questions; a row opens its evidence; the interactive mode
answers, judges and only then shows the ground truth."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from app.bench.dataset import load_dataset
from app.bench.metrics import summarise
from app.bench.runs import RunStore, runs_dir
from app.ui.benchmark.records import FIGURES, format_figure
from app.worker.bench_messages import BenchStarted, BenchStep
from tests.gui.fakes import ANSWER, MANUAL

ITEMS = [
    {"id": "p6", "category": "visual", "query": "What does the AUX+ terminal supply?",
     "answer": "13.8 V DC, 500 mA", "key_facts": ["13.8 V", "500 mA"],
     "evidence": {"document": MANUAL, "locations": [{"page": 6}]}},
    {"id": "p7", "category": "direct", "query": "What is on page seven?", "answer": "12 V",
     "key_facts": ["12 V"], "evidence": {"document": MANUAL, "locations": [{"page": 7}]}},
    {"id": "none", "category": "unanswerable", "query": "What is the unknown weather?",
     "answer": "", "evidence": {}},
]  # fmt: skip


def dataset(tmp_path: Path, items: list[dict[str, Any]] = ITEMS) -> Path:
    path = tmp_path / "questions.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def open_panel(make_window, library: Path, data: Path):  # type: ignore[no-untyped-def]
    window = make_window(library)
    window.show_view("benchmark")
    panel = window.benchmark
    assert panel.load_dataset(data)
    return window, panel


def test_a_run_fills_the_table_live_and_ends_with_the_metrics_summary(
    make_window, sample_library, tmp_path, qtbot
):
    data = dataset(tmp_path)
    window, panel = open_panel(make_window, sample_library, data)
    replies: list[Any] = []
    window.controller.bench_reply.connect(replies.append)
    rows_seen: list[int] = []
    window.controller.bench_reply.connect(
        lambda r: (
            rows_seen.append(panel.results.model.rowCount()) if isinstance(r, BenchStep) else None
        )
    )
    with qtbot.waitSignal(panel.run_finished, timeout=60_000) as finished:
        qtbot.mouseClick(panel.bar.run_button, Qt.MouseButton.LeftButton)
        assert panel.bar.progress.isVisible() and not panel.bar.run_button.isEnabled()
    reply = finished.args[0]
    assert not reply.error and not reply.stopped
    started = next(r for r in replies if isinstance(r, BenchStarted))
    assert started.total == 3 and started.judge_method == "key-facts"
    steps = [r for r in replies if isinstance(r, BenchStep)]
    assert [s.done for s in steps] == [1, 2, 3] and rows_seen == [1, 2, 3]
    assert [s.next_query for s in steps] == [ITEMS[1]["query"], ITEMS[2]["query"], ""]

    saved = RunStore(runs_dir(sample_library)).load(reply.run_id)
    assert saved == reply.run and panel.run == saved
    assert saved["meta"]["dataset_name"] == "questions" and saved["meta"]["mode"] == "no-LLM"
    expected = summarise(load_dataset(data), saved["records"])
    cards = panel.results.cards
    for key, _label, kind in FIGURES:
        assert cards.text(key) == format_figure(expected[key], kind), key
        for category, block in expected["per_category"].items():
            assert panel.results.categories.value(category, key) == format_figure(block[key], kind)
    assert cards.text("hit@1") == "50%" and cards.text("hit@3") == "100%"
    assert cards.text("abstention_accuracy") == "100%" and cards.text("judge_mean") == "67"
    table = panel.results.proxy
    assert [table.index(r, 2).data() for r in range(3)] == ["#1", "#2", "abstained ✓"]
    assert table.index(1, 6).data() == "missing: 12 V"
    assert panel.results.judge.text() == "Judge: key-fact check: no LLM installed"
    assert panel.runs.ids() == [reply.run_id] and not panel.bar.progress.isVisible()


def test_a_run_stops_between_questions(make_window, tmp_path, qtbot):
    items = [dict(ITEMS[0], id=f"q{i:02d}") for i in range(40)]
    window, panel = open_panel(make_window, tmp_path / "library", dataset(tmp_path, items))
    stopped_at: list[int] = []

    def stop_after_first(reply: Any) -> None:
        if isinstance(reply, BenchStep) and not stopped_at:
            stopped_at.append(reply.done)
            panel.bar.stop_button.click()

    window.controller.bench_reply.connect(stop_after_first)
    with qtbot.waitSignal(panel.run_finished, timeout=60_000) as finished:
        panel.bar.run_button.click()
    reply = finished.args[0]
    assert reply.stopped and not reply.error
    done = len(reply.run["records"])
    assert 1 <= done < 40, "the question under way finishes, the rest are skipped"
    assert reply.run["meta"]["stopped"] and reply.run["meta"]["questions"] == done
    assert reply.run["summary"]["questions"] == done
    assert panel.results.model.rowCount() == done
    assert f"stopped after {done} of 40 questions" in panel.bar.status.text()
    assert panel.bar.run_button.isEnabled() and not panel.bar.stop_button.isEnabled()


def test_clicking_a_result_shows_its_answer_with_the_evidence(
    make_window, sample_library, tmp_path, qtbot
):
    window, panel = open_panel(make_window, sample_library, dataset(tmp_path, ITEMS[:1]))
    with qtbot.waitSignal(panel.run_finished, timeout=60_000):
        panel.bar.run_button.click()
    table = panel.results.table
    rect = table.visualRect(panel.results.proxy.index(0, 4))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.views.currentWidget() is window.splitter
    evidence = window.evidence
    assert evidence.current == (MANUAL, 6) and list(evidence.refs) == [(MANUAL, 6), (MANUAL, 7)]
    assert evidence.refs[(MANUAL, 6)].numbers == [1]
    qtbot.waitUntil(lambda: (MANUAL, 6) in evidence.images, timeout=20_000)


def test_interactive_mode_answers_blind_then_judges_then_shows_the_truth(
    make_window, tmp_path, qtbot
):
    _window, panel = open_panel(make_window, tmp_path / "library", dataset(tmp_path, ITEMS[:2]))
    view = panel.interactive
    panel.show_tab(view)
    view.random.seed(1)
    view.suggest_button.click()
    item = view.item
    assert item is not None and view.question.text() == item.query
    assert not view.truth_box.isVisible() and not view.verdict_box.isVisible()
    assert item.answer not in view.question.text() + view.answer.toPlainText()

    if item.id != "p6":  # the scripted answer states AUX+'s figures
        view.suggest_button.click()
    assert view.item is not None and view.item.id == "p6"
    with qtbot.waitSignal(panel.controller.bench_reply, timeout=30_000):
        view.ask_button.click()
        assert not view.evaluate_button.isEnabled()
    qtbot.waitUntil(lambda: view.answer.toPlainText() == ANSWER, timeout=10_000)
    assert not view.truth_box.isVisible()

    qtbot.waitUntil(lambda: view.evaluate_button.isEnabled(), timeout=10_000)
    view.evaluate_button.click()
    qtbot.waitUntil(lambda: not view.waiting, timeout=30_000)
    assert view.verdict_box.isVisible() and "100" in view.verdict.text()
    assert "key-fact check: no LLM installed" in view.verdict.text()
    assert view.truth_box.isVisible() and "13.8 V DC, 500 mA" in view.truth.text()

    view.answer.setPlainText("It gives 12 V.")
    view.evaluate_button.click()
    qtbot.waitUntil(lambda: not view.waiting, timeout=30_000)
    assert "<span style='font-size:22px;font-weight:600'>0</span>" in view.verdict.text()
    assert "Missing:</b> 13.8 V, 500 mA" in view.verdict.text()
