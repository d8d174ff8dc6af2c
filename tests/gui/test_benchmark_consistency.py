"""The Interactive tab's "Judge 5×": the same answer judged five times, its scores, mean,
spread and method shown beside the ground truth. Simulated replies (a stand-in controller)
check what the panel sends and shows; one test goes through the real worker's bench lane,
where the key-fact check has no LLM to vary."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QSettings, Qt

from app.ui import theme
from app.ui.benchmark.interactive import CONSISTENCY_REPEATS
from app.ui.benchmark.panel import BenchmarkPanel
from app.ui.main import application
from app.worker.bench_messages import BenchJudgeRequest, BenchVerdict
from tests.gui.conftest import gui_settings
from tests.gui.test_benchmark_runs import DESIGN_ITEMS, StubController

LLM_FIGURES = {"repeats": 5, "method": "llm", "temperature": 0.0,
               "scores": [80, 80, 75, 80, 80], "mean": 79.0, "stdev": 2.0, "min": 75,
               "max": 80, "spread": 5, "fallbacks": 0}  # fmt: skip


@pytest.fixture
def panel(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    colors = theme.apply(application())
    state = QSettings(str(tmp_path / "state.ini"), QSettings.Format.IniFormat)
    widget = BenchmarkPanel(StubController(), gui_settings(tmp_path / "library"), colors, state)
    qtbot.addWidget(widget)
    widget.resize(1400, 860)
    widget.show()
    data = tmp_path / "set.json"
    data.write_text(json.dumps(DESIGN_ITEMS), encoding="utf-8")
    assert widget.load_dataset(data)
    widget.show_tab(widget.interactive)
    return widget


def suggest(panel: BenchmarkPanel, item_id: str) -> None:
    view = panel.interactive
    while view.item is None or view.item.id != item_id:
        view.suggest_button.click()


def test_judge_five_times_sends_one_request_and_shows_the_spread(panel, qtbot):
    view = panel.interactive
    suggest(panel, "a1")
    assert view.repeat_button.text() == "Judge 5×" and view.repeat_button.isEnabled()
    view.answer.setPlainText("AUX+ gives 13.8 V.")
    qtbot.mouseClick(view.repeat_button, Qt.MouseButton.LeftButton)

    [request] = panel.controller.sent
    assert isinstance(request, BenchJudgeRequest) and request.repeats == CONSISTENCY_REPEATS == 5
    assert (request.item.id, request.answer) == ("a1", "AUX+ gives 13.8 V.")
    assert not request.abstained
    assert view.verdict.text() == "Judging 5 times…" and not view.truth_box.isVisible()
    assert not view.repeat_button.isEnabled() and not view.evaluate_button.isEnabled()

    panel.controller.bench_reply.emit(BenchVerdict(request.job - 1, None, consistency={}))
    assert view.waiting, "a reply to an older request is ignored"
    panel.controller.bench_reply.emit(BenchVerdict(request.job, None, consistency=LLM_FIGURES))
    text = view.verdict.text()
    assert "scores 80, 80, 75, 80, 80 · mean 79 · spread 5 · method llm" in text
    assert "deterministic" not in text and "fell back" not in text
    assert view.truth_box.isVisible() and "13.8 V DC" in view.truth.text()
    assert view.repeat_button.isEnabled() and view.evaluate_button.isEnabled()


def test_evaluate_still_judges_once(panel):
    suggest(panel, "a1")
    panel.interactive.evaluate_button.click()
    [request] = panel.controller.sent
    assert request.repeats == 1 and panel.interactive.verdict.text() == "Judging…"


@pytest.mark.parametrize(
    ("figures", "abstain", "says"),
    [
        ({"method": "key-facts", "scores": [50] * 5, "mean": 50.0, "spread": 0}, False,
         "key-fact check is deterministic"),
        ({**LLM_FIGURES, "scores": [80, 80, 50, 80, 80], "mean": 74.0, "spread": 30,
          "fallbacks": 1}, False, "1 of 5 verdicts fell back to the key-fact check"),
        ({**LLM_FIGURES, "scores": [0] * 5, "mean": 0.0, "spread": 0}, True, "Scored by rule"),
    ],
)  # fmt: skip
def test_says_when_a_spread_of_zero_is_not_a_model_s(panel, figures, abstain, says):
    view = panel.interactive
    suggest(panel, "a1")
    view.abstain.setChecked(abstain)
    view.repeat_button.click()
    view.abstain.setChecked(not abstain)  # what counts is the answer that was judged
    panel.controller.bench_reply.emit(
        BenchVerdict(panel.controller.sent[-1].job, None, consistency={"repeats": 5, **figures})
    )
    assert says in view.verdict.text()


def test_a_failed_repeated_judging_says_why(panel):
    suggest(panel, "a2")
    panel.interactive.repeat_button.click()
    job = panel.controller.sent[-1].job
    panel.controller.bench_reply.emit(BenchVerdict(job, None, "RuntimeError: model gone"))
    assert panel.interactive.verdict.text() == "The judge failed: RuntimeError: model gone"
    assert not panel.interactive.waiting


def test_the_worker_judges_the_same_answer_five_times(make_window, tmp_path, qtbot):
    data = tmp_path / "questions.json"
    data.write_text(json.dumps(DESIGN_ITEMS), encoding="utf-8")
    window = make_window(tmp_path / "library")
    window.show_view("benchmark")
    panel = window.benchmark
    assert panel.load_dataset(data)
    panel.show_tab(panel.interactive)
    suggest(panel, "a1")
    view = panel.interactive
    view.answer.setPlainText("It supplies 13.8 V DC.")
    view.repeat_button.click()
    qtbot.waitUntil(lambda: not view.waiting, timeout=30_000)
    text = view.verdict.text()
    assert "scores 100, 100, 100, 100, 100 · mean 100 · spread 0 · method key-facts" in text
    assert "key-fact check is deterministic" in text
    assert view.truth_box.isVisible()
