"""The Qt window. Everything that imports PySide6 lives in this package."""

from app.ui.qt_compat import protect_singletons

protect_singletons()
