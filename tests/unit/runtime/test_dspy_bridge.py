"""DSPy signatures run in-process on Lantern backends: the fake (scripted) and a tiny MLX model."""

from __future__ import annotations

import asyncio
import threading

import dspy
import pytest
from dspy.lm15 import Config, Message, Request

from app.runtime.dspy_bridge import GenerationCancelled, LanternEngine, make_dspy_lm
from app.runtime.fake import FakeLLM
from app.runtime.llm_mlx import MlxLLM
from tests.helpers.tiny_models import tiny_llm_path


class JumperQA(dspy.Signature):
    """Answer the technician's question from the manual excerpt."""

    question: str = dspy.InputField()
    excerpt: str = dspy.InputField()
    answer: str = dspy.OutputField()
    confidence: float = dspy.OutputField()


CHAT_REPLY = (
    "[[ ## answer ## ]]\nSet jumper J3 to 12V.\n\n"
    "[[ ## confidence ## ]]\n0.9\n\n[[ ## completed ## ]]"
)


def ask(lm: dspy.LM) -> dspy.Prediction:
    with dspy.context(lm=lm):
        return dspy.Predict(JumperQA)(question="Which jumper gives 12 V?", excerpt="J3: 12V")


def test_predict_runs_on_the_fake_backend() -> None:
    fake = FakeLLM([CHAT_REPLY])

    prediction = ask(make_dspy_lm(fake))

    assert prediction.answer == "Set jumper J3 to 12V."
    assert prediction.confidence == pytest.approx(0.9)
    system, user = fake.calls[0].messages
    assert system["role"] == "system" and "`confidence` (float)" in system["content"]
    assert user["role"] == "user" and "Which jumper gives 12 V?" in user["content"]


def test_lm_settings_reach_the_backend() -> None:
    fake = FakeLLM([CHAT_REPLY])

    ask(make_dspy_lm(fake, temperature=0.7, max_tokens=64))

    assert (fake.calls[0].params.temperature, fake.calls[0].params.max_tokens) == (0.7, 64)


def test_streamify_streams_the_answer_token_by_token() -> None:
    fake = FakeLLM([CHAT_REPLY])
    listener = dspy.streaming.StreamListener(signature_field_name="answer")
    program = dspy.streamify(dspy.Predict(JumperQA), stream_listeners=[listener])

    async def run() -> list:
        with dspy.context(lm=make_dspy_lm(fake)):
            return [c async for c in program(question="q", excerpt="e")]

    chunks = asyncio.run(run())
    pieces = [c.chunk for c in chunks if isinstance(c, dspy.streaming.StreamResponse)]

    assert len(pieces) > 3
    assert "".join(pieces).strip() == "Set jumper J3 to 12V."
    assert chunks[-1].answer == "Set jumper J3 to 12V."


def test_engine_stream_events_and_usage() -> None:
    engine = LanternEngine(FakeLLM(["one two three"]))
    request = Request(
        model="lantern/fake",
        messages=(Message.user("hi"),),
        system="sys",
        config=Config(max_tokens=2),
    )

    events = list(engine.stream(request))

    assert [e.type for e in events] == ["start", "delta", "delta", "end"]
    assert "".join(e.delta.text for e in events[1:-1]) == "one two"
    assert events[-1].finish_reason == "length"
    assert events[-1].usage.output_tokens == 2


def test_cancelled_run_raises_instead_of_returning_half_an_answer() -> None:
    cancel = threading.Event()
    cancel.set()

    with pytest.raises(Exception) as raised:
        ask(make_dspy_lm(FakeLLM([CHAT_REPLY]), cancel=cancel))

    chain: list[BaseException] = [raised.value]
    while (cause := chain[-1].__cause__ or chain[-1].__context__) is not None:
        chain.append(cause)
    assert any(isinstance(e, GenerationCancelled) for e in chain)


def test_dummy_lm_is_the_other_way_to_script_dspy() -> None:
    from dspy.utils.dummies import DummyLM

    lm = DummyLM([{"answer": "J3", "confidence": "0.5"}])

    assert ask(lm).answer == "J3"


def test_predict_call_path_on_a_tiny_mlx_model(tmp_path_factory) -> None:
    llm = MlxLLM(tiny_llm_path(tmp_path_factory))
    lm = make_dspy_lm(llm, default_max_tokens=8)

    # Random weights cannot follow DSPy's format: the call path is what is under test.
    with pytest.raises(Exception, match=r"parse|output fields|JSON"):
        ask(lm)

    assert llm.loaded
    assert lm.history, "DSPy recorded no call"
    assert lm.history[0]["usage"]["completion_tokens"] == 8
    assert lm.history[0]["usage"]["prompt_tokens"] > 50
