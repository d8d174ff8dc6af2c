"""MiniLM on an import's chunks: torch (transformers) beside the numpy forward pass.

Three ways: torch as the importer runs it (each batch of 64 texts in groups of 16 of
similar length), torch with each batch padded whole to its longest text (as before the
groups), and the numpy forward pass the app bundle uses. Each way runs in a fresh process,
so the time to load it (importing torch and transformers, or reading the safetensors file)
is counted as an import pays it. Each embeds every chunk text a library holds, in the
importer's batches, and the vectors are compared.

    .venv/bin/python bench/embedder_speed.py --library DIR [--runs N]

Prints, per way, the load time, the embedding time and chunks per second (median of the
runs), and the lowest cosine between torch's vectors and each other way's for one chunk.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

WAYS = ("torch", "torch-unsorted", "numpy")


def chunk_texts(library: Path) -> list[str]:
    from app.library.library import Library

    opened = Library.open(library)
    try:
        return [text for _, text in opened.store.all_chunk_texts()]
    finally:
        opened.close()


def worker(way: str, library: Path, out: Path) -> None:
    """One way, in this process: load, embed every chunk, save the vectors, print times."""
    texts = chunk_texts(library)
    started = time.perf_counter()
    from app.library import embedding
    from app.library.embedding import TransformersEmbedder, minilm_path
    from app.library.minilm_numpy import NumpyBertEmbedder

    if way.startswith("torch"):
        if way == "torch-unsorted":  # as before length groups: each batch of 64 padded whole
            embedding.LENGTH_GROUP = 64
        embedder = TransformersEmbedder(minilm_path(), "all-MiniLM-L6-v2")
        embedder._load()  # what the first bulk batch would load
        batches = embedder.embed_batches
    else:
        small = NumpyBertEmbedder(minilm_path(), "all-MiniLM-L6-v2")
        small._load()
        batches = small.embed_batches
    loaded = time.perf_counter()
    vectors = np.concatenate(list(batches(texts)))
    done = time.perf_counter()
    np.save(out, vectors)
    print(json.dumps({"load": loaded - started, "embed": done - loaded, "n": len(texts)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--worker", choices=WAYS, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.library, args.out)
        return
    results: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            for way in WAYS:  # in turn, so both see the same machine load
                done = subprocess.run(
                    [sys.executable, __file__, "--library", str(args.library),
                     "--worker", way, "--out", str(Path(tmp) / f"{way}.npy")],
                    capture_output=True, text=True, check=True,
                )  # fmt: skip
                results[way].append(json.loads(done.stdout.strip().splitlines()[-1]))
        vectors = {way: np.load(Path(tmp) / f"{way}.npy") for way in WAYS}
    n = int(results["torch"][0]["n"])
    print(f"{n} chunks of {args.library}, {args.runs} run(s) each, medians")
    print(f"{'way':15} {'load s':>8} {'embed s':>8} {'chunks/s':>9}")
    for way in WAYS:
        load = statistics.median(r["load"] for r in results[way])
        embed = statistics.median(r["embed"] for r in results[way])
        print(f"{way:15} {load:8.2f} {embed:8.2f} {n / embed:9.1f}")
    for way in WAYS[1:]:
        cosine = float((vectors["torch"] * vectors[way]).sum(1).min())
        print(f"lowest cosine between torch's and {way}'s vectors of a chunk: {cosine:.6f}")


if __name__ == "__main__":
    main()
