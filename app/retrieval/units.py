"""Quantities in questions and on pages, recognised with a unit registry (pint).

A question that asks for a voltage is answered by a line that prints "13.8 V"; one that
asks for a torque by "1.2 N·m" or "12 kgf.cm"; neither line contains the question's word.
Pint knows every unit's symbol, its prefixes and what it measures (its dimensionality), so
no list of units is kept here: a printed value's unit is parsed by pint, and a question's
word names a quantity when it is one of pint's dimension names ("torque", "frequency"),
a unit ("ohm", "baud", "volts"), or a word made from a unit's name ("voltage").

Both sides meet on a *quantity key* such as ``⟨[current]⟩``: a line holding "500 mA" holds
that key, and so does a question about "current".
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from app.retrieval.stopwords import STOPWORDS

# Printed forms pint does not read, rewritten to what it does: the degree signs of
# one-character temperature symbols, the ohm and micro signs, the "·" and "." of products
# (N·m, kgf.cm), and the DC/AC suffixes of electrical units ("12 VDC", "230Vac").
_REWRITES = (
    ("℃", "degC"),
    ("℉", "degF"),
    ("°c", "degC"),
    ("°f", "degF"),
    ("°C", "degC"),
    ("°F", "degF"),
    ("Ω", "ohm"),
    ("µ", "u"),
    ("μ", "u"),
    ("·", "*"),
)
_AC_DC = re.compile(r"^(\w+?)(?:dc|ac|DC|AC|rms|RMS|p-p|pp)$")
# Torques as manuals print them: "12 Nm" (pint reads a nanometre's capital), "15 in-lbs" and
# "10 ft-lb" (a pound-force times a length, written with a hyphen and the mass's symbol).
_NEWTON_METRE = re.compile(r"^([kcm]?)N[-*]?(c?m)$")
_POUND_LENGTH = re.compile(r"^(?:(in|ft)[-*]?lbf?s?|lbf?s?[-*]?(in|ft))$", re.IGNORECASE)
# Frequencies as manuals printed them before the hertz (1960): kilocycles and megacycles per
# second, "455 kc", "10.7 mc", "108 Mc", "20 kc/s". Pint reads the "c" as the speed of light,
# and no manual gives a speed in multiples of it. (A capital C stays a coulomb: "5 mC".)
_CYCLES = re.compile(r"^([kKmM])c(?:/s|ps)?$")
# Flows by their initials: gallons, litres and cubic feet per minute.
_PER_MINUTE = {"gpm": "gallon/minute", "lpm": "liter/minute", "cfm": "foot**3/minute"}
_PRODUCT_DOT = re.compile(r"(?<=[A-Za-z])\.(?=[A-Za-z])")
# A number, an optional range or tolerance, then what follows it up to a space or a
# bracket: "13.8 V", "-40℃~+70℃", "500mA", "1.2 N·m", "9600 bps", "±5%".
QUANTITY = re.compile(
    r"(?<![\w.])[-+±]?\d+(?:[.,]\d+)?"
    r"(?:\s?(?:~|-|–|to)\s?[-+]?\d+(?:[.,]\d+)?)?"
    r"\s?([A-Za-zµμΩ°℃℉%][A-Za-zµμΩ°℃℉%/·.*²³0-9]{0,11}(?:-[A-Za-z]{1,5}\b)?)"
)
# A column's unit in brackets after its name: "Current(A)", "Weight [kg]", "Size (mm²)".
_BRACKETED = re.compile(r"[(\[]\s?([A-Za-zµμΩ°℃℉%][A-Za-zµμΩ°℃℉%/·.*²³0-9]{0,9})\s?[)\]]")
# Pint reads almost any capitals as some unit ("TC" is a teracoulomb, "PC" a petacoulomb,
# "pcs" a parsec). Printed values on equipment use everyday prefixes and units, so parses
# through the extreme prefixes, and the units that collide with common abbreviations
# (pieces, molar, atomic mass, "at", a connector's "4 pins"), are not units here.
_RARE_PREFIXES = (
    "quetta",
    "ronna",
    "yotta",
    "zetta",
    "exa",
    "peta",
    "tera",
    "atto",
    "femto",
    "zepto",
    "yocto",
    "ronto",
    "quecto",
)
_COLLIDING_UNITS = frozenset(
    {"parsec", "molar", "unified_atomic_mass_unit", "technical_atmosphere", "picoinch"}
)
# Letters that pint reads as a unit alone but that, alone after a number, a manual prints
# as something else. A "K" or "k" is the thousands of a value printed without its unit: a
# resistor's "4.7K", "10 K", "100k" (pint: kelvin, Boltzmann's constant); in the development
# libraries all 57 such values are resistors'. A lamp's "6500K" colour temperature is
# printed beside the word "temperature", which keeps its manual in for the asked-quantity
# decline. A "C" or "c" is a step's or a part's label ("1C", "0124 C"), a battery's charge
# rate ("0.5C") or a temperature without its degree sign ("45C"), never coulombs or the
# speed of light: read as a charge, a label would answer "how many mAh".
_NOT_ALONE = frozenset({"K", "k", "C", "c"})
MAX_NAME = 24  # longer than any unit or dimension name pint has, with a derived suffix
# Dimensions too common or too vague to say what a question asks for.
_VAGUE = frozenset({"[]", "[length]", "[time]"})
# Printed beside almost anything ("hold for 3 s", "2 m cable", "page 3 of 40"): a word's
# lines printing one says nothing of what the word asks for.
VAGUE_BESIDE = frozenset({"⟨[]⟩", "⟨[length]⟩", "⟨[time]⟩", "⟨[area]⟩"})
_lock = threading.Lock()
_registry: Any = None
_cache_folder: Path | None = None


def use_cache_folder(folder: Path) -> None:
    """Where the registry keeps its parsed definitions (the library's ``cache/units``:
    Lantern writes nowhere else), if it is not loaded yet."""
    global _cache_folder
    with _lock:
        if _cache_folder is None:
            _cache_folder = folder


def registry() -> Any:
    """The shared pint registry. Parsing pint's definitions takes about a second; with a
    cache folder (``use_cache_folder``) the parsed form loads in a few hundredths. Without
    one, or when it cannot be written, the definitions are parsed every time."""
    global _registry
    with _lock:
        if _registry is None:
            import pint

            options: dict[str, Any] = {"autoconvert_offset_to_baseunit": True}
            try:
                if _cache_folder is not None:
                    _cache_folder.mkdir(parents=True, exist_ok=True)
                    options["cache_folder"] = _cache_folder
                _registry = pint.UnitRegistry(**options)
            except OSError:
                _registry = pint.UnitRegistry(autoconvert_offset_to_baseunit=True)
        return _registry


def key_of(dimensionality: Any) -> str:
    """The quantity key of a pint dimensionality: its named dimension where pint has one."""
    reg = registry()
    text = str(dimensionality) if dimensionality else "[]"
    for name in _named_dimensions():
        if reg.get_dimensionality(name) == dimensionality:
            return f"⟨{name}⟩"
    return f"⟨{text}⟩"


# Ingress protection is written as a code (IEC 60529: "IP65", "IPX4"), not as a value with
# a unit, in the manuals of any equipment that meets dust or water. A question asks for it
# by name ("what IP rating", "its ingress protection"), never by "IP" alone ("IP address").
INGRESS = "⟨ingress_protection⟩"
_IP_CODE = re.compile(r"\bIP ?[0-9X][0-9X]\b")
_ASKS_INGRESS = re.compile(
    r"\bingress\b|\bIP\s*(?:\([^)]{0,30}\)\s*)?(?:rating|rated|code|class|grade|level)\b",
    re.IGNORECASE,  # typed in lower case too: "ip rating"
)


def asks_ingress(text: str) -> bool:
    """Whether a question asks for an ingress protection code."""
    return _ASKS_INGRESS.search(text) is not None


def quantity_name(key: str) -> str:
    """A quantity key as words: "⟨[electric_potential]⟩" -> "electric potential"."""
    return key.strip("⟨⟩").replace("[", "").replace("]", "").replace("_", " ")


@lru_cache(maxsize=1)
def _named_dimensions() -> tuple[str, ...]:
    """Pint's dimension names, base ones first (so ``[length]`` is not called ``[wavenumber]``
    inverse and "energy" and "torque", which share units, are one key)."""
    reg = registry()
    names = [n for n in reg._dimensions if not n.startswith(("[gaussian", "[esu"))]
    return tuple(names)


@lru_cache(maxsize=4096)
def unit_key(symbol: str) -> str | None:
    """The quantity key of a printed unit ("mA" -> ``⟨[current]⟩``), or None when pint
    does not know it."""
    text = symbol.strip().rstrip(".,;:)")
    for old, new in _REWRITES:
        text = text.replace(old, new)
    text = _PRODUCT_DOT.sub("*", text)
    match = _AC_DC.match(text)
    if match and len(match.group(1)) <= 3:
        text = match.group(1)
    text = _printed_form(text)
    if not text or text.isdigit() or text in _NOT_ALONE:
        return None
    if len(text) >= 3 and text.isalpha() and not text.islower() and _names_unit(text.lower()):
        # A unit's name in capitals ("38400 Baud", "12 Volts", "5 AMPS", "10 Min"): pint
        # reads names in lower case only, and reads "Min" as mega-inches.
        text = text.lower()
    units = _parse(text)
    if units is None and "-" in text:
        units = _parse(text.split("-")[0])  # "3 m-long", "5 V-DC"
    if units is None and len(text) > 3 and text.endswith("s") and is_unit_name(text[:-1]):
        units = _parse(text[:-1])  # a plural pint does not read ("amps": atto-m/ps)
    if units is None:
        return None
    key = key_of(units.dimensionality)
    return None if key == "⟨[]⟩" and text not in ("%", "percent") else key


def _parse(text: str) -> Any:
    """Pint's units for a printed symbol, None when it reads none or reads it through an
    extreme prefix or a colliding unit (``_RARE_PREFIXES``)."""
    try:
        units = registry().parse_units(text)
    except Exception:
        return None
    names = list(units._units)
    if any(n.startswith(_RARE_PREFIXES) or n in _COLLIDING_UNITS for n in names):
        return None
    return units


def _printed_form(text: str) -> str:
    """A torque, a flow or an old frequency as manuals print it, in pint's terms
    (``_NEWTON_METRE``, ``_CYCLES``...)."""
    if match := _CYCLES.match(text):
        return "kHz" if match.group(1) in "kK" else "MHz"
    if match := _NEWTON_METRE.match(text):
        return f"{match.group(1)}N*{match.group(2)}"
    if match := _POUND_LENGTH.match(text):
        return f"lbf*{match.group(1) or match.group(2)}"
    return _PER_MINUTE.get(text.lower(), text)


# What any printed quantity holds: a digit before a unit's first sign, a unit in brackets,
# or an ingress protection code. Most lines hold none, and this one search says so without
# parsing them.
QUANTITY_HINT = re.compile(r"\d\s?[A-Za-zµμΩ°℃℉%]|[(\[]\s?[A-Za-zµμΩ°℃℉%]|\bIP ?[0-9X][0-9X]\b")
_DIGIT = re.compile(r"\d")
# A value spelled out in English before a unit's name: "more than two seconds", "one minute".
_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty"
    " forty fifty sixty ninety hundred half".split()
)
_SPELLED = re.compile(
    r"\b(?:" + "|".join(sorted(_NUMBER_WORDS - {"half"})) + r"|half an?)\s+([a-z]{3,})\b",
    re.IGNORECASE,
)


# What follows a value whose "unit" is an English function word, when that word is the
# sentence's and not a unit: another word ("1 in the menu", "BOGP-3 in Away mode", "2 a
# day"). "6 in.", "6 in x 4 in" and "(3.5 in)" are inches.
_NEXT_WORD = re.compile(r"\s+[A-Za-z]{2,}")


def printed_values(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """The values a text prints with a unit, each with its quantity key (``unit_key``).

    pint reads some English function words as units ("in" inches, "a" years); after a
    number they are the sentence's words when a word follows."""
    for match in QUANTITY.finditer(text):
        unit = match.group(1)
        if unit in STOPWORDS and _NEXT_WORD.match(text, match.end()):
            continue
        key = unit_key(unit)
        if key is not None:
            yield match, key


