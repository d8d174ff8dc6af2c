"""Revisions: a manual re-issued under the same file name is one manual with two
revisions; the newest answers by default, the older stays and is searchable on request."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from app.agent.events import Answer
from app.agent.service import ModelChoice, build_answerer
from app.cli import run as cli
from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.importer import Importer, import_blocking
from app.library.library import Library
from app.library.revisions import matching_manual, revision_of, revisions

QUESTION = "What is the longest siren cable run allowed?"


def guide_pdf(path: Path, metres: int, revision: str) -> Path:
    """The 'Northlight Siren Installer Guide', whose cable limit changed between revisions."""
    doc = pymupdf.open()
    page = doc.new_page()
    lines = [
        "Northlight Siren Installer Guide",
        f"Revision {revision}",
        "4. Siren wiring",
        f"The longest siren cable run allowed is {metres} m with 18 AWG cable.",
        "Fit the end-of-line resistor at the last siren on the loop.",
        "Test the siren from the keypad after wiring.",
    ]
    for i, line in enumerate(lines):
        page.insert_text((60, 80 + 24 * i), line, fontsize=16 if i == 0 else 11)
    doc.set_metadata({"title": "Northlight Siren Installer Guide"})
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    return path


def importer(library: Library, on_match: str) -> Importer:
    imp = Importer(library, Settings(ocr_engine="none"), embedder=HashingEmbedder(), ocr=None)
    imp.on_match = on_match  # type: ignore[assignment]
    return imp


@pytest.fixture
def library(tmp_path: Path) -> Library:
    lib = Library.open(tmp_path / "library")
    [first] = import_blocking(
        importer(lib, "ask"), [guide_pdf(tmp_path / "c" / "Guide.pdf", 30, "C")]
    )
    assert first.status == "imported"
    return lib


def ask(library: Library, question: str = QUESTION, **settings: object) -> Answer:
    agent = build_answerer(
        library,
        Settings(library_dir=library.root, **settings),  # type: ignore[arg-type]
        embedder=HashingEmbedder(),
        models=ModelChoice(None, None, "test"),
    )
    agent.traces_dir = library.root / "traces"
    [answer] = [e for e in agent.ask(question) if isinstance(e, Answer)]
    return answer


def test_a_same_named_file_is_refused_until_the_technician_chooses(library, tmp_path):
    newer = guide_pdf(tmp_path / "d" / "Guide.pdf", 50, "D")
    [result] = import_blocking(importer(library, "ask"), [newer])
    assert result.status == "failed"
    assert "--replace" in result.reason and "--keep-both" in result.reason
    assert len(library.store.list_documents()) == 1, "nothing half-imported"


def test_a_new_revision_answers_and_the_old_one_stays(library, tmp_path):
    newer = guide_pdf(tmp_path / "d" / "Guide.pdf", 50, "D")
    [result] = import_blocking(importer(library, "revision"), [newer])
    assert result.status == "imported" and "revision 2 of 2" in result.reason

    revs = revisions(library.store)
    assert [(r.revision, r.of, r.file_name) for r in revs] == [
        (1, 2, "Guide (rev 1).pdf"),
        (2, 2, "Guide.pdf"),
    ]
    assert len({r.manual_id for r in revs}) == 1, "one manual"
    doc = library.store.get_document("Guide.pdf")
    assert doc is not None and doc.id == result.document_id, "the file name names the newest"

    answer = ask(library)
    assert not answer.abstained
    assert "50 m" in answer.text and "30 m" not in answer.text
    assert "revision 2 of 2" in answer.text, "the answer says which revision it quotes"
    assert {c.document for c in answer.citations} == {"Guide.pdf"}


def test_the_atlas_lists_the_newest_revision_only(library, tmp_path):
    from app.agent.library_search import LibrarySearch, searched_documents

    newer = guide_pdf(tmp_path / "d" / "Guide.pdf", 50, "D")
    import_blocking(importer(library, "revision"), [newer])
    default = LibrarySearch(library.store, HashingEmbedder())
    assert [d.file_name for d in searched_documents(default)] == ["Guide.pdf"]
    every = LibrarySearch(library.store, HashingEmbedder(), all_revisions=True)
    assert len(searched_documents(every)) == 2


def test_removing_the_newest_revision_lets_the_older_answer_again(library, tmp_path):
    newer = guide_pdf(tmp_path / "d" / "Guide.pdf", 50, "D")
    [result] = import_blocking(importer(library, "revision"), [newer])
    assert result.status == "imported"
    library.remove("Guide.pdf")
    [left] = revisions(library.store)
    assert (left.file_name, left.revision, left.of) == ("Guide.pdf", 1, 1)
    assert "30 m" in ask(library).text


def test_older_revisions_are_searchable_on_request_with_the_newer_first(library, tmp_path):
    import_blocking(
        importer(library, "revision"), [guide_pdf(tmp_path / "d" / "Guide.pdf", 50, "D")]
    )
    answer = ask(library, search_old_revisions=True)
    assert {p.document for p in answer.pages} >= {"Guide.pdf", "Guide (rev 1).pdf"}
    assert answer.pages[0].document == "Guide.pdf", "the newer revision takes precedence"
    old = library.store.get_document("Guide (rev 1).pdf")
    assert old is not None and not revision_of(library.store, old.id).current  # type: ignore[union-attr]


def test_keep_both_makes_another_manual_with_a_distinct_label(library, tmp_path):
    [result] = import_blocking(
        importer(library, "keep-both"), [guide_pdf(tmp_path / "d" / "Guide.pdf", 50, "D")]
    )
    assert result.status == "imported"
    names = sorted(d.file_name for d in library.store.list_documents())
    assert names == ["Guide (2).pdf", "Guide.pdf"]
    assert all(r.of == 1 for r in revisions(library.store)), "two manuals of one revision"


def test_a_title_match_is_a_revision_on_request_and_said_otherwise(library, tmp_path):
    other = guide_pdf(tmp_path / "d" / "installer-guide-revD.pdf", 50, "D")
    [kept] = import_blocking(importer(library, "ask"), [other])
    assert kept.status == "imported" and "title matches the manual Guide.pdf" in kept.warnings[0]
    assert all(r.of == 1 for r in revisions(library.store))
    library.remove(kept.document_id)  # type: ignore[arg-type]
    [revision] = import_blocking(importer(library, "revision"), [other])
    assert "revision 2 of 2" in revision.reason


def test_a_title_match_counts_too(library):
    match = matching_manual(
        library.store, "installer-guide-revD.pdf", "Northlight Siren Installer Guide"
    )
    assert match is not None and match.file_name == "Guide.pdf"


def test_import_replace_and_keep_both_on_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANTERN_SETTINGS", str(tmp_path / "none.json"))
    monkeypatch.setenv("LANTERN_EMBEDDER", "hashing")
    monkeypatch.setenv("LANTERN_OCR_ENGINE", "none")
    lib = tmp_path / "lib"
    common = ["--library", str(lib), "--quiet"]
    assert cli(["import", str(guide_pdf(tmp_path / "c" / "Guide.pdf", 30, "C")), *common]) == 0
    newer = str(guide_pdf(tmp_path / "d" / "Guide.pdf", 50, "D"))
    assert cli(["import", newer, *common]) == 1
    assert "--replace" in capsys.readouterr().err
    assert cli(["import", newer, "--replace", *common]) == 0
    assert "revision 2 of 2" in capsys.readouterr().err
    assert cli(["revisions", "Guide.pdf", "--library", str(lib)]) == 0
    out = capsys.readouterr().out
    assert "revision 1 of 2" in out and "revision 2 of 2" in out and "Guide (rev 1).pdf" in out
