"""Small PDFs built with PyMuPDF for the library's tests, good and bad.

Every builder writes a file and returns its path. The text manual's facts are module
constants, so a test can check that what was drawn comes back out of the library.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

A4 = pymupdf.paper_rect("a4")
LEFT, RIGHT = 60.0, A4.width - 60.0

TITLE = "Lumen AX-200 Installation Guide"
SECTION = "3. Wiring the Panel"
SUBSECTION = "3.1 Terminal Block"
PARAGRAPH = (
    "Connect the sirens, detectors and the keypad bus to the terminal block before "
    "powering the panel. Jumper J24 selects the PGM output voltage: fit it across pins "
    "1 and 2 for 12 V, or across pins 2 and 3 for 5 V."
)
TABLE_ROWS = (
    ("Terminal", "Function", "Rating"),
    ("AUX+", "Auxiliary power output", "12 V DC, 500 mA"),
    ("PGM", "Programmable output", "100 mA open collector"),
    ("BELL", "External siren output", "1 A fused"),
)
BULLETS = (
    "Disconnect mains power before wiring.",
    "Use 18 AWG cable for siren runs longer than 30 m.",
    "Keep the bus cable away from mains wiring.",
)
KEYPAD_LINE = "Press ✱ then 9 to test the siren."
FOOTER = "Northlight Security AX-200"


def note_pdf(path: Path, title: str, lines: list[str]) -> Path:
    """A one-page note: a title, then one line of text each."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((LEFT, 80), title, fontsize=16)
    for i, line in enumerate(lines):
        page.insert_text((LEFT, 120 + 18 * i), line, fontsize=10)
    doc.save(path)
    doc.close()
    return path


def text_manual_pdf(path: Path, pages: int = 1, title: str = TITLE) -> Path:
    """A manual whose every page holds headings, a paragraph, a ruled table and a list.

    Page ``n`` also carries the word ``pageword{n}`` so a test can find each page.
    """
    doc = pymupdf.open()
    doc.set_metadata({"title": title, "creationDate": "D:20250101000000Z"})
    for number in range(1, pages + 1):
        _manual_page(doc.new_page(width=A4.width, height=A4.height), number)
    doc.save(path, garbage=0, deflate=True)
    doc.close()
    return path


_FONTS: dict[str, pymupdf.Font] = {}


def _font(name: str) -> pymupdf.Font:
    if name not in _FONTS:
        _FONTS[name] = pymupdf.Font(name)
    return _FONTS[name]


def _manual_page(page: pymupdf.Page, number: int) -> None:
    # TextWriter with real Font objects keeps "•" and the Dingbats star as themselves;
    # insert_text's simple encodings would turn both into a middle dot.
    writer = pymupdf.TextWriter(page.rect)
    heading = SECTION if number == 1 else f"{number + 2}. Section {number}"
    writer.append((LEFT, 70), heading, font=_font("hebo"), fontsize=18)
    writer.append((LEFT, 100), SUBSECTION, font=_font("hebo"), fontsize=13)
    text = f"{PARAGRAPH} See pageword{number} for details."
    writer.fill_textbox(pymupdf.Rect(LEFT, 112, RIGHT, 192), text, font=_font("helv"), fontsize=10)
    y = _ruled_table(page, writer, 202, TABLE_ROWS) + 20
    for bullet in BULLETS:
        writer.append((LEFT + 10, y), "•", font=_font("helv"), fontsize=10)
        writer.append((LEFT + 24, y), bullet, font=_font("helv"), fontsize=10)
        y += 16
    before, after = KEYPAD_LINE.split("✱")
    writer.append((LEFT, y + 10), before, font=_font("helv"), fontsize=10)
    # The star key set in Zapf Dingbats, as manuals set keypad keys in symbol fonts.
    writer.append(writer.last_point, "✱", font=_font("zadb"), fontsize=10)
    writer.append(writer.last_point, after, font=_font("helv"), fontsize=10)
    footer = f"{FOOTER}    Page {number}"
    writer.append((LEFT, A4.height - 30), footer, font=_font("helv"), fontsize=8)
    writer.write_text(page)