# A label, then a cell's or a field's separator, then a number: "Baud Rate | 38400". The
# separator and number are found first (most lines have none), then the label before them.
_VALUE_AFTER = re.compile(r"\s*[|:=]\s*[-+±]?\d")
_LABEL_BEFORE = re.compile(r"[A-Za-z][A-Za-z /()-]{2,40}$")
_NAME_WORD = re.compile(r"[A-Za-z]{3,}")


def gives_quantity(text: str, wanted: Collection[str]) -> bool:
    """Whether a text gives a value of one of the ``wanted`` quantities: with its unit
    ("38400 bps"), or as a bare number labelled with the quantity's name ("Baud Rate |
    38400", "Torque: 12": a table row read with its column headings)."""
    if not wanted:
        return False
    if quantity_keys(text) & set(wanted):
        return True
    for value in _VALUE_AFTER.finditer(text):
        label = _LABEL_BEFORE.search(text, max(0, value.start() - 41), value.start())
        if label and any(asked_key(w) in wanted for w in _NAME_WORD.findall(label.group())):
            return True
    return False


@lru_cache(maxsize=50_000)
def quantity_keys(text: str) -> frozenset[str]:
    """The quantity keys of the values a text prints ("13.8 V, 500 mA" -> voltage, current;
    "two seconds" -> time: a spelled value counts before a unit's full name; "IP65" ->
    ingress protection)."""
    found = set(_spelled_keys(text))
    if not QUANTITY_HINT.search(text):
        return frozenset(found)
    if "IP" in text and _IP_CODE.search(text):
        found.add(INGRESS)
    if "(" in text or "[" in text:
        # A one-letter unit in brackets is a column's unit only beside numbers: "(a)" and
        # "(A)" also label list items and figure parts.
        for match in _BRACKETED.finditer(text):
            symbol = match.group(1)
            if len(symbol) > 1 or _DIGIT.search(text):
                key = unit_key(symbol)
                if key is not None:
                    found.add(key)
    if not _DIGIT.search(text):
        return frozenset(found)
    found.update(key for _, key in printed_values(text))
    return frozenset(found)


