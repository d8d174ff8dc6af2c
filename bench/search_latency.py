"""Text search latency and recall on a synthetic 100,000-chunk library.

Builds 50 documents x 200 pages x 10 chunks (10,000 pages) through the real ``Store``,
then times ``VectorIndex.knn`` (approximate and exact, with recall against a numpy brute
force over every stored vector) and the whole hybrid ``TextSearch.search`` (KNN + BM25 +
rerank; at this size BM25 is scored in memory, ``app/retrieval/lexical.py``, and the
first search reads what it keeps there). Query vectors are precomputed so the search time
holds no embedding; the time to embed a question (all-MiniLM-L6-v2, one at a time, as the
app does) is measured apart.

The vectors imitate what all-MiniLM-L6-v2 does to manual text, not uniform noise: a
strong shared mean direction, a steep covariance spectrum, 200 topics, and pages whose
chunks sit close together. The constants below were fitted to MiniLM embeddings of 743
120-word pieces of the manuals in ../shared/corpus and manuals/ (``--calibrate`` repeats
that comparison). Queries are drawn around a random page, or around a page of the same
topic that the library does not hold, and are as far from their nearest chunk as real
questions are.

    .venv/bin/python bench/search_latency.py [--docs 50] [--queries 200] [--keep DIR]
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.library.models import ChunkDraft, TextLine
from app.library.store import DB_NAME, NewDocument, PageRecord, Store
from app.retrieval import line_index
from app.retrieval import vectors as vectors_module
from app.retrieval.text import TextSearch
from app.retrieval.vectors import VectorIndex

DIM = 384
TOPICS = 200
TOPICS_PER_DOC = 20
# Fitted to MiniLM on manual text (real -> synthetic, on 743 samples): norm of the mean
# vector 0.48 -> 0.47, mean pairwise cosine 0.23 -> 0.22, variance in the top 1/10/50
# principal directions 8/35/70% -> 8/35/70%.
SPECTRUM = 0.8  # covariance eigenvalues fall as rank^-0.8
MEAN_NORM = 0.65
TOPIC_SPREAD, PAGE_SPREAD, CHUNK_SPREAD = 0.9, 0.5, 0.7
QUERY_SPREAD = 1.1  # a question's nearest chunk is at cosine ~0.6-0.75, as with MiniLM

COMMON = """the a to of and in is for on with be this or by when from at as it that are if
not all any each can will must then after before into only one two three press enter
select check ensure shown below above following note see section table figure step
until while during within between both either first next last new current normal
""".split()
TECHNICAL = """zone relay keypad siren battery sensor detector panel output input
terminal fuse wire cable voltage current resistor jumper switch contact tamper alarm
arm disarm bypass code user installer master program menu option address loop bus
module expander receiver transmitter antenna signal frequency channel report event
log memory reset restore fault trouble supply charger transformer earth ground shield
bell strobe door window motion smoke heat glass shock flood gas temperature humidity
timer delay entry exit chime test walk dialer telephone line network ethernet modem
router server account format contact-id sia pulse baud parity checksum firmware
version update backup configuration parameter threshold sensitivity calibration
""".split()
TEMPLATES = (
    "How do I {0} the {1} {2}?",
    "What does {0} {1} mean on the {2}?",
    "Where is the {0} for the {1} {2}",
    "{0} {1} {2} not working",
    "How to configure {0} {1} with {2} {3}",
    "What is the {0} of the {1} {2} {3}?",
)


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)


class Synth:
    """One deterministic synthetic library: page vectors, chunk vectors and texts."""

    def __init__(self, seed: int, docs: int, pages: int, chunks: int) -> None:
        self.seed, self.docs, self.pages, self.chunks = seed, docs, pages, chunks
        rng = np.random.default_rng(seed)
        basis, _ = np.linalg.qr(rng.standard_normal((DIM, DIM)))
        spectrum = (np.arange(DIM) + 1.0) ** -SPECTRUM
        self.shape = (basis * np.sqrt(spectrum / spectrum.sum())).astype(np.float32)
        mean = rng.standard_t(3, DIM)  # heavy-tailed: a few dimensions nearly never flip
        self.mean = (mean / np.linalg.norm(mean) * MEAN_NORM).astype(np.float32)
        self.topics = self.mean + TOPIC_SPREAD * self.noise(rng, TOPICS)
        self.words = self._vocabulary(rng)
        self.doc_topics = np.stack(
            [rng.choice(TOPICS, TOPICS_PER_DOC, replace=False) for _ in range(docs)]
        )
        self.page_topic = self.doc_topics[
            np.arange(docs)[:, None], rng.integers(0, TOPICS_PER_DOC, (docs, pages))
        ]
        centres = self.topics[self.page_topic.reshape(-1)]
        self.page_vectors = centres + PAGE_SPREAD * self.noise(rng, docs * pages)

    def noise(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` draws with the anisotropic covariance (unit trace)."""
        return rng.standard_normal((n, DIM), dtype=np.float32) @ self.shape.T

    def _vocabulary(self, rng: np.random.Generator) -> list[list[str]]:
        """30 words per topic: technical nouns shared between topics, plus made-up ones."""
        syllables = "ka ro ti mu ve sa lo de pi nu ga fe zo ri ba to me li co ha".split()
        vocab = []
        for _ in range(TOPICS):
            made = ["".join(rng.choice(syllables, 3)) for _ in range(20)]
            vocab.append(list(rng.choice(TECHNICAL, 10, replace=False)) + made)
        return vocab

    def document(self, d: int) -> tuple[NewDocument, np.ndarray]:
        """Document ``d`` as the importer would write it, and its chunk vectors."""
        rng = np.random.default_rng((self.seed, d))
        page_vecs = self.page_vectors[d * self.pages : (d + 1) * self.pages]
        vectors = unit(
            np.repeat(page_vecs, self.chunks, axis=0)
            + CHUNK_SPREAD * self.noise(rng, self.pages * self.chunks)
        )
        pages, drafts, texts = [], [], []
        for p in range(self.pages):
            topic = self.words[int(self.page_topic[d, p])]
            heading = f"{d % 9 + 1}.{p % 12 + 1} {topic[0].title()} {topic[10]}"
            page_lines: list[TextLine] = []
            for c in range(self.chunks):
                text = self._chunk_text(rng, topic, d, p)
                lines = _lines(text, top=60.0 + c * 70.0)
                page_lines += lines
                drafts.append(ChunkDraft(p + 1, text, tuple(lines), heading))
                texts.append(f"{heading}\n{text}")
            body = "\n".join(ln.text for ln in page_lines)
            pages.append(PageRecord(p + 1, 612.0, 792.0, body, body, False, page_lines))
        doc = NewDocument(
            f"{self.seed:08d}{d:056d}", f"manual-{d:02d}.pdf", f"Model {d:02d} Manual", "",
            pages, drafts, texts, vectors,
        )  # fmt: skip
        return doc, vectors

    def _chunk_text(self, rng: np.random.Generator, topic: list[str], d: int, p: int) -> str:
        n = int(rng.integers(40, 60))
        kinds = rng.random(n)
        words = []
        for kind in kinds:
            if kind < 0.5:
                words.append(COMMON[int(rng.zipf(1.6)) % len(COMMON)])
            elif kind < 0.93:
                words.append(topic[int(rng.zipf(1.4)) % len(topic)])
            elif kind < 0.97:
                words.append(f"M{d:02d}")
            else:
                words.append(f"E{(d * 7 + p) % 900 + 100}")
        return " ".join(words)

    def query(self, rng: np.random.Generator) -> tuple[str, np.ndarray]:
        """A question about a random page's topic. Half the vectors sit near that page,
        half near a page of the same topic the library does not hold (held out)."""
        d, p = int(rng.integers(self.docs)), int(rng.integers(self.pages))
        topic = self.words[int(self.page_topic[d, p])]
        template = TEMPLATES[int(rng.integers(len(TEMPLATES)))]
        picks = [topic[int(rng.zipf(1.4)) % len(topic)] for _ in range(4)]
        if rng.random() < 0.2:
            picks[-1] = f"E{(d * 7 + p) % 900 + 100}"
        if rng.random() < 0.5:
            centre = self.page_vectors[d * self.pages + p]
        else:
            centre = self.topics[self.page_topic[d, p]] + PAGE_SPREAD * self.noise(rng, 1)[0]
        return template.format(*picks), unit(centre + QUERY_SPREAD * self.noise(rng, 1)[0])


