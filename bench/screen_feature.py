"""Screen a candidate ranker feature before building it: does it transfer across corpora?

    .venv/bin/python bench/screen_feature.py --cache DIR [--feature NAME ...] [--features FILE]

A new signal goes into the page ranker (``app/retrieval/ranker.py``) only if it wins first
places on a corpus its weight was not chosen on. This script says so before any product
code changes. For every answerable question of every set (the ``-other`` sets have none)
the text search runs once, as ``fit_ranker.py`` runs it, and each candidate feature below is
computed for the re-scored candidate pages. Then, for each feature alone:

- **leave one corpus out**: its weight ``w`` (added to the shipped blend's score) is chosen
  from ``WEIGHTS`` on the fitting sets of the other corpora (``cross_corpus.FIT_SETS``:
  the most first places, then the smallest weight), and the corpus left out's first places
  are printed at that weight beside those at 0;
- **every set at every weight**: first places per set, ``trades-heldout`` included, which
  no choice is made on.

A feature is worth building only when the weights chosen away from a corpus win first
places on it, on every corpus. The features, each a score per candidate page:

- ``prf-dense``: pseudo-relevance feedback in meaning (Rocchio): the question's vector plus
  the mean of the best chunk vectors of the shipped ranker's first three pages, the page's
  closest chunk to that, less the best candidate's;
- ``prf-lexical``: RM3-style feedback in words: the twenty words of most tf-idf weight
  (idf among the candidates) on the shipped ranker's first three pages, the share of
  their weight a page prints;
- ``baseline-rrf``, ``baseline-dense``, ``baseline-bm25``: the page's reciprocal rank
  (1/(1+rank)) in the naive baseline's fused list, its 800-character-chunk dense list and
  its page BM25 list (``bench/baseline.py``): whether a second way of cutting pages into
  chunks adds what Lantern's sections miss;
- ``baseline-cosine``: the page's best 800-character chunk cosine, less the best
  candidate's.

``--features FILE`` keeps what was collected (a pickle) and reads it back, so a second
look takes seconds.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from baseline import NaiveBaseline, _ranking  # noqa: E402
from cross_corpus import DEFAULT_SETS, FIT_SETS, BenchSet, cached, open_library  # noqa: E402

from app.bench.dataset import load_dataset  # noqa: E402

# The weights a feature is tried at, added to the shipped blend's score (whose largest
# weight is 1): from a nudge to as much as the blend's strongest signal.
WEIGHT_GRID = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0)
FEEDBACK_PAGES = 3  # the shipped ranker's first pages that feedback is taken from
FEEDBACK_WORDS = 20
_WORD = re.compile(r"[a-z][a-z0-9\-]+")


@dataclass
class Screened:
    set_name: str
    corpus: str  # the corpus folder: sets over one corpus are one group
    shipped: np.ndarray  # the shipped blend's score per candidate
    extra: dict[str, np.ndarray]  # candidate feature name -> score per candidate
    gold: np.ndarray  # bool per candidate


@dataclass
class Page:
    """What a candidate feature may read of one candidate page."""

    text: str
    vectors: np.ndarray  # its chunks' stored vectors, one row each


def prf_dense(pages: Sequence[Page], order: np.ndarray, qvec: np.ndarray, **_: Any) -> np.ndarray:
    best = [
        p.vectors[int(np.argmax(p.vectors @ qvec))]
        for p in (pages[i] for i in order[:FEEDBACK_PAGES])
        if len(p.vectors)
    ]
    fed = qvec + (np.mean(best, axis=0) if best else 0.0)
    fed = fed / (np.linalg.norm(fed) or 1.0)
    cos = np.asarray([float((p.vectors @ fed).max()) if len(p.vectors) else 0.0 for p in pages])
    return cos - cos.max()


def prf_lexical(pages: Sequence[Page], order: np.ndarray, **_: Any) -> np.ndarray:
    words = [Counter(_WORD.findall(p.text.lower())) for p in pages]
    df = Counter(w for counts in words for w in counts)
    weight: Counter[str] = Counter()
    for i in order[:FEEDBACK_PAGES]:
        total = sum(words[i].values()) or 1
        for w, n in words[i].items():
            weight[w] += n / total * math.log((len(pages) + 1) / (df[w] + 0.5))
    chosen = dict(weight.most_common(FEEDBACK_WORDS))
    total = sum(chosen.values()) or 1.0
    return np.asarray(
        [sum(v for w, v in chosen.items() if w in counts) / total for counts in words]
    )


def _baseline_feature(kind: str) -> Callable[..., np.ndarray]:
    def feature(baseline: dict[str, np.ndarray], **_: Any) -> np.ndarray:
        values = baseline[kind]
        return values - values.max() if kind == "cosine" else values

    return feature


CANDIDATE_FEATURES: dict[str, Callable[..., np.ndarray]] = {
    "prf-dense": prf_dense,
    "prf-lexical": prf_lexical,
    "baseline-rrf": _baseline_feature("rrf"),
    "baseline-dense": _baseline_feature("dense"),
    "baseline-bm25": _baseline_feature("bm25"),
    "baseline-cosine": _baseline_feature("cosine"),
}


def _baseline_figures(
    naive: NaiveBaseline, question: str, keys: Sequence[tuple[str, int]]
) -> dict[str, np.ndarray]:
    """Each candidate page's place in the naive baseline's lists (``NaiveBaseline.lists``)."""
    lists = naive.lists(question)
    by_bm25 = {i: r for r, i in enumerate(_ranking(lists.bm25))}
    by_dense = {i: r for r, i in enumerate(_ranking(lists.cosine))}
    by_fused = {i: r for r, i in enumerate(sorted(lists.fused, key=lambda i: -lists.fused[i]))}
    where = {key: i for i, key in enumerate(naive.keys)}
    index = [where.get(key, -1) for key in keys]

    def reciprocal(ranks: dict[int, int]) -> np.ndarray:
        return np.asarray([1.0 / (1 + ranks[i]) if i in ranks else 0.0 for i in index])

    return {
        "rrf": reciprocal(by_fused),
        "dense": reciprocal(by_dense),
        "bm25": reciprocal(by_bm25),
        "cosine": np.asarray([lists.cosine[i] if i >= 0 else -1.0 for i in index]),
    }


def collect(sets: Sequence[BenchSet], cache: Path | None, names: Sequence[str]) -> list[Screened]:
    from app.library.embedding import make_embedder
    from app.retrieval.line_index import VERSION
    from app.retrieval.ranker import score
    from app.retrieval.text import TextSearch

    embedder = make_embedder("minilm")
    libraries: dict[Path, Any] = {}
    baselines: dict[Path, Any] = {}
    out: list[Screened] = []
    for bench_set in sets:
        if bench_set.corpus not in libraries:
            libraries[bench_set.corpus] = open_library(bench_set.corpus, cache)[0]
        library = libraries[bench_set.corpus]
        store = library.store
        if any(n.startswith("baseline-") for n in names) and bench_set.corpus not in baselines:
            print(f"embedding {bench_set.corpus.name} for the naive baseline...", file=sys.stderr)
            baselines[bench_set.corpus] = NaiveBaseline(store, embedder)
        search = TextSearch(store, embedder)
        files = {d.id: d.file_name for d in store.list_documents()}
        for item in load_dataset(bench_set.dataset):
            if item.unanswerable:
                continue
            result = search.search(item.query)
            candidates = result.candidates
            if not candidates or result.query_vector is None:
                continue
            keys = [(c.document_id, c.page) for c in candidates]
            chunks = store.pages_chunks(keys, VERSION)
            found = search.vectors.get([ch.id for key in keys for ch in chunks.get(key, [])])
            pages = []
            for key in keys:
                rows = [found[ch.id] for ch in chunks.get(key, []) if ch.id in found]
                pages.append(
                    Page(
                        store.page_text(*key) or "",
                        np.asarray(rows) if rows else np.zeros((0, embedder.dim)),
                    )
                )
            shipped = np.asarray([score(c.features) for c in candidates])
            file_keys = [(files[d], p) for d, p in keys]
            context = {
                "pages": pages,
                "order": np.argsort(-shipped, kind="stable"),
                "qvec": result.query_vector,
                "baseline": (
                    _baseline_figures(baselines[bench_set.corpus], item.query, file_keys)
                    if bench_set.corpus in baselines
                    else {}
                ),
            }
            gold = item.gold_pages()
            out.append(
                Screened(
                    bench_set.name,
                    bench_set.corpus.name,
                    shipped,
                    {n: CANDIDATE_FEATURES[n](**context) for n in names},
                    np.asarray([key in gold for key in file_keys]),
                )
            )
        search.close()
    return out


def first_places(questions: Sequence[Screened], name: str, weight: float) -> int:
    """Questions whose right page the shipped blend plus ``weight`` x the feature puts
    first (a tie with another page counts against the right one)."""
    won = 0
    for q in questions:
        if not q.gold.any():
            continue
        s = q.shipped + weight * q.extra[name]
        won += bool(s[q.gold].max() > s[~q.gold].max(initial=-np.inf))
    return won


def choose_weight(questions: Sequence[Screened], name: str) -> float:
    """The weight with the most first places on ``questions``, the smallest of a tie."""
    return max(WEIGHT_GRID, key=lambda w: (first_places(questions, name, w), -w))


def report(questions: Sequence[Screened], name: str, fit_sets: Sequence[str]) -> list[str]:
    fitted = [q for q in questions if q.set_name in fit_sets]
    lines = [f"{name}: leave one corpus out (weight chosen on the others' fitting sets)"]
    for corpus in sorted({q.corpus for q in fitted}):
        test = [q for q in fitted if q.corpus == corpus]
        w = choose_weight([q for q in fitted if q.corpus != corpus], name)
        lines.append(
            f"  {corpus:<10} n={len(test):<3} weight {w:<5} first places "
            f"{first_places(test, name, w)} (at 0: {first_places(test, name, 0.0)})"
        )
    sets = list(dict.fromkeys(q.set_name for q in questions))
    lines.append("  first places per set at each weight: " + ", ".join(sets))
    for w in WEIGHT_GRID:
        per = [first_places([q for q in questions if q.set_name == s], name, w) for s in sets]
        lines.append(f"  {w:<5} " + " ".join(f"{n:>4}" for n in per) + f"   all {sum(per)}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, help="the libraries cross_corpus.py keeps")
    parser.add_argument(
        "--feature",
        action="append",
        choices=sorted(CANDIDATE_FEATURES),
        help="screen this one (repeatable; default: all)",
    )
    parser.add_argument("--features", type=Path, help="save what was collected here, or reuse it")
    args = parser.parse_args(argv)
    names = args.feature or list(CANDIDATE_FEATURES)
    sets = [BenchSet.parse(s) for s in DEFAULT_SETS if not s.partition("=")[0].endswith("-other")]
    questions = cached(args.features, sets, args.cache, lambda s, c: collect(s, c, names))
    fit_sets = [s.partition("=")[0] for s in FIT_SETS]
    for name in names:
        if questions and name not in questions[0].extra:
            print(f"{name}: not in {args.features}; collect again without --features")
            continue
        print("\n".join(report(questions, name, fit_sets)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
