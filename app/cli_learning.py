"""Command-line subcommands of learning from use: ``stats`` prints each decision's rolling
accuracy (rules and LLM side by side) and the optimisation runs recorded; ``app.cli``
registers them."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

Handler = Callable[[argparse.Namespace, Any], int]
AddLibrary = Callable[[argparse.ArgumentParser], argparse.ArgumentParser]


def add_parsers(sub: Any, with_library: AddLibrary) -> None:
    """Add this module's subcommands to ``python -m app``'s parser."""
    p = with_library(
        sub.add_parser("stats", help="rolling accuracy of the agent's decisions, rules vs LLM")
    )
    p.add_argument("--window", type=int, default=50, help="labelled decisions per figure")
    p.add_argument("--json", action="store_true")


def cmd_stats(args: argparse.Namespace, settings: Any) -> int:
    from app.agent.decision_book import DecisionBook
    from app.bench.auto_optimize import OptimiseLog
    from app.bench.rolling import format_stats, rolling_accuracy
    from app.cli_common import open_library

    library = open_library(settings, must_exist=True)
    try:
        book = DecisionBook(library.store)
        rows = rolling_accuracy(book, max(args.window, 1))
        runs = OptimiseLog(library.programs_dir).runs()
        if args.json:
            data = {"window": args.window, "signatures": [r.to_dict() for r in rows],
                    "optimisations": runs}  # fmt: skip
            print(json.dumps(data, ensure_ascii=False, indent=1))
            return 0
        print(format_stats(rows, args.window))
        for run in runs[-3:]:
            kept = f"kept as {run['version']}" if run.get("version") else "not kept"
            print(
                f"optimised {run.get('signature')} on {run.get('finished', '?')[:16]}: "
                f"{run.get('before', 0):.2f} -> {run.get('after') or 0:.2f} held out, {kept}"
            )
    finally:
        library.close()
    return 0


COMMANDS: dict[str, Handler] = {"stats": cmd_stats}
