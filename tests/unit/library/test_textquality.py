"""Telling a real text layer from a bad old OCR layer, and pages that have none."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pymupdf
import pytest

from app.library.textquality import assess_text, needs_ocr, text_layer_quality

CLEAN = """
3.2 Wiring the Control Panel
Disconnect mains power before you open the enclosure. Connect the battery leads to
the BATT terminals, red to positive and black to negative, then fit jumper J24 to
enable the auxiliary output. Each zone input needs an end-of-line resistor of 2.2 kOhm.
The keypad shows the zone number when a detector is triggered; press the OK key to
acknowledge the alarm and enter your four-digit installer code to disarm the system.
If the panel beeps twice, the backup battery is low and should be replaced.
"""

# The kind of text the 1987 Ademco scan's OCR layer holds.
GARBAGE = """
STA1lATION F=1!FSTRUHION5 ‘~s 7/87 ksue bss been subat~ti~ly retised
GSNSRAL INFORMATION PUNCIPAL ~ATURES FUNCTIONAL D~CRDTION Stit@es and LEDs on Front
of Receiver DD Switoh Group Additional Stit&es (Ioside Fli&Dmn Panel) Rear of Receivm
~SSAGE FORMATS LOW SF~D (Admco Stsndard or Seswa) Forma t ~GR SPEED Fmmat
"""


def test_clean_manual_text_scores_high() -> None:
    assert text_layer_quality(CLEAN) > 0.95
    assert needs_ocr(CLEAN, page_area_covered_by_images=0.0) is None


def test_old_ocr_garbage_scores_low_and_needs_ocr() -> None:
    assert text_layer_quality(GARBAGE) < 0.6
    assert needs_ocr(GARBAGE, page_area_covered_by_images=0.98) == "garbage text layer"


def test_empty_text_has_nothing_to_judge() -> None:
    assert text_layer_quality("") == 0.0
    assert text_layer_quality("  \n ....... ____ ") == 0.0
    assert assess_text("").tokens == 0


@pytest.mark.parametrize(
    "text",
    [
        "AUX+ 13.8 V DC 500 mA J24 CID 1301",
        "RS-485 BUS 12VDC 1.5A 2G/4G GPRS 40°C 85% EN50131-1 Grade 2",
        "0=Disable, 1=Enable (1~40) (0~1440) 1234=12.34℃ 10:30 1st 2nd",
        "www.example.com support@example.com http://192.168.1.1:8080/setup",
        "Zone  EOL  Type\n1  2.2k  Burglar\n2  4.7k  Fire\n3  -  24 Hour",
    ],
)
def test_numbers_codes_and_value_tables_are_not_garbage(text: str) -> None:
    assert text_layer_quality(text) > 0.9


@pytest.mark.parametrize(
    "text",
    [
        # A battery's data codes and an error log, in lower case or after a word.
        "b01 Current temperature b04 Total voltage d00 Cell quantity E-Code0 to E-Code9",
        # Timing diagrams and model families.
        "t1 t2 t3 t4 t5 t6 EC2x EG9x Zone12 Input2",
        # Sizes, ranges and bounds as specification tables print them.
        "1217*463*920 F1(50∽76) ≥0.5W ≤10% 0.5-2.5mm² 30 ~ 14AWG -40 ~ 140 ℃",
        # Capitals joined by "&", and a figure's circled callouts.
        "UMTS&LTE EVB AT&T ①②③④ ⑨~⑳",
    ],
)
def test_technical_notation_is_not_a_misread(text: str) -> None:
    # Each of these once made a clean page "garbage" and sent it to OCR, which ran the
    # columns of its table together and lost the codes' spaces ("Checkrecordoferrorcode").
    seen = assess_text(text)
    assert seen.mangled == 0.0, text
    assert seen.quality > 0.9, text


@pytest.mark.parametrize("token", ["Di9ital", "STA1lATION", "Stit@es", "~ATURES", "F=1!FSTR"])
def test_a_digit_or_junk_inside_a_word_is_still_a_misread(token: str) -> None:
    assert assess_text(token).mangled == 1.0


def test_clean_text_in_another_language_is_not_called_garbage() -> None:
    german = (
        "Die Zentrale wird über das Netzteil mit Strom versorgt. Schließen Sie die Batterie "
        "an und drücken Sie die Taste, um das System zu aktivieren. Die Sirene ertönt bei "
        "einem Alarm für drei Minuten. Überprüfen Sie regelmäßig alle Melder."
    )

    assert assess_text(german).mangled == 0.0
    assert needs_ocr(german, page_area_covered_by_images=0.0) is None


def test_text_from_a_broken_font_encoding_is_garbage() -> None:
    # Every letter shifted by three, as a font with a wrong encoding extracts.
    shifted = " ".join(
        "".join(chr(ord(c) + 3) if c.isalpha() else c for c in w) for w in CLEAN.split()
    )

    assert needs_ocr(shifted, page_area_covered_by_images=0.0) == "garbage text layer"


def test_placeholders_for_undecodable_dingbats_are_not_garbage() -> None:
    text = "Press \ufffd to arm, \ufffd to disarm and \ufffd to cancel the alarm."

    assert assess_text(text).mangled == 0.0
    assert assess_text("Th\ufffd\ufffd p\ufffdnel").mangled == 1.0  # inside words it is


def test_a_page_that_is_one_big_image_needs_ocr() -> None:
    assert needs_ocr("", page_area_covered_by_images=0.95) == "no text layer"
    assert needs_ocr("  12\n", page_area_covered_by_images=0.6) == "no text layer"


def test_a_nearly_empty_page_without_images_needs_nothing() -> None:
    assert needs_ocr("", page_area_covered_by_images=0.0) is None
    assert needs_ocr("Notes", page_area_covered_by_images=0.1) is None


def test_scoring_is_fast() -> None:
    page = (CLEAN + GARBAGE) * 3  # about 3,000 characters, a third of them garbage
    text_layer_quality(page)  # load the lexicon
    start = time.process_time()  # CPU time: other processes on a shared machine don't count
    for _ in range(50):
        text_layer_quality(page)
    per_page = (time.process_time() - start) / 50

    assert per_page < 0.005  # measured 0.5 ms for this page on a quiet machine


@pytest.mark.corpus
def test_corpus_calibration(corpus_dir: Path) -> None:
    """The clean VESTA manuals keep their text layer; the Ademco scan's layer is replaced."""
    verdicts: dict[str, list[str | None]] = {}
    for path in sorted(corpus_dir.glob("*.pdf")):
        with pymupdf.open(path) as doc:
            pages = [(p.get_text(), _image_coverage(p)) for p in doc]
        verdicts[path.name] = [needs_ocr(text, cover) for text, cover in pages]
        scores = [assess_text(t).quality for t, _ in pages if assess_text(t).tokens >= 20]
        if scores:
            print(
                f"{path.name[:40]:40} quality min {min(scores):.3f} "
                f"median {statistics.median(scores):.3f} max {max(scores):.3f}"
            )

    for name, found in verdicts.items():
        if name.startswith("VESTA"):
            assert "garbage text layer" not in found, name
        elif name.endswith("_NOTEXT.pdf"):
            assert set(found) == {"no text layer"}, name
        elif name.startswith("Ademco"):
            assert found.count("garbage text layer") >= 0.8 * len(found), name


@pytest.mark.corpus
def test_born_digital_manuals_of_other_trades_keep_their_text_layer(corpus2_dir: Path) -> None:
    """Only what cannot be read is OCR'd: the 1958 scan, a photo, a page whose font maps
    to U+FFFD, and source-code listings; not spec tables, pinouts or battery codes."""
    ocr: dict[str, list[int]] = {}
    for path in sorted(corpus2_dir.glob("*.pdf")):
        with pymupdf.open(path) as doc:
            ocr[path.name] = [
                p.number + 1 for p in doc if needs_ocr(p.get_text(), _image_coverage(p))
            ]
    for name, pages in ocr.items():
        with pymupdf.open(corpus2_dir / name) as doc:
            total = doc.page_count
        if "scanned" in name:
            assert len(pages) == total, name
        else:
            assert len(pages) <= max(1, total // 10), (name, pages)


def _image_coverage(page: pymupdf.Page) -> float:
    covered = 0.0
    for info in page.get_image_info():
        rect = pymupdf.Rect(info["bbox"]) & page.rect
        covered += 0.0 if rect.is_empty else rect.width * rect.height
    return min(covered / (page.rect.width * page.rect.height), 1.0)
