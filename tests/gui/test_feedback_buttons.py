"""Feedback in the conversation: thumbs on an answer, "This is the right page" on the
evidence, and "Add to benchmark"; each is stored by the worker and read back here through
the library's FeedbackStore, as the optimiser will read it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from app.bench.dataset import load_dataset
from app.bench.feedback import Feedback, FeedbackStore
from app.library.library import Library
from app.worker.messages import FeedbackSaved
from tests.gui.fakes import ANSWER, MANUAL
from tests.gui.test_conversation import ask

QUESTION = "What voltage does the AUX+ terminal supply?"


def stored(library_dir: Path) -> list[Feedback]:
    library = Library.open(library_dir)
    try:
        return FeedbackStore(library.store).list()
    finally:
        library.close()


@contextmanager
def reply(window, qtbot) -> Iterator[list[FeedbackSaved]]:  # type: ignore[no-untyped-def]
    """Wait for the worker's answer to the feedback sent inside the block."""
    got: list[FeedbackSaved] = []
    with qtbot.waitSignal(window.controller.feedback_saved, timeout=15_000) as blocker:
        yield got
    got.append(blocker.args[0])
    assert not got[0].error, got[0].error


def answered(window, qtbot, question: str = QUESTION):  # type: ignore[no-untyped-def]
    card = ask(window, qtbot, question)
    qtbot.waitUntil(lambda: not card.running, timeout=20_000)
    assert card.feedback.isVisible()
    return card


def click(qtbot, button) -> None:  # type: ignore[no-untyped-def]
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def test_thumbs_up_stores_the_answer_with_the_agents_decisions(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    card = answered(window, qtbot)
    assert not card.feedback.add_button.isVisible()
    with reply(window, qtbot) as got:
        click(qtbot, card.feedback.up)
    assert card.feedback.up.isChecked() and not card.feedback.down.isChecked()
    assert card.feedback.add_button.isVisible()
    (row,) = stored(sample_library)
    assert card.feedback_id == row.id == got[0].feedback_id
    assert (row.question, row.answer, row.rating, row.abstained) == (QUESTION, ANSWER, 1, False)
    tools = [(d["type"], d["tool"]) for d in row.decisions]
    assert tools == [
        ("decision", "text_search"),
        ("result", "text_search"),
        ("error", "visual_search"),
        ("decision", "answer"),
    ]
    assert row.decisions[0]["inputs"] == {"query": QUESTION}
    assert [(c["document"], c["page"]) for c in row.citations] == [(MANUAL, 6)]
    assert [(p["document"], p["page"]) for p in row.pages] == [(MANUAL, 6), (MANUAL, 7)]
    assert "Feedback saved" in window.status.currentMessage()


def test_thumbs_down_then_up_updates_the_same_row(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    card = answered(window, qtbot)
    with reply(window, qtbot):
        click(qtbot, card.feedback.down)
    assert [r.rating for r in stored(sample_library)] == [-1]
    assert card.feedback.down.isChecked() and not card.feedback.add_button.isVisible()
    with reply(window, qtbot):
        click(qtbot, card.feedback.up)
    assert [r.rating for r in stored(sample_library)] == [1]
    assert card.feedback.up.isChecked() and not card.feedback.down.isChecked()
    with reply(window, qtbot):
        click(qtbot, card.feedback.up)  # clicking the lit thumb again clears it
    assert [r.rating for r in stored(sample_library)] == [0]
    assert not card.feedback.up.isChecked() and not card.feedback.down.isChecked()


def test_an_abstention_is_stored_as_one(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    card = answered(window, qtbot, "unknown: what is the weather forecast?")
    with reply(window, qtbot):
        click(qtbot, card.feedback.up)
    (row,) = stored(sample_library)
    assert row.abstained and row.citations == [] and row.rating == 1


def test_the_right_page_is_stored_for_the_answer_it_came_from(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    card = answered(window, qtbot)
    evidence = window.evidence
    assert evidence.current == (MANUAL, 6) and evidence.right_page_bar.isVisible()
    qtbot.waitUntil(lambda: MANUAL in evidence.page_counts, timeout=15_000)
    click(qtbot, evidence.next_button)  # the technician finds the answer on the next page
    assert evidence.current == (MANUAL, 7)
    with reply(window, qtbot) as got:
        click(qtbot, evidence.right_page_button)
    assert got[0].page == (MANUAL, 7)
    (row,) = stored(sample_library)
    assert row.question == QUESTION and row.rating == 0
    assert tuple(row.right_pages) == ((MANUAL, 7),)
    assert card.feedback_id == row.id
    assert not evidence.right_page_button.isEnabled()
    assert evidence.right_page_button.text() == "✓ The right page"
    with reply(window, qtbot):
        click(qtbot, card.feedback.up)  # the same row gets the thumb
    (row,) = stored(sample_library)
    assert row.rating == 1 and tuple(row.right_pages) == ((MANUAL, 7),)


def test_no_right_page_button_without_a_conversation_answer(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    window.evidence.show_page(MANUAL, 3)
    assert not window.evidence.right_page_bar.isVisible()
    card = answered(window, qtbot)
    assert window.evidence.right_page_bar.isVisible()
    assert card.answer is not None
    window.show_benchmark_answer(card.answer)  # a benchmark record: no question to mark for
    assert not window.evidence.right_page_bar.isVisible()


def test_add_to_benchmark_asks_for_a_dataset_once_then_adds_in_one_click(
    make_window, sample_library, qtbot, tmp_path, monkeypatch
):
    dataset = tmp_path / "shop-benchmark.json"
    asked: list[str] = []

    def choose(*_args: object, **_kwargs: object) -> tuple[str, str]:
        asked.append("dialog")
        return str(dataset), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(choose))
    window = make_window(sample_library)
    first = answered(window, qtbot)
    with reply(window, qtbot):
        click(qtbot, first.feedback.up)
    with reply(window, qtbot) as got:
        click(qtbot, first.feedback.add_button)
    item_id = got[0].item_id
    assert asked == ["dialog"] and got[0].dataset == str(dataset)
    (item,) = load_dataset(dataset)
    assert item.id == item_id and item.query == QUESTION
    assert (MANUAL, 6) in item.gold_pages()
    assert item_id in window.status.currentMessage()
    assert not first.feedback.add_button.isEnabled()
    assert item_id in first.feedback.add_button.text()

    second = answered(window, qtbot, "And which terminal is AUX+?")
    with reply(window, qtbot):
        click(qtbot, second.feedback.up)
    with reply(window, qtbot) as got:
        click(qtbot, second.feedback.add_button)
    assert asked == ["dialog"], "the dataset file is remembered"
    items = load_dataset(dataset)
    assert [i.id for i in items] == [item_id, got[0].item_id] and item_id != got[0].item_id


def test_a_failed_save_says_why_and_puts_the_control_back(
    make_window, sample_library, qtbot, tmp_path
):
    window = make_window(sample_library)
    card = answered(window, qtbot)
    with reply(window, qtbot):
        click(qtbot, card.feedback.up)
    window.state.setValue("feedback/dataset", str(tmp_path))  # a folder: cannot be written
    with qtbot.waitSignal(window.controller.feedback_saved, timeout=15_000) as blocker:
        click(qtbot, card.feedback.add_button)
    assert blocker.args[0].error
    assert window.status.currentMessage().startswith("Could not save the feedback:")
    assert card.feedback.add_button.isEnabled()
    assert card.feedback.add_button.text() == "Add to benchmark"
