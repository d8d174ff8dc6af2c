"""`python -m app bench`: the summary table with the judge, the run saved in the library,
and `--out` still written (in-process, on the sample manuals with the hashing embedder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.bench.runs import RunStore, runs_dir
from app.cli import run
from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.importer import Importer, import_blocking
from app.library.library import Library

MANUALS = Path(__file__).resolve().parents[3] / "manuals"


@pytest.fixture
def library_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if not list(MANUALS.glob("*.pdf")):
        pytest.skip("the sample manuals are not generated")
    monkeypatch.setenv("LANTERN_SETTINGS", str(tmp_path / "no-settings.json"))
    monkeypatch.setenv("LANTERN_EMBEDDER", "hashing")
    monkeypatch.setenv("LANTERN_LLM", "none")
    monkeypatch.setenv("LANTERN_VLM", "none")
    root = tmp_path / "library"
    library = Library.open(root)
    importer = Importer(library, Settings(ocr_engine="none"), embedder=HashingEmbedder())
    assert {r.status for r in import_blocking(importer, [MANUALS])} == {"imported"}
    library.close()
    return root


def test_bench_prints_the_judge_and_saves_the_run(
    library_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "three.json"
    items = json.loads((MANUALS / "questions.json").read_text(encoding="utf-8"))[:3]
    dataset.write_text(json.dumps(items), encoding="utf-8")
    out = tmp_path / "out.json"

    code = run(["bench", str(dataset), "--library", str(library_dir), "--out", str(out)])

    assert code == 0
    printed = capsys.readouterr().out
    assert "judge" in printed.splitlines()[0]
    assert "judge: key-facts (Deterministic key-fact check, because no LLM is installed)" in printed
    saved = RunStore(runs_dir(library_dir)).list()
    assert len(saved) == 1 and saved[0].meta.mode == "no-LLM"
    assert saved[0].meta.judge_method == "key-facts" and saved[0].meta.questions == 3
    run_data = RunStore(runs_dir(library_dir)).load(saved[0].id)
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["records"] == run_data["records"] and written["stopped"] is False
    assert [r["id"] for r in written["records"]] == [i["id"] for i in items]
    assert all("judge" in r and "query" in r for r in written["records"])
