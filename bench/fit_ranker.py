"""Fit the page ranker's weights, and prove them across corpora (leave one corpus out).

    .venv/bin/python bench/fit_ranker.py --cache DIR [--write]

For every answerable question of every development set, the text search runs once and
its re-ranked candidate pages are kept with their features (``app/retrieval/ranker.py``)
and whether each is a right page. Weights are chosen:

- on one corpus and reported on the other (both ways): the figure that says whether a
  weight transfers to manuals it never saw;
- on all the development sets together: the weights that ship (``--write`` puts them in
  ``app/retrieval/ranker_weights.py``), reported in-sample beside the rest.

Two kinds of model: a blend chosen from a coarse grid of weights (``GRID``: the mean of
its best 1%, ``choose_blend``; the single best is printed beside it), and a listwise
softmax regression. With a few dozen questions per corpus the regression learns its
corpus and transfers worse than a blend (the table shows it), so the blend ships.

The shipped weights and the first stage alone are printed in the same table, and so is
how often the right page is among the candidates at all (the ceiling of any re-ranking).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cross_corpus import FIT_SETS, BenchSet, cached, open_library  # noqa: E402

from app.bench.dataset import load_dataset  # noqa: E402
from app.retrieval.ranker import FEATURES  # noqa: E402
from app.retrieval.ranker_weights import WEIGHTS  # noqa: E402

WEIGHTS_FILE = ROOT / "app" / "retrieval" / "ranker_weights.py"


@dataclass
class Question:
    corpus: str  # the corpus folder: sets over one corpus are one group
    features: np.ndarray  # candidates x features
    gold: np.ndarray  # bool per candidate


def collect(sets: Sequence[BenchSet], cache: Path | None, depth: int = 0) -> list[Question]:
    """Each answerable question's candidates: the first ``depth`` pages of the first
    stage (0: as many as the search re-scores), in its order, with their features."""
    from app.library.embedding import make_embedder
    from app.retrieval.text import TextSearch

    embedder = make_embedder("minilm")
    out: list[Question] = []
    libraries: dict[Path, object] = {}
    for bench_set in sets:
        if bench_set.corpus not in libraries:
            libraries[bench_set.corpus] = open_library(bench_set.corpus, cache)[0]
        library = libraries[bench_set.corpus]
        search = TextSearch(library.store, embedder)  # type: ignore[attr-defined]
        if depth:
            search.rerank_depth = depth
        names = {d.id: d.file_name for d in library.store.list_documents()}  # type: ignore[attr-defined]
        for item in load_dataset(bench_set.dataset):
            if item.unanswerable:
                continue
            result = search.search(item.query)
            gold = item.gold_pages()
            rows = [c.features for c in result.candidates]
            labels = [(names[c.document_id], c.page) in gold for c in result.candidates]
            out.append(
                Question(
                    bench_set.corpus.name,
                    np.asarray(rows, dtype=float).reshape(-1, len(FEATURES)),
                    np.asarray(labels, dtype=bool),
                )
            )
        search.close()
    return out


def fit(
    questions: Sequence[Question],
    l2: float = 0.05,
    steps: int = 3000,
    prior: np.ndarray | None = None,
) -> np.ndarray:
    """Listwise softmax regression: maximise each question's probability of its right
    pages among its candidates (questions whose candidates hold none teach nothing).
    The L2 penalty pulls the weights towards ``prior`` (zero by default): with a few dozen
    questions per corpus, a fit far from a simple blend learns the corpus, not manuals."""
    usable = [q for q in questions if q.gold.any() and len(q.gold) > 1]
    prior = np.zeros(len(FEATURES)) if prior is None else prior
    w = prior.copy()
    rate = 0.5
    for _ in range(steps):
        grad = 2 * l2 * (w - prior)
        for q in usable:
            s = q.features @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            pg = np.where(q.gold, p, 0.0)
            pg /= pg.sum()
            grad += q.features.T @ (p - pg) / len(usable)
        w -= rate * grad
    return w


# The grid a simple blend is chosen from: the three main signals at a few strengths, the
# rest on or off at a small weight. Coarse on purpose: a few dozen questions per corpus
# cannot tell finer weights apart, and a finer grid would learn the corpus.
GRID = {
    "fused": (0.0, 0.25, 0.5, 1.0),
    "coverage": (0.0, 0.25, 0.5, 1.0),
    "semantic": (0.0, 0.25, 0.5, 1.0),
    "page_bm25": (0.0, 0.25),
    "chunk_bm25": (0.0, 0.25),
    "dense": (0.0, 0.25),
    "product": (0.0, 0.1, 0.25),
    "quantity": (0.0, 0.1, 0.25),
    "identifiers": (0.0, 0.25),
}


# The blend that ships is the mean of the best blends, not the single best: with a few
# dozen questions per corpus many blends tie within a question or two, and which of
# them is "best" is chance. Their mean sits in the middle of the good region. Measured by
# leave-one-corpus-out (the table prints both), before coverage was weighted by
# burstiness: Hit@1 over the 101 questions of the three corpora left out 0.614 for the
# best 1%, 0.584 for the single best (0.2%, 0.5%, 2%, 5%: 0.604, 0.623, 0.614, 0.604).
# Since that weighting the single best transfers better (0.693 against 0.644): on this
# many questions neither rule is settled, and the best 1% stays.
TOP_SHARE = 0.01


def blend_scores(questions: Sequence[Question]) -> tuple[np.ndarray, np.ndarray]:
    """Every grid blend, and its Hit@1 (then MRR) on ``questions``; a tie between a right
    page and another counts against the right page."""
    combos = np.asarray(list(itertools.product(*(GRID[f] for f in FEATURES))), dtype=float)
    hit = np.zeros(len(combos))
    mrr = np.zeros(len(combos))
    for q in questions:
        if not q.gold.any():
            continue
        scores = q.features @ combos.T
        best_right = np.where(q.gold[:, None], scores, -np.inf).max(axis=0)
        ahead = (np.where(~q.gold[:, None], scores, -np.inf) >= best_right).sum(axis=0)
        hit += ahead == 0
        mrr += 1.0 / (ahead + 1)
    return combos, hit + 0.01 * mrr


def best_blend(questions: Sequence[Question]) -> np.ndarray:
    """The grid's single best blend on ``questions``."""
    combos, merit = blend_scores(questions)
    return combos[int(np.argmax(merit))]


