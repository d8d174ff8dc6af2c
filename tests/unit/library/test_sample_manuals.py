"""The sample manuals: generated PDFs look and read like real manuals, and the committed copies
and their questions match what the generator produces today."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "make_sample_manuals.py"
COMMITTED = ROOT / "manuals"
MANUALS = ("Lumen_AX200_Installation_Manual.pdf", "Lumen_AX200_User_Manual.pdf")
INSTALLATION, USER = MANUALS


def page_texts(path: Path) -> list[str]:
    """Text of every page, whitespace collapsed so facts match across line breaks."""
    with pymupdf.open(path) as doc:
        return [" ".join(page.get_text().split()) for page in doc]


def detected_tables(path: Path, caption: str) -> list[tuple[list[str], list[list[str]]]]:
    """Header cells and rows of the tables ``find_tables`` detects on the pages that show
    ``caption`` (table detection is slow, so only where the table is expected)."""
    with pymupdf.open(path) as doc:
        return [
            ([name or "" for name in table.header.names], table.extract())
            for page in doc
            if caption in page.get_text()
            for table in page.find_tables().tables
        ]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Run the generator the way a developer would, into a fresh folder."""
    out = tmp_path_factory.mktemp("manuals")
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(out)], check=True, timeout=120)
    return out


@pytest.fixture(scope="module")
def questions(generated: Path) -> list[dict]:
    return json.loads((generated / "questions.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", MANUALS)
def test_manual_opens_with_a_plausible_page_count(generated: Path, name: str) -> None:
    with pymupdf.open(generated / name) as doc:
        assert 15 <= doc.page_count <= 25
        assert doc.get_toc(), "bookmarks let a reader jump to a chapter"


@pytest.mark.parametrize("name", MANUALS)
def test_every_page_has_readable_text(generated: Path, name: str) -> None:
    for number, text in enumerate(page_texts(generated / name), start=1):
        assert len(text.split()) >= 30, f"page {number} has almost no text"
        assert "\ufffd" not in text, f"page {number} has unmappable glyphs"


def test_title_and_pages_are_labelled(generated: Path) -> None:
    texts = page_texts(generated / INSTALLATION)
    assert "Installation Manual" in texts[0] and "Version 1.3" in texts[0]
    assert "Contents" in texts[1]
    assert f"Page 7 of {len(texts)}" in texts[6]


def test_terminal_table_is_a_detectable_table(generated: Path) -> None:
    tables = detected_tables(generated / INSTALLATION, "Terminal functions")
    rows = [row for _, rows in tables for row in rows]
    assert ["Terminal", "Function", "Rating"] in [header for header, _ in tables]
    assert ["AUX+", "Auxiliary power out", "13.8 V DC, 500 mA max"] in rows


def test_led_table_is_a_detectable_table(generated: Path) -> None:
    tables = detected_tables(generated / USER, "Status LEDs")
    rows = [row for _, rows in tables for row in rows]
    assert ["LED", "Colour", "State", "Meaning"] in [header for header, _ in tables]
    assert ["MEMORY", "Red", "Flashing", "Alarm in memory: press ✱ 3 to see which zone"] in rows


def test_special_keys_are_extractable_text(generated: Path) -> None:
    text = " ".join(page_texts(generated / USER))
    for key in ("✱", "#", "←", "→", "AWAY", "STAY", "CHIME"):
        assert key in text


def test_wiring_diagram_is_drawn_with_vectors(generated: Path) -> None:
    with pymupdf.open(generated / INSTALLATION) as doc:
        page = next(p for p in doc if "Double end-of-line (DEOL) wiring" in p.get_text())
        wires = [d for d in page.get_drawings() if any(item[0] == "l" for item in d["items"])]
        labels = page.get_text()
        images = page.get_images()
    assert len(wires) >= 20, "the diagram is made of drawn wires, not a picture"
    assert not images
    for label in ("AX-200 panel", "2.2 kΩ EOL resistor", "Z1", "COM", "4.4 kΩ"):
        assert label in labels


def test_questions_cover_every_category(questions: list[dict]) -> None:
    assert 12 <= len(questions) <= 16
    categories = [q["category"] for q in questions]
    assert categories.count("unanswerable") >= 2
    assert {"direct", "visual", "complex"} <= set(categories)
    assert any(q["additional_evidence"] for q in questions), "one question spans both manuals"
    for question in questions:
        if question["category"] == "unanswerable":
            assert question["evidence"]["document"] is None
            assert question["evidence"]["locations"] == [] and question["key_facts"] == []


def test_key_facts_are_on_the_evidence_pages(generated: Path, questions: list[dict]) -> None:
    texts = {name: page_texts(generated / name) for name in MANUALS}
    for question in questions:
        if question["category"] == "unanswerable":
            continue
        places = [question["evidence"], *question["additional_evidence"]]
        cited = " ".join(
            texts[place["document"]][location["page"] - 1]
            for place in places
            for location in place["locations"]
        )
        for fact in question["key_facts"]:
            assert " ".join(fact.split()) in cited, f"{question['id']}: {fact!r} not on its pages"


def test_committed_manuals_match_a_fresh_generation(generated: Path) -> None:
    for name in MANUALS:
        assert page_texts(COMMITTED / name) == page_texts(generated / name), (
            f"manuals/{name} is stale: run python scripts/make_sample_manuals.py"
        )
    committed = json.loads((COMMITTED / "questions.json").read_text(encoding="utf-8"))
    assert committed == json.loads((generated / "questions.json").read_text(encoding="utf-8"))