def _lines(text: str, top: float, per_line: int = 9) -> list[TextLine]:
    words = text.split()
    out = []
    for i in range(0, len(words), per_line):
        y = top + 12.0 * (i // per_line)
        out.append(TextLine(" ".join(words[i : i + per_line]), (50.0, y, 560.0, y + 10.0), 9.0))
    return out


class FixedEmbedder:
    """Hands ``TextSearch`` the precomputed vector of each question: no embedding time."""

    name = "synthetic-384"
    dim = DIM

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts])

    def embed_batches(self, texts: Sequence[str]) -> Iterator[np.ndarray]:
        yield self.embed(texts)


# ---- building -----------------------------------------------------------------------
def build(folder: Path, synth: Synth) -> float:
    """Write the library through ``Store.add_document``; returns the seconds it took."""
    t0 = time.perf_counter()
    store = Store.open(folder)
    store.ensure_embedder(FixedEmbedder.name, DIM)
    for d in range(synth.docs):
        doc, _ = synth.document(d)
        store.add_document(doc)
        if (d + 1) % 10 == 0:
            print(f"  built {d + 1}/{synth.docs} documents, {time.perf_counter() - t0:.0f} s")
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return time.perf_counter() - t0


def stored_vectors(store: Store) -> tuple[np.ndarray, np.ndarray]:
    """Every chunk id and float vector as stored: the ground truth's input."""
    rows = store.db.execute("SELECT chunk_id, embedding FROM chunk_vectors ORDER BY chunk_id")
    ids, blobs = zip(*rows, strict=True)
    return np.array(ids, np.int64), np.frombuffer(b"".join(blobs), np.float32).reshape(-1, DIM)