def choose_blend(questions: Sequence[Question], share: float = TOP_SHARE) -> np.ndarray:
    """The mean of the grid's best ``share`` of blends on ``questions`` (each scaled to the
    same total weight first), scaled so its largest weight is 1 as a grid blend's is."""
    combos, merit = blend_scores(questions)
    top = combos[np.argsort(-merit, kind="stable")[: max(1, int(len(combos) * share))]]
    totals = np.abs(top).sum(axis=1, keepdims=True)
    mean = (top / np.where(totals > 0, totals, 1.0)).mean(axis=0)
    return mean / (np.abs(mean).max() or 1.0)


def rank_figures(questions: Sequence[Question], w: np.ndarray | None) -> dict[str, float]:
    """Hit@1, Hit@3, MRR when candidates are ordered by ``w`` (None: first-stage order)."""
    ranks = []
    for q in questions:
        order = (
            np.arange(len(q.gold)) if w is None else np.argsort(-(q.features @ w), kind="stable")
        )
        hits = np.nonzero(q.gold[order])[0]
        ranks.append(int(hits[0]) + 1 if len(hits) else None)
    n = len(ranks) or 1
    return {
        "n": len(ranks),
        "hit@1": sum(1 for r in ranks if r == 1) / n,
        "hit@3": sum(1 for r in ranks if r is not None and r <= 3) / n,
        "mrr": sum(1 / r for r in ranks if r) / n,
        "ceiling": sum(1 for r in ranks if r is not None) / n,
    }


