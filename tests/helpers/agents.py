"""The answerer as the app builds it, over a test's library, for the agent tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.agent.loop import Tree
from app.agent.service import ModelChoice, build_answerer
from app.config import Settings
from app.library.embedding import Embedder
from app.library.library import Library


def answerer(
    library: Library,
    embedder: Embedder,
    traces_dir: Path,
    llm: Callable[[], Any] | None = None,
    **settings: Any,
) -> Tree:
    """The agent over ``library``: no-LLM unless given ``llm`` (a model factory), its
    traces in ``traces_dir``, any other ``Settings`` field as a keyword."""
    agent = build_answerer(
        library,
        Settings(library_dir=library.root, **settings),
        embedder=embedder,
        models=ModelChoice(llm, None, "test"),
    )
    agent.traces_dir = traces_dir
    return agent
