"""Offline OCR of PDF pages, keeping line and word boxes in PDF points.

Two engines share one interface: RapidOCR (PP-OCRv4 ONNX models inside the
rapidocr-onnxruntime wheel; everywhere) and Apple's Vision framework (macOS, through
pyobjc). Both render the page, recognise lines, and map pixel boxes back to the
coordinates PyMuPDF's text extraction uses: points from the top-left of the unrotated
page (cropbox), so OCR words and text-layer words can be handled the same way.

A page scanned sideways or upside down is read turned upright (``read_upright``), and
lines come in reading order: column by column on a page set in columns of prose, else top
to bottom and left to right within a row. Word boxes are Vision's own, or for RapidOCR cut
from the line box in proportion to character positions: close enough to highlight a word.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np
import pymupdf

from app.library.models import Box, TextLine, Word

# 200 dpi, measured on pages 53-55 of the Ademco 685 scan (RapidOCR, 2 shared cores):
# word spaces survive ("the following parameters"; 150 dpi gives "thefollowingparameters"),
# a faint line 150 dpi drops is read, and the text scores higher (text_layer_quality
# 0.943/0.962/0.961 against 0.919/0.956/0.948). Recognition, not detection, dominates
# the cost, so 200 dpi costs little more: 13-18 CPU-s per page against 15 at 150 dpi.
# 300 dpi took about twice as long for no better text.
DEFAULT_DPI = 200
ENGINE_NAMES = ("auto", "rapidocr", "vision", "none")

# A pixel box: (x0, y0, x1, y1) in the rendered image, y downwards.
_PixelBox = tuple[float, float, float, float]
_WORD = re.compile(r"\S+")


class OcrError(RuntimeError):
    """OCR failed or cannot run."""


class OcrUnavailableError(OcrError):
    """The OCR engine asked for cannot run on this machine."""


@dataclass(frozen=True, slots=True)
class OcrLine:
    """One recognised line: its text, box in PDF points, confidence 0-1 and word boxes."""

    text: str
    box: Box
    confidence: float
    words: tuple[Word, ...] = ()

    def to_text_line(self) -> TextLine:
        return TextLine(self.text, self.box)


class OcrEngine(Protocol):
    """Recognises the text of a page; boxes come back in PDF points, lines in reading order."""

    name: str

    def recognize(self, page: pymupdf.Page, dpi: int) -> list[OcrLine]: ...


@dataclass(frozen=True, slots=True)
class _RawLine:
    """A line as an engine found it, in pixels of the rendered page."""

    text: str
    box: _PixelBox
    confidence: float
    words: tuple[tuple[str, _PixelBox], ...] = ()


# --- geometry shared by the engines -------------------------------------------------


def render_page(page: pymupdf.Page, dpi: int, *, gray: bool = True) -> pymupdf.Pixmap:
    """The page as displayed (rotation applied), at `dpi`."""
    zoom = dpi / 72.0
    colorspace = pymupdf.csGRAY if gray else pymupdf.csRGB
    return page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=colorspace, alpha=False)


def pixels_to_points(page: pymupdf.Page, pix: pymupdf.Pixmap) -> pymupdf.Matrix:
    """Matrix taking pixels of `pix` (a render of `page`) to text-extraction coordinates."""
    rect = page.rect  # the displayed page, origin (0, 0)
    scale = pymupdf.Matrix(rect.width / pix.width, rect.height / pix.height)
    return scale * page.derotation_matrix


def pixmap_array(pix: pymupdf.Pixmap) -> np.ndarray:
    """A (height, width) or (height, width, channels) uint8 view of `pix`."""
    rows = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)
    pixels = rows[:, : pix.width * pix.n]
    return pixels if pix.n == 1 else pixels.reshape(pix.height, pix.width, pix.n)


def png_bytes(image: np.ndarray) -> bytes:
    """A (height, width) gray or (height, width, 3) RGB uint8 image as PNG."""
    image = np.ascontiguousarray(image)
    space = pymupdf.csGRAY if image.ndim == 2 else pymupdf.csRGB
    return pymupdf.Pixmap(space, image.shape[1], image.shape[0], image.tobytes(), 0).tobytes("png")


def quad_to_box(points: Sequence[Sequence[float]]) -> _PixelBox:
    """Axis-aligned box around a quadrilateral's corner points."""
    xs = [float(p[0]) for p in points]
    ys = [float(p[1]) for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def split_words(text: str, box: _PixelBox) -> tuple[tuple[str, _PixelBox], ...]:
    """Word boxes cut from a line box in proportion to character positions.

    Lines run left to right; a box much taller than wide holds vertical text, which
    RapidOCR reads top to bottom, and is cut along its height instead.
    """
    n = len(text)
    if not n:
        return ()
    x0, y0, x1, y1 = box
    if n > 1 and (y1 - y0) > 1.5 * (x1 - x0):
        step = (y1 - y0) / n
        return tuple(
            (m.group(), (x0, y0 + step * m.start(), x1, y0 + step * m.end()))
            for m in _WORD.finditer(text)
        )
    step = (x1 - x0) / n
    return tuple(
        (m.group(), (x0 + step * m.start(), y0, x0 + step * m.end(), y1))
        for m in _WORD.finditer(text)
    )


def reading_order(boxes: Sequence[_PixelBox]) -> list[int]:
    """Indices of `boxes` in reading order. A page set in columns of prose is read column
    by column, the left one first, between the lines that span the columns (a title, a
    caption); anything else top to bottom, and left to right within a row."""
    return _read(list(range(len(boxes))), boxes)


# A column of prose: its lines are mostly at least this many times as wide as they are
# high (some 20 characters or more). A table's label column, a figure's callouts or a
# list of parts are narrower, and keep their rows.
PROSE_ASPECT = 10.0
MIN_COLUMN_LINES = 4
# At most this share of a region's lines may cross a gutter (a title, a caption).
MAX_SPANNING = 0.2


def _read(idx: list[int], boxes: Sequence[_PixelBox]) -> list[int]:
    gutter = _gutter(idx, boxes)
    if gutter is None:
        return _rows(idx, boxes)
    spanning = sorted(
        (i for i in idx if boxes[i][0] < gutter < boxes[i][2]), key=lambda i: _centre(boxes[i])
    )
    out: list[int] = []
    top = -math.inf
    for stop in [*spanning, None]:
        bottom = _centre(boxes[stop]) if stop is not None else math.inf
        band = [i for i in idx if top <= _centre(boxes[i]) < bottom and i not in spanning]
        out += _read([i for i in band if boxes[i][2] <= gutter], boxes)
        out += _read([i for i in band if boxes[i][0] >= gutter], boxes)
        if stop is not None:
            out.append(stop)
            top = bottom
    return out


def _gutter(idx: list[int], boxes: Sequence[_PixelBox]) -> float | None:
    """The x of the gap between two columns of prose among ``idx``, or None: the right
    edge of a line such that lines of prose lie on both sides of it, few lines cross it,
    and of those, the widest gap."""
    if len(idx) < 2 * MIN_COLUMN_LINES:
        return None
    lo, hi = min(boxes[i][0] for i in idx), max(boxes[i][2] for i in idx)
    best: tuple[int, float, float] | None = None  # (crossing, -gap, x)
    for x in sorted({boxes[i][2] for i in idx}):
        if not lo + 0.2 * (hi - lo) <= x <= lo + 0.8 * (hi - lo):
            continue
        left = [boxes[i] for i in idx if boxes[i][2] <= x]
        right = [boxes[i] for i in idx if boxes[i][0] >= x]
        crossing = len(idx) - len(left) - len(right)
        if crossing > MAX_SPANNING * len(idx) or not (_prose(left) and _prose(right)):
            continue
        gap = min(b[0] for b in right) - x
        if best is None or (crossing, -gap) < best[:2]:
            best = (crossing, -gap, x)
    return None if best is None else best[2]


def _prose(column: Sequence[_PixelBox]) -> bool:
    if len(column) < MIN_COLUMN_LINES:
        return False
    aspects = sorted((b[2] - b[0]) / max(b[3] - b[1], 1.0) for b in column)
    return aspects[len(aspects) // 2] >= PROSE_ASPECT


def _centre(box: _PixelBox) -> float:
    return (box[1] + box[3]) / 2


def _rows(idx: list[int], boxes: Sequence[_PixelBox]) -> list[int]:
    """``idx`` top to bottom, left to right within a row: a box joins the current row
    when its vertical centre is within half a line height of the row's first box, so a
    label and its value on the same baseline stay together."""
    by_centre = sorted(idx, key=lambda i: boxes[i][1] + boxes[i][3])
    rows: list[list[int]] = []
    for i in by_centre:
        _, y0, _, y1 = boxes[i]
        if rows:
            first = boxes[rows[-1][0]]
            tolerance = 0.5 * min(y1 - y0, first[3] - first[1])
            if abs((y0 + y1) - (first[1] + first[3])) / 2 <= tolerance:
                rows[-1].append(i)
                continue
        rows.append([i])
    return [i for row in rows for i in sorted(row, key=lambda j: boxes[j][0])]


def _to_points(box: _PixelBox, matrix: pymupdf.Matrix) -> Box:
    rect = pymupdf.Rect(box) * matrix
    return (rect.x0, rect.y0, rect.x1, rect.y1)


def finish_lines(
    raw: list[_RawLine], matrix: pymupdf.Matrix, turns: int = 0, size: tuple[int, int] = (0, 0)
) -> list[OcrLine]:
    """Order raw lines for reading and map their boxes to PDF points. Lines read from the
    page's image turned ``turns`` quarter turns counter-clockwise (``np.rot90``) are
    ordered as read, and their boxes turned back first (``size``: the unturned image's
    width and height in pixels)."""
    lines = []
    for i in reading_order([line.box for line in raw]):
        line = raw[i]
        words = line.words or split_words(line.text, line.box)
        lines.append(
            OcrLine(
                text=line.text,
                box=_to_points(unturn(line.box, turns, size), matrix),
                confidence=line.confidence,
                words=tuple(
                    Word(text, _to_points(unturn(box, turns, size), matrix)) for text, box in words
                ),
            )
        )
    return lines


def unturn(box: _PixelBox, turns: int, size: tuple[int, int]) -> _PixelBox:
    """A box found in an image turned ``turns`` quarter turns counter-clockwise, in the
    pixels of the image before it was turned (``size``: its width and height)."""
    width, height = size
    x0, y0, x1, y1 = box
    if turns % 4 == 1:
        return (width - y1, x0, width - y0, x1)
    if turns % 4 == 2:
        return (width - x1, height - y1, width - x0, height - y0)
    if turns % 4 == 3:
        return (y0, height - x1, y1, height - x0)
    return box


# A line box this many times as high as it is wide stands on end.
SIDEWAYS_ASPECT = 1.5
# A sideways page's turned reading is kept when it reads at least this share of what the
# reading as scanned did (which may be right too, but orders its lines as they stand).
TURNED_SHARE = 0.8
# A reading below this confidence (by character) may be of a page scanned upside down.
UPRIGHT_CONFIDENCE = 0.8
# ... when it holds text enough to tell: a figure's few labels read unsurely either way.
UPSIDE_DOWN_MIN_CHARS = 100


def sideways(lines: Sequence[_RawLine]) -> bool:
    """Most of the text was found in boxes standing on end: the page was scanned turned
    a quarter (a landscape page in a portrait scan)."""
    upright = sum(
        len(ln.text)
        for ln in lines
        if ln.box[3] - ln.box[1] <= SIDEWAYS_ASPECT * (ln.box[2] - ln.box[0])
    )
    return sum(len(ln.text) for ln in lines) > 2 * upright


def confidence(lines: Sequence[_RawLine]) -> float:
    """The engine's confidence in a reading, by character (1 for no text: nothing to
    doubt)."""
    chars = sum(len(ln.text) for ln in lines)
    return read_weight(lines) / chars if chars else 1.0


def read_weight(lines: Sequence[_RawLine]) -> float:
    """How much an engine read, and how surely: characters times confidence."""
    return sum(len(ln.text) * ln.confidence for ln in lines)


def read_upright(
    read: Callable[[np.ndarray], list[_RawLine]], image: np.ndarray
) -> tuple[list[_RawLine], int]:
    """An engine's lines of a page image, and the quarter turns (counter-clockwise) of the
    image they were read from. A page scanned sideways (most text in boxes standing on
    end) is read again turned a quarter each way, and the better of those two readings
    (most characters read surely) is kept unless it reads much less than the first: its
    lines stand upright, so they are ordered as a reader reads them. An engine reads a
    standing line turned one way only; the other way gives nonsense ("uayt" for "then").
    A page of text read unsurely is read again upside down, and kept so if that reads more: a
    page scanned upside down reads as nonsense at a confidence of about 0.6-0.7, where
    upright scans read at 0.95 or more (measured on pages of the two scanned manuals of
    the development corpora)."""
    raw = read(image)
    if not sideways(raw):
        chars = sum(len(ln.text) for ln in raw)
        if chars < UPSIDE_DOWN_MIN_CHARS or confidence(raw) >= UPRIGHT_CONFIDENCE:
            return raw, 0
        flipped = read(np.ascontiguousarray(np.rot90(image, 2)))
        return (flipped, 2) if read_weight(flipped) > read_weight(raw) else (raw, 0)
    k, turned = max(
        ((k, read(np.ascontiguousarray(np.rot90(image, k)))) for k in (1, 3)),
        key=lambda kr: read_weight(kr[1]),
    )
    if read_weight(turned) >= TURNED_SHARE * read_weight(raw):
        return turned, k
    return raw, 0


def recognize_image(
    read: Callable[[np.ndarray], list[_RawLine]], page: pymupdf.Page, dpi: int, gray: bool
) -> list[OcrLine]:
    """Render ``page``, read it upright with ``read`` (an engine's lines of an image, in
    its pixels), and give the lines in reading order with boxes in PDF points."""
    pix = render_page(page, dpi, gray=gray)
    raw, turns = read_upright(read, pixmap_array(pix))
    return finish_lines(raw, pixels_to_points(page, pix), turns, (pix.width, pix.height))


# --- RapidOCR --------------------------------------------------------------------------


class RapidOcrEngine:
    """PP-OCRv4 through rapidocr-onnxruntime: models ship in the wheel, nothing is fetched.

    The ONNX sessions load on first use (about 1 s) and are shared by every instance.
    The 0/180 degree line classifier is off: pages are rendered upright, and on clean
    scans the classifier turned a correct line upside down.
    """

    name = "rapidocr"
    _models: ClassVar[dict[float, Any]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, min_confidence: float = 0.5) -> None:
        self.min_confidence = min_confidence

    @classmethod
    def is_available(cls) -> bool:
        return importlib.util.find_spec("rapidocr_onnxruntime") is not None

    def _model(self) -> Any:
        with self._lock:
            model = self._models.get(self.min_confidence)
            if model is None:
                from rapidocr_onnxruntime import RapidOCR

                # max_side_len: keep the resolution asked for (the default shrinks
                # anything over 2000 px, i.e. a letter page above 180 dpi).
                model = RapidOCR(max_side_len=20000, text_score=self.min_confidence, use_cls=False)
                self._models[self.min_confidence] = model
            return model

    def recognize(self, page: pymupdf.Page, dpi: int) -> list[OcrLine]:
        return recognize_image(self._read, page, dpi, gray=True)

    def _read(self, image: np.ndarray) -> list[_RawLine]:
        result, _ = self._model()(image, use_cls=False)
        return [
            _RawLine(str(text).strip(), quad_to_box(quad), float(score))
            for quad, text, score in result or ()
            if str(text).strip()
        ]


# --- Apple Vision ----------------------------------------------------------------------


def vision_box_to_pixels(
    x: float, y: float, w: float, h: float, width: int, height: int
) -> _PixelBox:
    """A Vision box (normalised 0-1, origin bottom-left) as pixels with origin top-left."""
    return (x * width, (1.0 - y - h) * height, (x + w) * width, (1.0 - y) * height)


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class VisionOcrEngine:
    """Apple's Vision text recognition (VNRecognizeTextRequest, accurate level); macOS only."""

    name = "vision"

    def __init__(self, languages: Sequence[str] = ("en-US",), language_correction: bool = True):
        self.languages = list(languages)
        self.language_correction = language_correction

    @classmethod
    def is_available(cls) -> bool:
        if sys.platform != "darwin":
            return False
        return all(importlib.util.find_spec(m) for m in ("objc", "Foundation", "Vision"))

    def recognize(self, page: pymupdf.Page, dpi: int) -> list[OcrLine]:
        if not self.is_available():
            raise OcrUnavailableError("Apple Vision OCR needs macOS with pyobjc-framework-Vision")
        return recognize_image(self._read, page, dpi, gray=False)

    def _read(self, image: np.ndarray) -> list[_RawLine]:
        import Foundation  # type: ignore[import-not-found]
        import objc  # type: ignore[import-not-found]
        import Vision  # type: ignore[import-not-found]

        png = png_bytes(image)
        height, width = image.shape[:2]
        with objc.autorelease_pool():
            data = Foundation.NSData.dataWithBytes_length_(png, len(png))
            handler = Vision.VNImageRequestHandler.alloc().initWithData_options_(data, {})
            request = Vision.VNRecognizeTextRequest.alloc().init()
            request.setRecognitionLevel_(Vision.VNRequestTextRecognitionLevelAccurate)
            request.setUsesLanguageCorrection_(self.language_correction)
            request.setRecognitionLanguages_(self.languages)
            ok, error = handler.performRequests_error_([request], None)
            if not ok:
                raise OcrError(f"Vision text recognition failed: {error}")
            return [
                line
                for observation in request.results() or ()
                if (line := self._line(observation, width, height)) is not None
            ]

    def _line(self, observation: Any, width: int, height: int) -> _RawLine | None:
        candidates = observation.topCandidates_(1)
        if not candidates:
            return None
        best = candidates[0]
        text = str(best.string()).strip()
        if not text:
            return None
        box = self._pixels(observation.boundingBox(), width, height)
        return _RawLine(text, box, float(best.confidence()), self._words(best, text, width, height))

    def _words(
        self, candidate: Any, text: str, width: int, height: int
    ) -> tuple[tuple[str, _PixelBox], ...]:
        """Vision's own word boxes; empty (so split proportionally) if any word has none."""
        words = []
        for m in _WORD.finditer(text):
            start = _utf16_len(text[: m.start()])  # Vision ranges count UTF-16 units
            length = _utf16_len(m.group())
            try:
                observation, _error = candidate.boundingBoxForRange_error_((start, length), None)
            except Exception:  # pyobjc raises for ranges Vision cannot place
                return ()
            if observation is None:
                return ()
            words.append((m.group(), self._pixels(observation.boundingBox(), width, height)))
        return tuple(words)

    @staticmethod
    def _pixels(rect: Any, width: int, height: int) -> _PixelBox:
        return vision_box_to_pixels(
            rect.origin.x, rect.origin.y, rect.size.width, rect.size.height, width, height
        )


# --- choosing an engine ----------------------------------------------------------------


def make_ocr_engine(name: str) -> OcrEngine | None:
    """The OCR engine a setting names: 'auto', 'rapidocr', 'vision' or 'none' (None).

    'auto' is Vision on a Mac that has it, else RapidOCR.

    Raises:
        ValueError: for a name not in ENGINE_NAMES.
        OcrUnavailableError: when the engine asked for cannot run here.
    """
    key = name.strip().lower()
    if key == "none":
        return None
    if key == "auto":
        if VisionOcrEngine.is_available():
            return VisionOcrEngine()
        key = "rapidocr"
    if key == "vision":
        if not VisionOcrEngine.is_available():
            raise OcrUnavailableError(
                "OCR engine 'vision' needs macOS with pyobjc-framework-Vision installed; "
                "use 'rapidocr' or 'auto'"
            )
        return VisionOcrEngine()
    if key == "rapidocr":
        if not RapidOcrEngine.is_available():
            raise OcrUnavailableError(
                "OCR engine 'rapidocr' needs the rapidocr-onnxruntime package installed"
            )
        return RapidOcrEngine()
    raise ValueError(f"unknown OCR engine {name!r}: choose one of {', '.join(ENGINE_NAMES)}")