# ---- measuring ----------------------------------------------------------------------
Knn = Callable[[np.ndarray, int], list[tuple[int, float]]]


def previous_binary_knn(store: Store, oversample: int) -> Knn:
    """The first implementation: sqlite-vec bit[384] Hamming top k*20, rescored from blobs."""
    index = VectorIndex(store)

    def knn(query: np.ndarray, k: int) -> list[tuple[int, float]]:
        rows = store.db.execute(
            "SELECT rowid FROM vec_chunks_bits WHERE embedding MATCH vec_quantize_binary(?)"
            " AND k = ?",
            (query.tobytes(), k * oversample),
        )
        got = index.get([r[0] for r in rows])
        return sorted(((c, float(v @ query)) for c, v in got.items()), key=lambda t: -t[1])[:k]

    return knn


def few_candidates(index: VectorIndex, oversample: int) -> Knn:
    """The approximate path with the previous candidate count: what centring alone buys."""

    def knn(query: np.ndarray, k: int) -> list[tuple[int, float]]:
        saved = vectors_module.CANDIDATES, vectors_module.OVERSAMPLE
        vectors_module.CANDIDATES, vectors_module.OVERSAMPLE = 0, oversample
        try:
            return index.knn(query, k, exact=False)
        finally:
            vectors_module.CANDIDATES, vectors_module.OVERSAMPLE = saved

    return knn


def truth(ids: np.ndarray, matrix: np.ndarray, queries: np.ndarray, k: int) -> list[set[int]]:
    out = []
    for q in queries:
        scores = matrix @ q
        top = np.argpartition(-scores, k)[:k]
        out.append(set(ids[top].tolist()))
    return out


def ms(times: list[float], p: float) -> float:
    return float(np.percentile(np.array(times) * 1000.0, p))


def time_knn(
    variants: dict[str, Knn], queries: np.ndarray, k: int, exact: list[set[int]]
) -> dict[str, tuple[list[float], list[float], float]]:
    """Wall and CPU time and recall@k of each variant, interleaved query by query so
    other load on the machine falls on every variant alike."""
    wall: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    hits: dict[str, int] = dict.fromkeys(variants, 0)
    for q, want in zip(queries, exact, strict=True):
        for name, knn in variants.items():
            t0, c0 = time.perf_counter(), time.thread_time()
            got = knn(q, k)
            cpu[name].append(time.thread_time() - c0)
            wall[name].append(time.perf_counter() - t0)
            hits[name] += len({c for c, _ in got} & want)
    return {n: (wall[n], cpu[n], hits[n] / (k * len(queries))) for n in variants}


def time_embedding(texts: list[str]) -> None:
    """Time the bundled embedder on each question alone, as the app embeds a query: with
    the threads it sets (one per CPU) and with one thread, which a busy CPU favours."""
    import torch

    from app.library.embedding import EmbedderError, make_embedder

    try:
        embedder = make_embedder("minilm")
        t0 = time.perf_counter()
        embedder.embed(["warm up"])
        load = time.perf_counter() - t0
    except EmbedderError as exc:
        print(f"(no MiniLM: {exc})")
        return
    title = f"Query embedding, {embedder.name}, one at a time, ms"
    print(f"\n{title:<54s} {HEADER}  (load {load:.1f} s)")
    for threads in (torch.get_num_threads(), 1):
        torch.set_num_threads(threads)
        wall, cpu = [], []
        for text in texts:
            t0, c0 = time.perf_counter(), time.process_time()  # all threads' CPU
            embedder.embed([text])
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - t0)
        print_row(f"embed, torch with {threads} thread(s)", wall, cpu)


