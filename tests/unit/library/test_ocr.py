"""OCR: engines, choosing one, and boxes that land where the text is on the page."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from app.library.ocr import (
    DEFAULT_DPI,
    OcrUnavailableError,
    RapidOcrEngine,
    VisionOcrEngine,
    _RawLine,
    make_ocr_engine,
    pixels_to_points,
    png_bytes,
    quad_to_box,
    read_upright,
    reading_order,
    render_page,
    split_words,
    unturn,
    vision_box_to_pixels,
)

LINES = [((20, 60), "Baud Rate: 600"), ((20, 130), "7 Data Bits"), ((220, 130), "1 Stop Bit")]


def _card() -> tuple[pymupdf.Pixmap, dict[str, pymupdf.Rect]]:
    """A 360 x 200 pt card of known lines, rendered, and where each word was drawn."""
    with pymupdf.open() as src:
        card = src.new_page(width=360, height=200)
        for point, text in LINES:
            card.insert_text(point, text, fontsize=22)
        words = {w[4]: pymupdf.Rect(w[:4]) for w in card.get_text("words")}
        return card.get_pixmap(dpi=150), words


@pytest.fixture
def scanned_card() -> Iterator[tuple[pymupdf.Page, dict[str, pymupdf.Rect]]]:
    """A page holding only a picture of the card: no text layer at all."""
    pix, words = _card()
    doc = pymupdf.open()
    page = doc.new_page(width=360, height=200)
    page.insert_image(page.rect, pixmap=pix)
    assert page.get_text().strip() == ""
    yield page, words
    doc.close()


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("OCR tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def _near(found: tuple[float, ...], drawn: pymupdf.Rect, slack: float = 6.0) -> bool:
    """The OCR box lies within the drawn word's font box, give or take `slack` points."""
    x0, y0, x1, y1 = found
    return (
        drawn.x0 - slack <= x0 < x1 <= drawn.x1 + slack
        and drawn.y0 - slack <= y0 < y1 <= drawn.y1 + slack
    )


# ---- RapidOCR on a real image ------------------------------------------------------------


def test_rapidocr_reads_an_image_only_page_with_boxes_in_points(
    scanned_card: tuple[pymupdf.Page, dict[str, pymupdf.Rect]], no_network: None
) -> None:
    page, drawn = scanned_card
    RapidOcrEngine._models.clear()  # load the models under the no-network guard too

    lines = RapidOcrEngine().recognize(page, dpi=150)

    assert [line.text for line in lines] == [text for _, text in LINES]
    for line in lines:
        assert line.confidence > 0.8
        assert [w.text for w in line.words] == line.text.split()
        for word in line.words:
            assert _near(word.box, drawn[word.text]), (word, drawn[word.text])
    baud = lines[0]
    assert _near(baud.box, drawn["Baud"] | drawn["600"])


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_rapidocr_boxes_follow_page_rotation(rotation: int) -> None:
    """On a rotated page boxes come back in unrotated page space, like get_text's."""
    pix, drawn = _card()
    with pymupdf.open() as doc:
        sideways = rotation % 180 == 90
        page = doc.new_page(width=200 if sideways else 360, height=360 if sideways else 200)
        page.set_rotation(rotation)
        # Placed so the page *displays* the card upright, as a landscape page in a manual.
        page.insert_image(page.rect * page.derotation_matrix, pixmap=pix, rotate=rotation)

        lines = RapidOcrEngine().recognize(page, dpi=150)
        to_page = page.derotation_matrix

    assert [line.text for line in lines] == [text for _, text in LINES]
    for word in (w for line in lines for w in line.words):
        assert _near(word.box, drawn[word.text] * to_page), (word, drawn[word.text] * to_page)


@pytest.mark.parametrize("turn", [90, 270])
def test_a_page_scanned_sideways_is_read_turned_upright(turn: int) -> None:
    """A landscape page scanned into a portrait page (no /Rotate to say so): its lines
    stand on end, and reading them as they stand gives nonsense."""
    pix, _ = _card()
    with pymupdf.open() as doc:
        page = doc.new_page(width=200, height=360)
        page.insert_image(page.rect, pixmap=pix, rotate=turn)

        lines = RapidOcrEngine().recognize(page, dpi=150)

    assert [line.text for line in lines] == [text for _, text in LINES]
    for line in lines:
        x0, y0, x1, y1 = line.box
        assert 0 <= x0 < x1 <= 200 and 0 <= y0 < y1 <= 360
        assert y1 - y0 > x1 - x0, "a line of a sideways page stands on end on the page"
        long_words = [w for w in line.words if len(w.text) >= 3]
        assert all(w.box[3] - w.box[1] > w.box[2] - w.box[0] for w in long_words)


