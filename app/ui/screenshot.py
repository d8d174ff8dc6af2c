"""``python -m app screenshot OUT.png``: open the real window, optionally ask a question
and wait for its answer (and the cited page's image), then save a picture of the window.

With ``--view learning`` it shows the benchmark panel's Learning tab (rolling accuracy of the
recorded decisions). With ``--view benchmark`` it shows the newest saved benchmark run of the
library, or, when there is none, runs the dataset (``--dataset``, else the sample
questions) and waits for it to finish."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from app.agent.events import Done
from app.ui.main import application, build_window
from app.ui.window import MainWindow

TIMEOUT_S = 180.0
BENCH_TIMEOUT_S = 3600.0  # a whole dataset, answered by a local LLM and judged
LEARNING_WAIT_MS = 3000


class Shooter:
    """Drives the window: wait for the library, ask, wait for the answer and page, shoot."""

    def __init__(
        self, window: MainWindow, out: Path, question: str, view: str, dataset: str = ""
    ) -> None:
        self.window = window
        self.out = out
        self.question = question
        self.view = view
        self.dataset = dataset
        self.asked = False
        self.listed = False  # the worker has listed the library: the window shows its manuals
        self.answered = not question
        self.benched = view != "benchmark" or window.benchmark.run is not None
        window.benchmark.run_finished.connect(self._bench_finished)
        self.timeout = TIMEOUT_S if self.benched else BENCH_TIMEOUT_S
        self.started = time.monotonic()
        self.code = 1
        window.controller.library_changed.connect(self._library_ready)
        window.controller.answer_event.connect(self._event)
        self.poll = QTimer(window)
        self.poll.timeout.connect(self._check)
        self.poll.start(200)

    def _library_ready(self, _state: Any) -> None:
        self.listed = True
        if not self.benched and not self.window.benchmark.running:
            self._start_bench()
        if self.question and not self.asked:
            self.asked = True
            self.window.ask(self.question)

    def _start_bench(self) -> None:
        """No saved run to show: run the dataset and shoot when it is done."""
        panel = self.window.benchmark
        if self.dataset and not panel.load_dataset(self.dataset, remember=False):
            print(f"screenshot: {panel.bar.status.text()}", file=sys.stderr)
        if not panel.dataset:
            print("screenshot: no saved run and no dataset to run", file=sys.stderr)
            self.benched = True
            return
        panel.start_run()

    def _bench_finished(self, _reply: Any) -> None:
        self.benched = True

    def _event(self, _job: int, event: object) -> None:
        if isinstance(event, Done):
            self.answered = True
            card = self.window.conversation.last_card()
            if card is not None:
                card.timeline.set_expanded(True)

    def _page_shown(self) -> bool:
        evidence = self.window.evidence
        return evidence.current is None or evidence.current in evidence.images

    def _check(self) -> None:
        timed_out = time.monotonic() - self.started > self.timeout
        done = self.listed and self.answered and self.benched and self._page_shown()
        if not timed_out and not done:
            return
        self.poll.stop()
        if timed_out:
            print(f"screenshot: gave up waiting after {self.timeout:.0f} s", file=sys.stderr)
        # Let the last images and layout settle (in the view shown) before the picture is taken.
        self.window.show_view("benchmark" if self.view == "learning" else self.view)
        if self.view == "learning":
            # Opening the tab asks the worker for the figures; give the reply time to come.
            self.window.benchmark.show_tab(self.window.benchmark.learning)
            QTimer.singleShot(LEARNING_WAIT_MS, self._shoot)
        else:
            QTimer.singleShot(600, self._shoot)

    def _shoot(self) -> None:
        ok = self.window.grab().save(str(self.out))
        self.code = 0 if ok else 1
        print(f"saved {self.out}" if ok else f"cannot write {self.out}", file=sys.stderr)
        self.window.close()


def run_screenshot(
    settings: Any, out: Path | str, question: str = "", view: str = "main", dataset: str = ""
) -> int:
    """Save a screenshot of the window to ``out``; 0 on success."""
    app: QApplication = application()
    state = QSettings(str(Path(tempfile.mkdtemp()) / "window.ini"), QSettings.Format.IniFormat)
    window = build_window(settings, state=state)
    window.resize(1440, 900)
    window.show()
    shooter = Shooter(window, Path(out), question, view, dataset)
    app.exec()
    return shooter.code
