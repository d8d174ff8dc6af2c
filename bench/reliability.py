"""The reliability suite at full size: every kind of bad input, 20 kill -9 trials (10
during an import, 10 during a removal), two imports with a stream of questions at once,
and 1,000 fuzzed model decisions. Prints one table: case, expected, observed, pass; exits
1 if any case failed. No LLM (rule policy, extractive answerer, scripted fake LM for the
fuzzing), hashing embedder, no OCR, and no network: sockets other than Unix ones are
refused for the whole run.

    .venv/bin/python bench/reliability.py [--kills 20] [--fuzz 1000] [--seed 18]
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from app.library.library import Library  # noqa: E402
from tests.reliability.bad_inputs import FILE_CASES, QUESTION_CASES  # noqa: E402
from tests.reliability.harness import (  # noqa: E402
    Row,
    bad_input_rows,
    contention_rows,
    format_table,
    kill_rows,
    make_base,
)


class _NoNetwork(socket.socket):
    """A socket class that refuses every family but Unix sockets."""

    def __init__(self, family: int = -1, *args: object, **kwargs: object) -> None:
        if family not in (-1, socket.AF_UNIX):
            raise OSError(f"network use during the reliability suite (family {family})")
        super().__init__(family, *args, **kwargs)  # type: ignore[arg-type]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=20, help="kill -9 trials")
    parser.add_argument("--fuzz", type=int, default=1000, help="fuzzed model decisions")
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args()
    socket.socket = _NoNetwork  # type: ignore[misc]
    logging.disable(logging.WARNING)
    rows: list[Row] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lantern-reliability-") as tmp:
        work = Path(tmp)
        base = make_base(work / "base" / "library")
        env = {
            **os.environ,
            "LANTERN_EMBEDDER": "hashing",
            "LANTERN_OCR_ENGINE": "none",
            "LANTERN_LLM": "none",
            "LANTERN_SETTINGS": str(work / "no-settings.json"),
            "XDG_DATA_HOME": str(work / "xdg"),
        }
        sections = [
            ("bad input", lambda: bad_input_rows(base, work / "bad")),
            ("kill -9", lambda: kill_rows(base, work / "kills", args.kills, args.seed)),
            ("contention", lambda: contention_rows(base, work / "busy", env)),
            ("fuzzed decisions", lambda: [_fuzz_row(base, work / "fuzz", args.fuzz, args.seed)]),
        ]
        for name, run in sections:
            t0 = time.perf_counter()
            section = list(run())
            rows += section
            print(
                f"{name}: {sum(r.ok for r in section)} of {len(section)} passed"
                f" ({time.perf_counter() - t0:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    print(format_table(rows))
    print(
        f"kinds of bad input: {len(FILE_CASES) + len(QUESTION_CASES)}"
        f" ({len(FILE_CASES)} files and paths, {len(QUESTION_CASES)} questions);"
        f" kill -9 trials: {args.kills}; fuzzed decisions: {args.fuzz};"
        f" {time.perf_counter() - started:.0f} s"
    )
    return 0 if all(r.ok for r in rows) else 1


def _fuzz_row(base: Path, work: Path, examples: int, seed: int) -> Row:
    from tests.reliability.fuzz import run_examples

    library = Library.open(base)
    try:
        outcomes, broken = run_examples(library, work / "traces", examples, seed)
    finally:
        library.close()
    observed = (
        f"{outcomes['answered']} answered, {outcomes['abstained']} abstained,"
        f" {outcomes['broken']} broken" + (f": {broken[0]}" if broken else "")
    )
    return Row(
        f"{examples} fuzzed model decisions",
        "each ends in one answer within 6 steps",
        observed,
        not broken,
    )


if __name__ == "__main__":
    sys.exit(main())
