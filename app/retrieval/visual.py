"""Visual page search: ColQwen multi-vectors stored per page, ranked by MaxSim.

The vectors and their pooled summary (the page's mean vector and up to 16 k-means
centroids) are stored by ``app.library.visual_index``. A search scores every page by
MaxSim against those few pooled vectors (one matrix product over a matrix held in
memory), rescores the best ``candidates`` pages with exact MaxSim, and lays the winners'
similarity maps on the page to find the regions that matched. The mean vector alone was
measured as a first pass and kept the true best page only 30-40% of the time on
background-heavy synthetic pages; with the centroids it keeps it always
(bench/visual_search.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from app.library.models import Box
from app.library.visual_index import VisualPages
from app.runtime.colqwen import Availability, ColQwenBackend, PageEmbedding

if TYPE_CHECKING:
    from app.library.store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class VisualHit:
    """A page that matched a query.

    Attributes:
        score: MaxSim, the sum over query tokens of each token's best page cosine.
        confidence: MaxSim divided by the number of query tokens, clipped to 0..1: the mean
            best cosine, comparable across queries of different lengths.
        standout: how many robust standard deviations the page sits above the other
            candidates (0 when there are too few to tell); a strong hit stands out.
        regions: boxes in PDF points where the page matched best, strongest first.
    """

    document_id: int
    page: int
    score: float
    confidence: float
    standout: float
    regions: tuple[Box, ...] = ()


def _segment_maxsim(query: np.ndarray, flat: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """MaxSim of ``query`` against segments of ``flat`` rows beginning at ``starts``.

    One matrix product (one BLAS call) for all segments, then ``maximum.reduceat``:
    several times faster than a Python loop over pages.
    """
    sim = np.ascontiguousarray(query, dtype=np.float32) @ flat.T
    return np.maximum.reduceat(sim, starts, axis=1).sum(axis=0).astype(np.float64)


def maxsim_scores(query: np.ndarray, pages: Iterable[np.ndarray]) -> np.ndarray:
    """MaxSim of one query (n_tokens, dim) against each page's (n_vectors, dim) vectors."""
    pages = list(pages)
    if not pages:
        return np.zeros(0)
    flat = np.concatenate(pages).astype(np.float32, copy=False)
    return _segment_maxsim(query, flat, np.cumsum([0] + [len(p) for p in pages[:-1]]))


@dataclass(frozen=True, slots=True)
class PooledIndex:
    """Every page's pooled vectors in one matrix: ``flat[starts[i]:starts[i+1]]`` is page i."""

    page_ids: np.ndarray
    flat: np.ndarray
    starts: np.ndarray

    def first_pass(self, query: np.ndarray, n: int) -> np.ndarray:
        """Positions (into ``page_ids``) of the ``n`` pages with the best pooled MaxSim."""
        scores = _segment_maxsim(query, self.flat, self.starts)
        if n >= len(scores):
            return np.argsort(-scores)
        top = np.argpartition(-scores, n)[:n]
        return top[np.argsort(-scores[top])]


def patch_scores(query: np.ndarray, embedding: PageEmbedding) -> np.ndarray:
    """A (h, w) map of how well each patch matches the query.

    A patch scores the best similarity any query token has with it, measured above that
    token's median over the page: some tokens (padding, prompt) resemble every patch, and
    subtracting their level keeps them from lighting the whole page.
    """
    sim = query.astype(np.float32) @ embedding.patch_vectors.astype(np.float32).T
    lifted = sim - np.median(sim, axis=1, keepdims=True)
    return np.clip(lifted, 0.0, None).max(axis=0).reshape(embedding.grid)


def _components(mask: np.ndarray) -> list[list[tuple[int, int]]]:
    """8-connected groups of True cells (the grids are small: a plain flood fill will do)."""
    seen = np.zeros_like(mask, dtype=bool)
    groups = []
    for r0, c0 in zip(*np.nonzero(mask), strict=True):
        if seen[r0, c0]:
            continue
        stack, group = [(int(r0), int(c0))], []
        seen[r0, c0] = True
        while stack:
            r, c = stack.pop()
            group.append((r, c))
            for rr in range(max(r - 1, 0), min(r + 2, mask.shape[0])):
                for cc in range(max(c - 1, 0), min(c + 2, mask.shape[1])):
                    if mask[rr, cc] and not seen[rr, cc]:
                        seen[rr, cc] = True
                        stack.append((rr, cc))
        groups.append(group)
    return groups


