"""``python -m app``: the window; ``python -m app COMMAND ...``: the command line."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from app.cli import run

    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    # The window's worker is a spawned process; a frozen macOS app must let it start.
    import multiprocessing

    multiprocessing.freeze_support()
    sys.exit(main())