def _spelled_keys(text: str) -> frozenset[str]:
    """The quantities of values spelled out before a unit's full name ("more than two
    seconds"). Most lines hold no number word, and a set test says so in ~1 µs, where the
    pattern alone would take ~6 µs a line."""
    if _NUMBER_WORDS.isdisjoint(text.lower().split()):
        return frozenset()
    found = set()
    for match in _SPELLED.finditer(text):
        word = match.group(1).lower()
        for name in (word, word[:-1] if word.endswith("s") else ""):
            if name and is_unit_name(name) and (key := unit_key(name)) not in (None, "⟨[]⟩"):
                found.add(key)
                break
    return frozenset(found)


@lru_cache(maxsize=20_000)
def asked_key(word: str) -> str | None:
    """The quantity a question's word asks for, or None.

    A word names a quantity when it is a dimension name of pint ("torque", "frequency",
    "temperature"), a unit's name or plural ("ohm", "baud", "volts", "kilohertz",
    "milliamps": ``names_unit``), or begins with a unit name of four letters or
    more ("voltage", "wattage"). Lengths, times and pure numbers are left out: "long",
    "second" and "turn" are ordinary words too often.
    """
    low = word.lower()
    # Unit and dimension names are short; a long "word" (a pasted code, a fuzzed question)
    # would cost one registry parse per prefix.
    if not 3 <= len(low) <= MAX_NAME or not low.isalpha():
        return None
    reg = registry()
    dimension = f"[{low}]"
    if dimension in reg._dimensions and dimension not in _VAGUE:
        return key_of(reg.get_dimensionality(dimension))
    for candidate in (low[:-1] if low.endswith("s") else None, low):
        if candidate and (names_unit(candidate) or (candidate == low and _is_symbol(low))):
            key = _unit_name_key(candidate)
            if key is not None:
                return key
    for size in range(len(low) - 1, 3, -1):
        key = _unit_name_key(low[:size])
        if key is not None and low[:size] in reg._units:
            return key
    return None