def _ruled_table(
    page: pymupdf.Page, writer: pymupdf.TextWriter, top: float, rows: tuple[tuple[str, ...], ...]
) -> float:
    widths = (90.0, 200.0, RIGHT - LEFT - 290.0)
    height = 20.0
    for r, row in enumerate(rows):
        x = LEFT
        for width, cell in zip(widths, row, strict=True):
            rect = pymupdf.Rect(x, top + r * height, x + width, top + (r + 1) * height)
            page.draw_rect(rect, color=(0, 0, 0), width=0.8)
            font = _font("hebo" if r == 0 else "helv")
            writer.append((rect.x0 + 4, rect.y1 - 6), cell, font=font, fontsize=9)
            x += width
    return top + len(rows) * height


def scanned_pdf(path: Path, pages: int = 1, dpi: int = 110) -> Path:
    """A scan: text manual pages rendered to greyscale images, with no text layer left."""
    source = pymupdf.open()
    for number in range(1, pages + 1):
        _manual_page(source.new_page(width=A4.width, height=A4.height), number)
    doc = pymupdf.open()
    for page in source:
        pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
        scan = doc.new_page(width=page.rect.width, height=page.rect.height)
        scan.insert_image(scan.rect, pixmap=pix)
    doc.save(path, deflate=True)
    return path


def password_pdf(path: Path, user_password: str = "s3cret") -> Path:
    """A manual that cannot be opened without its password (AES-256)."""
    doc = pymupdf.open()
    _manual_page(doc.new_page(width=A4.width, height=A4.height), 1)
    doc.save(
        path,
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        user_pw=user_password,
        owner_pw=user_password + "-owner",
    )
    return path


def zero_page_pdf(path: Path) -> Path:
    """A well-formed PDF with an empty page tree (PyMuPDF refuses to save one itself)."""
    objects = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[]/Count 0>>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    path.write_bytes(bytes(out))
    return path


def truncated_pdf(path: Path, pages: int = 3, keep: float = 0.5) -> Path:
    """A real manual cut short, as an interrupted download leaves it."""
    full = text_manual_pdf(path.with_name(path.stem + "-full.pdf"), pages=pages)
    data = full.read_bytes()
    full.unlink()
    path.write_bytes(data[: int(len(data) * keep)])
    return path


def not_a_pdf(path: Path) -> Path:
    """A file named .pdf that is really something else (here, an HTML error page)."""
    path.write_text("<html><body>404 Not Found</body></html>\n", encoding="utf-8")
    return path


NOTE_LINES = ("3.1 Terminal Block", "Jumper J24 selects 12 V.", "Test the siren monthly.")
GARBAGE_LAYER = "STA1lATION F=1!FSTRUHION5 Tl-lE 5YS~EM l\\/IUST 8E ~NST@LLED 8Y Q|_|AL1F1ED"


def scanned_note_pdf(
    path: Path, lines: tuple[str, ...] = NOTE_LINES, dpi: int = 200, garbage_layer: bool = False
) -> Path:
    """A small scanned card of a few large lines: quick to OCR.

    With ``garbage_layer``, the image carries an invisible text layer of misread words,
    as old scans OCR'd by their scanner do.
    """
    source = pymupdf.open()
    card = source.new_page(width=320, height=60 + 30 * len(lines))
    writer = pymupdf.TextWriter(card.rect)
    for i, text in enumerate(lines):
        writer.append((20, 40 + 30 * i), text, font=_font("helv"), fontsize=14)
    writer.write_text(card)
    pix = card.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    doc = pymupdf.open()
    scan = doc.new_page(width=card.rect.width, height=card.rect.height)
    scan.insert_image(scan.rect, pixmap=pix)
    if garbage_layer:
        box = pymupdf.Rect(10, 10, scan.rect.width - 10, scan.rect.height - 10)
        scan.insert_textbox(box, " ".join([GARBAGE_LAYER] * 3), fontsize=6, render_mode=3)
    doc.save(path, deflate=True)
    return path
