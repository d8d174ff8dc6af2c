"""Opening the window: the application, its style, the worker process, the main window.

``build_window`` is separate from ``run_window`` so the start-up benchmark, the
screenshot command and the tests build exactly what a technician gets.
"""

from __future__ import annotations

import sys
from typing import Any

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from app.config import APP_NAME, Settings
from app.ui import theme
from app.ui.controller import Controller
from app.ui.messages import DEFAULT_ANSWERER, EngineConfig
from app.ui.warmup import WarmUp
from app.ui.window import MainWindow


def application() -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    return app


def build_window(
    settings: Settings,
    answerer: str = DEFAULT_ANSWERER,
    state: QSettings | None = None,
) -> MainWindow:
    """The main window with its worker process started (not shown yet)."""
    app = application()
    colors = theme.apply(app)
    controller = Controller(EngineConfig(settings, answerer))
    window = MainWindow(controller, settings, colors, state)
    controller.setParent(window)
    theme.follow_system(app)
    controller.start()
    window.warm_up = WarmUp(window, window.evidence.view)
    QTimer.singleShot(100, window.warm_up.start)  # once the window has painted
    return window


def run_window(settings: Any) -> int:
    """Open Lantern's window and run until it is closed."""
    app = application()
    window = build_window(settings)
    window.show()
    return int(app.exec())
