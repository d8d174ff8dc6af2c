"""The LLM judge end to end on real weights (SmolLM2-135M): the prompt reaches the model
and a verdict comes back, whether the tiny model keeps the format (an LLM verdict) or not
(the key-fact fallback). Its quality is not the point."""

from __future__ import annotations

from typing import Any

import pytest

from app.bench.dataset import BenchItem, EvidenceRef
from app.bench.judge import LlmJudge
from app.runtime.llm_mlx import MlxLLM
from tests.integration.test_smollm2 import smollm2_folder

pytestmark = pytest.mark.real_model

ITEM = BenchItem(
    "q1",
    "direct",
    "Which jumper makes the PGM output 12 V?",
    "Jumper J3 in position 12V.",
    ("J3", "12 V"),
    (EvidenceRef("Install.pdf", (21,)),),
)


def test_the_judge_runs_on_smollm2() -> None:
    model = MlxLLM(smollm2_folder(), model_id="SmolLM2-135M-Instruct")
    asked: list[int] = []

    def stream(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs["max_tokens"])
        return MlxLLM.stream(model, *args, **kwargs)

    model.stream = stream  # type: ignore[method-assign]
    # A short verdict: generation on the CPU runs at about 2 tokens a second, and the
    # test is about the prompt reaching the model and a verdict coming back.
    judge = LlmJudge(model, max_tokens=40)

    verdict = judge.judge(ITEM, "Set jumper J3 to 12 V [1].", abstained=False)

    print(f"\nSmolLM2 judge: {verdict.method} {verdict.score}: {verdict.reasoning[:120]!r}")
    assert 0 <= verdict.score <= 100
    assert verdict.method in ("llm", "key-facts") and verdict.reasoning
    assert asked == [40]