# English asks for a measure with "how" and an adjective: "how long do I hold it" asks
# for a time, and so does "how much longer" with its comparative. The adjective names no
# unit, so the registry cannot read it; these are the pint dimensions each one measures.
# "How far off" asks for a deviation, not a length, and a question asks a cable's length
# by naming it ("what length").
_MEASURES: dict[str, tuple[str, ...]] = {
    "long": ("[time]",),
    "often": ("[time]",),
    "heavy": ("[mass]",),
    "hot": ("[temperature]",),
    "cold": ("[temperature]",),
    "warm": ("[temperature]",),
}


def measure_keys(adjective: str) -> tuple[str, ...]:
    """The quantity keys "how <adjective>" asks for ("long": a time), or "how much
    <comparative>" ("how much longer": a time too)."""
    reg = registry()
    word = adjective.lower()
    # English comparatives: longer, colder; hotter (a doubled consonant); heavier.
    forms = (word, word[:-2], word[:-3], word[:-3] + "y") if word.endswith("er") else (word,)
    found = next((_MEASURES[f] for f in forms if f in _MEASURES), ())
    return tuple(key_of(reg.get_dimensionality(d)) for d in found)


def is_unit_name(word: str) -> bool:
    """Whether a word is a unit's own name or alias ("hour", "amp"), not its symbol ("bu",
    a bushel, is not a word of a question) nor a prefixed parse ("pin": pico-inch)."""
    definition = registry()._units.get(word)
    return definition is not None and (
        definition.name == word or word in getattr(definition, "aliases", ())
    )


