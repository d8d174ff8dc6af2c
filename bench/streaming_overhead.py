"""Streaming overhead: tokens/s of ``MlxLLM.stream`` against raw ``mlx_lm.stream_generate``.

Both run on the same loaded weights and the same prompt in the same process, interleaved
(raw, app, app, raw, ...) so that load from other processes hits both alike; medians are
reported. Decode speed is timed from the first streamed token to the last, identically for
both; the quality bar is app >= 95% of raw. Uses SmolLM2-135M-Instruct when converted
(scripts/convert_smollm2.py), else a tiny random Qwen2 built on the spot.

    .venv/bin/python bench/streaming_overhead.py [--model DIR] [--tokens 64] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from app.runtime.llm_mlx import MlxLLM  # noqa: E402

SMOLLM2 = REPO / "models" / "SmolLM2-135M-Instruct"
MESSAGES = [{"role": "user", "content": "Write a long story about a fox who repairs radios."}]


def pick_model(requested: str | None) -> Path:
    """The model folder to measure: the one asked for, SmolLM2, or a fresh tiny model."""
    if requested:
        return Path(requested)
    if (SMOLLM2 / "config.json").is_file():
        return SMOLLM2
    from tests.helpers.tiny_models import build_tiny_llm

    return build_tiny_llm(Path(tempfile.mkdtemp(prefix="lantern-bench-")) / "tiny-qwen2")


@dataclass(frozen=True)
class Run:
    """One timed stream: decode speed by the wall clock and by this process's CPU time."""

    wall_tps: float
    cpu_tps: float
    wall_s: float
    tokens: int


def timed(stream: Iterable[Any], count_of: Any) -> Run:
    """Time one stream from its first token to its last (the prompt is excluded).

    CPU-time speed (tokens per CPU second of this process) is what to trust on a shared
    machine: other processes stretch the wall clock, not our CPU time.
    """
    started = time.perf_counter()
    first = last = (started, time.process_time())
    tokens = 0
    for item in stream:
        now = (time.perf_counter(), time.process_time())
        if tokens == 0:
            first = now
        last, tokens = now, count_of(item)
    steps = tokens - 1
    wall, cpu = last[0] - first[0], last[1] - first[1]
    return Run(
        wall_tps=steps / wall if steps > 0 and wall > 0 else 0.0,
        cpu_tps=steps / cpu if steps > 0 and cpu > 0 else 0.0,
        wall_s=last[0] - started,
        tokens=tokens,
    )


def raw_run(llm: MlxLLM, prompt: list[int], max_tokens: int) -> Run:
    import mlx.core as mx
    from mlx_lm import stream_generate
    from mlx_lm.sample_utils import make_sampler

    stream = stream_generate(
        llm._model,
        llm._tokenizer,
        mx.array(prompt),
        max_tokens=max_tokens,
        sampler=make_sampler(0.0),
    )
    return timed(stream, lambda r: r.generation_tokens)


def app_run(llm: MlxLLM, max_tokens: int) -> Run:
    return timed(llm.stream(MESSAGES, max_tokens=max_tokens), lambda e: e.tokens)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="MlxLLM.stream vs raw mlx_lm.stream_generate")
    parser.add_argument("--model", help="model folder (default: SmolLM2 if converted, else tiny)")
    parser.add_argument("--tokens", type=int, default=64, help="tokens generated per run")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each, interleaved")
    args = parser.parse_args(argv)

    path = pick_model(args.model)
    # No prompt cache: raw mlx-lm reprocesses the prompt each time, so the app must too.
    llm = MlxLLM(path, {"prompt_cache": False})
    llm.load()
    prompt = llm._encode([dict(m) for m in MESSAGES])
    raw_run(llm, prompt, 4), app_run(llm, 4)  # warm-up: kernels, caches
    raw, app = [], []
    for round_ in range(args.rounds):
        # alternate who goes first, so neither always meets a warmer or busier CPU
        runs = [lambda: raw.append(raw_run(llm, prompt, args.tokens))]
        runs.append(lambda: app.append(app_run(llm, args.tokens)))
        for run in runs if round_ % 2 == 0 else runs[::-1]:
            run()
    report(path, prompt, raw, app)
    return 0


def report(path: Path, prompt: list[int], raw: list[Run], app: list[Run]) -> None:
    print(f"model: {path.name}  prompt: {len(prompt)} tokens  generated: {raw[0].tokens} tokens")
    print(f"{'':28s}{'wall tok/s':>12s}{'CPU tok/s':>12s}{'wall s':>9s}")
    medians = {}
    for name, runs in (("raw mlx_lm.stream_generate", raw), ("MlxLLM.stream", app)):
        row = [
            statistics.median(getattr(r, f) for r in runs)
            for f in ("wall_tps", "cpu_tps", "wall_s")
        ]
        medians[name] = row
        print(f"{name:28s}{row[0]:12.1f}{row[1]:12.1f}{row[2]:9.2f}")
    (raw_wall, raw_cpu, _), (app_wall, app_cpu, _) = medians.values()
    for label, ratio in (("wall", app_wall / raw_wall), ("CPU", app_cpu / raw_cpu)):
        verdict = "meets" if ratio >= 0.95 else "below"
        print(f"ratio by {label:4s} time: {ratio:6.1%} ({verdict} the 95% bar)")


if __name__ == "__main__":
    sys.exit(main())
