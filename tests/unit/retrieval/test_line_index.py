"""The terms of each line, stored once after import, read by searches instead of
tokenising (``app/retrieval/line_index.py``)."""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path

import pytest

from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.importer import Importer, import_blocking
from app.library.layout import is_contents_page, is_history_page
from app.library.library import Library
from app.library.models import ChunkDraft, TextLine
from app.library.store import NewDocument, PageRecord, Store, lines_to_json
from app.library.symbols import searchable_text
from app.retrieval import line_index
from app.retrieval.regions import LineTerms, is_contents_line
from app.retrieval.terms import line_stems
from app.retrieval.text import TextSearch, page_coverage

# Lines of the kinds manuals print: values with units, table rows, codes, joined and
# split words, a scan's misreadings, glyphs and symbols beyond ASCII.
LINES = [
    "Supply 13.8 V DC, 2.5 A max",
    "Baud Rate | 38400",
    "Temperature -10 °C to 55 °C",
    "Power/Volume 3.Blue LIST1",
    "out puts",
    "Using the keys: press ✱ then # to confirm",
    "Tighten to 1.2 N·m (10.6 lbf·in)",
    "Fuse F1: T3.15A 250V",
    "LED 2 flashes green twice",
    "Parameter P0-05 | Rated current | 0.1–999.9 A",
    "Zone 1 ........ 12",
    "Wiring the outputs",
    "1KΩ resistor, 60 Hz, 5 kWh per day, 200 L/min",
    "R5 4.7K (yellow, violet, red), R6 10 K, steps 1C and 2C",
    "Conputer faiiure",
    "Enclosure IP65 | IPX4 splash-proof",
    "Align the IF at 10.7 mc, the dial at 108 Mc; 75kc deviation",
    "",
]
# The digest of LINES' records under line_index.VERSION, and the packages it was read with.
DIGEST = "ba96e05bc57da73fa481f194ff98791b6ce2f5cc71c1b429600c23707d67fff3"
PACKAGES = {"PyStemmer": "3.1.0", "pint": "0.25.3"}
BUMP = "raise app/retrieval/line_index.py VERSION, so that libraries store them again"


def test_the_reading_of_lines_changes_only_with_its_version() -> None:
    assert line_index.VERSION == 5, "VERSION raised: set DIGEST and PACKAGES anew here"
    installed = {name: metadata.version(name) for name in PACKAGES}
    assert installed == PACKAGES, f"the stemmer or unit registry changed: {BUMP}"
    records = "\n".join(line_index.line_record(text) for text in LINES)
    digest = hashlib.sha256(records.encode()).hexdigest()
    assert digest == DIGEST, (
        f"the stored terms of lines changed (tokenising, stemming or reading values): {BUMP},"
        f" and set DIGEST to {digest}"
    )


@pytest.mark.parametrize("text", LINES)
def test_a_stored_line_reads_as_the_line_itself(text: str) -> None:
    wanted = line_stems(text) | line_stems(searchable_text(text))
    record = line_index.line_record(text)
    for scanned in (False, True):
        for glyphs in (False, True):
            computed = LineTerms(wanted, {}).of(text, scanned, glyphs)
            stored = LineTerms(wanted, {}, {text: record}).of(text, scanned, glyphs)
            assert stored == computed, (scanned, glyphs)
    stored_contents = LineTerms(wanted, {}, {text: record}).contents(text)
    assert stored_contents == is_contents_line(text)


def test_a_record_of_other_lines_is_not_read() -> None:
    assert line_index.split_record("a\x1eb", 3) is None
    assert line_index.split_record("", 0) == []


def _document(embedder: HashingEmbedder, sha: str, texts: list[str]) -> NewDocument:
    lines = [TextLine(t, (72.0, 100.0 + 14 * i, 400.0, 112.0 + 14 * i), 10.0, False)
             for i, t in enumerate(texts)]  # fmt: skip
    text = "\n".join(texts)
    chunk = ChunkDraft(page=1, text=text, lines=tuple(lines), heading="1. Wiring")
    page = PageRecord(1, 595.0, 842.0, text, text, False, lines)
    return NewDocument(
        sha * 64, f"{sha}.pdf", sha, "", [page], [chunk], [text], embedder.embed([text])
    )


