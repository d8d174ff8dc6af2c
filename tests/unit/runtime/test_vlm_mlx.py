"""MlxVLM on a tiny random Qwen2-VL built at test time: page images in, streamed tokens out."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from app.runtime.vlm_mlx import MlxVLM, downscale
from tests.helpers.tiny_models import tiny_vlm_path


@pytest.fixture(scope="module")
def vlm(tmp_path_factory: pytest.TempPathFactory) -> MlxVLM:
    model = MlxVLM(tiny_vlm_path(tmp_path_factory), {"max_image_side": 224})
    model.load()
    return model


def page(width: int = 1700, height: int = 2200) -> Image.Image:
    """A page-like render: white with a red 'diagram' box."""
    image = Image.new("RGB", (width, height), "white")
    ImageDraw.Draw(image).rectangle(
        [width // 10, height // 10, width // 2, height // 3], fill="red"
    )
    return image


@pytest.fixture
def seen_images(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Records the images mlx-vlm receives, then lets the call through."""
    import mlx_vlm

    seen: list[Any] = []
    real = mlx_vlm.stream_generate

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.extend(kwargs.get("image") or [])
        return real(*args, **kwargs)

    monkeypatch.setattr(mlx_vlm, "stream_generate", spy)
    return seen


def test_downscale_keeps_aspect_and_leaves_small_images_alone(tmp_path: Path) -> None:
    big = downscale(page(1700, 2200), 1024)
    assert big.size == (791, 1024)
    assert downscale(page(300, 200), 1024).size == (300, 200)

    path = tmp_path / "page.png"
    page(2000, 1000).convert("L").save(path)
    from_file = downscale(path, 500)
    assert (from_file.size, from_file.mode) == ((500, 250), "RGB")


def test_answers_about_a_page_image_after_downscaling(vlm: MlxVLM, seen_images: list) -> None:
    events = list(vlm.stream("What does this page show?", [page()], max_tokens=8))

    assert max(seen_images[0].size) == 224
    assert events[-1].finish_reason == "length"
    assert events[-1].tokens == 8
    assert events[-1].prompt_tokens > 20  # the image tokens are in the prompt
    assert "".join(e.text for e in events)


def test_several_images_from_paths_and_pil_with_a_system_prompt(
    vlm: MlxVLM, seen_images: list, tmp_path: Path
) -> None:
    path = tmp_path / "p1.png"
    page(800, 600).save(path)

    one = vlm.complete("Compare the pages.", [page()], max_tokens=4)
    two = vlm.complete("Compare the pages.", [path, page()], system="Be brief.", max_tokens=4)

    assert len(seen_images) == 3
    assert two.prompt_tokens > one.prompt_tokens
    assert two.tokens == 4


def test_cancel_between_tokens(vlm: MlxVLM) -> None:
    cancel = threading.Event()
    events = []
    for event in vlm.stream("Describe.", [page()], max_tokens=100, cancel=cancel):
        events.append(event)
        if len(events) == 2:
            cancel.set()

    assert [e.finish_reason for e in events] == [None, None, "cancelled"]


def test_a_missing_image_file_fails_at_the_call(vlm: MlxVLM, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        vlm.stream("Describe.", [tmp_path / "missing.png"])
