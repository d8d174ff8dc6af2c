"""Where a no-LLM answer's time goes, stage by stage, and what it embeds.

    .venv/bin/python bench/profile_answer.py --library DIR --dataset FILE [--repeat 1]
        [--related-side-by-side]

Every question of the dataset is asked through the same agent as ``python -m app ask``
(warm: the embedder is loaded by one question first). Per stage, over all questions, the
table gives p50, p95 and the share of the total: the search's own stages (question
analysis, embedding the question in a thread beside it and BM25, the KNN there too in
a library large enough to search its vectors in memory, ranking and regions, and the whole
search), the answerer (quoting
and the abstention decision), and the rest of the loop (policy, critic, events). The
embedder is wrapped to count what it is asked to embed: a question's answer path embeds
the question and, when it asks for a quantity and a quote prints a value of it, the
quoted lines that print one, one at a time until one is near enough in meaning
(``AnswerSignals.related``); a line an earlier search of the same question embedded is
not embedded again.

``--related-side-by-side`` asks every question twice more, alternately with that check
and without it (every quoted value counts), the line vectors forgotten before each, and
prints the whole answers' times of both.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.bench.dataset import load_dataset


class CountingEmbedder:
    """An embedder that counts the texts it embeds (the wrapped one does the work)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.texts = 0
        self.calls = 0

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts += len(texts)
        return self.inner.embed(texts)

    def embed_batches(self, texts: Sequence[str]) -> Iterator[np.ndarray]:
        self.calls += 1
        self.texts += len(texts)
        return self.inner.embed_batches(texts)


def percentile(values: list[float], pct: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000.0, pct)) if values else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    from app.agent.service import build_answerer
    from app.config import load_settings
    from app.library.embedding import make_embedder
    from app.library.library import Library

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--related-side-by-side",
        action="store_true",
        help="time each answer with and without the check that a quoted value's line is"
        " near the question, alternately",
    )
    args = parser.parse_args(argv)

    settings = load_settings(library_dir=args.library, llm="none", colqwen="", vlm="")
    library = Library.open(args.library)
    embedder = CountingEmbedder(make_embedder(settings.embedder))
    agent = build_answerer(library, settings, embedder=embedder)
    search = agent.resources.text_search
    stages: dict[str, list[float]] = defaultdict(list)
    original = search.search

    def timed_search(*a: Any, **kw: Any) -> Any:
        result = original(*a, **kw)
        # In a thread beside the others (``TextSearch.search``): the embedding always, the
        # KNN when the vector index is ``detached`` from the database.
        detached = search.vectors.detached()
        for stage, seconds in result.timings.items():
            apart = stage == "embed" or (stage == "knn" and detached)
            beside = " (beside)" if apart else ""
            stages[f"search: {stage}{beside}"].append(seconds)
        return result

    search.search = timed_search  # type: ignore[method-assign]
    list(agent.ask("warm-up question"))
    stages.clear()
    embedded: list[int] = []
    totals: list[float] = []
    for _ in range(args.repeat):
        for item in load_dataset(args.dataset):
            before = embedder.texts
            started = time.perf_counter()
            list(agent.ask(item.query))
            total = time.perf_counter() - started
            totals.append(total)
            embedded.append(embedder.texts - before)
            clock = dict(agent.resources.clock.seconds)
            stages["answerer (quotes, abstention)"].append(clock.get("answerer", 0.0))
            stages["loop (policy, critic, events)"].append(total - sum(clock.values()))
    whole = sum(totals) or 1.0
    print(f"{len(totals)} answers, {args.dataset.name}, library {args.library}")
    print(f"{'stage':<34}{'p50 ms':>9}{'p95 ms':>9}{'share':>8}")
    for stage, values in sorted(stages.items(), key=lambda kv: -sum(kv[1])):
        share = sum(values) / whole
        p50, p95 = percentile(values, 50), percentile(values, 95)
        print(f"{stage:<34}{p50:>9.1f}{p95:>9.1f}{share:>8.1%}")
    p50, p95 = percentile(totals, 50), percentile(totals, 95)
    print(f"{'whole answer':<34}{p50:>9.1f}{p95:>9.1f}{1:>8.0%}")
    print(
        "(beside): in a thread of its own, beside the search's analyse and bm25, so its"
        " time is also theirs or the wait before rank; the shares add up to more than 100%."
    )
    per_question = statistics.fmean(embedded) if embedded else 0.0
    print(
        f"texts embedded per answer: mean {per_question:.2f}, max {max(embedded, default=0)}"
        " (the question, once per search, and the quoted lines that print an asked quantity)"
    )
    if args.related_side_by_side:
        related_side_by_side(agent, search, load_dataset(args.dataset))
    library.close()
    return 0


def related_side_by_side(agent: Any, search: Any, items: Sequence[Any]) -> None:
    """Each question's whole answer, best of two, with the check that a quoted value's
    line is near the question and without it (``_closest_line`` answering 1.0: every
    quoted value counts), alternately."""
    import app.agent.extractive as extractive

    real = extractive._closest_line
    timed: dict[bool, list[float]] = {True: [], False: []}
    try:
        for item in items:
            best = {True: float("inf"), False: float("inf")}
            for _ in range(2):
                for checked in (True, False):
                    search._line_vectors.clear()
                    extractive._closest_line = real if checked else (lambda *_: 1.0)  # type: ignore[assignment]
                    started = time.perf_counter()
                    list(agent.ask(item.query))
                    best[checked] = min(best[checked], time.perf_counter() - started)
            for checked, seconds in best.items():
                timed[checked].append(seconds)
    finally:
        extractive._closest_line = real  # type: ignore[assignment]
    extra = np.asarray(timed[True]) - np.asarray(timed[False])
    print(f"whole answers of {len(extra)} questions, best of two each, alternately:")
    for checked, label in ((True, "with the related-line check"), (False, "without it")):
        values = timed[checked]
        p50, p90 = percentile(values, 50), percentile(values, 90)
        print(f"  {label:<30} p50 {p50:7.1f} ms   p90 {p90:7.1f} ms")
    print(
        f"  extra per answer: mean {extra.mean() * 1000:.1f} ms, median"
        f" {np.median(extra) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    raise SystemExit(main())