def names_unit(word: str) -> bool:
    """Whether a question's word is a unit's name or alias (``is_unit_name``), or one after
    a prefix's name ("kilohertz", "milliamp"). (Pages keep ``is_unit_name``: how a page's
    values are read is stored with its lines, ``line_index.VERSION``.)"""
    return is_unit_name(word) or _is_prefixed_name(word)


@lru_cache(maxsize=20_000)
def _is_prefixed_name(word: str) -> bool:
    """Whether a word is a prefix's name before a unit's name or alias ("kilohertz",
    "milliamp", "megaohm"): pint parses these but stores only the names it has parsed
    already. A one-letter prefix is a symbol ("pin" parses as pico-inch), and so is a unit
    written as its symbol ("picot" as pico-tonne): neither is a word of a question."""
    try:
        parses = registry().parse_unit_name(word)
    except Exception:
        return False
    if len(parses) != 1:
        return False
    prefix, unit, suffix = parses[0]
    definition = registry()._units.get(unit)
    if suffix or len(prefix) < 4 or definition is None:
        return False
    names = {definition.name, *getattr(definition, "aliases", ())}
    return word[len(prefix) :] in names and word.startswith(prefix)


def _names_unit(word: str) -> bool:
    """A unit's name, its plural, or a symbol that is a word ("min", "psi")."""
    return any(
        is_unit_name(w) or _is_symbol(w) for w in (word, word[:-1] if word.endswith("s") else "")
    )


def _is_symbol(word: str) -> bool:
    """A unit symbol of three letters or more is a word of a question too ("psi")."""
    definition = registry()._units.get(word)
    return len(word) >= 3 and definition is not None and definition.symbol == word


def _unit_name_key(name: str) -> str | None:
    try:
        units = registry().parse_units(name)
    except Exception:
        return None
    key = key_of(units.dimensionality)
    return None if key.strip("⟨⟩") in _VAGUE else key
