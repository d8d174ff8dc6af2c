"""The whole learning path on a real MLX model (a tiny random Qwen2 built at test time):
real tokenizer counts feed the token budget, every reply is unreadable so the rules decide
each step and say why in the shadow record, deep mode survives a model that never follows
the format, and the trace names the program version and token use."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from app.agent.events import Done, Status
from app.agent.learning import builtin_version
from app.agent.service import ModelChoice, build_answerer
from app.config import Settings
from app.library.embedding import Embedder
from app.library.library import Library
from tests.unit.agent.scripted import answer_of, decisions, run

os.environ.setdefault("MLX_DISABLE_COMPILE", "1")
AUX = "What voltage does the AUX+ terminal supply? Check carefully."


@pytest.fixture(scope="module")
def tiny_llm(tmp_path_factory: pytest.TempPathFactory) -> Any:
    pytest.importorskip("mlx_lm", reason="mlx-lm is not installed")
    from app.runtime.llm_mlx import MlxLLM
    from tests.helpers.tiny_models import tiny_llm_path

    model = MlxLLM(tiny_llm_path(tmp_path_factory), {"seed": 3, "prompt_cache": False})
    model.load()
    return model


@pytest.mark.slow
def test_a_tiny_real_model_within_its_token_budget(
    sample_library: Library, embedder: Embedder, tmp_path: Path, tiny_llm: Any
) -> None:
    settings = Settings(library_dir=sample_library.root, token_budget=12000, max_steps=4)
    agent = build_answerer(
        sample_library,
        settings,
        embedder=embedder,
        models=ModelChoice(lambda: tiny_llm, None, "tiny"),
    )
    agent.traces_dir = tmp_path / "traces"
    assert agent.policy is not None
    agent.policy.sleep = lambda _s: None
    try:
        events = run(agent, AUX)
    finally:
        with sample_library.store.transaction() as db:
            db.execute("DELETE FROM decision_records")

    done = events[-1]
    assert isinstance(done, Done) and done.program_version == builtin_version()
    trace = json.loads(Path(done.trace).read_text(encoding="utf-8"))
    tokens = trace["tokens"]
    assert tokens["calls"] >= 2 and 0 < tokens["used"] <= 12000 == tokens["budget"]
    assert tokens["generated"] > 0, "the tokens the model generated are counted"
    steps = decisions(events)
    assert steps[0].source == "rules", "an unreadable decision leaves it to the rules"
    route = trace["shadow"][0]
    assert route["signature"] == "route" and route["used"] == "rules"
    ended_by_budget = steps[-1].source == "budget"
    if ended_by_budget:
        assert any(isinstance(e, Status) and e.tool == "budget" for e in events)
    assert answer_of(events).text, "an answer is always given"
