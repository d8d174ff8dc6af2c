"""MlxLLM on a tiny random Qwen2 built at test time: streaming, cancellation, prompt cache."""

from __future__ import annotations

import threading
import time

import pytest
from pydantic import ValidationError

from app.runtime.llm_mlx import MlxLLM, MlxLLMOptions, common_prefix_length
from tests.helpers.tiny_models import tiny_llm_path

SYSTEM = "You answer questions from equipment manuals. " * 12
QUESTION_A = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "which jumper"}]
QUESTION_B = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "which wire"}]


@pytest.fixture(scope="module")
def llm(tmp_path_factory: pytest.TempPathFactory) -> MlxLLM:
    model = MlxLLM(tiny_llm_path(tmp_path_factory))
    model.load()
    return model


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> MlxLLM:
    """Samples with temperature, reproducibly (seed applied before each call)."""
    return MlxLLM(tiny_llm_path(tmp_path_factory), {"seed": 7, "prompt_cache": False})


def test_stream_yields_text_token_by_token_then_a_final_event(llm: MlxLLM) -> None:
    events = list(llm.stream(QUESTION_A, max_tokens=12))

    assert len(events) >= 2
    assert all(e.finish_reason is None for e in events[:-1])
    assert events[-1].finish_reason == "length"
    assert events[-1].tokens == 12
    assert events[-1].tps > 0
    assert "".join(e.text for e in events)
    assert [e.tokens for e in events[:-1]] == list(range(1, len(events)))


def test_chat_template_wraps_the_messages(llm: MlxLLM) -> None:
    messages = [{"role": "user", "content": "search the manual"}]
    tokenizer = llm._tokenizer
    prompt = tokenizer.decode(llm._encode(messages))

    assert prompt == "<|im_start|>user\nsearch the manual<|im_end|>\n<|im_start|>assistant\n"
    llm.reset_cache()
    first = next(iter(llm.stream(messages, max_tokens=2)))
    assert first.prompt_tokens == llm.count_tokens(messages)


def test_cancel_event_stops_within_one_token(llm: MlxLLM) -> None:
    cancel = threading.Event()
    events = []
    for event in llm.stream(QUESTION_A, max_tokens=200, cancel=cancel):
        events.append(event)
        if len(events) == 3:
            cancel.set()

    assert len(events) == 4
    assert events[-1].finish_reason == "cancelled"
    assert events[-1].text == ""
    assert events[-1].tokens == 3


def test_cancel_callable_before_start_yields_only_a_cancelled_event(llm: MlxLLM) -> None:
    events = list(llm.stream(QUESTION_A, max_tokens=50, cancel=lambda: True))

    assert [(e.text, e.finish_reason) for e in events] == [("", "cancelled")]


def test_second_call_with_shared_prefix_processes_fewer_prompt_tokens(llm: MlxLLM) -> None:
    llm.reset_cache()
    first = llm.complete(QUESTION_A, max_tokens=4)
    second = llm.complete(QUESTION_B, max_tokens=4)

    assert first.cached_tokens == 0
    assert second.cached_tokens > 100
    assert second.prompt_tokens < first.prompt_tokens
    assert second.prompt_tokens + second.cached_tokens == llm.count_tokens(QUESTION_B)


def test_reused_cache_gives_the_same_greedy_answer_as_a_fresh_one(llm: MlxLLM) -> None:
    llm.reset_cache()
    fresh = llm.complete(QUESTION_B, max_tokens=16)
    llm.complete(QUESTION_A, max_tokens=16)
    reused = llm.complete(QUESTION_B, max_tokens=16)

    assert reused.cached_tokens > 0
    assert reused.text == fresh.text


def test_prompt_cache_can_be_switched_off(seeded: MlxLLM) -> None:
    seeded.complete(QUESTION_A, max_tokens=2)
    again = seeded.complete(QUESTION_B, max_tokens=2)

    assert again.cached_tokens == 0


def test_stop_string_ends_the_stream_and_is_not_emitted(seeded: MlxLLM) -> None:
    reference = seeded.complete(QUESTION_A, max_tokens=40, temperature=1.0).text
    stop = reference[10:14]
    before = reference[: reference.index(stop)]

    cut = seeded.complete(QUESTION_A, max_tokens=40, temperature=1.0, stop=[stop])

    assert cut.finish_reason == "stop"
    assert cut.text == before


def test_complete_is_the_join_of_stream(seeded: MlxLLM) -> None:
    streamed = "".join(e.text for e in seeded.stream(QUESTION_A, max_tokens=20, temperature=1.0))
    completed = seeded.complete(QUESTION_A, max_tokens=20, temperature=1.0)

    assert completed.text == streamed
    assert completed.tokens == 20


def test_one_generation_at_a_time(llm: MlxLLM) -> None:
    stream = llm.stream(QUESTION_A, max_tokens=30)
    next(stream)
    assert llm.busy
    assert llm.count_tokens(QUESTION_B) > 100  # the tokenizer does not wait
    results = []
    other = threading.Thread(target=lambda: results.append(llm.complete(QUESTION_B, max_tokens=3)))
    other.start()
    time.sleep(0.2)

    assert other.is_alive() and not results
    list(stream)
    other.join(timeout=30)
    assert results and results[0].finish_reason == "length"
    assert not llm.busy


def test_unload_frees_the_model_and_the_next_call_reloads(tmp_path_factory) -> None:
    model = MlxLLM(tiny_llm_path(tmp_path_factory))
    model.complete(QUESTION_A, max_tokens=2)
    assert model.loaded

    model.unload()
    assert not model.loaded
    assert model.complete(QUESTION_A, max_tokens=2).tokens == 2


def test_options_and_parameters_are_validated(llm: MlxLLM) -> None:
    with pytest.raises(ValidationError):
        MlxLLMOptions(prefill_step_size=0)
    with pytest.raises(ValidationError):
        MlxLLM("unused", {"no_such_option": 1})
    with pytest.raises(ValidationError):
        llm.stream(QUESTION_A, temperature=-1.0)
    with pytest.raises(ValidationError):
        llm.stream(QUESTION_A, max_tokens=0)


def test_common_prefix_length() -> None:
    assert common_prefix_length([1, 2, 3], [1, 2, 4]) == 2
    assert common_prefix_length([1, 2], [1, 2, 3]) == 2
    assert common_prefix_length([], [1]) == 0
