"""Opening the window: the application, its style, the worker process, the main window.

``build_window`` is separate from ``run_window`` so the start-up benchmark, the
screenshot command and the tests build exactly what a technician gets.
"""

from __future__ import annotations

import sys
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSettings, QSize, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QWidget

from app.config import APP_NAME, REPO_ROOT, Settings, is_frozen, sample_manuals
from app.ui import theme
from app.ui.controller import Controller
from app.ui.file_open import FileOpenHandler
from app.ui.first_run import install_sample_offer
from app.ui.warmup import WarmUp
from app.ui.window import MainWindow
from app.worker.messages import DEFAULT_ANSWERER, EngineConfig


def application() -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    if app.windowIcon().isNull():
        app.setWindowIcon(app_icon())
    if app.findChild(FileOpenHandler) is None:
        app.installEventFilter(FileOpenHandler(app))
    return app


def app_icon() -> QIcon:
    """Lantern's icon at every size made by scripts/make_icons.py (window, Dock, task bar)."""
    icon = QIcon()
    for path in sorted((REPO_ROOT / "resources" / "icons").glob("lantern-*.png")):
        size = int(path.stem.rsplit("-", 1)[1])
        icon.addFile(str(path), QSize(size, size))
    return icon


def build_window(
    settings: Settings,
    answerer: str = DEFAULT_ANSWERER,
    state: QSettings | None = None,
    offer_sample: bool | None = None,
) -> MainWindow:
    """The main window with its worker process started (not shown yet).

    ``offer_sample`` (default: in the app bundle) shows "Try it with the sample manual"
    while the library is empty; a checkout's scripts/run.sh imports the samples instead."""
    app = application()
    colors = theme.apply(app)
    controller = Controller(EngineConfig(settings, answerer))
    window = MainWindow(controller, settings, colors, state)
    controller.setParent(window)
    theme.follow_system(app)
    if is_frozen() if offer_sample is None else offer_sample:
        offer = install_sample_offer(
            window.library, sample_manuals(), window.state, window.import_paths
        )
        controller.library_changed.connect(lambda lib: offer.update_for(len(lib.documents)))
        window.sample_offer = offer
    handler = app.findChild(FileOpenHandler)
    if handler is not None:
        handler.attach(window.import_paths)
    controller.start()
    window.warm_up = WarmUp(window, window.evidence.view)
    QTimer.singleShot(100, window.warm_up.start)  # once the window has painted
    return window


def run_window(settings: Any, quit_when_shown: bool = False) -> int:
    """Open Lantern's window and run until it is closed.

    ``quit_when_shown`` is a start-up check: print "window shown" on stdout when the window
    first paints, then close it (the frozen app's smoke test times this from launch)."""
    app = application()
    window = build_window(settings)
    if quit_when_shown:
        window.installEventFilter(_FirstPaint(window))
    window.show()
    return int(app.exec())


class _FirstPaint(QObject):
    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.seen = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and not self.seen:
            self.seen = True
            print("window shown", flush=True)
            QTimer.singleShot(0, self.window.close)
        return False
