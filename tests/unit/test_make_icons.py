"""scripts/make_icons.py: the SVG lantern becomes PNGs and an .icns that readers accept."""

from __future__ import annotations

import importlib.util
import io
import sys
from pathlib import Path

from PIL import Image

REPO = Path(__file__).resolve().parents[2]


def load_script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("make_icons", REPO / "scripts" / "make_icons.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_icons"] = module
    spec.loader.exec_module(module)
    return module


def test_icons_render_at_every_size_and_the_icns_reads_back(tmp_path):
    make_icons = load_script()
    pngs = make_icons.render_pngs(make_icons.SVG, tmp_path, make_icons.SIZES)
    for size, path in pngs.items():
        image = Image.open(path)
        assert image.size == (size, size)
        assert image.mode == "RGBA"
    big = Image.open(pngs[256]).convert("RGBA")
    assert big.getpixel((0, 0))[3] == 0  # transparent corner outside the rounded tile
    assert big.getpixel((128, 150))[3] == 255  # the lantern's glass is opaque
    assert len(big.getcolors(maxcolors=1 << 16) or []) > 100  # a drawing, not a flat square

    icns = tmp_path / "lantern.icns"
    make_icons.write_icns(pngs, icns)
    data = icns.read_bytes()
    assert data[:4] == b"icns" and int.from_bytes(data[4:8], "big") == len(data)
    read = Image.open(icns)
    assert read.format == "ICNS"
    assert read.size == (1024, 1024)
    assert {(16, 16, 1), (32, 32, 2), (128, 128, 1), (256, 256, 2), (512, 512, 2)} <= set(
        read.info["sizes"]
    )
    # Every chunk is a PNG of the pixel size its type code stands for.
    offset, chunks = 8, {}
    while offset < len(data):
        kind, length = data[offset : offset + 4], int.from_bytes(data[offset + 4 : offset + 8])
        chunks[kind] = Image.open(io.BytesIO(data[offset + 8 : offset + length])).size
        offset += length
    assert chunks == {kind: (size, size) for kind, size in make_icons.ICNS_TYPES}


def test_the_committed_icons_match_the_svg_sizes():
    icons = REPO / "resources" / "icons"
    assert {p.name for p in icons.glob("lantern-*.png")} == {
        f"lantern-{size}.png" for size in (16, 32, 48, 64, 128, 256, 512, 1024)
    }
    assert (REPO / "resources" / "lantern.icns").is_file()