def test_a_page_scanned_upside_down_is_read_turned_over() -> None:
    text = [f"Step {i}: set the baud rate to 9600 and press ENTER" for i in range(1, 9)]
    with pymupdf.open() as src:
        card = src.new_page(width=500, height=300)
        for i, line in enumerate(text):
            card.insert_text((20, 40 + 30 * i), line, fontsize=16)
        drawn = [pymupdf.Rect(b["bbox"]) for b in card.get_text("dict")["blocks"]]
        pix = card.get_pixmap(dpi=150)
    with pymupdf.open() as doc:
        page = doc.new_page(width=500, height=300)
        page.insert_image(page.rect, pixmap=pix, rotate=180)

        lines = RapidOcrEngine().recognize(page, dpi=150)

    assert [line.text.replace(" ", "") for line in lines] == [t.replace(" ", "") for t in text]
    for line, r in zip(lines, drawn, strict=True):
        assert _near(line.box, pymupdf.Rect(500 - r.x1, 300 - r.y1, 500 - r.x0, 300 - r.y0))


def test_an_unsure_reading_is_kept_when_upside_down_reads_less() -> None:
    """A poor scan reads unsurely either way: the reading as scanned stays."""
    shapes: list[tuple[int, ...]] = []

    def read(img: np.ndarray) -> list[_RawLine]:
        shapes.append(img.shape)
        upright = len(shapes) == 1
        text = "Baud Rate: 600 " * 20 if upright else "009"
        return [_RawLine(text, (10, 10, 200, 30), 0.6)]

    lines, turns = read_upright(read, np.zeros((300, 200), dtype=np.uint8))

    assert len(shapes) == 2 and turns == 0 and lines[0].text.startswith("Baud Rate: 600")


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_a_box_found_in_a_turned_image_maps_back_to_the_unturned_one(turns: int) -> None:
    image = np.zeros((60, 100), dtype=np.uint8)
    image[10:20, 30:70] = 255  # rows 10-20, columns 30-70
    turned = np.rot90(image, turns)
    rows, cols = np.nonzero(turned)
    found = (cols.min(), rows.min(), cols.max() + 1, rows.max() + 1)

    assert unturn(found, turns, (100, 60)) == (30, 10, 70, 20)


def test_any_engine_reads_a_sideways_page_turned_the_way_it_reads_best() -> None:
    """The turning is the engines' shared step (Vision on a Mac too): a fake engine finds
    standing lines on the page as scanned, and reads well only when the mark drawn at the
    page's top left has come to the top right, i.e. turned clockwise (three quarters
    counter-clockwise)."""
    image = np.zeros((300, 200), dtype=np.uint8)
    image[:5, :5] = 255
    seen: list[tuple[int, int]] = []

    def read(img: np.ndarray) -> list[_RawLine]:
        seen.append(img.shape)
        if img.shape == (300, 200):  # as scanned: lines stand on end
            return [_RawLine("uayt", (10, 10, 30, 200), 0.7)]
        upright = bool(img[:5, -5:].all())
        return [_RawLine("then", (10, 10, 200, 30), 0.95 if upright else 0.3)]

    lines, turns = read_upright(read, image)

    assert seen == [(300, 200), (200, 300), (200, 300)]
    assert turns == 3 and [ln.text for ln in lines] == ["then"]


def test_an_upright_page_is_read_once() -> None:
    calls = []

    def read(img: np.ndarray) -> list[_RawLine]:
        calls.append(img.shape)
        return [_RawLine("Baud Rate: 600", (10, 10, 200, 30), 0.9)]

    assert read_upright(read, np.zeros((300, 200), dtype=np.uint8))[1] == 0
    assert len(calls) == 1


def test_an_image_becomes_png_for_an_engine_that_reads_files() -> None:
    image = np.zeros((30, 50, 3), dtype=np.uint8)
    image[5:10, 20:40] = (255, 128, 0)
    turned = np.rot90(image, 1)  # not contiguous: a view

    back = pymupdf.Pixmap(png_bytes(turned))

    assert (back.width, back.height, back.n) == (30, 50, 3)
    assert (np.frombuffer(back.samples, np.uint8).reshape(50, 30, 3) == turned).all()


def test_two_columns_of_prose_are_read_one_after_the_other() -> None:
    title = (40, 10, 560, 30)
    left = [(40, 50 + 20 * i, 280, 64 + 20 * i) for i in range(6)]
    right = [(320, 56 + 20 * i, 560, 70 + 20 * i) for i in range(6)]  # baselines offset
    caption = (40, 200, 560, 214)  # spans both columns
    below = [(40, 230, 280, 244), (40, 250, 280, 264), (320, 236, 560, 250)]
    below += [(40, 270, 280, 284), (320, 256, 560, 270), (40, 290, 280, 304)]
    below += [(320, 276, 560, 290), (320, 296, 560, 310)]
    boxes = [*right, caption, *left, title, *below]  # in no order

    order = [boxes[i] for i in reading_order(boxes)]

    assert order == [
        title, *left, *right, caption,
        *sorted((b for b in below if b[0] == 40), key=lambda b: b[1]),
        *sorted((b for b in below if b[0] == 320), key=lambda b: b[1]),
    ]  # fmt: skip


