"""``cross_corpus.py --together`` asks every set's questions in one library of all the sets'
manuals, as on the van of a technician of several trades."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from app.library.library import Library
from tests.helpers.pdfs import note_pdf

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
import cross_corpus


def _corpus(folder: Path, notes: dict[str, tuple[str, list[str]]]) -> Path:
    folder.mkdir(parents=True)
    for name, (title, lines) in notes.items():
        note_pdf(folder / name, title, lines)
    return folder


def _dataset(path: Path, document: str, question: str) -> Path:
    item = {
        "id": "x1",
        "category": "direct",
        "query": question,
        "evidence": {"document": document, "locations": [{"page": 1}]},
        "key_facts": [],
    }
    path.write_text(json.dumps([item]), "utf-8")
    return path


@pytest.fixture
def sets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Two corpora and a question over each, imported without OCR or MiniLM."""
    monkeypatch.setenv("LANTERN_EMBEDDER", "hashing")
    monkeypatch.setenv("LANTERN_OCR_ENGINE", "none")
    pumps = _corpus(
        tmp_path / "pumps",
        {
            "Pump.pdf": ("Heat pump manual", ["The water flow switch trips below 12 litres."]),
            "Boiler.pdf": ("Boiler manual", ["The flue gas sensor reads the exhaust."]),
        },
    )
    radios = _corpus(
        tmp_path / "radios",
        {"Radio.pdf": ("Radio manual", ["Hold the squelch key to open the receiver."])},
    )
    asked_pumps = _dataset(tmp_path / "p.json", "Pump.pdf", "When does the flow switch trip?")
    asked_radios = _dataset(tmp_path / "r.json", "Radio.pdf", "How do I open the squelch?")
    return [f"pumps={pumps}:{asked_pumps}", f"radios={radios}:{asked_radios}"]


def test_together_imports_every_set_s_manuals_into_one_library(
    sets: list[str], tmp_path: Path
) -> None:
    out = tmp_path / "out.json"
    cache = tmp_path / "cache"
    argv = ["--together", "--no-baseline", "--cache", str(cache), "--out", str(out)]
    assert cross_corpus.main([*argv, "--set", sets[0], "--set", sets[1]]) == 0
    library = Library.open(cache / cross_corpus.TOGETHER)
    try:
        names = sorted(d.file_name for d in library.store.list_documents())
    finally:
        library.close()
    assert names == ["Boiler.pdf", "Pump.pdf", "Radio.pdf"]
    # No library of a set's own was made: every question met all three manuals.
    assert sorted(p.name for p in cache.iterdir()) == [cross_corpus.TOGETHER]
    report = json.loads(out.read_text("utf-8"))
    assert set(report) == {"pumps", "radios"}
    for name in report:
        (record,) = report[name]["records"]["lantern"]
        assert record["score"]["rank"] == 1, (name, record["pages"])


def test_without_together_each_corpus_has_a_library_of_its_own(
    sets: list[str], tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    argv = ["--no-baseline", "--cache", str(cache), "--set", sets[0], "--set", sets[1]]
    assert cross_corpus.main(argv) == 0
    assert sorted(p.name for p in cache.iterdir()) == ["pumps", "radios"]
