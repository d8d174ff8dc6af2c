"""The benchmark panel's Learning tab, with the real worker: after a run, the decisions'
rolling accuracy is charted (rules and LLM side by side), the saved runs are compared by
program version, and an optimisation that is due is offered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QRectF, Qt

from app.agent.decision_book import DecisionBook, Outcome
from app.agent.shadow import ShadowRecord
from app.library.library import Library
from app.ui.benchmark.learning_view import AccuracyChart, LearningView
from app.worker.bench_messages import LearningStats
from tests.gui.test_benchmark import dataset, open_panel

STEP = ShadowRecord(
    "next_step", 1, {}, {"tool": "answer"}, {"tool": "text_search"}, 0.9, 0.9, "llm"
)


def labelled_library(folder: Path, count: int) -> None:
    """``count`` questions whose LLM step was wrong and whose rules' step was right."""
    library = Library.open(folder)
    book = DecisionBook(library.store)
    for i in range(count):
        book.save(f"run-{i}", f"question {i}", [STEP])
        book.label(f"run-{i}", Outcome("feedback", good=False))
        with library.store.transaction() as db:
            db.execute("UPDATE decision_records SET rule_right = 1 WHERE run_id = ?", (f"run-{i}",))
    library.close()


def test_after_a_run_the_learning_tab_charts_accuracy_and_offers_an_optimisation(
    make_window: Any, sample_library: Path, tmp_path: Path, qtbot: Any
) -> None:
    labelled_library(sample_library, 24)
    window, panel = open_panel(make_window, sample_library, dataset(tmp_path))

    def is_stats(reply: object) -> bool:
        return isinstance(reply, LearningStats) and reply.job == 0

    with qtbot.waitSignal(window.controller.bench_reply, timeout=60_000, check_params_cb=is_stats):
        qtbot.mouseClick(panel.bar.run_button, Qt.MouseButton.LeftButton)
    panel.show_tab(panel.learning)
    view = panel.learning

    chart = view.charts["next_step"]
    assert len(chart.points) == 24 and chart.points[-1] == {
        "at": chart.points[-1]["at"],
        "rules": 1.0,
        "llm": 0.0,
    }
    assert "Next tool" in view.table.text() and "0% (24)" in view.table.text()
    assert "100% (24)" in view.table.text(), "the rules' accuracy beside the LLM's"
    assert "built-in" in view.versions.text(), "the run is listed under its program version"
    assert "Next tool" in view.offer.text() and "24 new labelled decisions" in view.offer.text()
    assert view.optimise_button.isEnabled()
    assert "Benchmark > Learning" in window.status.currentMessage(), "the window offers it"


def test_the_chart_draws_each_side_where_it_was_labelled(qtbot: Any) -> None:
    colors = {k: "#808080" for k in ("surface", "text", "border", "muted", "accent", "success")}
    chart = AccuracyChart("answer", colors)
    qtbot.add_widget(chart)
    chart.set_points(
        [{"at": "a", "rules": 1.0, "llm": None}, {"at": "b", "rules": 0.5, "llm": 1.0}]
    )
    plot = QRectF(0, 0, 100, 100)
    rules, llm = chart.line("rules", plot), chart.line("llm", plot)
    assert [(p.x(), p.y()) for p in rules] == [(0.0, 0.0), (100.0, 50.0)]
    assert [(p.x(), p.y()) for p in llm] == [(100.0, 0.0)]
    chart.grab()  # paints without error

    view = LearningView(colors)
    qtbot.add_widget(view)
    view.set_stats({})
    assert "No optimisation is due" in view.offer.text() and not view.optimise_button.isEnabled()
    view.on_update(
        "",
        True,
        {"signature": "answer", "before": 0.4, "after": 0.6, "kept": True, "version": "v0002"},
        "",
    )
    assert "0.40 → 0.60, kept as v0002" in view.progress.text()


class StandInLane:
    """The parts of a worker lane the learning hooks use."""

    def __init__(self, library: Library, **settings: Any) -> None:
        from app.config import Settings

        self.library = library
        self.settings = Settings(library_dir=library.root, **settings)
        self.sent: list[Any] = []
        self.stops: dict[int, Any] = {}

    def send(self, reply: Any) -> None:
        self.sent.append(reply)


def test_feedback_that_makes_an_optimisation_due_tells_the_window(tmp_path: Path) -> None:
    from app.bench.feedback import FeedbackStore
    from app.worker.learning_lane import after_feedback

    labelled_library(tmp_path / "library", 19)
    library = Library.open(tmp_path / "library")
    lane = StandInLane(library)
    after_feedback(lane)
    assert lane.sent == [], "19 labelled decisions: nothing due yet"

    DecisionBook(library.store).save("run-x", "Which fuse?", [STEP], answer="F9 [1].")
    FeedbackStore(library.store).add("Which fuse?", "F9 [1].", rating=-1)
    after_feedback(lane)
    (stats,) = lane.sent
    assert isinstance(stats, LearningStats) and stats.job == 0
    assert stats.stats["due"]["signature"] == "next_step" and stats.stats["setting"] == "offer"
    assert not stats.stats["running"]

    off = StandInLane(library, auto_optimize="off")
    after_feedback(off)
    assert off.sent == [], "the setting 'off' never offers"
    library.close()
