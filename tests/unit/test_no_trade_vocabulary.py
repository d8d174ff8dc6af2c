"""The ranker, the agent and the import know no trade: no word list fitted to one corpus in
their code.

What they know about words comes from the library (document frequencies, profiles) or
from maintained libraries (the Porter stemmer, the pint unit registry). Docstrings and
comments may give examples; string literals and names in the code may not name a trade's
things, and the only word list is the English stop list.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("app/retrieval", "app/agent", "app/library")
# Words of the trades of the development corpora (alarm panels, meters, drives, radios,
# heat pumps, modems, e-bikes, tuners) and the words the old hand lists held.
TRADE_WORDS = {
    "alarm",
    "alarms",
    "security",
    "intrusion",
    "keypad",
    "siren",
    "bell",
    "zone",
    "zones",
    "arm",
    "arming",
    "disarm",
    "chime",
    "bypass",
    "receiver",
    "panel",
    "eol",
    "pgm",
    "aux",
    "sms",
    "customer",
    "detector",
    "sensor",
    "jumper",
    "gateway",
    "communicator",
    "meter",
    "servo",
    "drive",
    "radio",
    "modem",
    "compressor",
    "heat",
    "pump",
    "refrigerant",
    "tuner",
    "bike",
    "battery",
    "antenna",
    "wire",
    "wiring",
    "terminal",
    "lockout",
}
# Allowed: English function words (the Snowball stop list, and the interrogatives and
# auxiliaries and conjunctions of it that say where a question's asked-for phrase is), the printed
# spellings of unit signs the unit registry does not read ("℃" for "degC"), and the
# registry's own exotic prefixes and units that collide with abbreviations.
ALLOWED_LISTS = {
    "STOPWORDS",
    "_ASKING",
    "_JOINING",
    "_AUXILIARY",
    "_REWRITES",
    "_RARE_PREFIXES",
    "_COLLIDING_UNITS",
    # English modal verbs: "how do I ..." asks for a procedure.
    "_MODAL",
    # The words that tell any technical manual's type ("installation", "operating",
    # "specifications"), for its profile.
    "_TYPE_WORDS",
    # What each dingbat glyph depicts, as Unicode names it ("🔔": bell; "✉": envelope).
    "GLYPH_INFO",
    # Words of any manual's title that name no product ("manual", "guide", "rev").
    "MANUAL_WORDS",
    # English prefixes and suffixes, for the inflections of a word the lexicon knows.
    "_PREFIXES",
    "_SUFFIXES",
}
# Modules whose literals name things for another reason than ranking by them.
NOT_VOCABULARY = {
    # The names of dingbat glyphs, so that a page's "🔔" can be searched as "bell".
    "app/library/symbols.py",
}


def _modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _docstring_nodes(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _code_words(path: Path) -> dict[str, int]:
    """Words of the string literals (not docstrings) and names of a module, with a line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstring_nodes(tree)
    words: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                continue
            for word in re.findall(r"[a-z]+", node.value.lower()):
                words.setdefault(word, node.lineno)
        elif isinstance(node, ast.Name | ast.arg | ast.FunctionDef | ast.ClassDef):
            name = getattr(node, "id", None) or getattr(node, "arg", None) or node.name
            for word in re.findall(r"[a-z]+", name.lower()):
                words.setdefault(word, getattr(node, "lineno", 0))
    return words


@pytest.mark.parametrize(
    "path",
    [p for p in _modules() if str(p.relative_to(ROOT)) not in NOT_VOCABULARY],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_trade_words_in_the_code(path: Path) -> None:
    words = _code_words(path)
    found = {w: line for w, line in words.items() if w in TRADE_WORDS}
    assert not found, f"trade vocabulary in {path.name}: {found}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_hand_written_word_lists(path: Path) -> None:
    """A module-level collection of many words is a vocabulary; only STOPWORDS may be one."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if not isinstance(node, ast.Assign | ast.AnnAssign):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = {t.id for t in targets if isinstance(t, ast.Name)}
        if names & ALLOWED_LISTS or node.value is None:
            continue
        strings = [
            n.value
            for n in ast.walk(node.value)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        ]
        single = [s for s in strings if re.fullmatch(r"[\w'-]+", s.strip())]
        bare = [s for s in strings if len(s.split()) >= 25 and not re.search(r"[.,;:()]", s)]
        assert len(single) < 10 and not bare, f"{path.name}: {names} is a word list"


def test_the_hand_stemmer_is_gone() -> None:
    from app.retrieval.query import stem

    # The Porter algorithm, not suffix stripping: "wiring" -> "wire", "batteries" -> "batteri".
    assert stem("wiring") == "wire" and stem("batteries") == "batteri"
