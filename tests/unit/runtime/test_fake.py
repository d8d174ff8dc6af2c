"""The scripted fake LLM and the stop-string filter every backend shares."""

from __future__ import annotations

import threading

import pytest

from app.runtime.fake import FakeLLM
from app.runtime.types import StopFilter, TextBackend, join_events

HELLO = [{"role": "user", "content": "hello"}]


def test_enqueued_replies_stream_word_by_word_in_order() -> None:
    fake = FakeLLM()
    fake.enqueue(["The PGM jumper is J3.", "second"])

    events = list(fake.stream(HELLO))

    assert [e.text for e in events] == ["The", " PGM", " jumper", " is", " J3."]
    assert events[-1].finish_reason == "stop"
    assert events[-1].tokens == 5
    assert fake.complete(HELLO).text == "second"
    assert fake.pending == 0
    assert fake.calls[0].messages == HELLO


def test_max_tokens_cuts_with_length() -> None:
    fake = FakeLLM(["one two three four"])

    done = fake.complete(HELLO, max_tokens=2)

    assert (done.text, done.finish_reason) == ("one two", "length")


def test_stop_strings_and_recorded_parameters() -> None:
    fake = FakeLLM(["answer: 12 V\n[[ ## completed ## ]] trailing"])

    done = fake.complete(HELLO, stop=["[[ ## completed"], temperature=0.5)

    assert done.text == "answer: 12 V\n"
    assert done.finish_reason == "stop"
    assert fake.calls[0].params.temperature == 0.5


def test_cancel_between_tokens() -> None:
    fake = FakeLLM(["a b c d e f"])
    cancel = threading.Event()
    events = []
    for event in fake.stream(HELLO, cancel=cancel):
        events.append(event)
        if len(events) == 2:
            cancel.set()

    assert [e.text for e in events] == ["a", " b", ""]
    assert events[-1].finish_reason == "cancelled"


def test_callable_replies_and_empty_queue() -> None:
    fake = FakeLLM(default=lambda messages: f"echo {messages[-1]['content']}")
    assert fake.complete(HELLO).text == "echo hello"

    with pytest.raises(AssertionError, match="no reply enqueued"):
        FakeLLM().complete(HELLO)


def test_fake_satisfies_the_backend_protocol() -> None:
    assert isinstance(FakeLLM(), TextBackend)


def test_empty_reply_still_ends_with_a_final_event() -> None:
    assert FakeLLM([""]).complete(HELLO).text == ""


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        (["hello wor", "ld STOP here"], "hello world "),
        (["a S", "T", "OP"], "a "),
        (["a S", "TAR"], "a STAR"),
        (["no stop at all"], "no stop at all"),
    ],
)
def test_stop_filter_holds_back_partial_matches(pieces: list[str], expected: str) -> None:
    stops = StopFilter(["STOP"])
    out = []
    hit = False
    for piece in pieces:
        text, hit = stops.feed(piece)
        out.append(text)
        if hit:
            break
    if not hit:
        out.append(stops.flush())

    assert "".join(out) == expected


def test_join_events_needs_a_final_event() -> None:
    with pytest.raises(RuntimeError):
        join_events(iter([]))
