"""Cold ``ask`` from the command line: a new process per question, as a technician's shell
runs it (Python's start-up, every import, the library opened, the question embedded and
searched, the answer printed). Target <= 2.5 s without an LLM.

    .venv/bin/python bench/cold_ask.py --library DIR [--rounds 5] ["QUESTION" ...]

Each round runs ``python -m app ask QUESTION --library DIR`` (no LLM installed) in a fresh
interpreter and times it from just before the launch to its exit; printed per question
and over all rounds: min, median and max, and the machine's load (wall times include
waiting for a busy core).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
QUESTIONS = (
    "What baud rate does the drive use?",
    "How long do I hold the power key to switch it on?",
    "What is the maximum output current?",
)


def ask_once(library: Path, question: str) -> float:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "app", "ask", question, "--library", str(library)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"error: ask failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("questions", nargs="*", default=list(QUESTIONS))
    parser.add_argument("--library", type=Path, required=True, help="an imported library")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    if not args.library.is_dir():
        raise SystemExit(f"error: no library at {args.library}")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine: {os.cpu_count()} CPUs, load average {load}")
    ask_once(args.library, args.questions[0])  # warm the disk cache, as a second ask would
    every: list[float] = []
    for question in args.questions:
        times = [ask_once(args.library, question) for _ in range(args.rounds)]
        every += times
        print(
            f"{question[:50]:<52} min {min(times):.2f}  median {statistics.median(times):.2f}"
            f"  max {max(times):.2f} s"
        )
    print(
        f"all {len(every)} asks: min {min(every):.2f}, median {statistics.median(every):.2f},"
        f" max {max(every):.2f} s (target <= 2.5 s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
