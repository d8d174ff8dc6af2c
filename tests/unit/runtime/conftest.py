"""Fixtures for runtime tests: a tiny random ColQwen2.5 folder, built once per session."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# tests.helpers must import however pytest is started (``pytest`` does not put the repo
# root on sys.path, ``python -m pytest`` does); pyproject's ``pythonpath`` would be neater.
_REPO = str(Path(__file__).resolve().parents[3])
if _REPO not in sys.path:
    sys.path.insert(0, _REPO)

# MLX on a Linux CPU compiles kernels with g++ on first use (seconds); plain kernels suffice.
os.environ.setdefault("MLX_DISABLE_COMPILE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def tiny_colqwen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random ColQwen2.5 (merged, legacy weight names) that both backends load."""
    from tests.helpers.tiny_colqwen import build_tiny_colqwen

    return build_tiny_colqwen(tmp_path_factory.mktemp("tiny-colqwen2_5"))
