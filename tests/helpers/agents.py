"""The answerer as the app builds it, over a test's library, for the agent tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.agent.events import Answer
from app.agent.loop import Tree
from app.agent.service import ModelChoice, build_answerer
from app.config import Settings
from app.library.embedding import Embedder, HashingEmbedder
from app.library.importer import Importer, import_blocking
from app.library.library import Library
from tests.helpers.pdfs import note_pdf


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


def note_library(root: Path, notes: dict[str, tuple[str, list[str]]]) -> Library:
    """A library of one-page notes (file name: title and lines) imported without OCR and
    with the hashing embedder; the caller closes it."""
    pdfs = [note_pdf(root / name, title, lines) for name, (title, lines) in notes.items()]
    library = Library.open(root / "library")
    importer = Importer(library, Settings(ocr_engine="none"), embedder=HashingEmbedder())
    assert {r.status for r in import_blocking(importer, pdfs)} == {"imported"}
    return library


def note_library_fixture(name: str, notes: dict[str, tuple[str, list[str]]]) -> Any:
    """A module-scoped ``library`` fixture of ``note_library(notes)``: assign it in a test
    module (``library = note_library_fixture("codes", NOTES)``)."""

    @pytest.fixture(scope="module")
    def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
        made = note_library(tmp_path_factory.mktemp(name), notes)
        yield made
        made.close()

    return library


def no_llm_answer(library: Library, traces_dir: Path, question: str) -> Answer:
    """The no-LLM agent's answer event to one question."""
    agent = answerer(library, HashingEmbedder(), traces_dir)
    return next(e for e in agent.ask(question) if isinstance(e, Answer))
