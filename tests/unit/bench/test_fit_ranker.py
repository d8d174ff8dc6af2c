"""The ranker's blend is the mean of the grid's best blends, not one lucky best."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from fit_ranker import GRID, Question, best_blend, choose_blend, rank_figures

from app.retrieval.ranker import FEATURES


def question(right: list[float], wrong: list[float]) -> Question:
    """Two candidate pages: the right one, then another."""
    return Question("c", np.asarray([right, wrong]), np.asarray([True, False]))


def features(coverage: float, semantic: float) -> list[float]:
    out = [0.0] * len(FEATURES)
    out[FEATURES.index("coverage")] = coverage
    out[FEATURES.index("semantic")] = semantic
    return out


def test_the_chosen_blend_ranks_right_pages_first_and_is_scaled_like_a_grid_blend() -> None:
    # Coverage tells the pages apart in every question; meaning misleads in one.
    questions = [
        question(features(0.9, 0.5), features(0.3, 0.6)),
        question(features(0.8, 0.7), features(0.2, 0.3)),
        question(features(0.7, 0.2), features(0.4, 0.9)),
    ]
    w = choose_blend(questions)
    assert np.abs(w).max() == 1.0
    assert w[FEATURES.index("coverage")] == 1.0
    assert rank_figures(questions, w)["hit@1"] == 1.0
    # The single best is one grid point; the mean of the best share is not bound to it.
    best = best_blend(questions)
    assert all(v in GRID[n] for n, v in zip(FEATURES, best, strict=True))
    assert rank_figures(questions, best)["hit@1"] == 1.0


def test_a_question_whose_candidates_hold_no_right_page_chooses_nothing() -> None:
    empty = Question("c", np.zeros((2, len(FEATURES))), np.asarray([False, False]))
    ok = question(features(0.9, 0.1), features(0.1, 0.1))
    assert rank_figures([ok], choose_blend([ok, empty]))["hit@1"] == 1.0
