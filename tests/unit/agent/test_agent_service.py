"""Which mode the agent starts in: no-LLM unless a usable LLM is configured or installed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from app.agent.service import choose_models
from app.config import Settings
from app.runtime.registry import ModelNotFoundError

GB = 1024**3


@dataclass
class Info:
    id: str
    kind: str
    weight_bytes: int
    fits: bool = True


@dataclass
class Handle:
    info: Info
    backend: str = "loaded"


class Registry:
    """A registry stand-in: what is installed, and handles that never load anything."""

    def __init__(self, *models: Info) -> None:
        self.installed = list(models)

    def models(self, kind: str) -> list[Info]:
        return [m for m in self.installed if m.kind == kind]

    def get(self, spec: str) -> Handle:
        for info in self.installed:
            if info.id == spec:
                return Handle(info)
        raise ModelNotFoundError(f"model {spec!r} is not on this machine")


SMOL = Info("HuggingFaceTB/SmolLM2-135M-Instruct", "llm", int(0.27 * GB))
QWEN3B = Info("mlx-community/Qwen2.5-3B-Instruct-4bit", "llm", int(1.7 * GB))
QWEN7B = Info("mlx-community/Qwen2.5-7B-Instruct-4bit", "llm", int(4.1 * GB))
VLM = Info("tiny-vlm", "vlm", int(0.3 * GB))


@pytest.mark.parametrize(
    ("installed", "setting", "expected"),
    [
        ((), "", None),
        ((SMOL,), "", None),  # too small to follow the decision format
        ((SMOL, QWEN3B, QWEN7B), "", QWEN7B.id),  # recommended order
        ((QWEN7B,), "none", None),
        ((SMOL, QWEN7B), SMOL.id, SMOL.id),  # named in the settings: used
        ((QWEN7B,), "missing/model", None),
        ((Info("big", "llm", 6 * GB, fits=False),), "", None),
    ],
)
def test_llm_mode_needs_a_usable_model(
    installed: tuple[Info, ...], setting: str, expected: str | None
) -> None:
    choice = choose_models(Settings(llm=setting), Registry(*installed))

    chosen: Any = choice.llm
    assert (chosen is not None) == (expected is not None), choice.reason
    if expected:
        assert choice.reason == f"llm {expected}" and chosen() == "loaded"


def test_any_installed_vlm_is_used() -> None:
    assert choose_models(Settings(), Registry(VLM)).vlm is not None
    assert choose_models(Settings(vlm="off"), Registry(VLM)).vlm is None


def test_warm_up_loads_what_the_first_question_needs(make_agent, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from app.retrieval import lexical, units

    monkeypatch.setattr(lexical, "THRESHOLD", 1)  # the sample library counts as large
    agent = make_agent()
    store = agent.resources.text_search.store
    assert store not in lexical._indexes
    calls: list[list[str]] = []
    embedder = agent.resources.embedder
    original = embedder.embed
    embedder.embed = lambda texts: calls.append(list(texts)) or original(texts)  # type: ignore[method-assign]
    try:
        agent.warm_up()
    finally:
        embedder.embed = original  # type: ignore[method-assign]
    assert calls == [["warm-up"]]
    assert units._registry is not None
    assert set(lexical._indexes[store]) == {"chunks_fts", "pages_fts"}, "postings read"
