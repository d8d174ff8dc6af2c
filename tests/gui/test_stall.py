"""The window never stalls more than 50 ms while a real import and a real answer run."""

from __future__ import annotations

from app.ui.stall import StallMeter
from app.worker.messages import DEFAULT_ANSWERER
from tests.gui.conftest import INSTALLATION, USER, build_library
from tests.gui.test_conversation import ask
from tests.gui.test_import_drop import drop

STALL_LIMIT_MS = 50


def test_no_stall_during_an_import_and_an_answer(make_window, tmp_path, sample_manuals_dir, qtbot):
    library = build_library(tmp_path / "library", [sample_manuals_dir / USER])
    window = make_window(library, answerer=DEFAULT_ANSWERER)
    # Start-up is not under test: wait for the idle warm-up to finish.
    qtbot.waitUntil(lambda: not window.warm_up.steps, timeout=10_000)
    qtbot.wait(200)
    meter = StallMeter()
    meter.start()
    drop(window, [sample_manuals_dir / INSTALLATION])
    card = ask(window, qtbot, "How do I arm the system in stay mode?")
    qtbot.waitUntil(lambda: not card.running, timeout=60_000)
    qtbot.waitUntil(lambda: len(window.library.documents) == 2, timeout=60_000)
    qtbot.waitUntil(lambda: window.evidence.current in window.evidence.images, timeout=20_000)
    card.timeline.set_expanded(True)
    qtbot.wait(200)
    meter.stop()
    print(f"worst stall {meter.worst_ms:.1f} ms over {len(meter.gaps)} beats")
    assert card.answer is not None and card.answer.citations
    assert meter.worst_ms < STALL_LIMIT_MS, f"the window stalled {meter.worst_ms:.0f} ms"
