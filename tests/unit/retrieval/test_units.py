"""Quantities recognised by the unit registry, in questions and on pages, for any trade."""

from __future__ import annotations

import pytest

from app.retrieval.query import analyse, asked_parts
from app.retrieval.units import (
    INGRESS,
    asked_key,
    gives_quantity,
    is_unit_name,
    quantity_keys,
    unit_key,
)


def key(text: str) -> str:
    (found,) = quantity_keys(text)
    return found


@pytest.mark.parametrize(
    ("printed", "same_as"),
    [
        ("13.8 V", "230Vac"),
        ("500mA", "10 A"),
        ("-40℃~+70℃", "45 °C"),
        ("1.2 N·m", "12 kgf.cm"),
        ("9600 bps", "60 Hz"),
        ("Fuse Rated Current(A) | 12 | 17", "3 mA"),
        ("Cable size (mm²)", "4mm²"),
        # Forms manuals print that pint does not read as they stand.
        ("tighten to 12 Nm", "1.2 N·m"),
        ("0.5 Ncm", "1.2 N·m"),
        ("15 in-lbs", "1.2 N·m"),
        ("10 ft-lb", "1.2 N·m"),
        ("rated 10 amps", "500mA"),
        ("5 GPM", "2.06 m³/h"),
        ("a 3 m-long cable", "2 m"),
        ("24 V-ac", "13.8 V"),
        # Unit names in capitals: pint reads names in lower case, and "Min" as mega-inches.
        ("Baud Rate: 38400 Baud", "9600 bps"),
        ("12 Volts", "13.8 V"),
        ("5 AMPS max", "500mA"),
        ("Delay 10 Min", "3 s"),
        ("30 Seconds", "3 s"),
    ],
)
def test_printed_values_meet_on_what_they_measure(printed: str, same_as: str) -> None:
    assert key(printed) == key(same_as)


def test_text_without_a_value_or_with_an_unknown_unit_holds_no_quantity() -> None:
    assert quantity_keys("see figure (a) below") == frozenset()
    assert quantity_keys("R290 refrigerant, model AWG18") == frozenset()
    assert unit_key("xyzzy") is None
    # A connector's pins are not pico-inches.
    assert quantity_keys("the 4 pins of the 5-pin connector") == frozenset()
    # A function word after a number is the sentence's when a word follows it...
    assert quantity_keys("Press 1 in the menu, then arm the BOGP-3 in Away mode") == frozenset()
    assert quantity_keys("It reports 2 a day") == frozenset()
    # ...and a unit otherwise.
    for inches in ("Depth: 6 in.", "6 in x 4 in", "150 mm (5.9 in)", "cut it to 3 in"):
        assert quantity_keys(inches) == {key("1 cm")}, inches


def test_a_question_word_names_the_quantity_a_page_prints() -> None:
    assert asked_key("voltage") == key("12 V")
    assert asked_key("torque") == key("0.2 N·m")
    assert asked_key("amps") == key("1.5A")
    assert asked_key("temperature") == key("70℃")
    # Ordinary words that happen to be units of time, length or count name nothing.
    assert asked_key("long") is None and asked_key("second") is None
    assert asked_key("turn") is None


def test_a_prefixed_unit_name_asks_for_its_quantity() -> None:
    # Singular, or a prefix before a unit's alias ("amp"): pint parses them, but a name it
    # has not parsed yet is not among its units.
    assert asked_key("kilohertz") == asked_key("megahertz") == key("12.5 kHz")
    assert asked_key("milliamps") == asked_key("microamp") == key("500 mA")
    assert asked_key("megaohms") == key("10 MΩ")
    assert asked_key("millibar") == key("2 bar")
    # A one-letter prefix or a unit's symbol is no word ("pin" is no pico-inch, "picot" no
    # pico-tonne); lengths and times stay vague.
    assert asked_key("pin") is None and asked_key("picot") is None
    assert asked_key("millimetres") is None and asked_key("milliseconds") is None
    query = analyse("How many milliamps does the output supply, and at how many kilohertz?", [])
    assert set(query.quantities) == {key("500 mA"), key("12.5 kHz")}


def test_unit_symbols_a_question_writes_are_asked_for() -> None:
    query = analyse("How many mAh is the battery, and how long does it charge?", [])
    assert set(query.quantities) == {key("2000 mAh"), key("3 h")}
    assert "2000 mAh" not in query.identifiers


