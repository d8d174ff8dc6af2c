"""Unloading models nobody is using: the worker's side of ``idle_unload_minutes``.

A 4 GB LLM used for one question should not hold its memory for the rest of the day. The
worker process starts one ``IdleUnloader``; every ``check_every`` seconds it asks each
registry to unload the models idle for longer than the setting (busy ones never are).
It waits on a ``threading.Event``, so stopping it is immediate.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from app.runtime.model_files import GB

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class MemoryUse:
    """What the models dialog shows about memory: the budget and what is loaded now."""

    budget_bytes: int
    loaded_bytes: int
    idle_unload_minutes: float

    def describe(self) -> str:
        idle = (
            f"models idle for {self.idle_unload_minutes:g} min are unloaded"
            if self.idle_unload_minutes > 0
            else "idle models stay loaded (idle_unload_minutes = 0)"
        )
        return (
            f"Memory budget {self.budget_bytes / GB:.1f} GB · loaded now "
            f"{self.loaded_bytes / GB:.1f} GB · {idle}"
        )


class IdleUnloader:
    """A daemon thread unloading idle models from the registries ``registries()`` returns."""

    def __init__(
        self,
        registries: Callable[[], Iterable[object]],
        idle_minutes: float,
        check_every: float | None = None,
    ) -> None:
        self.registries = registries
        self.max_idle_s = idle_minutes * 60.0
        # Checking ten times per idle period keeps the overshoot under 10 %.
        self.check_every = check_every or max(1.0, min(60.0, self.max_idle_s / 10))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.unloaded: list[str] = []

    def start(self) -> None:
        if self.max_idle_s <= 0 or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="idle-unloader", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def check(self) -> list[str]:
        """Unload what is idle now; returns the model ids unloaded."""
        done: list[str] = []
        for registry in self.registries():
            try:
                done += registry.unload_idle(self.max_idle_s)  # type: ignore[attr-defined]
            except Exception as exc:  # an unload must never take the worker down
                log.warning("unloading idle models failed: %s", exc)
        if done:
            log.info("unloaded idle models: %s", ", ".join(done))
            self.unloaded += done
        return done

    def _run(self) -> None:
        while not self._stop.wait(self.check_every):
            self.check()
