"""`python -m app models`: what is installed and what could be, and a download that
explains itself when the machine is offline."""

from __future__ import annotations

import pytest

from app.cli import run


def test_models_lists_the_recommended_set(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setenv("LANTERN_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("LANTERN_SETTINGS", str(tmp_path / "none.json"))
    assert run(["models"]) == 0
    out = capsys.readouterr().out
    assert "KIND" in out and "vidore/colqwen2.5-v0.2" in out


def test_download_offline_fails_with_a_reason(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setenv("LANTERN_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("LANTERN_SETTINGS", str(tmp_path / "none.json"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert run(["models", "download", "org/some-model"]) == 1
    assert "offline" in capsys.readouterr().err
    assert not (tmp_path / "models" / "org--some-model").exists()
