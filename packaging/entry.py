"""The frozen program's entry point: ``Lantern`` alone opens the window, ``Lantern COMMAND``
runs the command line, exactly as ``python -m app`` does from a checkout."""

import multiprocessing
import sys

if __name__ == "__main__":
    # The window's worker is a spawned process: a frozen program must let it start.
    multiprocessing.freeze_support()
    from app.__main__ import main

    sys.exit(main())