def test_a_question_s_values_are_matched_as_printed_without_its_punctuation() -> None:
    query = analyse("How do I set J24 so the PGM output stops giving out 12 V.", [])
    assert query.identifiers == ("12 V", "J24")
    # "in" after a number is the sentence's word, not inches: only the code is matched.
    query = analyse("The station gets event code 374 from a BOGP-3 in the evenings.", [])
    assert query.identifiers == ("374", "BOGP-3")
    query = analyse("It shows 998 in the user field and a 1 in the fourth position", [])
    assert query.identifiers == ("998",)
    # A code ends with its last letter or digit, not with the hyphen joining a word to it.
    query = analyse("Is an RS485-to-Ethernet converter on the XK-200-B fine?", [])
    assert query.identifiers == ("RS485", "XK-200-B")
    # A unit that is no English word is still one, capitals or not.
    assert analyse("Is 2 s enough, or 750 W at 24 V?", []).identifiers == (
        "2 s",
        "750 W",
        "24 V",
        "750",
    )


def test_a_code_typed_in_lower_case_is_a_code() -> None:
    # Typed on a phone: "bg96" is the manual's BG96, matched however it is written.
    query = analyse("how long do i hold the button to shut the bg96 down on the j805 header", [])
    assert query.identifiers == ("bg96", "j805")
    assert analyse("e09 on the kp-20, then 12v on its rs485 line", []).identifiers == (
        "e09",
        "kp-20",
        "rs485",
    )
    # Words and short numbers are no codes.
    assert (
        analyse("press it twice on channel 12, then the e-bike's other one", []).identifiers == ()
    )


def test_how_long_asks_for_a_time_but_how_far_off_for_no_length() -> None:
    assert analyse("How long do I keep the button pressed?", []).quantities == (key("2 s"),)
    # "How far off" is a deviation; a cable's length is asked by naming it.
    assert analyse("How far off frequency may the tuner drift?", []).quantities == ()
    assert analyse("How often does it test the battery?", []).quantities == (key("5 min"),)
    # "How much longer" asks for a time too, "how much hotter" for a temperature.
    assert analyse("How much longer will it wait?", []).quantities == (key("2 s"),)
    assert analyse("How much hotter may it run?", []).quantities == (key("40 °C"),)
    assert analyse("How much propane is in it?", []).quantities == ()
    # "How many" counts things: a quantity's name after it says what is counted.
    assert analyse("Which code shows how many charge cycles it did?", []).quantities == ()
    assert analyse("How many amps does it draw?", []).quantities == (key("2 A"),)


def test_an_ingress_protection_rating_is_asked_for_and_printed_as_a_code() -> None:
    for question in (
        "What IP rating does the enclosure have?",
        "What IP (ingress protection) rating does the enclosure have?",
        "How well is the display's ingress protection rated against rain?",
        "what ip rating does the enclosure have",  # typed in lower case
    ):
        assert analyse(question, []).quantities == (INGRESS,), question
    # "IP" alone is the network's: an address is no ingress protection.
    assert analyse("What IP address does the meter use?", []).quantities == ()
    assert analyse("Default IP address at security level 2?", []).quantities == ()
    assert analyse("what ip address does the meter use", []).quantities == ()
    assert quantity_keys("Waterproof grade: IP65") == {INGRESS}
    assert quantity_keys("IPX4 splash-proof, 230 V") == {INGRESS, key("12 V")}
    assert gives_quantity("Protection: IP 54", [INGRESS])
    assert quantity_keys("IP address 192.168.1.100") == frozenset()


def test_a_value_spelled_out_before_a_unit_name_is_a_quantity() -> None:
    assert quantity_keys("press for more than two seconds") == {key("2 s")}
    assert quantity_keys("allow one minute to settle") == {key("2 s")}
    assert quantity_keys("half an hour, 12 V") == {key("2 s"), key("12 V")}
    # A spelled number before a word that is no unit's name is no value.
    assert quantity_keys("one of the two wires") == frozenset()
    assert quantity_keys("two pins on the left") == frozenset()