def map_regions(
    scores: np.ndarray, page_size: tuple[float, float], threshold: float = 0.6, most: int = 3
) -> tuple[Box, ...]:
    """Boxes in PDF points around the hot parts of a patch-score map, strongest first.

    A patch is hot when it is ``threshold`` of the way from the map's median to its max;
    connected hot patches form a region, and regions with under a quarter of the best
    one's total score are dropped as noise.
    """
    lo, hi = float(np.median(scores)), float(scores.max())
    if hi - lo < 1e-6:
        return ()
    groups = _components(scores >= lo + threshold * (hi - lo))
    weights = [sum(float(scores[r, c]) for r, c in g) for g in groups]
    order = sorted(range(len(groups)), key=lambda i: -weights[i])
    (h, w), (width, height) = scores.shape, page_size
    boxes = []
    for i in order[:most]:
        if weights[i] < 0.25 * weights[order[0]]:
            break
        rows, cols = [r for r, _ in groups[i]], [c for _, c in groups[i]]
        boxes.append(
            (
                round(min(cols) / w * width, 2),
                round(min(rows) / h * height, 2),
                round((max(cols) + 1) / w * width, 2),
                round((max(rows) + 1) / h * height, 2),
            )
        )
    return tuple(boxes)


def standouts(scores: np.ndarray) -> np.ndarray:
    """Robust z-scores (median/MAD) of each score among the others; 0 when under 8 scores."""
    if len(scores) < 8:
        return np.zeros_like(scores)
    med = float(np.median(scores))
    mad = 1.4826 * float(np.median(np.abs(scores - med)))
    return (scores - med) / max(mad, 1e-6)


class VisualIndex(VisualPages):
    """The ``page_visual`` table of a store (``VisualPages``), with exact MaxSim rescoring."""

    def pooled_index(self, model: str) -> PooledIndex:
        """Every page's pooled vectors, cached by the library until the table changes."""
        pooled = self.pooled_pages(model)
        return PooledIndex(pooled.page_ids, pooled.flat, pooled.starts)

    def search(
        self,
        query: np.ndarray,
        k: int = 5,
        *,
        candidates: int = 64,
        model: str | None = None,
        regions: bool = True,
    ) -> list[VisualHit]:
        """The ``k`` best pages by exact MaxSim among the first pass's ``candidates``.

        ``model`` defaults to the one most pages were embedded with: vectors of
        different models cannot be compared.
        """
        model = model or self.main_model()
        if model is None:
            return []
        pooled = self.pooled_index(model)
        if not len(pooled.page_ids):
            return []
        chosen = [int(i) for i in pooled.page_ids[pooled.first_pass(query, max(candidates, k))]]
        embeddings = self.embeddings(chosen, model)
        chosen = [pid for pid in chosen if pid in embeddings]
        scores = maxsim_scores(query, (embeddings[pid].vectors for pid in chosen))
        stand = standouts(scores)
        hits = []
        for i in np.argsort(-scores)[:k]:
            pid = chosen[int(i)]
            hits.append(self._hit(pid, query, embeddings[pid], scores[i], stand[i], regions))
        return hits

    def _hit(
        self,
        page_id: int,
        query: np.ndarray,
        emb: PageEmbedding,
        score: float,
        standout: float,
        regions: bool,
    ) -> VisualHit:
        doc_id, number, width, height = self.page_place(page_id)
        boxes = map_regions(patch_scores(query, emb), (width, height)) if regions else ()
        confidence = min(max(score / max(len(query), 1), 0.0), 1.0)
        return VisualHit(doc_id, number, float(score), confidence, float(standout), boxes)


@dataclass(frozen=True, slots=True)
class VisualResults:
    """What a visual search found, or why it could not run (``reason`` non-empty)."""

    hits: tuple[VisualHit, ...] = ()
    reason: str = ""
    seconds: float = 0.0


class VisualSearch:
    """Visual search for the agent: text in, pages and regions out, never an exception."""

    def __init__(self, store: Store, backend: ColQwenBackend | None, model_name: str) -> None:
        self.index = VisualIndex(store)
        self.backend = backend
        self.model_name = model_name

    def available(self) -> Availability:
        """Usable when a model is configured and loadable and some page has been embedded."""
        if self.backend is None:
            return Availability(False, "no ColQwen model is configured")
        state = self.backend.available()
        if not state:
            return state
        if not self.index.has_pages(self.model_name):
            return Availability(False, f"no page is embedded with {self.model_name} yet")
        return Availability(True)

    def search(self, query: str, k: int = 5, candidates: int = 64) -> VisualResults:
        """The ``k`` best pages for ``query``; an unusable model gives a reason, not an error."""
        start = time.monotonic()
        state = self.available()
        if not state:
            return VisualResults(reason=state.reason)
        assert self.backend is not None
        try:
            q = self.backend.embed_queries([query])[0]
            hits = self.index.search(q, k, model=self.model_name, candidates=candidates)
        except Exception as exc:  # includes ColQwenUnavailable from a failed load
            log.warning("visual search failed: %s", exc)
            return VisualResults(reason=str(exc), seconds=time.monotonic() - start)
        return VisualResults(tuple(hits), "", time.monotonic() - start)
