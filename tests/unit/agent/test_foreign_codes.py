"""A question naming equipment no manual of the library mentions ("the Siemens V20", "the
Daikin Altherma") is declined, naming it, instead of answered from another manual that
shares its other words; a code some manual prints, however it is written, or one a scan
may have misread, is not."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from app.agent.extractive import bare_numbers, foreign_equipment
from app.library.embedding import HashingEmbedder
from app.library.library import Library
from app.library.textquality import _vocab_path
from app.retrieval.query import QueryAnalysis, code_key
from app.retrieval.terms import capitalised_words, code_variants, name_runs, one_off
from app.retrieval.text import TextSearch
from tests.helpers.agents import no_llm_answer, note_library_fixture

NOTES = {
    "Kestrel_HP9_Installation.pdf": (
        "Kestrel HP9 Heat Pump Installation",
        [
            "The maximum output current of the HP9 inverter is 16 A.",
            "Connect the FT 60 remote sensor to terminal X4 with a screened cable.",
            "Firmware V2.0 adds the night mode.",
            "The HP9 drives a 750W fan motor.",
        ],
    ),
}


def test_a_code_is_one_code_however_it_is_written() -> None:
    assert code_key("FT-60") == code_key("FT 60") == code_key("ft60") == "ft60"
    assert code_variants("FT-60") == ["ft 60", "ft60"]
    assert code_variants("FT60") == ["ft60", "ft 60"]
    # Split where letters meet digits, at up to three places; longer codes as written.
    assert "bln 012tc1" in code_variants("BLN012TC1")
    assert code_variants("SGD7S-2R8A") == ["sgd7s 2r8a", "sgd7s2r8a"]
    # A display code's number with leading zeros or without: "E5" may be printed "E05".
    assert code_variants("E5") == ["e5", "e 5", "e05", "e 05", "e005", "e 005"]
    assert code_variants("E-05")[2:] == ["e5", "e 5", "e005", "e 005"]
    # Not a model's digits, nor a code of two numbers.
    assert not any(v.endswith("01") for v in code_variants("BLN012TC1"))
    assert code_variants("P0-05") == ["p0 05", "p005", "p 005"]


def test_a_scan_may_misread_a_code_only_as_a_lookalike() -> None:
    assert one_off("e05", {"e0s"}), "OCR reads 5 as S"
    assert one_off("c20", {"c2o"}), "and 0 as O"
    assert not one_off("v20", {"120", "220", "r20"}), "V is no lookalike of 1, 2 or R"
    assert not one_off("e05", {"e0"}), "nor is a shorter word"


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        ("How do I reset the filter on the Daikin Altherma?", [("Daikin", "Altherma")]),
        ("Is a Texecom Premier Elite 24 like it?", [("Texecom", "Premier", "Elite")]),
        ("Can I use a Fluke meter on it?", []),  # one word names nothing for sure
        ("Daikin Altherma: how do I reset it?", [("Daikin", "Altherma")]),
        ("Restoring an old Heathkit tuner", []),  # one word is no run (capitalised_words)
        ("Is the Sur-Gard System fitted?", [("Sur-Gard", "System")]),
        ("Is the Siemens, Bosch or ABB drive better?", []),  # a list, not a name
        ("What does the LED on the KP-20 mean?", []),  # codes are told apart (is_code)
    ],
)
def test_name_runs(text: str, runs: list[tuple[str, ...]]) -> None:
    assert name_runs(text) == runs


def _query(
    identifiers: Sequence[str], products: tuple[int, ...] = (), text: str = "q"
) -> QueryAnalysis:
    return QueryAnalysis(text, (), tuple(identifiers), (), products)


def _unprinted(printed: set[str]) -> Callable[[Sequence[str]], tuple[str, ...]]:
    """``TextSearch.unprinted_codes`` of a library printing the code keys ``printed``."""
    return lambda codes: tuple(c for c in codes if code_key(c) not in printed)


@pytest.mark.parametrize(
    ("identifiers", "products", "foreign"),
    [
        (("V20",), (), ("V20",)),  # no manual prints it
        (("FT-60",), (), ()),  # printed as "FT 60"
        (("V20", "X4"), (), ()),  # it may be about X4, which a manual prints
        (("V20",), (1,), ()),  # it names a product of the library too
        (("24 V",), (), ()),  # a value with its unit is no code
        (("UV-5R", "5R"), (), ("UV-5R",)),  # pint reads "5R" as a value; "UV-5R" is a code
        ((), (), ()),
    ],
)
def test_foreign_equipment(
    identifiers: tuple[str, ...], products: tuple[int, ...], foreign: tuple[str, ...]
) -> None:
    assert foreign_equipment(_query(identifiers, products), _unprinted({"ft60", "x4"})) == foreign


def test_a_model_code_in_lower_case_is_read_from_the_text() -> None:
    # Not an identifier (those start in upper case), but two letters and three digits.
    def ask(text: str) -> tuple[str, ...]:
        return foreign_equipment(_query((), text=text), _unprinted({"x4"}))

    assert ask("Default Modbus address of a Schneider iEM3255 meter?") == ("iEM3255",)
    assert ask("Is a 3x230V supply and a 4x2.5mm2 cable right?") == (), "values, not codes"
    assert ask("Is the 101st press counted?") == (), "an ordinal is no code"


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("Fitting a 6160 alpha keypad by the back door", ["6160"]),  # a model's number
        ("The ebike display shows error 503, what does it mean?", ["503"]),  # a code's
        ("It draws 500 mA and runs at 9600 bps", []),  # values with their units
        ("Restoring a 1958 tuner fitted in 2019", []),  # years
        ("Is 4.503 on the RS-485 bus, or 12, or 99?", []),  # a decimal, a code, short numbers
        ("Will a 1217*463*920 or 600×400 box fit?", []),  # sizes
        ("Event code 374, then 374 again", ["374"]),  # once
    ],
)
def test_bare_numbers(text: str, numbers: list[str]) -> None:
    assert bare_numbers(text) == numbers


def test_a_number_no_manual_prints_is_foreign() -> None:
    # The library prints 404 (an error table's code) and the HP9's X4, nothing else.
    def ask(text: str, identifiers: Sequence[str] = (), products: tuple[int, ...] = ()):
        query = _query(identifiers, products, text=text)
        return foreign_equipment(query, _unprinted({"x4", "404"}))

    assert ask("Fitting a 6160 alpha keypad: how much current does it draw?") == ("6160",)
    assert ask("The display shows error 503, what does that mean?") == ("503",)
    assert ask("The display shows error 404, what does that mean?") == ()
    assert ask("It draws 500 mA, is that right?") == (), "a value with its unit"
    assert ask("Is error 503 on the HP9 about the fan?", products=(1,)) == (), "it names the HP9"
    assert ask("Is error 503 about terminal X4?", ["X4"]) == (), "X4 is printed"
    assert ask("Does the V20 show error 503?", ["V20"]) == ("V20", "503")


def test_a_name_no_manual_prints_a_word_of_is_foreign() -> None:
    def unknown(words: Sequence[str]) -> tuple[str, ...]:  # the library prints "hybrid"
        return tuple(w for w in words if w.lower() != "hybrid")

    def ask(text: str, identifiers: Sequence[str] = ()) -> tuple[str, ...]:
        return foreign_equipment(_query(identifiers, text=text), _unprinted({"x4"}), unknown)

    assert ask("How do I reset the Daikin Altherma?") == ("Daikin Altherma",)
    assert ask("Where is the fuse on the Daikin Hybrid?") == (), "the library prints Hybrid"
    assert ask("How is the Daikin Altherma wired to X4?", ["X4"]) == (), "X4 is printed"
    assert ask("Does the Daikin Altherma FTX35 fit?", ["FTX35"]) == ("FTX35", "Daikin Altherma")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Restoring an old Heathkit tuner", ["Restoring", "Heathkit"]),
        ("Is the Sur-Gard System fitted?", ["Sur-Gard", "System"]),
        ("Does the LED by the USB port light?", []),  # acronyms are not names
        ("What does the KP-20 LED mean?", []),  # nor are codes
        ("Is it like the Ajax one?", ["Ajax"]),  # "Is" is a function word
    ],
)
def test_capitalised_words(text: str, words: list[str]) -> None:
    assert capitalised_words(text) == words


def test_a_single_name_nothing_knows_is_foreign() -> None:
    def unknown(words: Sequence[str]) -> tuple[str, ...]:  # the library prints "system"
        return tuple(w for w in words if w.lower() != "system")

    def unknown_names(words: Sequence[str]) -> tuple[str, ...]:  # nor English knows these
        return tuple(w for w in words if w in {"Heathkit", "Sur-Gard"})

    def ask(
        text: str, identifiers: Sequence[str] = (), products: tuple[int, ...] = ()
    ) -> tuple[str, ...]:
        query = _query(identifiers, products, text=text)
        return foreign_equipment(query, _unprinted({"x4"}), unknown, unknown_names)

    assert ask("Restoring an old Heathkit tuner: what IF?") == ("Heathkit",)
    # A run the library knows a word of may still hold a name nothing knows.
    assert ask("Is the Sur-Gard System fitted?") == ("Sur-Gard",)
    assert ask("Can I test it with a Siemens meter?") == ()
    assert ask("Is the Heathkit wired to X4?", ["X4"]) == (), "X4 is printed"
    assert ask("Does the HP9 work with a Heathkit?", products=(1,)) == (), "it names the HP9"


library = note_library_fixture("foreign", NOTES)


def test_the_library_prints_a_code_however_it_is_written(library: Library) -> None:
    search = TextSearch(library.store, HashingEmbedder())
    try:
        asked = ["FT-60", "FT60", "ft 60", "X4", "V20", "KX-400"]
        # The note prints "FT 60", "X4" and "V2.0" (a version, not V20).
        assert search.unprinted_codes(asked) == ("V20", "KX-400")
        # A bare number is printed when a word starts with it ("750W").
        assert search.unprinted_codes(["750", "6160"]) == ("6160",)
    finally:
        search.close()


def test_the_agent_declines_equipment_no_manual_mentions(library: Library, tmp_path: Path) -> None:
    foreign = no_llm_answer(
        library, tmp_path, "What is the maximum output current of the Siemens V20 inverter?"
    )
    assert foreign.abstained and not foreign.citations
    assert "No manual in the library mentions V20" in foreign.text
    assert "import its manual" in foreign.text
    # The same question of the equipment the library holds is answered.
    own = no_llm_answer(library, tmp_path, "What is the maximum output current of the inverter?")
    assert not own.abstained and "16 A" in own.text
    named = no_llm_answer(library, tmp_path, "How do I reset the filter on the Daikin Altherma?")
    assert named.abstained and "No manual in the library mentions Daikin Altherma" in named.text


def test_the_agent_declines_a_number_no_manual_prints(library: Library, tmp_path: Path) -> None:
    foreign = no_llm_answer(
        library, tmp_path, "What is the maximum output current of a 6160 inverter?"
    )
    assert foreign.abstained and "No manual in the library mentions 6160" in foreign.text
    # A value with its unit names nothing: the question is the library's.
    own = no_llm_answer(
        library, tmp_path, "Is the maximum output current of the inverter 160 A or 16 A?"
    )
    assert not own.abstained and "16 A" in own.text


def test_a_code_written_another_way_is_searched_as_printed(library: Library) -> None:
    search = TextSearch(library.store, HashingEmbedder())
    try:
        # The note prints "FT 60", "X4" and "HP9": each written another way is searched as
        # printed; a code printed as written, or printed nowhere, and a value are left.
        fixes = search.code_spellings("Is the FT60 on X-4 of the HP-9, or the V20, at 12V?")
        assert fixes == {"ft60": "FT-60", "x-4": "X4", "hp-9": "HP9"}
        assert search.code_spellings("Is the FT 60 on X4?") == {}
        result = search.search("Which terminal does the FT60 sensor connect to?")
        assert "FT-60" in result.query.text and "ft-60" in result.query.terms
    finally:
        search.close()


def test_a_code_written_another_way_is_the_manuals(library: Library, tmp_path: Path) -> None:
    answer = no_llm_answer(library, tmp_path, "Which terminal does the FT-60 sensor connect to?")
    assert not answer.abstained and "X4" in answer.text


@pytest.mark.skipif(
    _vocab_path() is None, reason="the MiniLM vocabulary (English lexicon) is not installed"
)
def test_a_name_neither_the_library_nor_english_knows_is_declined(
    library: Library, tmp_path: Path
) -> None:
    search = TextSearch(library.store, HashingEmbedder())
    try:
        # "Kestrell" is one slip from the manual's "Kestrel"; the lexicon knows "Siemens".
        assert search.unknown_names(["Heathkit", "Kestrell", "Siemens", "Kestrel"]) == ("Heathkit",)
    finally:
        search.close()
    foreign = no_llm_answer(
        library, tmp_path, "What is the maximum output current of the old Heathkit inverter?"
    )
    assert foreign.abstained and "No manual in the library mentions Heathkit" in foreign.text
    own = no_llm_answer(
        library,
        tmp_path,
        "Can I read the maximum output current of the inverter with a Siemens meter?",
    )
    assert not own.abstained and "16 A" in own.text


def test_a_code_many_manuals_print_is_an_interface_not_equipment() -> None:
    # Three manuals of the library print RS485: it names no equipment of the library,
    # so the converter's code, which none prints, is what the question is about.
    def widespread(codes: Sequence[str]) -> tuple[str, ...]:
        return tuple(c for c in codes if c.lower() == "rs485")

    def ask(text: str, identifiers: Sequence[str], spread: bool = True) -> tuple[str, ...]:
        query = _query(identifiers, text=text)
        unprinted = _unprinted({"x4", "rs485"})
        return foreign_equipment(query, unprinted, widespread=widespread if spread else None)

    text = "Hooking a USR-TCP232-410S RS485-to-Ethernet converter onto the meter's terminals."
    identifiers = ["TCP232-410S", "RS485-"]
    assert ask(text, identifiers) == ("USR-TCP232-410S",), "once, by its whole name"
    assert ask(text, identifiers, spread=False) == (), "RS485 is printed: it may be about it"
    assert ask("What is the RS485 address of the X4?", ["RS485", "X4"]) == ()
    assert ask("Which RS485 address does the meter answer on?", ["RS485"]) == ()


INTERFACES = {
    "Wren_M3_Meter.pdf": (
        "Wren M3 Energy Meter",
        ["The RS485 port answers on address 001 at 9600 bps.", "The pulse output is 1000 imp/kWh."],
    ),
    "Wren_D2_Drive.pdf": (
        "Wren D2 Servo Drive",
        ["Tune the drive over its RS485 port.", "The drive trips at 400 V DC bus voltage."],
    ),
    "Wren_B5_Board.pdf": (
        "Wren B5 Evaluation Board",
        ["Jumper J5 joins the UART to the RS485 transceiver.", "The board takes 5 V DC."],
    ),
}

interfaces = note_library_fixture("interfaces", INTERFACES)


def test_a_converter_named_beside_an_interface_many_manuals_print_is_declined(
    interfaces: Library, tmp_path: Path
) -> None:
    search = TextSearch(interfaces.store, HashingEmbedder())
    try:
        assert search.widespread_codes(["RS485", "rs-485", "J5", "UART"]) == ("RS485", "rs-485")
    finally:
        search.close()
    converter = no_llm_answer(
        interfaces,
        tmp_path,
        "Hooking a USR-TCP232-410S RS485-to-Ethernet converter onto the RS485 bus. What is"
        " the converter's default IP address?",
    )
    assert converter.abstained
    assert "No manual in the library mentions USR-TCP232-410S:" in converter.text
    own = no_llm_answer(interfaces, tmp_path, "Which RS485 address does the meter answer on?")
    assert not own.abstained and "001" in own.text
