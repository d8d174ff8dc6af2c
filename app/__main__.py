"""``python -m app``: the window; ``python -m app COMMAND ...``: the command line."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from app.cli import run

    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
