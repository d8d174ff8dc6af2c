"""How fast MLX's CPU backend multiplies matrices here, beside numpy, in the same run.

MLX's Linux wheel (``mlx-cpu``) links the reference BLAS it carries; numpy links OpenBLAS.
The shape is one of SmolLM2-135M's MLP projections over a 600-token prompt. Run it again
with a BLAS preloaded to compare (``LD_PRELOAD=/path/to/libopenblas.so.0``).

    .venv/bin/python bench/mlx_blas.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import mlx.core as mx
import numpy as np

SHAPE = (600, 576, 1536)  # tokens, hidden size, MLP width


def timed(run, rounds: int) -> float:  # type: ignore[no-untyped-def]
    """The median seconds of ``rounds`` calls after one warm-up call."""
    run()
    seconds = []
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    rows, inner, cols = SHAPE
    rng = np.random.default_rng(0)
    a = rng.standard_normal((rows, inner)).astype(np.float32)
    w = rng.standard_normal((cols, inner)).astype(np.float32)
    flops = 2 * rows * inner * cols
    print(f"matmul {rows}x{inner} by {inner}x{cols}, median of {rounds}", end="")
    print(f" (LD_PRELOAD={os.environ.get('LD_PRELOAD', '')!r})")
    results = {"numpy float32": timed(lambda: a @ w.T, rounds)}
    for name, dtype in (("mlx float32", mx.float32), ("mlx bfloat16", mx.bfloat16)):
        ma, mw = mx.array(a).astype(dtype), mx.array(w).astype(dtype)
        mx.eval(ma, mw)
        results[name] = timed(lambda ma=ma, mw=mw: mx.eval(ma @ mw.T), rounds)
    for name, seconds in results.items():
        print(f"  {name:14} {seconds * 1000:9.1f} ms  {flops / seconds / 1e9:7.1f} GFLOP/s")


if __name__ == "__main__":
    main()
