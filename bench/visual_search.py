"""Visual search latency and recall on a synthetic ColQwen index.

Builds a library of synthetic pages (default 5,000 pages x 700 vectors x 128 dims,
float16, about 0.9 GB in SQLite) through ``VisualIndex``, then times ``search`` (pooled
first pass + exact MaxSim over the candidates + regions) and compares its top-5 with an
exhaustive MaxSim over every page.

The vectors imitate what makes real ColQwen pages hard for a pooled first pass: most
patches are near-identical background (white paper), the rest come from a few of many
topics; queries carry a few content tokens plus ColQwen's ten padding tokens.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/visual_search.py [--pages 5000] [--queries 30]

On a shared 2-core Linux machine, multi-threaded OpenBLAS stalls on these small products
when other processes hold the cores (measured at 5,000 pages: build 442 s vs 24 s, search
p50 184 ms vs 81 ms at 64 candidates), so pin it to one thread there.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.library.store import NewDocument, PageRecord, Store
from app.retrieval.visual import VisualIndex, maxsim_scores
from app.runtime.colqwen import PageEmbedding

DIM = 128
PAGES_PER_DOC = 100
NOISE = 0.75  # a token's cosine with its topic is ~0.8; unrelated vectors ~0 +- 0.09


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)


class Synth:
    """Draws pages and queries from one codebook of topics and background vectors."""

    def __init__(self, seed: int, n_vectors: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.n = n_vectors
        self.topics = unit(self.rng.standard_normal((4000, DIM)))
        self.background = unit(self.rng.standard_normal((4, DIM)))
        self.pad = unit(self.rng.standard_normal(DIM))

    def page(self) -> tuple[np.ndarray, np.ndarray]:
        """(vectors (n, DIM) float16, the page's topic ids)."""
        own = self.rng.choice(len(self.topics), size=10, replace=False)
        n_content = self.n * 3 // 10  # ~70% of a manual page is blank paper
        content = self.topics[self.rng.choice(own, size=n_content)]
        back = self.background[self.rng.integers(0, 4, self.n - n_content)]
        base = np.concatenate([content, back * 1.5])
        v = unit(base + NOISE * self.rng.standard_normal(base.shape) / np.sqrt(DIM))
        return v.astype(np.float16), own

    def query(self, topics: np.ndarray) -> np.ndarray:
        """Five content tokens on three of the page's topics plus ten padding tokens."""
        picked = self.topics[self.rng.choice(topics[:3], size=5)]
        content = unit(picked + NOISE * self.rng.standard_normal(picked.shape) / np.sqrt(DIM))
        pads = unit(self.pad + NOISE * self.rng.standard_normal((10, DIM)) / np.sqrt(DIM))
        return np.concatenate([content, pads])


def build(store: Store, synth: Synth, n_pages: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Fill the store; returns every page's vectors and topics (for the exhaustive check)."""
    index, all_vecs, all_topics = VisualIndex(store), [], []
    grid = (synth.n // 25, 25) if synth.n % 25 == 0 else (1, synth.n)
    for d in range(0, n_pages, PAGES_PER_DOC):
        count = min(PAGES_PER_DOC, n_pages - d)
        pages = [PageRecord(n, 612.0, 792.0, "", "", False, []) for n in range(1, count + 1)]
        doc = NewDocument(
            f"{d:064d}", f"d{d}.pdf", f"d{d}", "", pages, [], [], np.zeros((0, 8), np.float32)
        )
        doc_id = store.add_document(doc)
        ids = [
            r[0] for r in store.db.execute("SELECT id FROM pages WHERE document_id = ?", (doc_id,))
        ]
        drawn = [synth.page() for _ in ids]
        index.add_pages(
            [(i, PageEmbedding(v, grid)) for i, (v, _) in zip(ids, drawn, strict=True)], "synth"
        )
        all_vecs += [v for v, _ in drawn]
        all_topics += [t for _, t in drawn]
    return all_vecs, all_topics


def percentile(xs: list[float], p: float) -> float:
    return float(np.percentile(np.array(xs) * 1000, p))


def run(args: argparse.Namespace) -> None:
    synth = Synth(0, args.vectors)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp))
        t0 = time.perf_counter()
        vecs, topics = build(store, synth, args.pages)
        size = (Path(tmp) / "library.db").stat().st_size
        print(
            f"index: {args.pages} pages x {args.vectors} vectors x {DIM} dims float16"
            f" = {args.pages * args.vectors * DIM * 2 / 1e9:.2f} GB of vectors,"
            f" db {size / 1e9:.2f} GB, built in {time.perf_counter() - t0:.0f} s"
        )
        targets = synth.rng.choice(args.pages, size=args.queries, replace=False)
        queries = [synth.query(topics[t]) for t in targets]
        t0 = time.perf_counter()
        truth = [set(np.argsort(-exhaustive(q, vecs))[:5].tolist()) for q in queries]
        took = (time.perf_counter() - t0) / len(queries) * 1000
        print(f"exhaustive MaxSim over every page (in memory): {took:.0f} ms per query")
        report_first_pass(store, queries, truth)
        for c in args.candidates:
            report_search(store, queries, truth, c)
        store.close()


def exhaustive(query: np.ndarray, vecs: list[np.ndarray], step: int = 250) -> np.ndarray:
    """Exact MaxSim against every page, a few hundred pages at a time to bound memory."""
    return np.concatenate(
        [maxsim_scores(query, vecs[i : i + step]) for i in range(0, len(vecs), step)]
    )


def report_first_pass(store: Store, queries: list[np.ndarray], truth: list[set[int]]) -> None:
    """How many exact top-5 pages the first pass keeps: mean vector alone vs mean + centroids."""
    pooled = VisualIndex(store).pooled_index("synth")
    means = pooled.flat[pooled.starts]
    for c in (16, 32, 64, 128):
        kept_mean, kept_pooled = [], []
        for q, t in zip(queries, truth, strict=True):
            by_mean = set(np.argsort(-(means @ q.sum(axis=0)))[:c].tolist())
            kept_mean.append(len(t & by_mean) / len(t))
            kept_pooled.append(len(t & set(pooled.first_pass(q, c).tolist())) / len(t))
        print(
            f"first pass alone, {c:3d} candidates: keeps {np.mean(kept_mean):.3f} of exact top-5"
            f" (mean vector), {np.mean(kept_pooled):.3f} (mean + 16 centroids)"
        )


def report_search(store: Store, queries: list[np.ndarray], truth: list[set[int]], c: int) -> None:
    """Latency of VisualIndex.search (first pass + MaxSim + regions) and recall@5."""
    index = VisualIndex(store)
    pos = {int(pid): r for r, pid in enumerate(index.pooled_index("synth").page_ids)}
    index.search(queries[0], 5, model="synth", candidates=c)  # warm the pooled cache
    times, recalls = [], []
    for q, t in zip(queries, truth, strict=True):
        t0 = time.perf_counter()
        hits = index.search(q, 5, model="synth", candidates=c)
        times.append(time.perf_counter() - t0)
        got = {pos[int(_page_id(store, h.document_id, h.page))] for h in hits}
        recalls.append(len(got & t) / len(t))
    print(
        f"search, {c:3d} candidates: p50 {percentile(times, 50):6.1f} ms"
        f"  p95 {percentile(times, 95):6.1f} ms  recall@5 {np.mean(recalls):.3f}"
    )


def _page_id(store: Store, doc_id: int, page: int) -> int:
    row = store.db.execute(
        "SELECT id FROM pages WHERE document_id = ? AND number = ?", (doc_id, page)
    ).fetchone()
    return int(row[0])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--vectors", type=int, default=700)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--candidates", type=int, nargs="+", default=[32, 64, 128])
    run(parser.parse_args())
