"""Asking: tokens stream into the answer, Esc stops, abstentions say so, follow-ups carry
history, and the reasoning timeline expands to its steps."""

from __future__ import annotations

import os
import signal

from PySide6.QtCore import Qt

from tests.gui.fakes import ABSTAIN, ANSWER, TITLE


def ask(window, qtbot, question: str):  # type: ignore[no-untyped-def]
    """Type a question and press Ctrl+Enter, as a technician would; returns its card."""
    box = window.conversation.question
    box.setPlainText(question)
    qtbot.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    card = window.conversation.last_card()
    assert card is not None and card.question == question
    return card


def test_a_question_streams_tokens_into_the_answer(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    lengths: list[int] = []
    card = ask(window, qtbot, "What voltage does the AUX+ terminal supply?")
    window.controller.answer_event.connect(lambda _job, _e: lengths.append(len(card.text)))
    assert window.conversation.busy and window.conversation.ask_button.text() == "Stop"
    qtbot.waitUntil(lambda: not card.running, timeout=20_000)
    partial = [n for n in lengths if 0 < n < len(ANSWER)]
    assert len(partial) >= 2, "the answer should arrive in several batches"
    assert partial == sorted(partial)
    assert card.text == ANSWER
    shown = card.body.toPlainText()
    assert "13.8 V DC, 500 mA max" in shown and "[1]" in shown
    assert "Sources:" not in shown  # shown as citation buttons instead
    assert card.chips.count() == 1
    assert card.status.text().startswith("Answered in")
    assert window.conversation.question.toPlainText() == ""
    assert window.conversation.ask_button.text() == "Ask"


def test_escape_stops_the_answer(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    card = ask(window, qtbot, "slow: tell me everything about the AUX+ terminal")
    qtbot.waitUntil(lambda: len(card.text) > 0, timeout=20_000)
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not card.running, timeout=5_000)
    assert card.stopped
    assert card.status.text() == "Stopped"
    assert 0 < len(card.text) < len(ANSWER) * 40
    assert card.answer is None
    assert not window.conversation.busy


def test_abstention_is_said_plainly(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    card = ask(window, qtbot, "unknown: what is the weather forecast?")
    qtbot.waitUntil(lambda: not card.running, timeout=20_000)
    assert card.notice.isVisible()
    assert card.notice.text() == "The manuals don't answer this"
    assert card.text == ABSTAIN
    assert card.chips.count() == 0


def test_follow_up_questions_carry_the_conversation(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    first = ask(window, qtbot, "What voltage does the AUX+ terminal supply?")
    qtbot.waitUntil(lambda: not first.running, timeout=20_000)
    second = ask(window, qtbot, "And how much current?")
    qtbot.waitUntil(lambda: not second.running, timeout=20_000)
    assert second.text.startswith(f"(Follow-up to 1 earlier question, citing {TITLE} p.6.)")
    assert len(window.conversation.cards) == 2


def test_the_timeline_is_collapsed_and_expands_to_its_steps(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    card = ask(window, qtbot, "What voltage does the AUX+ terminal supply?")
    qtbot.waitUntil(lambda: not card.running, timeout=20_000)
    timeline = card.timeline
    assert not timeline.body.isVisible()
    assert timeline.toggle.text().startswith("Reasoning · 2 steps · 1 error recovered")
    qtbot.mouseClick(timeline.toggle, Qt.MouseButton.LeftButton)
    assert timeline.body.isVisible()
    search, answer = timeline.rows
    assert search.title.text() == "1  text_search"
    assert search.why.text() == "Search the manuals' text."
    assert "2 pages; best Installation Manual p.6" in search.found.text()
    assert "error (recovered): visual search is not installed" in search.found.text()
    assert search.time.text() == "20 ms"
    assert not search.details.isVisible()
    qtbot.mouseClick(search.arrow, Qt.MouseButton.LeftButton)
    assert search.details.isVisible()
    details = [w.text() for w in search.details.findChildren(type(search.why))]
    assert any(d.startswith('inputs: query = "What voltage') for d in details)
    assert any("Lumen_AX200_Installation_Manual.pdf p.6" in d for d in details)
    assert answer.title.text() == "2  answer"


def test_copy_puts_the_answer_on_the_clipboard(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    card = ask(window, qtbot, "What voltage does the AUX+ terminal supply?")
    qtbot.waitUntil(lambda: not card.running, timeout=20_000)
    qtbot.mouseClick(card.copy_button, Qt.MouseButton.LeftButton)
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() == ANSWER.strip()


def test_a_crashed_worker_ends_the_answer_and_is_restarted(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    card = ask(window, qtbot, "slow: tell me everything about the AUX+ terminal")
    qtbot.waitUntil(lambda: len(card.text) > 0, timeout=20_000)
    with qtbot.waitSignal(window.controller.ready, timeout=30_000):
        os.kill(window.controller.process.pid, signal.SIGKILL)
        qtbot.waitUntil(lambda: not card.running, timeout=10_000)
    assert "worker stopped while answering" in card.timeline.rows[-1].found.text()
    again = ask(window, qtbot, "What voltage does the AUX+ terminal supply?")
    qtbot.waitUntil(lambda: not again.running, timeout=20_000)
    assert again.text == ANSWER
