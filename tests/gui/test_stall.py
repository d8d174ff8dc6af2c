"""The window never stalls more than 50 ms while a real import and a real answer run.

A stall the app causes recurs when the same work runs again; one the machine causes does
not (another process taking the core for a moment: CI builds the app bundle beside the
tests on two cores, and one 55 ms gap in 848 beats failed a run). So when the first run
goes over the bar, the same import and answer run once more in a fresh window on a fresh
library, and that run must stay under it. Both runs' worst gaps are printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.ui.stall import StallMeter
from app.worker.messages import DEFAULT_ANSWERER
from tests.gui.conftest import INSTALLATION, USER, build_library
from tests.gui.test_conversation import ask
from tests.gui.test_import_drop import drop

pytestmark = pytest.mark.timing

STALL_LIMIT_MS = 50
RUNS = 2


def _worst_stall_ms(make_window, folder: Path, manuals: Path, qtbot) -> float:  # type: ignore[no-untyped-def]
    """The window's worst stall while it imports a manual and answers a question."""
    library = build_library(folder / "library", [manuals / USER])
    window = make_window(library, answerer=DEFAULT_ANSWERER)
    # Start-up is not under test: wait for the idle warm-up to finish.
    qtbot.waitUntil(lambda: not window.warm_up.steps, timeout=10_000)
    qtbot.wait(200)
    meter = StallMeter()
    meter.start()
    drop(window, [manuals / INSTALLATION])
    card = ask(window, qtbot, "How do I arm the system in stay mode?")
    qtbot.waitUntil(lambda: not card.running, timeout=60_000)
    qtbot.waitUntil(lambda: len(window.library.documents) == 2, timeout=60_000)
    qtbot.waitUntil(lambda: window.evidence.current in window.evidence.images, timeout=20_000)
    card.timeline.set_expanded(True)
    qtbot.wait(200)
    meter.stop()
    print(f"worst stall {meter.worst_ms:.1f} ms over {len(meter.gaps)} beats")
    assert card.answer is not None and card.answer.citations
    return meter.worst_ms


def test_no_stall_during_an_import_and_an_answer(make_window, tmp_path, sample_manuals_dir, qtbot):
    worst: list[float] = []
    for run in range(RUNS):
        folder = tmp_path / f"run{run}"
        worst.append(_worst_stall_ms(make_window, folder, sample_manuals_dir, qtbot))
        if worst[-1] < STALL_LIMIT_MS:
            break
    shown = ", ".join(f"{w:.0f} ms" for w in worst)
    assert worst[-1] < STALL_LIMIT_MS, f"the window stalled in every run: {shown}"
