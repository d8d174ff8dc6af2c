"""Symbol-font characters (Wingdings, Symbol, Zapf Dingbats) as glyphs and searchable words.

Manuals set keypad keys, bullets and check marks in symbol fonts. Without a usable
ToUnicode map, PyMuPDF extracts such a character as the font's byte, or as that byte
moved into the private-use area (U+F000 + byte), so "Press [star]" reads "Press \\uf0dd".
`map_symbol` turns (font, character) back into a real glyph plus words a search can
match; `searchable_text` appends those words to text that holds the glyphs, so the
index sees "Press ✱ (star)" while the reader keeps "Press ✱".

The tables follow the standard Windows/Adobe encodings of each font. Codes whose
standard Unicode glyph is missing from common fonts are mapped to the nearest
widely-drawn glyph (Wingdings 0xE0, a wide-headed arrow, becomes "→").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

FontFamily = Literal["wingdings", "wingdings2", "wingdings3", "symbol", "zapfdingbats"]


@dataclass(frozen=True, slots=True)
class SymbolGlyph:
    """A decoded symbol: the glyph to show, the words to index, and whether it is a bullet."""

    glyph: str
    words: str
    is_bullet: bool = False


UNKNOWN_GLYPH = "\ufffd"
UNKNOWN_SYMBOL = SymbolGlyph(UNKNOWN_GLYPH, "symbol")

# glyph -> (words, is_bullet). Every glyph a table below produces and every key glyph
# searchable_text annotates is described once here, so one glyph always reads the same.
_BULLET = "bullet"
GLYPH_INFO: dict[str, tuple[str, bool]] = {
    # bullets: no words in the searchable text
    **dict.fromkeys("●•·▪■◆◇○□❖⬥⧫⬧◾◼⬛⦿◉◎❑❒❍❏❐➢➣➤⚫⬤◘▫◊◈▣❯◗", (_BULLET, True)),
    "☞": ("pointing hand", True),
    "☛": ("pointing hand", True),
    # keys and arrows
    **dict.fromkeys("✱✲✳✻✽✢✣✤✥❋❊❉✺✼∗⁎*", ("star", False)),
    **dict.fromkeys("★☆✩✪✫✬✭✮✯✰✶✷✸✹✴✵✦✧", ("star", False)),
    "#": ("hash", False),
    **dict.fromkeys("▲△⮝⭡↑⇧⇑⬆", ("up arrow", False)),
    **dict.fromkeys("▼▽⮟⭣↓⇩⇓⬇", ("down arrow", False)),
    **dict.fromkeys("◄◀◁⮜⭠←⇦⇐⬅", ("left arrow", False)),
    **dict.fromkeys("►▶▷⮞⭢→⇨⇒➔➜➡➙➛➝➞➟➠➥➦➧➨➩➪➫➬➭➮➯➱➲➳➵➸➺➻➼➽➾", ("right arrow", False)),
    **dict.fromkeys("↔⇔⬄⭤", ("left right arrow", False)),
    **dict.fromkeys("↕⇳⭥", ("up down arrow", False)),
    **dict.fromkeys("↖⬁⭦", ("up left arrow", False)),
    **dict.fromkeys("↗⬀⭧", ("up right arrow", False)),
    **dict.fromkeys("↙⬃⭩", ("down left arrow", False)),
    **dict.fromkeys("↘⬂⭨", ("down right arrow", False)),
    "↺": ("anticlockwise arrow", False),
    "↻": ("clockwise arrow", False),
    "↵": ("enter", False),
    "⌫": ("backspace", False),
    "⌦": ("delete", False),
    "⎋": ("escape", False),
    "⇪": ("caps lock", False),
    "⌘": ("command", False),
    "⌧": ("clear", False),
    # marks and boxes
    **dict.fromkeys("✓✔", ("check mark", False)),
    **dict.fromkeys("✗✘✕✖", ("cross mark", False)),
    "☑": ("checked box", False),
    "☒": ("crossed box", False),
    "☐": ("empty box", False),
    # pictograms
    **dict.fromkeys("☎✆", ("telephone", False)),
    "✉": ("envelope", False),
    "✂": ("scissors", False),
    **dict.fromkeys("✎✏", ("pencil", False)),
    "✍": ("writing hand", False),
    **dict.fromkeys("☜☝☟", ("pointing hand", False)),
    "✋": ("raised hand", False),
    "👍": ("thumbs up", False),
    "👎": ("thumbs down", False),
    "⌛": ("hourglass", False),
    "⌨": ("keyboard", False),
    "💻": ("computer", False),
    "🖨": ("printer", False),
    "📠": ("fax", False),
    "🔔": ("bell", False),
    "💾": ("floppy disk", False),
    "📁": ("folder", False),
    "☼": ("sun", False),
    "❄": ("snowflake", False),
    "💧": ("droplet", False),
    "☠": ("danger", False),
    "⚠": ("warning", False),
    "⚡": ("high voltage", False),
    "✈": ("airplane", False),
    **dict.fromkeys("♣♦♥♠", ("card suit", False)),
    # circled numbers: the number is what a search needs
    **{chr(0x2460 + i): (str(i + 1), False) for i in range(10)},  # ①..⑩
    **{chr(0x2776 + i): (str(i + 1), False) for i in range(10)},  # ❶..❿
    **{chr(0x2780 + i): (str(i + 1), False) for i in range(10)},  # ➀..➉
    **{chr(0x278A + i): (str(i + 1), False) for i in range(10)},  # ➊..➓
    "⓪": ("0", False),
    "⓿": ("0", False),
    UNKNOWN_GLYPH: ("symbol", False),
}


def _run(first: int, glyphs: str) -> dict[int, str]:
    return {first + i: g for i, g in enumerate(glyphs)}


# Byte -> glyph, per font family. Symbol's letters and operators carry no words: they
# are ordinary text (Ω, μ, ≤) once decoded.
_WINGDINGS: dict[int, str] = {
    0x22: "✂", 0x23: "✂", 0x25: "🔔", 0x28: "☎", 0x29: "✆", 0x2A: "✉", 0x2B: "✉",
    0x36: "⌛", 0x37: "⌨", 0x3A: "💻", 0x3C: "💾", 0x3E: "✇", 0x3F: "✍",
    0x41: "✌", 0x43: "👍", 0x44: "👎", 0x45: "☜", 0x46: "☞", 0x47: "☝", 0x48: "☟",
    0x49: "✋", 0x4E: "☠", 0x51: "✈", 0x52: "☼", 0x53: "💧", 0x54: "❄",
    0x6C: "●", 0x6D: "❍", 0x6E: "■", 0x6F: "□", 0x70: "□", 0x71: "❑", 0x72: "❒",
    0x73: "⬧", 0x74: "⧫", 0x75: "◆", 0x76: "❖", 0x77: "⬥", 0x78: "⌧", 0x7A: "⌘",
    **_run(0x80, "⓪①②③④⑤⑥⑦⑧⑨⑩⓿❶❷❸❹❺❻❼❽❾❿"),
    0x9E: "·", 0x9F: "•", 0xA0: "▪", 0xA1: "○", 0xA2: "○", 0xA3: "○", 0xA4: "◉", 0xA5: "◎",
    0xA7: "▪", 0xA8: "◻", 0xAA: "✦", 0xAB: "★", 0xAC: "✶", 0xAD: "✴", 0xAE: "✹", 0xAF: "✵",
    0xB5: "✪", 0xB6: "✰",
    0xD5: "⌫", 0xD6: "⌦", 0xD7: "◄", 0xD8: "➢", 0xD9: "▲", 0xDA: "▼",
    0xDB: "←", 0xDC: "➲", 0xDD: "↑", 0xDE: "↓",
    **_run(0xDF, "←→↑↓↖↗↙↘←➔↑↓↖↗↙↘⇦⇨⇧⇩⬄⇳⬁⬀⬃⬂"),
    0xF9: "▭", 0xFA: "▫", 0xFB: "✗", 0xFC: "✓", 0xFD: "☒", 0xFE: "☑",
}  # fmt: skip

_WINGDINGS2: dict[int, str] = {
    0x25: "✂", 0x26: "✂", 0x27: "☎", 0x28: "☎", 0x32: "📋", 0x36: "🖨", 0x37: "📠",
    0x3C: "👍", 0x3D: "👎", 0x42: "☜", 0x43: "☞", 0x4A: "☝", 0x4B: "☟",
    0x4F: "✗", 0x50: "✓", 0x51: "✗", 0x52: "☑", 0x53: "☒", 0x54: "☒",
    **_run(0x69, "⓪①②③④⑤⑥⑦⑧⑨⑩⓿❶❷❸❹❺❻❼❽❾❿"),
    0x95: "•", 0x96: "●", 0x97: "⚫", 0x98: "⬤", 0x9E: "⦿", 0x9F: "◾",
    0xA0: "■", 0xA1: "◼", 0xA2: "⬛", 0xA3: "☐", 0xA8: "▣",
    0xAC: "⬥", 0xAD: "⬥", 0xAE: "◆", 0xAF: "◇", 0xB1: "◈", 0xB6: "⬧", 0xB7: "⧫", 0xB8: "◊",
    # 0xD4-0xE4: five-, six- and eight-spoked asterisks, drawn as the keypad star key
    **dict.fromkeys(range(0xD4, 0xE5), "✱"),
    0xE8: "✦", 0xEA: "★", 0xEB: "✶", 0xED: "✷", 0xF0: "✹", 0xF3: "✯",
}  # fmt: skip

_WINGDINGS3: dict[int, str] = {
    **_run(0x21, "⭠⭢⭡⭣⭦⭧⭩⭨"),
    0x31: "⭤", 0x32: "⭥", 0x38: "↵",
    0x50: "↻", 0x51: "↺", 0x52: "⎋", 0x54: "⌃", 0x55: "⌥", 0x58: "⇪",
    **_run(0x66, "←→↑↓↖↗↙↘↔↕▲▼△▽◄►◁▷"),
    0x7C: "◀", 0x7D: "▶", 0x7E: "▲", 0x80: "▼",
    **_run(0x81, "▲▼◀▶⮜⮞⮝⮟"),
}  # fmt: skip

_SYMBOL: dict[int, str] = {
    0x22: "∀", 0x24: "∃", 0x27: "∋", 0x2A: "∗", 0x2D: "−", 0x40: "≅",
    **_run(0x41, "ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ"),
    0x5C: "∴", 0x5E: "⊥",
    **_run(0x61, "αβχδεφγηιϕκλμνοπθρστυϖωξψζ"),
    0x7E: "∼",
    0xA1: "ϒ", 0xA2: "′", 0xA3: "≤", 0xA4: "⁄", 0xA5: "∞", 0xA6: "ƒ",
    0xA7: "♣", 0xA8: "♦", 0xA9: "♥", 0xAA: "♠",
    **_run(0xAB, "↔←↑→↓°±″≥×∝∂•÷≠≡≈…"),
    0xC0: "ℵ", 0xC4: "⊗", 0xC5: "⊕", 0xC6: "∅", 0xC7: "∩", 0xC8: "∪", 0xC9: "⊃",
    0xCA: "⊇", 0xCB: "⊄", 0xCC: "⊂", 0xCD: "⊆", 0xCE: "∈", 0xCF: "∉", 0xD0: "∠",
    0xD1: "∇", 0xD2: "®", 0xD3: "©", 0xD4: "™", 0xD5: "∏", 0xD6: "√", 0xD7: "⋅",
    0xD8: "¬", 0xD9: "∧", 0xDA: "∨", 0xDB: "⇔", 0xDC: "⇐", 0xDD: "⇑", 0xDE: "⇒",
    0xDF: "⇓", 0xE0: "◊", 0xE1: "〈", 0xE2: "®", 0xE3: "©", 0xE4: "™", 0xE5: "∑",
    0xF1: "〉", 0xF2: "∫", 0xBF: "↵",
}  # fmt: skip

_ZAPF: dict[int, str] = {
    **_run(0x21, "✁✂✃✄☎✆✇✈✉☛☞✌✍✎✏✐✑✒✓✔✕✖✗✘✙✚✛✜✝✞✟✠✡✢✣✤✥✦✧★✩✪✫✬✭✮✯✰✱✲✳✴✵✶✷✸✹✺✻✼✽✾✿"),
    **_run(0x60, "❀❁❂❃❄❅❆❇❈❉❊❋●❍■❏❐❑❒▲▼◆❖◗❘❙❚❛❜❝❞"),
    **_run(0xA1, "❡❢❣❤❥❦❧♣♦♥♠①②③④⑤⑥⑦⑧⑨⑩❶❷❸❹❺❻❼❽❾❿➀➁➂➃➄➅➆➇➈➉➊➋➌➍➎➏➐➑➒➓"),
    **_run(0xD4, "➔→↔↕➘➙➚➛➜➝➞➟➠➡➢➣➤➥➦➧➨➩➪➫➬➭➮➯"),
    **_run(0xF1, "➱➲➳➴➵➶➷➸➹➺➻➼➽➾"),
}

_TABLES: dict[FontFamily, dict[int, str]] = {
    "wingdings": _WINGDINGS,
    "wingdings2": _WINGDINGS2,
    "wingdings3": _WINGDINGS3,
    "symbol": _SYMBOL,
    "zapfdingbats": _ZAPF,
}


def is_private_use(ch: str) -> bool:
    """Whether `ch` is one character from a Unicode private-use area."""
    if len(ch) != 1:
        return False
    code = ord(ch)
    return 0xE000 <= code <= 0xF8FF or 0xF0000 <= code <= 0x10FFFD


def font_family(font: str) -> FontFamily | None:
    """The symbol-font family of a PDF font name, or None for a text font.

    Tolerates subset prefixes and style suffixes: "ABCDEF+Wingdings-Regular",
    "Wingdings 3", "SymbolMT", "ZapfDingbatsITC", "Dingbats".
    """
    name = re.sub(r"[^a-z0-9]", "", font.rsplit("+", 1)[-1].lower())
    if name.startswith("wingdings3"):
        return "wingdings3"
    if name.startswith("wingdings2"):
        return "wingdings2"
    if name.startswith("wingdings"):
        return "wingdings"
    if "zapfdingbats" in name or name.startswith("dingbats"):
        return "zapfdingbats"
    if name.startswith(("symbol", "standardsym")):
        return "symbol"
    return None


def _glyph(text: str) -> SymbolGlyph:
    words, is_bullet = GLYPH_INFO.get(text, ("", False))
    return SymbolGlyph(text, words, is_bullet)


def map_symbol(font: str, char: str) -> SymbolGlyph | None:
    """Decode one character extracted from `font`; None when it should be kept as it is.

    A private-use character that cannot be decoded (unknown font, or a code the table
    lacks) becomes the placeholder glyph with the word "symbol", never silently nothing.
    """
    family = font_family(font)
    pua = is_private_use(char)
    if family is None:
        return UNKNOWN_SYMBOL if pua else None
    code = ord(char)
    if 0xF020 <= code <= 0xF0FF:
        code -= 0xF000
    elif pua or code > 0xFF:
        # Already real Unicode (the PDF had a ToUnicode map), or an unknown PUA code.
        return UNKNOWN_SYMBOL if pua else None
    if code == 0x20:
        return SymbolGlyph(" ", "") if pua else None
    glyph = _TABLES[family].get(code)
    if glyph is not None:
        return _glyph(glyph)
    if family == "symbol":
        # Symbol shares ASCII's digits and punctuation: those bytes are plain text.
        return SymbolGlyph(chr(code), "") if pua else None
    return UNKNOWN_SYMBOL


def decode_symbols(font: str, text: str) -> str:
    """`text` of one span set in `font`, with every symbol character replaced by its glyph."""
    out = []
    for ch in text:
        mapped = map_symbol(font, ch)
        out.append(mapped.glyph if mapped else ch)
    return "".join(out)


# Glyphs searchable_text annotates: every described glyph that is not a bullet. "*" and
# "#" are only annotated where they stand alone as keys (see _is_key_use).
_ANNOTATED = {g: words for g, (words, bullet) in GLYPH_INFO.items() if words and not bullet}
_GLYPHS = frozenset(_ANNOTATED)


def _is_key_use(text: str, i: int) -> bool:
    """Whether the '*' or '#' at text[i] is a key rather than a footnote mark or number sign."""
    before = text[i - 1] if i > 0 else " "
    after = text[i + 1] if i + 1 < len(text) else " "
    if text[i] == "*":
        return not before.isalpha() and not after.isalpha()
    return not before.isalpha() and not after.isalnum()


def searchable_text(display_text: str) -> str:
    """Text for full-text search and embeddings: key glyphs followed by their words.

    "Press ✱ then ▲" -> "Press ✱ (star) then ▲ (up arrow)"; a run of glyphs gets one
    parenthesis ("▼▲ (down arrow, up arrow)"), and a glyph glued to a code gets it after
    the code ("*72 (star)"). Bullets get no words. Idempotent: text that already carries
    the words is left alone.
    """
    text = display_text
    if _GLYPHS.isdisjoint(text):
        return text  # most text holds no key glyph; the loop below would copy it
    out: list[str] = []
    run: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        words = _ANNOTATED.get(ch)
        if words and (ch not in "*#" or _is_key_use(text, i)):
            run.append(words)
            out.append(ch)
            i += 1
            continue
        if run:
            end = i
            while end < n and text[end].isalnum():
                end += 1
            out.append(text[i:end])
            out.append(_annotation(run, text, end))
            run = []
            i = end
            continue
        out.append(ch)
        i += 1
    if run:
        out.append(_annotation(run, text, n))
    return "".join(out)


def _annotation(words: list[str], text: str, end: int) -> str:
    note = f" ({', '.join(words)})"
    return "" if text.startswith(note, end) else note
