"""The window's plain parts: message framing, token batching, progress throttling,
answer formatting, and the PySide6 reference-count guard."""

from __future__ import annotations

import multiprocessing as mp
import sys
import threading
import time

import pytest

from app.agent.events import Done, Token
from app.library.import_events import ImportProgress as FileProgress
from app.ui.answer_format import answer_html, split_sources, tidy_row
from app.ui.receiver import FrameReader
from app.worker.lanes import TokenBatcher
from app.worker.messages import AnswerEvent
from app.worker.work_lanes import ProgressThrottle


@pytest.mark.timing
def test_frame_reader_assembles_large_messages_without_blocking():
    reader_end, writer_end = mp.Pipe(duplex=False)
    reader = FrameReader(reader_end.fileno())
    big = b"x" * 3_000_000  # far beyond a pipe's buffer: it arrives in pieces
    writer = threading.Thread(target=lambda: [writer_end.send(m) for m in ("a", big, "b")])
    writer.start()
    got: list[object] = []
    deadline = time.monotonic() + 10
    while len(got) < 3 and time.monotonic() < deadline:
        started = time.perf_counter()
        reader.read_available(limit=1 << 18)
        assert time.perf_counter() - started < 0.05, "a read must never wait for the writer"
        got.extend(reader.messages())
    writer.join()
    assert got == ["a", big, "b"]
    writer_end.close()
    reader.read_available()
    assert reader.closed


def test_tokens_are_batched_and_flushed_before_other_events():
    sent: list[AnswerEvent] = []
    batcher = TokenBatcher(7, sent.append, interval=10.0)
    for piece in ("a", "b", "c"):
        batcher.push(Token(piece))
    assert sent == []
    batcher.push(Done(1.0))
    assert [e.event for e in sent] == [Token("abc"), Done(1.0)]
    assert {e.job for e in sent} == {7}


def test_tokens_waiting_for_a_pause_are_flushed_by_the_timer():
    sent: list[AnswerEvent] = []
    batcher = TokenBatcher(1, sent.append, interval=0.05)
    batcher.push(Token("a"))
    batcher.push(Token("b"))
    time.sleep(0.2)
    assert [e.event for e in sent] == [Token("ab")]


def test_a_reset_token_is_never_merged_with_the_text_before_it():
    sent: list[AnswerEvent] = []
    batcher = TokenBatcher(1, sent.append, interval=10.0)
    batcher.push(Token("draft"))
    batcher.push(Token("final", reset=True))
    batcher.flush()
    assert [e.event for e in sent] == [Token("draft"), Token("final", reset=True)]


def test_progress_is_throttled_but_phase_edges_always_pass():
    throttle = ProgressThrottle(interval=10.0)
    events = [FileProgress("a.pdf", "reading text", n, 50) for n in range(51)]
    passed = [e.done for e in events if throttle.wanted(e)]
    assert passed == [0, 50]
    assert throttle.wanted(FileProgress("a.pdf", "embedding", 3, 9))


def test_answer_html_formats_lists_rows_and_citations():
    text = (
        "From the manuals:\n- Terminal: AUX+ → Rating: 13.8 V DC [1]\n- **Bold** `code`\n\n"
        "Sources:\n[1] Manual p.6"
    )
    html = answer_html(text, "#123456")
    assert html.count("<li") == 2
    assert "<b>Terminal:</b> AUX+ · <b>Rating:</b> 13.8 V DC" in html
    assert 'href="cite:1"' in html and "#123456" in html
    assert "Sources" not in html and "<code>code</code>" in html
    assert split_sources(text)[1] == [(1, "Manual p.6")]
    # A row the answerer could not pair with its headings is shown as quoted.
    assert tidy_row("A | B → 1 | 2 | 3") == "A | B → 1 | 2 | 3"
    assert answer_html("<script>**half") == "<p style='margin:0 0 6px 0'>&lt;script&gt;**half</p>"


def test_none_true_and_false_survive_pyside_void_calls():
    from PySide6.QtCore import QObject

    import app.ui  # noqa: F401  (applies the guard)

    obj = QObject()
    before = sys.getrefcount(None)
    for _ in range(10_000):
        obj.setObjectName("x")  # returns None from C++
    if sys.version_info < (3, 12):
        assert sys.getrefcount(None) > 1 << 59
    assert abs(sys.getrefcount(None) - before) <= 10_000
