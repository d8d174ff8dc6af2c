"""A candidate ranker feature is screened by the first places it wins on a corpus its
weight was not chosen on."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from screen_feature import (
    Page,
    Screened,
    choose_weight,
    first_places,
    prf_dense,
    prf_lexical,
    report,
)


def screened(corpus: str, shipped: list[float], extra: list[float], gold: int) -> Screened:
    right = np.zeros(len(shipped), dtype=bool)
    right[gold] = True
    return Screened(corpus, corpus, np.asarray(shipped), {"x": np.asarray(extra)}, right)


def test_a_feature_that_breaks_the_shipped_blends_ties_wins_and_a_tie_counts_against() -> None:
    # The right page is second by the shipped score; the feature puts it first at 0.2.
    q = screened("a", [1.0, 0.9], [0.0, 1.0], gold=1)
    assert first_places([q], "x", 0.0) == 0
    assert first_places([q], "x", 0.1) == 0  # 1.0 against 1.0: a tie is no first place
    assert first_places([q], "x", 0.2) == 1
    # The smallest weight of the most first places is chosen.
    assert choose_weight([q], "x") == 0.15
    # A question with no right page among its candidates counts for nothing.
    empty = screened("a", [1.0, 0.5], [0.0, 0.0], gold=0)
    empty.gold[:] = False
    assert first_places([q, empty], "x", 0.2) == 1


def test_the_report_chooses_each_corpus_weight_on_the_others() -> None:
    # Corpus a wants the feature, corpus b is hurt by it: left out, each gets the other's.
    a = [screened("a", [1.0, 0.9], [0.0, 1.0], gold=1) for _ in range(2)]
    b = [screened("b", [1.0, 0.9], [0.0, 1.0], gold=0)]
    lines = report(a + b, "x", ["a", "b"])
    assert any(line.split()[:1] == ["a"] and "weight 0.0 " in line for line in lines)
    b_line = next(line for line in lines if line.split()[:1] == ["b"])
    assert "weight 0.15" in b_line and b_line.endswith("first places 0 (at 0: 1)")


def test_feedback_features_favour_pages_like_the_first_ones() -> None:
    q = np.asarray([1.0, 0.0, 0.0])
    pages = [
        Page("relay output wiring relay contacts", np.asarray([[0.8, 0.6, 0.0]])),
        Page("battery charging", np.asarray([[0.7, 0.0, 0.714]])),
        Page("relay contacts rating", np.asarray([[0.6, 0.8, 0.0]])),
    ]
    order = np.asarray([0, 1, 2])
    dense = prf_dense(pages, order[:1], q)
    assert dense.max() == 0.0 and dense[2] > dense[1]
    lexical = prf_lexical(pages, order[:1])
    assert lexical[2] > lexical[1] == 0.0
