"""Reciprocal-rank fusion: several ranked lists become one, each item scored by the sum of
``weight / (k + rank)`` over the lists it is in (Cormack et al., 2009).

Ranks, not scores, are combined, so lists whose scores live on different scales (BM25,
cosine, ColQwen MaxSim) can be fused without calibrating one against another.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

RRF_K = 60


def reciprocal_rank(
    lists: Sequence[Sequence[K]], weights: Sequence[float] | None = None, k: int = RRF_K
) -> dict[K, float]:
    """Each item's fused score (the lists are best first; an item absent from a list
    gains nothing from it)."""
    weights = weights if weights is not None else [1.0] * len(lists)
    fused: dict[K, float] = defaultdict(float)
    for items, weight in zip(lists, weights, strict=True):
        for rank, item in enumerate(items):
            fused[item] += weight / (k + rank)
    return dict(fused)


def fuse(
    lists: Sequence[Sequence[K]], weights: Sequence[float] | None = None, k: int = RRF_K
) -> list[tuple[K, float]]:
    """The items of all lists, best fused score first (ties keep first-seen order)."""
    scores = reciprocal_rank(lists, weights, k)
    return sorted(scores.items(), key=lambda kv: -kv[1])
