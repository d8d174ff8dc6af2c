"""Where a no-LLM answer's time goes, stage by stage, and what it embeds.

    .venv/bin/python bench/profile_answer.py --library DIR --dataset FILE [--repeat 1]

Every question of the dataset is asked through the same agent as ``python -m app ask``
(warm: the embedder is loaded by one question first). Per stage, over all questions, the
table gives p50, p95 and the share of the total: the search's own stages (question
analysis, embedding the question in a thread beside it and BM25, the KNN there too in
a library large enough to search its vectors in memory, ranking and regions, and the whole
search), the answerer (quoting
and the abstention decision), and the rest of the loop (policy, critic, events). The
embedder is wrapped to count what it is asked to embed: a question's answer path must
embed the question and nothing else.
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
    library.close()
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
        " (the question only: search runs once or twice per question)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
