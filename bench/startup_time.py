"""Start-up time: from launching Python to Lantern's window painted on screen.

Each round starts a fresh interpreter that builds the real window (``build_window``, as
``python -m app`` does) and reports the wall-clock moment of the main window's first
paint (and, for information, when the worker process has listed the library in it).
Times count from just before the interpreter is launched, so they include Python's own
start-up and every import. The heavy libraries (PyMuPDF, SQLite,
numpy, torch) load in the worker process, which must not delay the window. Target < 2 s.

    .venv/bin/python bench/startup_time.py [--rounds 5] [--library DIR]
    (uses the X display when there is one, e.g. under xvfb-run; else Qt's offscreen)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import sys, time
t_start = float(sys.argv[1])
from PySide6.QtCore import QEvent, QObject, QSettings, QTimer
from app.config import load_settings
from app.ui.main import application, build_window
t_imported = time.time()

class FirstPaint(QObject):
    at = listed = None

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and self.at is None:
            self.at = time.time()
            self.finish()
        return False

    def on_library(self, _state):
        self.listed = self.listed or time.time()
        self.finish()

    def finish(self):
        if self.at and self.listed:
            print(f"RESULT {t_imported - t_start:.3f} {built - t_start:.3f} "
                  f"{self.at - t_start:.3f} {self.listed - t_start:.3f}")
            QTimer.singleShot(0, window.close)

if __name__ == "__main__":
    app = application()
    settings = load_settings(library_dir=sys.argv[2])
    window = build_window(settings, state=QSettings(sys.argv[3], QSettings.Format.IniFormat))
    built = time.time()
    spy = FirstPaint()
    window.installEventFilter(spy)
    window.controller.library_changed.connect(spy.on_library)
    window.show()
    app.exec()
"""


def one_round(library: Path, scratch: Path) -> tuple[float, ...]:
    """(imports done, window built, first paint, library listed), seconds after launch."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    if not env.get("DISPLAY"):
        env["QT_QPA_PLATFORM"] = "offscreen"
    started = time.time()
    out = subprocess.run(
        [sys.executable, "-c", CHILD, repr(started), str(library), str(scratch / "w.ini")],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=60,
    )  # fmt: skip
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return tuple(float(v) for v in line.split()[1:])
    raise RuntimeError(f"the window did not start:\n{out.stderr[-2000:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--library", type=Path, help="library folder (default: a new empty one)")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="lantern-startup-"))
    library = args.library or scratch / "library"
    rows = []
    for number in range(1, args.rounds + 1):
        imported, built, painted, listed = one_round(library, scratch)
        rows.append(painted)
        print(f"round {number}: imports {imported:.2f} s, window built {built:.2f} s, "
              f"first paint {painted:.2f} s, library listed {listed:.2f} s")  # fmt: skip
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    median, worst = statistics.median(rows), max(rows)
    print(f"start-up to a painted window: median {median:.2f} s, worst {worst:.2f} s "
          f"over {len(rows)} rounds (target < 2 s; load {load:.1f})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