def print_row(name: str, wall: list[float], cpu: list[float] | None = None, note: str = "") -> None:
    """Wall-clock p50/p95/p99 and, when known, the median CPU time."""
    cells = [f"{ms(wall, p):8.2f}" for p in (50, 95, 99)]
    cells.append(f"{ms(cpu, 50):8.2f}" if cpu else " " * 8)
    print(f"  {name:<52s} {' '.join(cells)}  {note}")


HEADER = f"{'p50':>8s} {'p95':>8s} {'p99':>8s} {'cpu p50':>8s}"


def calibrate(synth: Synth, sample: int) -> None:
    """Compare the synthetic vectors' statistics with MiniLM on the corpus manuals."""
    import pymupdf

    from app.library.embedding import make_embedder

    repo = Path(__file__).resolve().parent.parent
    pdfs = sorted((repo.parent / "shared" / "corpus").glob("*.pdf")) + sorted(
        (repo / "manuals").glob("*.pdf")
    )
    texts = []
    for pdf in pdfs:
        if "NOTEXT" in pdf.name:
            continue
        for page in pymupdf.open(pdf).pages():
            words = page.get_text().split()
            texts += [" ".join(words[i : i + 120]) for i in range(0, len(words), 120)]
    texts = [t for t in texts if len(t) > 80][:sample]
    real = make_embedder("minilm").embed(texts)
    fake = np.concatenate([synth.document(d)[1] for d in range(min(synth.docs, 5))])
    fake = fake[np.random.default_rng(1).choice(len(fake), len(real), replace=False)]
    for name, x in (("MiniLM on manuals", real), ("synthetic", fake)):
        gram = x @ x.T
        off = gram[~np.eye(len(x), dtype=bool)]
        sv = np.linalg.svd(x - x.mean(0), compute_uv=False) ** 2
        share = np.cumsum(sv) / sv.sum()
        print(
            f"  {name:<18s} n={len(x)} |mean|={np.linalg.norm(x.mean(0)):.2f}"
            f" pairwise cos {off.mean():.2f}+-{off.std():.2f}"
            f" variance in top 1/10/50 directions {share[0]:.2f}/{share[9]:.2f}/{share[49]:.2f}"
        )


def cold_caches() -> None:
    """Empty the app's in-process caches (a line's stems, a text's quantities...)."""
    for name, module in list(sys.modules.items()):
        if name.startswith("app."):
            for value in list(vars(module).values()):
                if isinstance(value, functools._lru_cache_wrapper):
                    value.cache_clear()


def run(args: argparse.Namespace) -> None:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine: {os.cpu_count()} CPUs, load average {load} (wall times include waiting)")
    synth = Synth(args.seed, args.docs, args.pages, args.chunks)
    n_chunks = args.docs * args.pages * args.chunks
    if args.calibrate:
        calibrate(synth, args.calibrate)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp)
        if not (folder / DB_NAME).exists():
            print(f"building {args.docs} documents x {args.pages} pages x {args.chunks} chunks")
            seconds = build(folder, synth)
            pages = args.docs * args.pages
            print(f"build: {n_chunks:,} chunks, {pages:,} pages in {seconds:.0f} s")
        else:
            print(f"reusing {folder / DB_NAME}")
        size = sum(f.stat().st_size for f in folder.glob(DB_NAME + "*"))
        print(f"database: {size / 1e6:.0f} MB ({size / n_chunks / 1e3:.1f} kB per chunk)")
        store = Store.open(folder)
        try:
            # What the app does after an import: each line's terms, read once and stored.
            indexed, seconds = line_index.fill_all(store)
            if indexed:
                print(f"line terms: {indexed:,} chunks indexed in {seconds:.1f} s")
            measure(store, synth, args)
        finally:
            store.close()


