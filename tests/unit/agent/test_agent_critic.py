"""The critic's lexical grounding check: claims against the pages they cite."""

from __future__ import annotations

from app.agent.critic import (
    abstention,
    check_lexically,
    missing_values,
    revise,
    split_claims,
    verdict_from_model,
)

PAGE = (
    "3.2 Terminal Block\nAUX+ Auxiliary power output 13.8 V DC, 500 mA max.\n"
    "A/B KeyBus data line (RS-485). Twist with B."
)
EXTRACTIVE = (
    "From the manuals:\n"
    "- Terminal Block: AUX+ → Auxiliary power output 13.8 V DC, 500 mA max. [1]\n"
    "- A/B KeyBus data line (RS-485). Twist with B. [1]\n\nSources:\n[1] Lumen AX-200 p.6"
)


def test_a_marker_covers_the_sentences_before_it() -> None:
    claims = split_claims("AUX+ gives 13.8 V. It is fused. [1] KeyBus is RS-485 [1][2]. Trust me.")

    assert [(c.text, c.citations) for c in claims] == [
        ("AUX+ gives 13.8 V. It is fused.", (1,)),
        ("KeyBus is RS-485", (1, 2)),
        ("Trust me.", ()),
    ]


def test_sources_and_framing_lines_are_not_claims() -> None:
    texts = [c.text for c in split_claims(EXTRACTIVE)]

    assert len(texts) == 2 and all(
        "Sources" not in t and "From the manuals" not in t for t in texts
    )


def test_quotes_of_the_cited_page_are_grounded() -> None:
    verdict = check_lexically(EXTRACTIVE, {1: PAGE})

    assert verdict.grounded and verdict.method == "lexical"


def test_a_value_the_page_does_not_hold_is_unsupported() -> None:
    verdict = check_lexically("The AUX+ output supplies 48 V DC [1].", {1: PAGE})

    assert not verdict.grounded
    assert verdict.claims[0].missing == ("48 V",), "RS-485 does not hold 48 V"


def test_uncited_or_wrongly_cited_claims_are_unsupported() -> None:
    assert not check_lexically("The AUX+ output supplies 13.8 V DC.", {1: PAGE}).grounded
    assert not check_lexically("The AUX+ output supplies 13.8 V DC [2].", {1: PAGE}).grounded


def test_numbers_match_whole_with_their_units() -> None:
    assert missing_values("13.8 V and 500 mA", "13.8VDC, 500 mA") == ()
    assert missing_values("3 A", "13 A fuse") == ("3 A",)
    assert missing_values("12 V", "12 mA") == ("12 V",)
    assert missing_values("ATMR:1,10,10,,,30,30", "PROG 7982 ATMR:1,10,10,,,30,30") == ()


def test_section_numbers_are_read_whole() -> None:
    page = "3.4.1 Password Validation\nPassword: default 1000"
    assert missing_values("3.4.1 Password Validation: Password: default 1000", page) == ()
    # A section number is not the value it starts with.
    assert missing_values("3.4 V", page) == ("3.4 V",)


def test_revise_drops_unsupported_claims_and_keeps_the_rest() -> None:
    text = (
        "AUX+ supplies 13.8 V DC [1]. It also charges the battery at 48 V [1].\n\nSources:\n[1] p.6"
    )
    verdict = check_lexically(text, {1: PAGE})

    revised = revise(text, verdict)

    assert revised == "AUX+ supplies 13.8 V DC [1].\n\nSources:\n[1] p.6"
    assert (
        revise("AUX+ gives 48 V [1].", check_lexically("AUX+ gives 48 V [1].", {1: PAGE})) is None
    )


def test_model_verdict_flags_named_claims_and_still_checks_numbers() -> None:
    text = "AUX+ supplies 13.8 V DC [1]. KeyBus runs at 48 V [1]."
    named = verdict_from_model(
        {"grounded": False, "unsupported_claims": ["AUX+ supplies"]}, text, {1: PAGE}
    )
    trusting = verdict_from_model({"grounded": True, "unsupported_claims": []}, text, {1: PAGE})

    assert [c.supported for c in named.claims] == [False, False]
    assert not trusting.grounded, "a changed value fails even when the model misses it"


def test_abstention_names_what_was_searched() -> None:
    text = abstention(
        ["Install Guide", "Install Guide", "User Manual"], ["q one", "q two"], "X p.3"
    )

    assert text.startswith("The manuals don't say.")
    assert "Install Guide, User Manual" in text and "“q one”; “q two”" in text and "X p.3" in text


def test_abstention_says_when_the_closest_passage_is_about_other_equipment() -> None:
    text = abstention(["BOGP-3", "Hybrid"], ["rf frequency"], "Hybrid p.11", ["BOGP-3"])

    assert text.startswith("The BOGP-3 manual doesn't say.")
    assert "Hybrid p.11, in another manual" in text


def test_abstention_names_the_quantity_no_page_gives() -> None:
    text = abstention(["Radio"], ["battery mah"], "Radio p.4", unprinted=["charge"])

    assert text.startswith("The manuals don't say. No page of the manual it is about")
    assert "gives a charge value" in text
    text = abstention(["Keypad"], ["ip rating"], "Keypad p.2", unprinted=["ingress protection"])
    assert "gives an ingress protection value" in text
