"""A question names a manual by the kind of thing its product is ("the radio", "this
drive") when the library holds one manual of that kind: the word its title or file name
ends on, printed mostly by its own pages. Named so, the manual's pages come first, but a
question about another maker's equipment of that kind is still about other equipment."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pymupdf

from app.agent.extractive import answer_from_search, foreign_equipment
from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.importer import Importer, import_blocking
from app.library.library import Library
from app.library.models import DocumentInfo, ManualProfile
from app.retrieval.query import _named_by_kind, analyse, kind_names
from app.retrieval.text import TextSearch


def _doc(
    doc_id: int, title: str, file_name: str, product: str = "", pages: int = 40
) -> DocumentInfo:
    return DocumentInfo(
        id=doc_id,
        file_name=file_name,
        title=title,
        pages=pages,
        ocr_pages=0,
        sha256=str(doc_id),
        imported_at="2026-11-29",
        profile=ManualProfile(product=product),
    )


DOCS = [
    _doc(1, "TWO-WAY RADIO", "Orbit_TR9_Two-Way_Radio_User_Manual.pdf", "TR9"),
    _doc(2, "DX7 Series AC Servo Drive", "Kappa_DX7_Servo_Drive_Manual.pdf", "DX7MS-01E"),
    _doc(3, "Air Source Heat Pump User Manual scanned", "Nordal_HP9_Heat_Pump.pdf", "HP9"),
    _doc(4, "Energy Meter", "Volta_M3_Energy_Meter.pdf", "M3"),
]
# How many pages of each manual print a word: "meter" is printed as much by the heat
# pump's manual (its energy meter) as by the meter's; "scanned" by no page.
PAGES: Mapping[str, Mapping[int, int]] = {
    "radio": {1: 12, 2: 1},
    "drive": {2: 40, 3: 2},
    "servo": {2: 30},
    "pump": {3: 25, 2: 1},
    "heat": {3: 20, 2: 6},
    "meter": {4: 8, 3: 7},
    "energy": {4: 9, 3: 9},
}


def _pages_with(word: str) -> Mapping[int, int]:
    return PAGES.get(word, {})


def test_the_kind_is_the_last_word_of_the_title_its_pages_print() -> None:
    kinds = kind_names(DOCS, _pages_with)
    assert kinds[1] == {"radio"}
    assert kinds[2] == {"drive"}
    assert kinds[3] == {"pump"}, "'scanned' is printed nowhere; 'heat' comes before 'pump'"
    assert 4 not in kinds, "the heat pump's manual prints 'meter' nearly as often"


def test_a_kind_is_weighed_page_for_page_against_each_other_manual() -> None:
    # A long receiver's manual prints "radio" on 9 of its 70 pages, the short radio's on 12
    # of its 14: by pages alone the radio's manual holds only 57% of them, page for page it
    # prints it seven times as often. A short manual printing it as often does not let it.
    radio = _doc(1, "TWO-WAY RADIO", "Orbit_TR9_Radio.pdf", pages=14)
    receiver = _doc(2, "Alarm Receiver", "Vanta_685_Receiver.pdf", pages=70)
    card = _doc(3, "Line Card", "Vanta_Line_Card.pdf", pages=6)
    assert kind_names([radio, receiver], lambda w: {1: 12, 2: 9} if w == "radio" else {}) == {
        1: frozenset({"radio"})
    }
    printed = {1: 12, 2: 9, 3: 3}
    assert 1 not in kind_names([radio, receiver, card], lambda w: printed if w == "radio" else {})


def test_a_kind_two_manuals_title_names_neither() -> None:
    pumps = [*DOCS, _doc(5, "Ground Source Heat Pump", "Other_Heat_Pump.pdf")]
    assert 3 not in kind_names(pumps, lambda w: {3: 25, 5: 25} if w == "pump" else {})
    assert kind_names(DOCS[:1], _pages_with) == {}, "one manual: nothing to tell apart"


def test_a_kind_names_its_manual_after_an_article_or_a_possessive() -> None:
    kinds = {1: frozenset({"radio"}), 2: frozenset({"drive"})}
    assert _named_by_kind("A blue LED is lit on top of the radio.", kinds) == [1]
    assert _named_by_kind("What fuse goes ahead of our 750 W drive?", kinds) == [2]
    assert _named_by_kind("How long can this old servo drive's cable be?", kinds) == [2]
    assert _named_by_kind("I want to drive a relay from the meter", kinds) == [], "a verb"
    assert _named_by_kind("Radio silence after the reset?", kinds) == []


def test_a_product_named_by_its_name_wins_over_a_kind() -> None:
    names = {1: frozenset({"tr9"}), 2: frozenset({"dx7"})}
    kinds = {1: frozenset({"radio"}), 2: frozenset({"drive"})}
    by_name = analyse("Can the TR9 key the drive's enable input?", DOCS, names, kinds)
    assert (by_name.products, by_name.by_kind) == ((1,), ())
    by_kind = analyse("What does the blue LED on the radio mean?", DOCS, names, kinds)
    assert (by_kind.products, by_kind.by_kind) == ((1,), (1,))
    assert analyse("What does the blue LED mean?", DOCS, names, kinds).products == ()


def test_other_equipment_of_the_kind_is_still_other_equipment() -> None:
    """ "The Voxtra radio" is of the library's radio's kind, but not the library's radio."""
    names = {1: frozenset({"tr9"})}
    kinds = {1: frozenset({"radio"})}

    def unknown(words: Sequence[str]) -> tuple[str, ...]:
        return tuple(w for w in words if w == "Voxtra")  # neither the library nor English

    def ask(text: str) -> tuple[str, ...]:
        query = analyse(text, DOCS, names, kinds)
        return foreign_equipment(query, tuple, unknown, unknown)

    assert ask("How do I reset the Voxtra radio to defaults?") == ("Voxtra",)
    assert ask("How do I reset the radio to defaults?") == ()
    assert ask("How do I reset the TR9 to its defaults?") == ()


