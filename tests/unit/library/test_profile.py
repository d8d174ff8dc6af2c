"""Manual profiles: what the agent reads to route a question to the right manual."""

from __future__ import annotations

from app.library.models import Block, ManualProfile, PageContent, TextLine
from app.library.profile import build_profile


def page(number: int, *blocks: tuple[str, str]) -> PageContent:
    built = []
    for i, (kind, text) in enumerate(blocks):
        box = (60.0, 60.0 + 20 * i, 400.0, 72.0 + 20 * i)
        built.append(Block(kind, (TextLine(text, box, 10.0),)))  # type: ignore[arg-type]
    return PageContent(number, 595.0, 842.0, tuple(built), ())


INSTALLATION = [
    page(1, ("heading", "Lumen AX-200 Hybrid Alarm Panel"), ("paragraph", "Installation Guide")),
    page(2, ("heading", "1. Introduction"), ("paragraph", "This guide is for the installer.")),
    page(3, ("heading", "2. Mounting the Panel"), ("paragraph", "Drill four holes.")),
    page(4, ("heading", "3. Wiring"), ("paragraph", "Wire the terminals of the AX-200.")),
    page(5, ("heading", "3.1 Terminal Block"), ("paragraph", "Jumper J24 sets 12 V.")),
    page(6, ("heading", "4. Wiring"), ("paragraph", "A repeated title is listed once.")),
]


def test_an_installation_guide_is_profiled_for_installers() -> None:
    profile = build_profile(
        "Lumen AX-200 Installation Guide", "AX-200_Installation_Guide.pdf", INSTALLATION
    )

    assert profile.manual_type == "installation"
    assert profile.audience == "installers and service technicians"
    assert profile.product == "AX-200"


def test_topics_are_the_top_level_sections_without_numbers_in_order() -> None:
    profile = build_profile("AX-200 Installation Guide", "guide.pdf", INSTALLATION)

    assert profile.topics == ("Introduction", "Mounting the Panel", "Wiring")
    assert "AX-200" in profile.summary
    assert "installation manual" in profile.summary
    assert "Mounting the Panel" in profile.summary


def test_a_user_manual_is_profiled_for_end_users() -> None:
    pages = [
        page(1, ("heading", "BX-10 Keypad"), ("paragraph", "User Manual")),
        page(2, ("heading", "1. Arming the System"), ("paragraph", "Press the arm key.")),
        page(3, ("heading", "2. Disarming"), ("paragraph", "Enter your user code to disarm.")),
        page(4, ("heading", "3. Chime"), ("paragraph", "Turn the chime on from the menu.")),
    ]

    profile = build_profile("BX-10 User Manual", "BX-10_User_Manual.pdf", pages)

    assert profile.manual_type == "user"
    assert profile.product == "BX-10"
    assert profile.topics == ("Arming the System", "Disarming", "Chime")


def test_the_model_code_named_most_often_is_the_product() -> None:
    pages = [
        page(1, ("paragraph", "The HSGW-MAX8 gateway works with the DT-18 detector.")),
        page(2, ("paragraph", "Mount the HSGW-MAX8 on a wall. The HSGW-MAX8 needs 12 V.")),
    ]

    profile = build_profile("Gateway manual", "gateway.pdf", pages)

    assert profile.product == "HSGW-MAX8"


def test_a_manual_with_no_clues_is_other_and_named_after_its_title() -> None:
    pages = [page(1, ("paragraph", "Lorem ipsum dolor sit amet."))]

    profile = build_profile("Northlight Siren Notes", "notes.pdf", pages)

    assert profile.manual_type == "other"
    assert profile.audience == "technicians"
    assert profile.product == "Northlight Siren Notes"
    assert profile.topics == ()


def test_an_empty_manual_still_gets_a_profile() -> None:
    profile = build_profile("", "scan.pdf", [])

    assert profile.manual_type == "other"
    assert profile.summary


def test_a_profile_survives_the_round_trip_through_the_store_format() -> None:
    profile = build_profile("AX-200 Installation Guide", "guide.pdf", INSTALLATION)

    assert ManualProfile.from_dict(profile.to_dict()) == profile
    assert ManualProfile.from_dict(None) == ManualProfile()
    assert ManualProfile.from_dict({"topics": "not a list"}).topics == ()
