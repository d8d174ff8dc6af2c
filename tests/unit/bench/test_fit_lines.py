"""``fit_lines.py`` places a question's right page as ``LibrarySearch`` would order it, and
chooses the weight with the most first places, then the best MRR, then the smallest."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from fit_lines import GRID, Question, choose, figures, rank

from app.retrieval.text import PageHit


def hit(doc: int, page: int, score: float) -> PageHit:
    return PageHit(doc, f"m{doc}.pdf", f"Manual {doc}", page, score, 0.5, (), ())


def question(lines: dict[tuple[int, int], float], right: tuple[int, int]) -> Question:
    """Pages 1, 2, 3 of manual 1 scored 1.3, 1.2, 1.0, then page 9 of manual 2."""
    pages = (hit(1, 1, 1.3), hit(1, 2, 1.2), hit(1, 3, 1.0), hit(2, 9, 0.9))
    return Question("s", "c", True, pages, lines, {right})


def test_a_right_page_is_placed_as_the_search_would_order_it() -> None:
    # Page 2's best line is 0.5 better than page 1's: first above weight 0.2 (0.1 / 0.5).
    q = question({(1, 1): 0.2, (1, 2): 0.7, (1, 3): 0.0}, right=(1, 2))
    assert rank(q, 0.0) == 2
    assert rank(q, 0.1) == 2
    assert rank(q, 0.25) == 1
    # A page of another manual is never moved by lines, however good.
    other = question({(1, 1): 0.0, (2, 9): 9.0}, right=(2, 9))
    assert all(rank(other, w) == 4 for w in GRID)


def test_the_weight_with_most_first_places_then_the_smallest_is_chosen() -> None:
    gains = question({(1, 1): 0.2, (1, 2): 0.7, (1, 3): 0.0}, right=(1, 2))
    # Page 3 overtakes page 1 above weight 0.6 ((1.3 - 1.0) / 0.5), the wrong way round.
    loses = question({(1, 1): 0.0, (1, 2): 0.0, (1, 3): 0.5}, right=(1, 1))
    assert figures([gains, loses], 0.0)[0] == 1
    assert figures([gains, loses], 0.25)[0] == 2
    assert figures([gains, loses], 1.0)[0] == 1
    # 0.25, 0.3, 0.4 and 0.5 all give both first places and the same MRR: the smallest wins.
    assert choose([gains, loses]) == 0.25
    # Nothing to gain: no weight.
    assert choose([loses]) == 0.0
