"""One action starts a new conversation: the thread is cleared and the next question is
not a follow-up of the last."""

from __future__ import annotations

from tests.gui.test_conversation import ask


def test_new_conversation_starts_a_fresh_thread(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    first = ask(window, qtbot, "What voltage does the AUX+ terminal supply?")
    qtbot.waitUntil(lambda: not first.running, timeout=20_000)
    assert window.conversation.history()[0].sources, "the thread keeps the pages it cited"

    window.actions_by_name["new_conversation"].trigger()
    assert window.conversation.history() == [] and not window.conversation.cards

    fresh = ask(window, qtbot, "And how much current?")
    qtbot.waitUntil(lambda: not fresh.running, timeout=20_000)
    assert not fresh.text.startswith("(Follow-up")