def test_a_table_of_short_cells_keeps_its_rows() -> None:
    """Labels and values are columns too, but not of prose: a row is read whole."""
    rows = [
        ((40, 50 + 20 * i, 120, 64 + 20 * i), (320, 50 + 20 * i, 380, 64 + 20 * i))
        for i in range(8)
    ]
    boxes = [box for row in rows for box in row]

    assert reading_order(boxes) == list(range(len(boxes)))


def test_a_page_without_text_gives_no_lines() -> None:
    with pymupdf.open() as doc:
        page = doc.new_page(width=200, height=100)

        assert RapidOcrEngine().recognize(page, dpi=100) == []


@pytest.mark.slow
@pytest.mark.corpus
def test_rapidocr_reads_the_ademco_scan(corpus_dir: Path) -> None:
    path = corpus_dir / "Ademco_685_Digital_Alarm_Receiver_Installation_Manual_scanned_NOTEXT.pdf"
    if not path.is_file():
        pytest.skip(f"{path.name} is not in the corpus")
    with pymupdf.open(path) as doc:
        page = doc[52]
        lines = RapidOcrEngine().recognize(page, DEFAULT_DPI)
        width, height = page.rect.width, page.rect.height

    text = "\n".join(line.text for line in lines)
    assert "Baud Rate" in text
    assert "7 Data Bits" in text
    assert all(
        0 <= ln.box[0] < ln.box[2] <= width and 0 <= ln.box[1] < ln.box[3] <= height for ln in lines
    )


# ---- geometry ---------------------------------------------------------------------------


def test_quadrilateral_becomes_the_box_around_it() -> None:
    skewed = [[10, 12], [110, 8], [112, 30], [11, 34]]

    assert quad_to_box(skewed) == (10, 8, 112, 34)


def test_words_split_a_line_box_by_character_position() -> None:
    words = split_words("ab cd", (0, 0, 50, 10))

    assert words == (("ab", (0, 0, 20, 10)), ("cd", (30, 0, 50, 10)))


def test_vertical_lines_are_split_along_their_height() -> None:
    words = split_words("ab cd", (0, 0, 10, 50))

    assert words == (("ab", (0, 0, 10, 20)), ("cd", (0, 30, 10, 50)))


def test_reading_order_is_rows_then_left_to_right() -> None:
    boxes = [
        (300, 102, 400, 120),  # value, a little lower than its label
        (10, 100, 120, 118),  # label
        (10, 10, 200, 30),  # title
        (10, 200, 200, 220),  # next row
    ]

    assert reading_order(boxes) == [2, 1, 0, 3]


def test_vision_boxes_flip_from_bottom_left_origin() -> None:
    # The lower-left quarter of a 200 x 100 image, in Vision's normalised coordinates.
    assert vision_box_to_pixels(0.0, 0.0, 0.5, 0.5, 200, 100) == (0.0, 50.0, 100.0, 100.0)
    assert vision_box_to_pixels(0.25, 0.8, 0.5, 0.1, 200, 100) == pytest.approx((50, 10, 150, 20))


def test_pixels_map_back_to_points_on_a_cropped_page() -> None:
    with pymupdf.open() as doc:
        page = doc.new_page(width=600, height=800)
        page.insert_text((100, 100), "HELLO", fontsize=40)
        page.set_cropbox(pymupdf.Rect(50, 30, 550, 750))
        pix = render_page(page, dpi=144)
        word = pymupdf.Rect(page.get_text("words")[0][:4])

        to_points = pixels_to_points(page, pix)
        whole_page = page.rect

    assert pymupdf.Rect(0, 0, pix.width, pix.height) * to_points == whole_page
    pixel_word = word * pymupdf.Matrix(2, 2)  # 144 dpi
    assert pixel_word * to_points == word


# ---- choosing an engine -----------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "darwin", reason="Vision exists on macOS")
def test_vision_is_unavailable_off_macos() -> None:
    assert VisionOcrEngine.is_available() is False
    with pytest.raises(OcrUnavailableError, match="macOS"):
        make_ocr_engine("vision")


@pytest.mark.skipif(sys.platform == "darwin", reason="auto picks Vision on macOS")
def test_auto_falls_back_to_rapidocr() -> None:
    assert isinstance(make_ocr_engine("auto"), RapidOcrEngine)
    assert isinstance(make_ocr_engine(" RapidOCR "), RapidOcrEngine)


def test_none_means_no_ocr_and_unknown_names_are_refused() -> None:
    assert make_ocr_engine("none") is None
    with pytest.raises(ValueError, match=r"tesseract.*auto, rapidocr, vision, none"):
        make_ocr_engine("tesseract")
