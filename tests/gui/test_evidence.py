"""The evidence pane: a citation click shows its page, sharp, with the region highlighted."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt

from tests.gui.fakes import AUX_REGION, MANUAL
from tests.gui.test_conversation import ask


def answered(make_window, sample_library, qtbot):  # type: ignore[no-untyped-def]
    window = make_window(sample_library)
    card = ask(window, qtbot, "What voltage does the AUX+ terminal supply?")
    qtbot.waitUntil(lambda: not card.running, timeout=20_000)
    return window, card


def region_colour(view, region: list[float]) -> tuple[float, float, float]:  # type: ignore[no-untyped-def]
    """Mean colour of the view's pixels inside a region given in PDF points."""
    x0, y0, x1, y1 = region
    rect = view.mapFromScene(QRectF(x0, y0, x1 - x0, y1 - y0)).boundingRect()
    image = view.viewport().grab(rect).toImage()
    pixels = [image.pixelColor(x, y) for x in range(image.width()) for y in range(image.height())]
    n = len(pixels)
    return (sum(p.red() for p in pixels) / n, sum(p.green() for p in pixels) / n,
            sum(p.blue() for p in pixels) / n)  # fmt: skip


def test_citation_click_shows_the_page_with_its_region_highlighted(
    make_window, sample_library, qtbot
):
    window, card = answered(make_window, sample_library, qtbot)
    evidence = window.evidence
    assert evidence.strip.count() == 2  # the cited page 6 and the retrieved page 7
    evidence.step(1)
    assert evidence.current == (MANUAL, 7) and evidence.view.boxes == []
    chip = card.chips.itemAt(0).widget()
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert evidence.current == (MANUAL, 6)
    qtbot.waitUntil(lambda: (MANUAL, 6) in evidence.images, timeout=20_000)
    qtbot.wait(100)
    [box] = evidence.view.boxes
    assert box.rect().contains(QRectF(62.0, 719.82, 533.0 - 62.0, 737.06 - 719.82))
    on_screen = evidence.view.mapFromScene(box.rect()).boundingRect()
    assert evidence.view.viewport().rect().contains(on_screen), "the region is scrolled into view"
    red, _green, blue = region_colour(evidence.view, AUX_REGION)
    assert red > 200 and blue < red - 30, "a translucent amber box over the white table row"
    assert evidence.page_label.text() == "Page 6 of 19"
    assert evidence.title.text() == "Installation Manual"


def test_pages_render_at_the_zoom_the_display_needs(make_window, sample_library, qtbot):
    window, _card = answered(make_window, sample_library, qtbot)
    evidence = window.evidence
    qtbot.waitUntil(lambda: (MANUAL, 6) in evidence.images, timeout=20_000)
    image, zoom, size = evidence.images[(MANUAL, 6)]
    needed = evidence.view.current_scale() * evidence.devicePixelRatioF()
    assert needed <= zoom < needed + 0.26
    assert abs(image.width() - size[0] * zoom) <= 1
    evidence.view.zoom_by(2.0)
    qtbot.waitUntil(lambda: evidence.images[(MANUAL, 6)][1] >= 2 * needed - 0.01, timeout=20_000)


def test_previous_and_next_page_and_the_thumbnail_strip(make_window, sample_library, qtbot):
    window, _card = answered(make_window, sample_library, qtbot)
    evidence = window.evidence
    qtbot.waitUntil(lambda: evidence.page_label.text() == "Page 6 of 19", timeout=20_000)
    evidence.step(-1)
    assert evidence.page_label.text() == "Page 5 of 19"
    qtbot.waitUntil(
        lambda: all(not evidence.strip.item(i).icon().isNull() for i in range(2)), timeout=20_000
    )
    item = evidence.strip.item(1)
    assert item.text() == "p.7"
    evidence.strip.itemClicked.emit(item)
    assert evidence.current == (MANUAL, 7)
