"""Fixtures shared by every test: stores, libraries, the hashing embedder, corpus paths."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Set before anything imports Qt or Hugging Face: no window server, no network.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from app.library.embedding import HashingEmbedder  # noqa: E402
from app.library.library import Library  # noqa: E402
from app.library.store import Store  # noqa: E402

CORPUS_DIR = REPO.parent / "shared" / "corpus"
CORPUS2_DIR = REPO.parent / "shared" / "corpus2"
MANUALS_DIR = REPO / "manuals"


@pytest.fixture
def store() -> Iterator[Store]:
    """An empty in-memory library database, migrated to the current schema."""
    db = Store.memory()
    yield db
    db.close()


@pytest.fixture
def tmp_library(tmp_path: Path) -> Iterator[Library]:
    """An empty library folder under the test's temporary directory."""
    library = Library.open(tmp_path / "library")
    yield library
    library.close()


@pytest.fixture(scope="session")
def hashing_embedder() -> HashingEmbedder:
    """A model-free, deterministic embedder: fast enough for unit tests."""
    return HashingEmbedder()


@pytest.fixture(scope="session")
def cli_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment for ``python -m app`` subprocesses: no user settings, no network, no Qt.

    The platform's app-data folder is pointed into a temporary folder too, so a command
    that forgot ``--library`` cannot touch the user's real library. Copy before changing.
    """
    home = tmp_path_factory.mktemp("cli-env")
    env = dict(os.environ)
    env.update(
        LANTERN_SETTINGS=str(home / "no-user-settings.json"),
        XDG_DATA_HOME=str(home / "xdg-data"),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        QT_QPA_PLATFORM="offscreen",
        PYTHONUNBUFFERED="1",
    )
    for name in [k for k in env if k.startswith("LANTERN_") and k != "LANTERN_SETTINGS"]:
        del env[name]
    return env


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """../shared/corpus (the real manufacturer manuals); skips when it is not there."""
    if not CORPUS_DIR.is_dir() or not any(CORPUS_DIR.glob("*.pdf")):
        pytest.skip(f"the benchmark corpus is not at {CORPUS_DIR}")
    return CORPUS_DIR


@pytest.fixture(scope="session")
def corpus2_dir() -> Path:
    """../shared/corpus2 (real manuals of other trades); skips when it is not there."""
    if not CORPUS2_DIR.is_dir() or not any(CORPUS2_DIR.glob("*.pdf")):
        pytest.skip(f"the second benchmark corpus is not at {CORPUS2_DIR}")
    return CORPUS2_DIR


@pytest.fixture(scope="session")
def sample_manuals_dir() -> Path:
    """<repo>/manuals (the generated sample manuals); skips when it holds no PDF."""
    if not any(MANUALS_DIR.glob("*.pdf")):
        pytest.skip(f"no sample manuals in {MANUALS_DIR}: run scripts/make_sample_manuals.py first")
    return MANUALS_DIR
