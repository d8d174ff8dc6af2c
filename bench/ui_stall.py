"""The window's worst stall while a real import and a real answer run (bar: 50 ms).

Opens the real window on a fresh library with the configured embedder (MiniLM by
default), drops the sample manuals on it, asks a question as soon as the first manual is
in (so the answer runs while the second imports), then shows the cited page. A
heartbeat timer in the window's thread records every gap beyond its 5 ms interval.

    xvfb-run -a .venv/bin/python bench/ui_stall.py [--embedder minilm] [--rounds 1]
    (Qt's offscreen platform when there is no display)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
if not os.environ.get("DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings, QTimer  # noqa: E402

from app.agent.events import Done  # noqa: E402
from app.config import Settings  # noqa: E402
from app.library.import_events import ImportResult as FileResult  # noqa: E402
from app.ui.main import application, build_window  # noqa: E402
from app.ui.stall import StallMeter  # noqa: E402
from app.ui.window import MainWindow  # noqa: E402

QUESTION = "What voltage does the AUX+ terminal supply?"
MANUALS = sorted((REPO / "manuals").glob("*.pdf"))


class Scenario:
    """Drop the manuals, ask after the first is in, show the cited page, then stop."""

    def __init__(self, window: MainWindow, meter: StallMeter) -> None:
        self.window, self.meter = window, meter
        self.imported = 0
        self.answered = False
        self.started = 0.0
        self.marks: dict[str, float] = {}
        window.controller.import_event.connect(self._import_event)
        window.controller.answer_event.connect(self._answer_event)
        self.poll = QTimer(window)
        self.poll.timeout.connect(self._check)

    def start(self) -> None:
        self.started = time.perf_counter()
        self.meter.start()
        self.window.import_paths([str(p) for p in MANUALS])
        self.poll.start(100)

    def _mark(self, name: str) -> None:
        self.marks.setdefault(name, time.perf_counter() - self.started)

    def _import_event(self, event: object) -> None:
        if isinstance(event, FileResult):
            self.imported += 1
            self._mark(f"imported {Path(event.path).name}")
            if self.imported == 1:
                self._mark("asked")
                self.window.ask(QUESTION)

    def _answer_event(self, _job: int, event: object) -> None:
        if isinstance(event, Done):
            self.answered = True
            self._mark("answered")

    def _check(self) -> None:
        evidence = self.window.evidence
        page_shown = evidence.current is None or evidence.current in evidence.images
        if self.answered and self.imported == len(MANUALS) and page_shown:
            self._mark("page shown")
            self.poll.stop()
            self.meter.stop()
            self.window.close()


def run_round(embedder: str) -> tuple[StallMeter, dict[str, float]]:
    app = application()
    folder = Path(tempfile.mkdtemp(prefix="lantern-stall-"))
    settings = Settings(library_dir=folder / "library", models_dir=folder / "models",
                        embedder=embedder, ocr_engine="none")  # fmt: skip
    state = QSettings(str(folder / "window.ini"), QSettings.Format.IniFormat)
    window = build_window(settings, state=state)
    window.show()
    meter = StallMeter()
    scenario = Scenario(window, meter)
    # Start once the worker has opened the library and the idle warm-up has run.
    window.controller.library_changed.connect(
        lambda _s: QTimer.singleShot(1500, scenario.start) if not scenario.started else None
    )
    app.exec()
    return meter, scenario.marks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="minilm", help="'minilm' or 'hashing'")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    worst = 0.0
    for number in range(1, args.rounds + 1):
        meter, marks = run_round(args.embedder)
        steps = ", ".join(f"{name} {at:.1f} s" for name, at in marks.items())
        print(f"round {number}: {steps}")
        print(f"  {len(meter.gaps)} heartbeats; p99 gap {meter.percentile_ms(0.99):.1f} ms; "
              f"{meter.over(50)} over 50 ms; worst {meter.worst_ms:.1f} ms")  # fmt: skip
        worst = max(worst, meter.worst_ms)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"worst UI stall: {worst:.1f} ms (bar 50 ms; load {load:.1f} on {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
