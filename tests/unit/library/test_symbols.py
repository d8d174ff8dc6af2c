"""Symbol-font characters become glyphs a reader sees and words a search finds."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from app.library.symbols import (
    UNKNOWN_GLYPH,
    decode_symbols,
    font_family,
    is_private_use,
    map_symbol,
    searchable_text,
)

# The codes the VESTA BOGP-3 manual uses, with what its pages show for them.
BOGP_CODES = [
    ("Wingdings", 0xF06C, "●", "bullet", True),
    ("Wingdings", 0xF046, "☞", "pointing hand", True),
    ("Wingdings", 0xF075, "◆", "bullet", True),
    ("Wingdings", 0xF0FC, "✓", "check mark", False),
    ("Wingdings", 0xF0E0, "→", "right arrow", False),
    ("Wingdings 2", 0xF0DD, "✱", "star", False),
    ("Wingdings 3", 0xF070, "▲", "up arrow", False),
    ("Wingdings 3", 0xF071, "▼", "down arrow", False),
    ("Wingdings 3", 0xF051, "↺", "anticlockwise arrow", False),
]


@pytest.mark.parametrize(("font", "code", "glyph", "words", "is_bullet"), BOGP_CODES)
def test_manual_symbol_codes_map_to_glyph_and_words(
    font: str, code: int, glyph: str, words: str, is_bullet: bool
) -> None:
    mapped = map_symbol(font, chr(code))

    assert mapped is not None
    assert (mapped.glyph, mapped.words, mapped.is_bullet) == (glyph, words, is_bullet)


@pytest.mark.parametrize(
    ("font", "family"),
    [
        ("ABCDEF+Wingdings-Regular", "wingdings"),
        ("Wingdings,Bold", "wingdings"),
        ("QWERTY+Wingdings2", "wingdings2"),
        ("Wingdings 3", "wingdings3"),
        ("Wingdings-3-Regular", "wingdings3"),
        ("SymbolMT", "symbol"),
        ("XYZ+Symbol,Italic", "symbol"),
        ("ZapfDingbats", "zapfdingbats"),
        ("ITCZapfDingbats-Medium", "zapfdingbats"),
        ("ArialMT", None),
        ("SegoeUISymbol", None),
    ],
)
def test_font_names_tolerate_subset_prefixes_and_styles(font: str, family: str | None) -> None:
    assert font_family(font) == family


def test_subset_font_name_maps_like_the_plain_one() -> None:
    assert map_symbol("KLMNOP+Wingdings-Regular", "\uf046") == map_symbol("Wingdings", "\uf046")
    assert map_symbol("ABCDEF+Wingdings3", "\uf070").glyph == "▲"  # type: ignore[union-attr]


def test_symbol_font_bytes_without_the_private_use_shift_map_too() -> None:
    assert map_symbol("Wingdings", "l").glyph == "●"  # type: ignore[union-attr]
    assert map_symbol("Symbol", "W").glyph == "Ω"  # type: ignore[union-attr]
    assert map_symbol("ZapfDingbats", "4").glyph == "✔"  # type: ignore[union-attr]


def test_text_that_needs_no_mapping_is_left_alone() -> None:
    assert map_symbol("Arial", "a") is None
    assert map_symbol("Symbol", "7") is None  # Symbol digits are digits
    assert map_symbol("Wingdings-Regular", "⚫") is None  # already Unicode (ToUnicode map)
    assert map_symbol("Wingdings", " ") is None


def test_unknown_private_use_characters_keep_a_placeholder_word() -> None:
    in_unknown_font = map_symbol("MysteryIcons", "\ue123")
    unknown_code = map_symbol("Wingdings", "\uf027")  # a candle: no table entry

    for mapped in (in_unknown_font, unknown_code):
        assert mapped is not None
        assert (mapped.glyph, mapped.words) == (UNKNOWN_GLYPH, "symbol")
    assert (
        searchable_text(f"Press {UNKNOWN_GLYPH} twice") == f"Press {UNKNOWN_GLYPH} (symbol) twice"
    )


def test_is_private_use() -> None:
    assert is_private_use("\uf0dd")
    assert is_private_use("\ue000")
    assert is_private_use("\U000f0001")
    assert not is_private_use("✱")
    assert not is_private_use("a")
    assert not is_private_use("\uf0dd\uf0dd")


def test_decode_symbols_replaces_every_symbol_of_a_span() -> None:
    assert decode_symbols("Wingdings 3", "\uf071\uf070\uf071") == "▼▲▼"
    assert decode_symbols("Arial", "plain text") == "plain text"


@pytest.mark.parametrize(
    ("display", "searchable"),
    [
        ("Press ✱ then ▲", "Press ✱ (star) then ▲ (up arrow)"),
        ("keys: ▼▲▼, then OK", "keys: ▼▲▼ (down arrow, up arrow, down arrow), then OK"),
        ("● Door Contact ✓", "● Door Contact ✓ (check mark)"),
        ("Group 1 → Group 2", "Group 1 → (right arrow) Group 2"),
        ("Enter code then #", "Enter code then # (hash)"),
        ("dial *72 to forward", "dial *72 (star) to forward"),
        ("see note* and item #3", "see note* and item #3"),  # footnote mark, number sign
        ("no symbols here", "no symbols here"),
    ],
)
def test_searchable_text_appends_words_after_key_glyphs(display: str, searchable: str) -> None:
    assert searchable_text(display) == searchable


def test_searchable_text_is_idempotent() -> None:
    once = searchable_text("Press ✱ then ▲▼ and # to confirm")

    assert searchable_text(once) == once


@pytest.mark.corpus
def test_bogp3_keypad_glyphs_become_searchable(corpus_dir: Path) -> None:
    path = corpus_dir / "VESTA_BOGP-3_User_Manual_rev2.0.pdf"
    if not path.is_file():
        pytest.skip(f"{path.name} is not in the corpus")
    with pymupdf.open(path) as doc:
        text = _decoded_text(doc[29])  # page 30: the factory-reset key sequence

    assert "▼▲▼▲▼▲▼" in text
    assert "(down arrow, up arrow, down arrow" in searchable_text(text)
    assert "Press ▲ (up arrow) key" in searchable_text(text)


def _decoded_text(page: pymupdf.Page) -> str:
    spans = []
    for block in page.get_text("rawdict")["blocks"]:
        for line in block.get("lines", []):
            for span in line["spans"]:
                raw = "".join(ch["c"] for ch in span["chars"])
                spans.append(decode_symbols(span["font"], raw))
            spans.append("\n")
    return "".join(spans)