def test_the_agent_routes_by_kind_as_the_search_names() -> None:
    """The rules route a question to the manuals the search names: by kind too."""
    from app.agent.atlas import build_atlas

    names = {1: frozenset({"tr9"}), 2: frozenset({"dx7"})}
    atlas = build_atlas(DOCS, names, {1: frozenset({"radio"}), 2: frozenset({"drive"})})
    assert atlas.route("What does the blue LED on the radio mean?") == (1,)
    assert atlas.route("Which fuse for this drive?") == (2,)
    assert atlas.route("Which fuse?") == ()
    assert build_atlas(DOCS, names).route("Which fuse for this drive?") == ()


def _manual(path: Path, title: str, pages: list[list[str]]) -> Path:
    """A manual of several pages: its title on the first, then each page's lines."""
    doc = pymupdf.open()
    for i, lines in enumerate(pages):
        page = doc.new_page()
        if i == 0:
            page.insert_text((60, 80), title, fontsize=16)
        for j, line in enumerate(lines):
            page.insert_text((60, 120 + 18 * j), line, fontsize=10)
    doc.save(path)
    doc.close()
    return path


RADIO_PAGES = [
    ["Charge the radio fully before its first use."],
    ["Keep the radio dry and away from heat."],
    ["The radio stores 16 channels.", "Top lamp: glows blue while a call comes in."],
    ["Clean the radio with a dry cloth."],
]


def _radio(folder: Path, pages: list[list[str]] = RADIO_PAGES) -> Path:
    return _manual(folder / "Orbit_TR9_Two-Way_Radio.pdf", "TR-9 Two-Way Radio", pages)


def _drive(folder: Path) -> Path:
    """A drive's manual that also has a blue LED on top."""
    return _manual(
        folder / "Kappa_DX7_Servo_Drive.pdf",
        "DX-7 Servo Drive",
        [
            ["Mount the drive upright in a cabinet."],
            ["Status LED on top: blue means the drive is powered and idle, no fault."],
            ["Wire the motor to the drive's U, V and W terminals."],
        ],
    )


def test_a_library_s_radio_is_named_by_its_kind(tmp_path: Path) -> None:
    """In a real library of a radio's manual and a drive's, "the radio" names the radio's
    manual: its page comes first and the answer quotes it alone, though the drive's
    manual also has a blue LED on top."""
    radio, drive = _radio(tmp_path), _drive(tmp_path)
    library = Library.open(tmp_path / "library")
    try:
        importer = Importer(library, Settings(ocr_engine="none"), embedder=HashingEmbedder())
        assert {r.status for r in import_blocking(importer, [radio, drive])} == {"imported"}
        search = TextSearch(library.store, HashingEmbedder())
        ids = {d.file_name: d.id for d in library.store.list_documents()}
        result = search.search("What does the blue LED on top of the radio mean?")
        assert result.query.by_kind == (ids[radio.name],)
        assert result.pages[0].document_id == ids[radio.name]
        answer = answer_from_search(result, search, library.store)
        assert {c.document for c in answer.citations} == {radio.name}
        other = search.search("What does the blue LED on top mean?")
        assert other.query.products == ()
    finally:
        library.close()


def test_a_manual_s_new_revision_is_still_named_by_its_kind(tmp_path: Path) -> None:
    """A new revision of the radio's manual is not another manual of the radio's kind: "the
    radio" still names it, and its newest revision's page comes first."""
    radio, drive = _radio(tmp_path), _drive(tmp_path)
    (tmp_path / "new").mkdir()
    newer = _radio(
        tmp_path / "new",
        [*RADIO_PAGES, ["Radio firmware 2.0: the top lamp also blinks blue while scanning."]],
    )
    library = Library.open(tmp_path / "library")
    try:
        importer = Importer(library, Settings(ocr_engine="none"), embedder=HashingEmbedder())
        import_blocking(importer, [radio, drive])
        importer.on_match = "revision"
        [result] = import_blocking(importer, [newer])
        assert result.status == "imported" and "revision 2 of 2" in result.reason
        search = TextSearch(library.store, HashingEmbedder())
        kinds = search.kind_names(library.store.list_documents())
        radios = {d.id for d in library.store.list_documents() if d.file_name != drive.name}
        assert len(radios) == 2
        assert {d for d, k in kinds.items() if k == {"radio"}} == radios
        found = search.search("What does the blue LED on top of the radio mean?")
        assert set(found.query.by_kind) == radios
        assert found.pages[0].document_id in radios
    finally:
        library.close()
