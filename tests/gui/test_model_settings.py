"""The models dialog's mode means what it says, and shows the memory budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import Settings, load_settings, save_settings
from app.runtime.download import ModelRow
from app.ui.settings_dialog import ModelsDialog
from app.worker.messages import ModelsListed
from tests.gui.conftest import gui_settings

LLM_ROW = ModelRow("mlx-community/Qwen2.5-3B-Instruct-4bit", "llm", 2 * 10**9, True, "app", "/m")


def save_through_dialog(qtbot, settings: Settings, pick: str | None) -> Settings:
    dialog = ModelsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.set_models(ModelsListed((LLM_ROW,), memory="Memory budget 12.0 GB · loaded now 0.0 GB"))
    if pick is not None:
        dialog.mode.setCurrentIndex(dialog.mode.findData(pick))
    saved: list[Settings] = []
    dialog.saved.connect(saved.append)
    dialog._save()
    assert saved
    return saved[0]


@pytest.fixture
def settings_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "settings.json"
    monkeypatch.setenv("LANTERN_SETTINGS", str(path))
    monkeypatch.delenv("LANTERN_LLM", raising=False)
    return path


def test_no_llm_persists_as_none_and_survives_saving_again(qtbot, tmp_path, settings_file):
    start = gui_settings(tmp_path / "library")  # llm "" = pick one automatically
    chosen = save_through_dialog(qtbot, start, "none")
    assert chosen.llm == "none" and chosen.llm_off
    save_settings(chosen)

    reopened = load_settings()
    assert reopened.llm == "none"
    again = save_through_dialog(qtbot, reopened, None)  # opened and saved, nothing changed
    assert again.llm == "none", "saving again must not turn 'no LLM' into 'automatic'"


def test_automatic_and_a_named_llm_are_distinct_choices(qtbot, tmp_path):
    start = gui_settings(tmp_path / "library").model_copy(update={"llm": "none"})
    assert save_through_dialog(qtbot, start, "").llm == ""
    named = save_through_dialog(qtbot, start, LLM_ROW.name)
    assert named.llm == LLM_ROW.name
    assert save_through_dialog(qtbot, named, None).llm == LLM_ROW.name


def test_a_configured_model_is_kept_before_the_models_are_listed(qtbot, tmp_path):
    start = gui_settings(tmp_path / "library").model_copy(update={"llm": "some/other-llm"})
    dialog = ModelsDialog(start)
    qtbot.addWidget(dialog)
    saved: list[Settings] = []
    dialog.saved.connect(saved.append)
    dialog._save()
    assert saved[0].llm == "some/other-llm"


def test_the_dialog_shows_the_memory_budget_and_idle_time(qtbot, tmp_path):
    settings = gui_settings(tmp_path / "library").model_copy(
        update={"memory_budget_gb": 8.0, "idle_unload_minutes": 5.0}
    )
    dialog = ModelsDialog(settings)
    qtbot.addWidget(dialog)
    assert "Memory budget 8.0 GB" in dialog.memory.text()
    assert "5 min" in dialog.memory.text()
    dialog.set_models(ModelsListed((LLM_ROW,), memory="Memory budget 8.0 GB · loaded now 2.3 GB"))
    assert "loaded now 2.3 GB" in dialog.memory.text()


def test_the_status_bar_says_when_search_runs_on_full_text_only(make_window, sample_library):
    from app.agent.events import FALLBACK_TOOL, Status

    window = make_window(sample_library)
    message = "Searched the full text only: the text embedder could not load (missing)."
    window._answer_event(window.controller.current_job, Status(message, FALLBACK_TOOL))
    assert "full-text search only" in window.status.models.text()
    assert window.status.models.toolTip() == message
