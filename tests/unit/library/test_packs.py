"""Portable packs: a library exported to a .lanternpack and imported into another gives
the same manuals, indexes and answers, with no OCR or embedding; bad packs change nothing."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from app.agent.events import Answer
from app.agent.service import ModelChoice, build_answerer
from app.cli import run as cli
from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.importer import EXTRACTION, Importer, import_blocking
from app.library.library import Library
from app.library.packs import PackError, export_pack, import_pack, read_manifest
from tests.unit.library.test_revisions import guide_pdf

MANUALS = Path(__file__).resolve().parents[3] / "manuals"
QUESTIONS = (
    "What voltage and maximum current does the AX-200's AUX+ terminal supply?",
    "How do I reset the installer code?",
)
HASHING = HashingEmbedder().name


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Library:
    if not list(MANUALS.glob("*.pdf")):
        pytest.skip("the sample manuals are not generated")
    library = Library.open(tmp_path_factory.mktemp("pack-source") / "library")
    importer = Importer(library, Settings(ocr_engine="none"), embedder=HashingEmbedder(), ocr=None)
    assert {r.status for r in import_blocking(importer, [MANUALS])} == {"imported"}
    return library


@pytest.fixture(scope="module")
def pack(source: Library, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(export_pack(source, tmp_path_factory.mktemp("packs") / "sample").path)


def answer(library: Library, question: str) -> Answer:
    agent = build_answerer(
        library,
        Settings(library_dir=library.root),
        embedder=HashingEmbedder(),
        models=ModelChoice(None, None, "test"),
    )
    agent.traces_dir = library.root / "traces"
    [found] = [e for e in agent.ask(question) if isinstance(e, Answer)]
    return found


def snapshot(library: Library) -> list[tuple]:
    db = library.store.db
    return (
        [
            (d.sha256, d.file_name, d.title, d.pages, d.ocr_pages, d.profile.to_dict())
            for d in library.store.list_documents()
        ]
        + [
            tuple(r)
            for r in db.execute(
                "SELECT d.sha256, c.page, c.seq, c.text, c.search_text, c.lines, v.embedding"
                " FROM chunks c JOIN documents d ON d.id = c.document_id"
                " JOIN chunk_vectors v ON v.chunk_id = c.id ORDER BY d.sha256, c.seq"
            )
        ]
        + [
            tuple(r)
            for r in db.execute(
                "SELECT d.sha256, p.number, p.text, p.lines, p.thumbnail FROM pages p"
                " JOIN documents d ON d.id = p.document_id ORDER BY d.sha256, p.number"
            )
        ]
    )


def test_a_pack_round_trip_gives_the_same_library_and_answers(source, pack, tmp_path):
    manifest = read_manifest(pack)
    assert manifest["format_version"] == 1
    assert manifest["embedder"] == {"id": HASHING, "dim": 256}
    assert len(manifest["documents"]) == 2 and manifest["hashes"]

    target = Library.open(tmp_path / "other")
    report = import_pack(target, pack, configured_embedder=HASHING)
    assert len(report.imported) == 2 and not report.skipped
    assert snapshot(target) == snapshot(source)
    assert not target.store.check_integrity()
    assert target.pdf_path(target.store.list_documents()[0]).is_file(), "pages can be shown"
    # What reading of PDFs wrote the manuals travels with them.
    assert source.store.read_before(EXTRACTION) == target.store.read_before(EXTRACTION) == []
    for question in QUESTIONS:
        here, there = answer(source, question), answer(target, question)
        assert there.text == here.text and there.abstained == here.abstained
        assert there.citations == here.citations and there.pages == here.pages

    again = import_pack(target, pack, configured_embedder=HASHING)
    assert again.skipped and not again.imported, "importing twice adds nothing"


def test_a_pack_from_another_embedder_is_refused(pack, tmp_path):
    target = Library.open(tmp_path / "other")
    with pytest.raises(PackError, match="embedded with hashing-256, this library uses all-MiniLM"):
        import_pack(target, pack, configured_embedder="all-MiniLM-L6-v2")
    assert target.store.list_documents() == []


def rewrite(pack: Path, out: Path, change) -> Path:  # type: ignore[no-untyped-def]
    with zipfile.ZipFile(pack) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            dst.writestr(item, change(item.filename, src.read(item.filename)))
    return out


def test_another_pack_format_is_refused_clearly(pack, tmp_path):
    def newer(name: str, data: bytes) -> bytes:
        if name != "manifest.json":
            return data
        return json.dumps({**json.loads(data), "format_version": 99}).encode()

    target = Library.open(tmp_path / "other")
    with pytest.raises(PackError, match="pack format 99; this Lantern reads format 1"):
        import_pack(target, rewrite(pack, tmp_path / "v99.lanternpack", newer), HASHING)
    assert target.store.list_documents() == []


def test_a_damaged_pack_changes_nothing(pack, tmp_path):
    def damaged(name: str, data: bytes) -> bytes:
        return data[:-10] + b"0" * 10 if name.endswith("vectors.npy") else data

    target = Library.open(tmp_path / "other")
    with pytest.raises(PackError, match="does not match its hash"):
        import_pack(target, rewrite(pack, tmp_path / "bad.lanternpack", damaged), HASHING)
    assert target.store.list_documents() == []


def test_a_pack_is_imported_whole_or_not_at_all(pack, tmp_path, monkeypatch):
    target = Library.open(tmp_path / "other")
    calls = []
    real = target.store.add_document

    def fail_second(doc):  # type: ignore[no-untyped-def]
        calls.append(doc.file_name)
        if len(calls) == 2:
            raise OSError("disk full")
        return real(doc)

    monkeypatch.setattr(target.store, "add_document", fail_second)
    with pytest.raises(OSError):
        import_pack(target, pack, HASHING)
    assert target.store.list_documents() == [] and len(calls) == 2
    assert target.store.chunk_count() == 0


def test_revisions_travel_in_a_pack(tmp_path):
    source = Library.open(tmp_path / "a")
    for folder, metres, rev, on_match in (("c", 30, "C", "ask"), ("d", 50, "D", "revision")):
        imp = Importer(source, Settings(ocr_engine="none"), embedder=HashingEmbedder(), ocr=None)
        imp.on_match = on_match  # type: ignore[assignment]
        import_blocking(imp, [guide_pdf(tmp_path / folder / "Guide.pdf", metres, rev)])
    pack = Path(export_pack(source, tmp_path / "guide.lanternpack").path)
    target = Library.open(tmp_path / "b")
    import_pack(target, pack, HASHING)
    from app.library.revisions import revisions

    assert [(r.revision, r.of, r.file_name) for r in revisions(target.store)] == [
        (1, 2, "Guide (rev 1).pdf"),
        (2, 2, "Guide.pdf"),
    ]


def test_pack_export_and_import_on_the_command_line(source, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANTERN_SETTINGS", str(tmp_path / "none.json"))
    monkeypatch.setenv("LANTERN_EMBEDDER", "hashing")
    out = tmp_path / "one.lanternpack"
    first = source.store.list_documents()[0].file_name
    assert cli(["pack", "export", str(out), first, "--library", str(source.root)]) == 0
    assert "exported 1 manual(s)" in capsys.readouterr().out
    other = tmp_path / "other"
    assert cli(["pack", "import", str(out), "--library", str(other)]) == 0
    assert f"imported {first}" in capsys.readouterr().out
    monkeypatch.setenv("LANTERN_EMBEDDER", "minilm")
    assert cli(["pack", "import", str(out), "--library", str(tmp_path / "third")]) == 1
    assert "embedded with hashing-256" in capsys.readouterr().err