def depth_figures(questions: Sequence[Question], w: np.ndarray, depth: int) -> dict[str, float]:
    """Hit@1, Hit@3, MRR when only the first ``depth`` candidates are re-scored by ``w``
    and the rest keep their first-stage places after them."""
    ranks = []
    for q in questions:
        top = np.argsort(-(q.features[:depth] @ w), kind="stable")
        order = np.r_[top, np.arange(len(top), len(q.gold))].astype(int)
        hits = np.nonzero(q.gold[order])[0]
        ranks.append(int(hits[0]) + 1 if len(hits) else None)
    n = len(ranks) or 1
    return {
        "hit@1": sum(1 for r in ranks if r == 1) / n,
        "hit@3": sum(1 for r in ranks if r is not None and r <= 3) / n,
        "mrr": sum(1 / r for r in ranks if r) / n,
    }


def as_vector(weights: dict[str, float]) -> np.ndarray:
    return np.asarray([weights.get(n, 0.0) for n in FEATURES])


def write_weights(w: np.ndarray) -> None:
    lines = [
        '"""Weights of the page ranker (``ranker.py``). Written by ``bench/fit_ranker.py``;'
        ' do not edit."""',
        "",
        "BIAS = 0.0",
        "WEIGHTS: dict[str, float] = {",
        *(f'    "{n}": {v:.4f},' for n, v in zip(FEATURES, w, strict=True)),
        "}",
        "",
    ]
    WEIGHTS_FILE.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {WEIGHTS_FILE}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", dest="sets", help="NAME=CORPUS_DIR:DATASET")
    parser.add_argument("--cache", type=Path, help="the libraries cross_corpus.py keeps")
    parser.add_argument("--l2", type=float, default=0.01, help="of the softmax fit")
    parser.add_argument("--write", action="store_true", help="save the all-sets fit")
    parser.add_argument("--features", type=Path, help="save the candidates here, or reuse them")
    parser.add_argument(
        "--depth",
        type=int,
        default=0,
        help="collect this many first-stage pages per question (default: as many as the"
        " search re-scores) and print the shipped weights re-scoring fewer of them",
    )
    args = parser.parse_args(argv)
    sets = [BenchSet.parse(s) for s in (args.sets or FIT_SETS)]
    questions = cached(
        args.features, sets, args.cache, lambda s, c: collect(s, c, depth=args.depth)
    )
    corpora = sorted({q.corpus for q in questions})
    everything = choose_blend(questions)
    rows = []
    for corpus in corpora:
        test = [q for q in questions if q.corpus == corpus]
        train = [q for q in questions if q.corpus != corpus]
        models = {
            "first stage": None,
            "shipped weights": as_vector(WEIGHTS),
            "best blend of other": best_blend(train) if train else None,
            "blend chosen on other": choose_blend(train) if train else None,
            "blend chosen on this": choose_blend(test),
            "blend chosen on all": everything,
            "softmax fit on other": fit(train, args.l2) if train else None,
            "softmax fit on this": fit(test, args.l2),
        }
        for name, w in models.items():
            rows.append((corpus, name, rank_figures(test, w)))
    print(f"{'corpus':<10}{'ranker':<26}{'n':>4}{'Hit@1':>8}{'Hit@3':>8}{'MRR':>8}{'ceiling':>9}")
    for corpus, name, f in rows:
        print(
            f"{corpus:<10}{name:<26}{f['n']:>4}{f['hit@1']:>8.3f}{f['hit@3']:>8.3f}"
            f"{f['mrr']:>8.3f}{f['ceiling']:>9.3f}"
        )
    if args.depth:
        print(f"shipped weights re-scoring the first pages of {args.depth}, all sets:")
        for depth in sorted(d for d in {5, 10, 15, 20, args.depth} if d <= args.depth):
            f = depth_figures(questions, as_vector(WEIGHTS), depth)
            figures = f"Hit@1 {f['hit@1']:.3f}  Hit@3 {f['hit@3']:.3f}  MRR {f['mrr']:.3f}"
            print(f"  {depth:>3} pages  {figures}")
    print("blend chosen on all sets:")
    for n, v in zip(FEATURES, everything, strict=True):
        print(f"  {n:<12}{v:+.3f}")
    if args.write:
        write_weights(everything)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