def measure(store: Store, synth: Synth, args: argparse.Namespace) -> None:
    ids, matrix = stored_vectors(store)
    rng = np.random.default_rng(args.seed + 1)
    questions = [synth.query(rng) for _ in range(args.queries)]
    texts = [t for t, _ in questions]
    queries = np.stack([v for _, v in questions])
    best = np.max(matrix @ queries.T, axis=0)
    print(
        f"queries: {len(queries)}, cosine to their nearest chunk p10/p50/p90"
        f" {np.percentile(best, 10):.2f}/{np.percentile(best, 50):.2f}"
        f"/{np.percentile(best, 90):.2f}"
    )
    index = VectorIndex(store)
    t0 = time.perf_counter()
    index.knn(queries[0], 10, exact=False)
    print(f"first approximate query (loads what the index keeps in memory): "
          f"{(time.perf_counter() - t0) * 1000:.0f} ms")  # fmt: skip
    variants: dict[str, Knn] = {
        "VectorIndex.knn (approximate, default above "
        f"{vectors_module.BINARY_THRESHOLD:,})": lambda q, k: index.knn(q, k),
        "  same, rescoring only 20 x k candidates": few_candidates(index, 20),
        "VectorIndex.knn exact=True (sqlite-vec float[384])": lambda q, k: index.knn(
            q, k, exact=True
        ),
        "previous: sqlite-vec bit[384] 20 x k + blob rescore": previous_binary_knn(store, 20),
    }

    def numpy_exact(q: np.ndarray, k: int) -> list[tuple[int, float]]:
        scores = matrix @ q
        top = np.argpartition(-scores, k)[:k]
        return [(int(ids[i]), float(scores[i])) for i in top]

    variants["numpy float32 brute force (in RAM, reference)"] = numpy_exact
    gc.collect()
    title = f"Vector KNN, {len(ids):,} chunks x {DIM} dims, ms"
    print(f"\n{title:<54s} {HEADER}  recall")
    candidates = TextSearch.__init__.__defaults__[0]  # type: ignore[index]
    for k in (10, candidates):
        exact = truth(ids, matrix, queries, k)
        print(f" k={k}" + (" (TextSearch's candidate count)" if k == candidates else ""))
        for name, (wall, cpu, recall) in time_knn(variants, queries, k, exact).items():
            print_row(name, wall, cpu, f"recall@{k} {recall:.4f}")
    print("  (cpu: the calling thread's; the numpy reference's BLAS threads are not counted)")

    default_depth = TextSearch.__init__.__defaults__[1]  # type: ignore[index]
    for depth in [default_depth, *(d for d in args.depths if d != default_depth)]:
        cold_caches()  # each run meets the pages' lines as new, as the first one does
        search = TextSearch(store, FixedEmbedder(dict(questions)), rerank_depth=depth)
        t0 = time.perf_counter()
        search.search(texts[0])
        first = time.perf_counter() - t0
        stages: dict[str, list[float]] = {}
        cpu = []
        for text in texts:
            c0 = time.thread_time()
            result = search.search(text)
            cpu.append(time.thread_time() - c0)
            for stage, seconds in result.timings.items():
                stages.setdefault(stage, []).append(seconds)
        search.close()
        title = (
            f"TextSearch.search, {len(texts)} questions, vectors precomputed,"
            f" {depth} pages re-scored{' (default)' if depth == default_depth else ''}, ms"
        )
        print(f"\n{title:<54s} {HEADER}")
        print(f"  first search (reads what search keeps in memory): {first * 1000:.0f} ms")
        print_row("total (hybrid: KNN + BM25 + rerank)", stages["total"], cpu)
        for stage in ("analyse", "embed", "knn", "bm25", "rank"):
            note = "(a thread beside analyse and bm25)" if stage in ("embed", "knn") else ""
            print_row(f"  {stage}", stages[stage], note=note)
    if args.minilm:
        time_embedding(texts)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--docs", type=int, default=50)
    parser.add_argument("--pages", type=int, default=200, help="pages per document")
    parser.add_argument("--chunks", type=int, default=10, help="chunks per page")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", help="build the library in (or reuse it from) this folder")
    parser.add_argument(
        "--no-minilm", dest="minilm", action="store_false", help="skip timing MiniLM"
    )
    parser.add_argument(
        "--depths", type=lambda s: [int(x) for x in s.split(",")], default=[],
        help="also time TextSearch re-scoring these numbers of pages (e.g. 20,10)",
    )  # fmt: skip
    parser.add_argument(
        "--calibrate", type=int, default=0, metavar="N",
        help="first compare the vectors with MiniLM's on N chunks of the corpus manuals",
    )  # fmt: skip
    run(parser.parse_args())
