"""The abstention fit judges each question by its best quote set, as the agent answers."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from fit_abstention import Sample, figures, fit, probabilities, threshold

from app.agent.abstention import SIGNALS


def sample(answerable: bool, *runs: float) -> Sample:
    # One signal varies (support); the others are held at 0.
    rows = np.zeros((len(runs), len(SIGNALS)))
    rows[:, 0] = runs
    return Sample("c", "q", rows, answerable)


def test_a_question_is_answered_when_any_of_its_searches_clears_the_threshold() -> None:
    w = np.zeros(len(SIGNALS) + 1)
    w[0], w[1] = -5.0, 10.0  # probability 0.5 at support 0.5
    rescued = sample(True, 0.1, 0.9)  # the first search misses, a later one quotes it
    assert probabilities([rescued], w)[0] > 0.95
    assert sample(True, 0.1, 0.9).signals[0] == 0.1  # the question as asked


def test_the_threshold_keeps_false_abstentions_within_the_limit() -> None:
    samples = [sample(True, s) for s in (0.6, 0.7, 0.8, 0.9, 0.95)]
    samples += [sample(False, s) for s in (0.1, 0.2, 0.65)]
    w = fit(samples)
    assert w[1] > 0  # more support, more likely answered
    t = threshold(samples, w, max_false=0.0)
    got = figures(samples, w, t)
    assert got["false"] == 0 and got["declined_right"] >= 2
