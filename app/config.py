"""Settings, declared once.

Each setting is a typed pydantic field with a default and a one-line description; the
settings dialog and the README table are generated from this declaration. Values come
from ``settings.json`` in the application-data folder, then ``LANTERN_<NAME>``
environment variables.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import BaseModel, Field, ValidationError

APP_NAME = "Lantern"
# The checkout; in the app bundle, the bundle's read-only resources folder (PyInstaller puts
# the app's modules and its data files side by side there). Nothing is ever written in it.
REPO_ROOT = Path(__file__).resolve().parent.parent
LLM_OFF = "none"
"""What the ``llm`` setting holds in no-LLM mode; an empty value means 'pick one'."""
LLM_OFF_WORDS = frozenset({"none", "off", "no", "no-llm", "false", "0"})
SAMPLE_DIR = REPO_ROOT / "manuals"


def is_frozen() -> bool:
    """Whether Lantern runs from the app bundle (PyInstaller) rather than a checkout."""
    return bool(getattr(sys, "frozen", False))


def sample_manuals() -> list[Path]:
    """The sample manuals shipped with Lantern (the Lumen AX200's), offered on first run."""
    return sorted(SAMPLE_DIR.glob("*.pdf")) if SAMPLE_DIR.is_dir() else []


def default_data_dir() -> Path:
    """The platform's application-data folder (e.g. ~/Library/Application Support/Lantern)."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def default_library_dir() -> Path:
    return default_data_dir() / "library"


def default_models_dir() -> Path:
    return default_data_dir() / "models"


class Settings(BaseModel):
    """Every user-adjustable setting of Lantern."""

    model_config = {"validate_assignment": True, "extra": "ignore"}

    library_dir: Path = Field(
        default_factory=default_library_dir,
        description="Folder holding the library database, page images and traces.",
    )
    models_dir: Path = Field(
        default_factory=default_models_dir,
        description="Folder where downloaded model weights are kept.",
    )
    embedder: str = Field(
        default="minilm",
        description="Text embedder: 'minilm' (bundled all-MiniLM-L6-v2) or a local model folder.",
    )
    ocr_engine: str = Field(
        default="auto",
        description="OCR engine for scanned pages: 'auto', 'rapidocr', 'vision' (macOS) or 'none'.",
    )
    ocr_dpi: int = Field(default=200, ge=72, le=600, description="Resolution pages are OCR'd at.")
    thumbnail_width: int = Field(
        default=240, ge=64, le=1024, description="Width in pixels of page thumbnails."
    )
    render_zoom: float = Field(
        default=2.0, ge=0.5, le=6.0, description="Zoom of full-page renders (1.0 = 72 dpi)."
    )
    chunk_chars: int = Field(
        default=900, ge=200, le=4000, description="Largest chunk, in characters."
    )
    chunk_overlap_lines: int = Field(
        default=1, ge=0, le=5, description="Lines repeated between consecutive chunks."
    )
    llm: str = Field(
        default="",
        description=(
            "LLM for answers and decisions (model id or folder); empty = the best installed"
            " one of 0.8 GB or more; 'none' = no-LLM mode."
        ),
    )
    vlm: str = Field(
        default="",
        description="Vision-language model for reading page images; empty = any installed.",
    )
    colqwen: str = Field(
        default="", description="ColQwen model for visual page search; empty = text search only."
    )
    memory_budget_gb: float = Field(
        default=12.0, ge=1.0, le=512.0, description="Most memory loaded models may use together."
    )
    max_steps: int = Field(default=6, ge=1, le=20, description="Most agent steps per question.")
    search_old_revisions: bool = Field(
        default=False,
        description="Also search older revisions of manuals (the newest still takes precedence).",
    )
    llm_override_threshold: float = Field(
        default=0.7,
        ge=0.0,
        le=1.0,
        description="The LLM's decision replaces the rules' only at this calibrated confidence.",
    )
    token_budget: int = Field(
        default=32768,
        ge=256,
        le=1_000_000,
        description="Most tokens (prompt + generation) one question may use; a 4B model's context.",
    )
    deep_mode: str = Field(
        default="automatic",
        pattern="^(on|off|automatic)$",
        description="Analyst, critic and writer: 'on', 'off' or 'automatic' (hard questions).",
    )
    deep_iterations: int = Field(
        default=3, ge=1, le=8, description="Most analyst-critic-writer rounds in deep mode."
    )
    auto_optimize: str = Field(
        default="offer",
        pattern="^(off|offer|automatic)$",
        description="Optimise when decisions get worse: 'offer', 'automatic' (run it) or 'off'.",
    )
    auto_optimize_examples: int = Field(
        default=20, ge=1, le=10_000, description="New labelled decisions before optimising again."
    )
    auto_optimize_accuracy: float = Field(
        default=0.7,
        ge=0.0,
        le=1.0,
        description="Optimise when a decision's rolling accuracy is below this.",
    )
    auto_optimize_hours: float = Field(
        default=24.0, ge=0.0, le=10_000.0, description="Least hours between two optimisations."
    )
    idle_unload_minutes: float = Field(
        default=10.0,
        ge=0.0,
        le=1440.0,
        description="Unload a model nobody has used for this many minutes; 0 = keep it loaded.",
    )

    @property
    def llm_off(self) -> bool:
        """True when the ``llm`` setting asks for no-LLM mode ('none'), not for a choice."""
        return self.llm.strip().lower() in LLM_OFF_WORDS

    @classmethod
    def describe(cls) -> list[tuple[str, str, str]]:
        """(name, default, description) for every setting, for the dialog and the README."""
        rows = []
        for name, info in cls.model_fields.items():
            default = info.get_default(call_default_factory=True)
            rows.append((name, str(default), info.description or ""))
        return rows


def settings_path() -> Path:
    return Path(os.environ.get("LANTERN_SETTINGS", default_data_dir() / "settings.json"))


def load_settings(**overrides: Any) -> Settings:
    """Read settings.json, then LANTERN_* variables, then explicit overrides (None is skipped)."""
    data: dict[str, Any] = {}
    path = settings_path()
    if path.is_file():
        try:
            data.update(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError) as exc:
            raise SettingsError(f"{path}: cannot read settings ({exc})") from exc
    for name in Settings.model_fields:
        env = os.environ.get(f"LANTERN_{name.upper()}")
        if env is not None:
            data[name] = env
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return Settings(**data)
    except ValidationError as exc:
        raise SettingsError(f"invalid settings: {exc}") from exc


def save_settings(settings: Settings) -> Path:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(settings.model_dump_json(indent=2), encoding="utf-8")
    return path


class SettingsError(Exception):
    """Settings could not be read or are invalid."""
