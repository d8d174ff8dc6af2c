"""The second-stage page ranker: a few features per candidate page, one linear score.

The first stage (``TextSearch._rank_pages``) fuses dense, BM25 and identifier hits by
reciprocal rank. Its best pages are then re-scored on all their evidence. Each feature
says one thing about a page a ranker can know in any manual of any trade:

- ``fused``: the first stage's score, relative to the best page's;
- ``coverage``: the share of the question's term weight found within a few lines, with
  headings and a table's header row as context. A word weighs its IDF times its
  burstiness in the library (``TextSearch.burstiness``): a word the pages print once
  where they print it at all says how a question is put, not where its answer is, and
  the word after "how" ("how *many*", "how *long*") is left out for the same reason;
- ``semantic``: the closest chunk's cosine similarity to the question;
- ``page_bm25``, ``chunk_bm25``, ``dense``: reciprocal ranks in each candidate list;
- ``product``: +1 when the question names this manual's product, -1 when it names another;
- ``quantity``: +1 when the question asks for a quantity (a voltage, a torque) and the page
  prints a value in a unit of it, -1 when it asks and the page prints none;
- ``identifiers``: the share of the question's codes and values the page prints verbatim.

The weights are chosen by ``bench/fit_ranker.py`` (the mean of the best blends of a coarse
grid over the development sets' candidates, with leave-one-corpus-out figures printed
beside them) and written to ``ranker_weights.py``; nothing here is tuned by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.retrieval.ranker_weights import BIAS, WEIGHTS

FEATURES = (
    "fused",
    "coverage",
    "semantic",
    "page_bm25",
    "chunk_bm25",
    "dense",
    "product",
    "quantity",
    "identifiers",
)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A candidate page and its features (kept on the result so a fit can read them)."""

    document_id: int
    page: int
    features: tuple[float, ...]  # in the order of FEATURES

    def as_dict(self) -> dict[str, float]:
        return dict(zip(FEATURES, self.features, strict=True))


def reciprocal(rank: int | None, k: int = 1) -> float:
    """1 for the first of a list, 1/2 for the second..., 0 when not in it."""
    return 0.0 if rank is None else 1.0 / (k + rank)


def score(features: tuple[float, ...], weights: Mapping[str, float] | None = None) -> float:
    """The linear score (log-odds that the page answers the question)."""
    weights = WEIGHTS if weights is None else weights
    return BIAS + sum(weights.get(n, 0.0) * x for n, x in zip(FEATURES, features, strict=True))
