"""The worker process's entry point, in a module of its own: the window imports it to
name the spawn target, and the spawned process imports it to run, so it must stay light
(no Qt for the worker, no engine, PyMuPDF, SQLite or models for the window)."""

from __future__ import annotations

import contextlib
import os
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.worker.messages import EngineConfig

WORKER_NICENESS = 5


def run_engine(requests: Connection, replies: Connection, config: EngineConfig) -> None:
    """Run the engine until told to stop. It is imported here only, never in the window's
    process; the worker runs at a lower priority so that, when the CPU is short, the window
    is served first."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(WORKER_NICENESS)
    from app.worker.engine import engine_main

    engine_main(requests, replies, config)
