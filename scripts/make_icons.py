"""Render resources/lantern.svg into the app's icons: PNGs at every size the window, the Dock
and the bundle use (resources/icons/lantern-N.png) and a macOS resources/lantern.icns.

Works on Linux and macOS alike: Qt's SVG renderer draws the PNGs (offscreen, no display
needed) and the .icns container is written here (it is a list of PNG chunks), so Apple's
iconutil is not required.

    .venv/bin/python scripts/make_icons.py
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SVG = ROOT / "resources" / "lantern.svg"
ICON_DIR = ROOT / "resources" / "icons"
ICNS = ROOT / "resources" / "lantern.icns"
SIZES = (16, 32, 48, 64, 128, 256, 512, 1024)
# .icns chunk types holding PNG data, by pixel size (the @2x variants reuse the same PNGs).
ICNS_TYPES = (
    (b"icp4", 16),
    (b"icp5", 32),
    (b"icp6", 64),
    (b"ic07", 128),
    (b"ic08", 256),
    (b"ic09", 512),
    (b"ic10", 1024),
    (b"ic11", 32),
    (b"ic12", 64),
    (b"ic13", 256),
    (b"ic14", 512),
)


def render_pngs(svg: Path, out_dir: Path, sizes: tuple[int, ...] = SIZES) -> dict[int, Path]:
    """One PNG per size, drawn from the SVG with antialiasing on a transparent background."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"error: {svg} is not a valid SVG")
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        path = out_dir / f"lantern-{size}.png"
        if not image.save(str(path), "PNG"):
            raise SystemExit(f"error: cannot write {path}")
        paths[size] = path
    return paths


def write_icns(pngs: dict[int, Path], out: Path) -> None:
    """An .icns file: the 'icns' header, then one (type, length, PNG bytes) chunk per size."""
    chunks = b""
    for kind, size in ICNS_TYPES:
        data = pngs[size].read_bytes()
        chunks += kind + struct.pack(">I", len(data) + 8) + data
    out.write_bytes(b"icns" + struct.pack(">I", len(chunks) + 8) + chunks)


def main() -> int:
    pngs = render_pngs(SVG, ICON_DIR)
    write_icns(pngs, ICNS)
    print(f"wrote {len(pngs)} PNGs in {ICON_DIR} and {ICNS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
