"""Choose how much a page's best line orders a search's first pages, leaving one corpus out.

    .venv/bin/python bench/fit_lines.py --cache DIR [--together]

``LibrarySearch`` orders the first page's manual's pages among a search's first
``LINE_PAGES`` by the page ranker's score plus ``LINE_WEIGHT`` times the score of the page's
best line as a quote (``library_search.by_lines``, ``extractive.best_lines``). For every
answerable question of every set the search runs once, keeping its pages, their best-line
scores and which are right; then every weight of ``GRID`` orders them again. For each
corpus the weight is chosen on the fitting sets (``FIT_SETS``) of the other corpora (most
first places, then MRR, then the smallest weight) and reported on that corpus's sets,
those no choice is made on (``trades-heldout``) included; the weight chosen on all fitting
sets is printed last, beside the one that ships. The time ``best_lines`` takes a search is
printed first. With ``--together``, every set is asked in one library of all the corpora,
as ``cross_corpus.py --together`` asks them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cross_corpus import DEFAULT_SETS, FIT_SETS, TOGETHER, BenchSet, open_library  # noqa: E402

from app.agent.library_search import LINE_WEIGHT, by_lines, line_pages  # noqa: E402
from app.bench.dataset import load_dataset  # noqa: E402
from app.retrieval.text import PageHit  # noqa: E402

GRID = (0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1.0, 1.5)


@dataclass
class Question:
    set_name: str
    corpus: str
    fitting: bool  # of a set weights are chosen on
    pages: tuple[PageHit, ...]  # the search's, in the page ranker's order
    lines: dict[tuple[int, int], float]  # best-line scores of those ``line_pages`` orders
    gold: set[tuple[int, int]]  # (document id, page) of the right pages


def collect(sets: Sequence[BenchSet], cache: Path | None, together: bool) -> list[Question]:
    from app.agent.extractive import best_lines
    from app.library.embedding import make_embedder
    from app.retrieval.text import TextSearch

    embedder = make_embedder("minilm")
    fitting = {s.partition("=")[0] for s in FIT_SETS}
    out: list[Question] = []
    seconds: list[float] = []
    libraries: dict[Path, Any] = {}
    if together:
        corpora = list(dict.fromkeys(s.corpus for s in sets if s.corpus.is_dir()))
        libraries = dict.fromkeys(corpora, open_library(corpora, cache, TOGETHER)[0])
    for bench_set in sets:
        if bench_set.corpus not in libraries:
            libraries[bench_set.corpus] = open_library(bench_set.corpus, cache)[0]
        library = libraries[bench_set.corpus]
        search = TextSearch(library.store, embedder)
        names = {d.id: d.file_name for d in library.store.list_documents()}
        for item in load_dataset(bench_set.dataset):
            if item.unanswerable:
                continue
            result = search.search(item.query)
            started = time.perf_counter()
            lines = best_lines(result, search, library.store, line_pages(result.pages))
            seconds.append(time.perf_counter() - started)
            gold = item.gold_pages()
            right = {
                (p.document_id, p.page)
                for p in result.pages
                if (names[p.document_id], p.page) in gold
            }
            out.append(
                Question(
                    bench_set.name,
                    bench_set.corpus.name,
                    bench_set.name in fitting,
                    result.pages,
                    lines,
                    right,
                )
            )
        search.close()
    if len(seconds) > 1:
        p50, p95 = statistics.median(seconds), statistics.quantiles(seconds, n=20)[-1]
        print(
            f"best lines of the first pages: p50 {1000 * p50:.1f} ms,"
            f" p95 {1000 * p95:.1f} ms over {len(seconds)} searches"
        )
    return out


def rank(q: Question, weight: float) -> int | None:
    """The first right page's place once the first pages are ordered with ``weight``."""
    pages = by_lines(q.pages, q.lines, weight)
    keys = [(p.document_id, p.page) for p in pages]
    return next((place for place, key in enumerate(keys, start=1) if key in q.gold), None)


def figures(questions: Sequence[Question], weight: float) -> tuple[int, float]:
    """First places and MRR."""
    ranks = [rank(q, weight) for q in questions]
    firsts = sum(1 for r in ranks if r == 1)
    return firsts, sum(1 / r for r in ranks if r) / (len(ranks) or 1)


def choose(questions: Sequence[Question]) -> float:
    """Most first places, then the best MRR, then the smallest weight."""
    return max(GRID, key=lambda w: (*figures(questions, w), -w))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", dest="sets", help="NAME=CORPUS_DIR:DATASET")
    parser.add_argument("--cache", type=Path, help="the libraries cross_corpus.py keeps")
    parser.add_argument(
        "--together", action="store_true", help="every set in one library (cross_corpus.py's)"
    )
    args = parser.parse_args(argv)
    sets = [BenchSet.parse(s) for s in (args.sets or DEFAULT_SETS)]
    questions = collect(sets, args.cache, args.together)
    names = list(dict.fromkeys(q.set_name for q in questions))
    print("first places (of n) by the weight of the best line:")
    print(f"{'weight':>7} " + " ".join(f"{n:>15}" for n in names) + f" {'all':>8}")
    for w in GRID:
        row = []
        for name in names:
            sub = [q for q in questions if q.set_name == name]
            row.append(f"{figures(sub, w)[0]:>11}/{len(sub):<3}")
        print(f"{w:>7.2f} " + " ".join(row) + f" {figures(questions, w)[0]:>8}")
    fit = [q for q in questions if q.fitting]
    print("\nleft out in turn (chosen on the other corpora's fitting sets):")
    for corpus in sorted({q.corpus for q in questions}):
        train = [q for q in fit if q.corpus != corpus]
        if not train:
            continue
        w = choose(train)
        for name in names:
            test = [q for q in questions if q.set_name == name and q.corpus == corpus]
            if not test:
                continue
            (b1, bm), (a1, am) = figures(test, 0.0), figures(test, w)
            print(
                f"  {corpus:<10} {name:<15} weight {w:.2f}: first places {b1} -> {a1} of"
                f" {len(test)}, MRR {bm:.3f} -> {am:.3f}"
            )
    print(f"\nchosen on all fitting sets: {choose(fit):.2f} (ships: {LINE_WEIGHT:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