def test_only_what_a_question_asks_for_names_its_quantity() -> None:
    # The 12 V feed is the technician's situation; the fuse rating and cable size are asked.
    query = analyse("With a 12 V feed to the unit, what fuse rating and what cable size?", [])
    assert query.parts == (("fuse", "rating"), ("cable", "size"))
    assert key("12 V") not in query.quantities
    query = analyse("How many amps does the 5 V wall adapter need to deliver?", [])
    assert query.quantities == (key("2 A"),)


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "What is the operating temperature range of the unit?",
            [["operating", "temperature", "range"]],
        ),
        (
            "What voltage and maximum current does the output supply?",
            [["voltage"], ["maximum", "current"]],
        ),
        ("How long do I hold the button?", []),
        ("What does the unit do after a power cut?", []),
        ("What's the most RF power it puts out?", [["rf", "power"]]),
        ("Will it keep working for every visit?", []),
        # Typed without its question mark, a question asking yes or no still asks it.
        ("they all ended up in area 1. can button learning put them in area 2", []),
        ("the display is dead. has the fuse blown", []),
        ("Give me the torque for the clamp screws", [["give", "torque", "clamp", "screws"]]),
        ("Do not guess. Give me the torque", [["guess", "give", "torque"]]),
        (
            "What are the default user PIN, master code and installer code?",
            [["default", "user", "pin"], ["master", "code"], ["installer", "code"]],
        ),
        (
            "What are the factory default user PIN, master code and guard code?",
            [["default", "user", "pin"], ["master", "code"], ["guard", "code"]],
        ),
        ("Which key sends medical alarm on the keypad?", [["key", "sends", "medical"]]),
        # A long noun phrase before the verb names its thing last ("pressure"); one run on
        # into a verb and its object names it first ("attempts", not "lock").
        (
            "What maximum inlet water pressure does it take at the valve?",
            [["inlet", "water", "pressure"]],
        ),
        ("Which drive fault event codes should I expect?", [["fault", "event", "codes"]]),
        (
            "What is the factory default service code, and how do I enter it?",
            [["default", "service", "code"]],
        ),
        ("How many failed login attempts lock the screen?", [["failed", "login", "attempts"]]),
    ],
)
def test_the_asked_for_phrase_follows_the_interrogative(
    question: str, parts: list[list[str]]
) -> None:
    assert asked_parts(question) == parts


def test_unit_names_are_words_but_symbols_and_prefixed_parses_are_not() -> None:
    assert is_unit_name("hour") and is_unit_name("amp") and is_unit_name("volt")
    assert not is_unit_name("bu")  # the bushel's symbol, not the word "bus"
    assert not is_unit_name("pin")  # pico-inch, not a connector pin
    assert asked_key("bus") is None and asked_key("pins") is None
    assert asked_key("psi") == key("30 psi")


def test_a_bare_number_labelled_with_the_quantity_s_name_gives_its_value() -> None:
    baud, torque = asked_key("baud"), asked_key("torque")
    assert gives_quantity("Baud Rate | 38400", {baud})
    assert gives_quantity("Max Torque = 1.2", {torque})
    assert gives_quantity("38400 bps", {baud})  # with its unit, as before
    # The name alone, or with a number that is not its value, gives none.
    assert not gives_quantity("RF frequency 868", {baud})
    assert not gives_quantity("5.1. Fault Event The panel detects radio frequency jamming", {baud})
    assert not gives_quantity("Baud Rate | see table 3", {baud})
    assert not gives_quantity("Torque: 12", {baud})
    assert not gives_quantity("Baud Rate | 38400", set())


def test_a_temperature_typed_in_lower_case_is_one() -> None:
    # "°c" is "°C": only the Celsius sign is written so; the question asks as written.
    typed = analyse("drops to about -15 °c in winter: is that in its range", [])
    written = analyse("drops to about -15 °C in winter: is that in its range", [])
    assert typed.identifiers == written.identifiers == ("-15 °C",)
    assert "°c" in typed.terms and typed.terms == written.terms


def test_a_bare_k_after_a_number_is_thousands_not_kelvin() -> None:
    # Resistors as manuals print them: pint would read kelvin and Boltzmann's constant.
    for printed in ("R5 4.7K (yellow, violet, red)", "R6 10 K", "a 100k pot"):
        assert quantity_keys(printed) == frozenset(), printed
    assert not gives_quantity("4.7K 4.7K BCLK LRCK", {key("45 °C")})
    # A temperature is still one in degrees or in kelvin by name, and a kilo-ohm a resistance.
    assert key("300 kelvin") == key("45 °C") == key("-10 °C to 55 °C")
    assert key("4.7 kΩ") == key("220 ohm")


def test_a_bare_c_after_a_number_is_no_charge() -> None:
    # A step's label, a part number's suffix, a charge rate: not coulombs, not light's speed.
    for printed in ("Steps 1C, 2C and 15C", "No. 0124 C", "charge at 0.5C", "page 12c"):
        assert quantity_keys(printed) == frozenset(), printed
    assert key("2000 mAh") == key("7 Ah") == key("1.5 mC")


def test_kilocycles_and_megacycles_are_frequencies_not_speeds_of_light() -> None:
    # Manuals before the hertz (1960) print "kc" and "mc"; pint reads the speed of light.
    for printed in ("IF 10.7 mc", "108 Mc", "455 kc", "a 75kc deviation", "20 kc/s"):
        assert key(printed) == key("60 Hz") == key("145 MHz"), printed
    # A speed is still one, and a capital C still a coulomb.
    assert key("25 km/h") == key("15 m/min") != key("60 Hz")
    assert key("5 mC") == key("1.5 mC") != key("60 Hz")