def _stored(store: Store) -> dict[int, tuple[int, str]]:
    rows = store.db.execute("SELECT chunk_id, version, terms FROM line_terms")
    return {r[0]: (r[1], r[2]) for r in rows}


def test_fill_stores_each_chunk_once_and_again_after_a_new_version(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = HashingEmbedder()
    store.add_document(_document(embedder, "a", ["Fuse F1: T3.15A", "Battery 12 V 7 Ah"]))
    store.add_document(_document(embedder, "b", ["Baud Rate | 38400"]))
    assert line_index.missing(store) == 2

    assert list(line_index.fill(store)) == [(2, 2)]
    stored = _stored(store)
    assert len(stored) == 2 and line_index.missing(store) == 0
    first = min(stored)
    assert stored[first][1].split("\x1e")[1] == line_index.line_record("Battery 12 V 7 Ah")
    assert list(line_index.fill(store)) == []  # nothing left to do

    monkeypatch.setattr(line_index, "VERSION", line_index.VERSION + 1)
    assert line_index.missing(store) == 2  # an older reading's rows count as none
    monkeypatch.setattr(line_index, "BATCH", 1)
    assert list(line_index.fill(store)) == [(1, 2), (2, 2)]
    assert {v for v, _ in _stored(store).values()} == {line_index.VERSION}


def test_terms_of_a_removed_chunk_go_with_it_and_are_never_written_for_its_successor(
    store: Store,
) -> None:
    embedder = HashingEmbedder()
    doc = store.add_document(_document(embedder, "a", ["Fuse F1: T3.15A"]))
    line_index.fill_all(store)
    store.remove_document(doc)
    assert _stored(store) == {}

    # Terms read from a chunk that was removed meanwhile (its id handed to a new chunk
    # with other lines) are not written.
    store.add_document(_document(embedder, "b", ["Baud Rate | 38400"]))
    (chunk_id,) = [r[0] for r in store.db.execute("SELECT id FROM chunks")]
    old_lines = lines_to_json([TextLine("Fuse F1: T3.15A", (0.0, 0.0, 1.0, 1.0), 10.0, False)])
    store.put_line_terms([(chunk_id, old_lines, "fuse")], line_index.VERSION)
    assert _stored(store) == {}


def test_a_search_reads_stored_terms_and_finds_what_it_finds_without_them(
    tmp_library: Library, sample_manuals_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = HashingEmbedder()
    importer = Importer(tmp_library, Settings(ocr_engine="none"), embedder, ocr=None)
    import_blocking(importer, sorted(sample_manuals_dir.glob("*.pdf")))
    questions = [
        q["query"] for q in json.loads((sample_manuals_dir / "questions.json").read_text())
    ]
    store = tmp_library.store

    def results() -> list[object]:
        search = TextSearch(store, embedder)
        out = []
        for question in questions:
            result = search.search(question)
            out.append(
                [
                    (p.document_id, p.page, p.score, [r.text for r in p.regions])
                    for p in result.pages
                ]
            )
        return out

    without = results()
    written, _ = line_index.fill_all(store)
    assert written > 0 and line_index.missing(store) == 0

    read: list[str] = []
    decode = line_index.decode_line

    def counting(record: str, scanned: bool, glyphs: bool) -> frozenset[str] | None:
        read.append(record)
        return decode(record, scanned, glyphs)

    monkeypatch.setattr("app.retrieval.regions.decode_line", counting)
    assert results() == without
    assert len(read) > 100  # the stored terms were what the searches read


# A contents page that prints its page numbers in a column of their own, as a PDF's text
# layer reads it: the entries, then the numbers.
ENTRIES = [f"{n}.{k} {t}" for n, k, t in [
    (1, 1, "Supplied Accessories"), (2, 1, "Radio Diagram"), (3, 1, "LCD Display"),
    (4, 1, "Buttons"), (5, 1, "Menu Info"), (6, 1, "Power On Password"),
    (6, 2, "Switch Main Channel"), (6, 3, "Dual Watch"), (6, 4, "Channel Save"),
]]  # fmt: skip
PAGE_NUMBERS = ["01", "02", "03", "04", "06", "09", "09", "10", "11"]


def test_a_contents_page_with_its_numbers_apart_is_told() -> None:
    assert is_contents_page(["CONTENTS", *ENTRIES, *PAGE_NUMBERS])
    # Not a pin table (numbers, no numbered titles), nor steps in prose, nor numbers out
    # of reading order.
    assert not is_contents_page(["Pin", *PAGE_NUMBERS, *["GND", "VCC"] * 5])
    steps = [f"{n}. Press MENU and hold it for {n} seconds to confirm." for n in range(1, 10)]
    assert not is_contents_page(steps)
    assert not is_contents_page([*ENTRIES, *reversed(PAGE_NUMBERS)])


# A contents page of unnumbered titles, each followed by its page number on a line of its
# own, as a PDF's text layer reads a two-column contents table.
TITLED = ["Introduction", "2", "Drawing", "3", "Specifications", "4", "Functions", "5",
          "Indication area", "6", "Buttons", "7", "Normal operation", "7",
          "Settings", "10", "Error codes", "15", "Installation", "16"]  # fmt: skip


def test_a_contents_page_of_unnumbered_titles_is_told() -> None:
    assert is_contents_page(["CONTENT", "Content", "1", *TITLED, "CONTENT"])
    # A pin table counts its pins one by one and starts again at 1 for the next connector.
    pins = [x for n in range(3, 11) for x in (str(n), f"PIN_{n}", "Connected to the module")]
    restarted = [x for n in range(1, 6) for x in (str(n), f"IO_{n}", "Reserved")]
    assert not is_contents_page([*pins, "J805", *restarted])
    # A numbered list of short steps counts 1, 2, 3...
    counted = [x for n in range(1, 11) for x in (str(n), f"Set option {n}")]
    assert not is_contents_page(counted)
    # Titles beside numbers that fall back are not page numbers.
    assert not is_contents_page(
        [x for pair in zip(TITLED[::2], reversed(TITLED[1::2]), strict=True) for x in pair]
    )


def test_a_contents_page_covers_no_question() -> None:
    idf = {"channel": 2.0, "save": 2.0}
    assert page_coverage([], ["CONTENTS", *ENTRIES, *PAGE_NUMBERS], idf) == 0.0
    assert page_coverage([], ["6.4 Channel Save", "Press MENU 13 to save it."], idf) > 0.5


# A revision history as manuals print one: a version, a date and what changed.
HISTORY = ["Revision", "Date", "Description",
           "1.0", "2015-03-03", "Initial",
           "1.1", "2015-06-10", "Deleted the adapter from the accessories",
           "2.0", "2017-01-12", "Added the description of the Wi-Fi interface (Chapter 4.3)",
           "A1.5 | Added RS232 communication | March 2015"]  # fmt: skip


def test_a_revision_history_is_told_and_covers_no_question() -> None:
    assert is_history_page(HISTORY)
    # An event log dates its entries with a time of day; two dates are not a history.
    log = [f"2023-05-0{d} 12:0{d} Zone {d} alarm" for d in range(1, 6)]
    assert not is_history_page(log)
    assert not is_history_page(["Issued 2015-03-03", "Revised March 2017", "Wiring"])
    idf = {"wi-fi": 2.0, "interface": 2.0}
    assert page_coverage([], HISTORY, idf) == 0.0
    assert page_coverage([], ["4.3 Wi-Fi interface", "Connect the Wi-Fi board."], idf) > 0.5
