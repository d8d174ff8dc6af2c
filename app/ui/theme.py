"""Light and dark appearance, following the system.

The style sheet (``resources/style.qss``) names colours as ``@tokens``; this module picks
the light or dark set from the system's colour scheme (or, when the platform does not
say, from the palette's window colour) and re-applies it when the system switches.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from app.config import REPO_ROOT

STYLE_PATH = REPO_ROOT / "resources" / "style.qss"

LIGHT = {
    "bg": "#f6f7f9", "surface": "#ffffff", "sidebar": "#eef0f3", "canvas": "#dfe2e7",
    "text": "#1d2127", "muted": "#69707c", "border": "#d8dce2", "hover": "#e6e9ee",
    "selection": "#dce7fb", "accent": "#2f6fde", "accent_hover": "#255fc4",
    "accent_text": "#ffffff", "chip": "#eef3fd", "chip_border": "#c9d9f6",
    "error": "#c93b30", "success": "#2e7d4f", "warning": "#d9a030",
    "warning_bg": "#fdf3dc", "warning_text": "#7a5410", "highlight": "#f5b400",
    "overlay": "rgba(47, 111, 222, 36)",
}  # fmt: skip
DARK = {
    "bg": "#1c1e22", "surface": "#25282d", "sidebar": "#202327", "canvas": "#141518",
    "text": "#e6e8eb", "muted": "#9aa1ad", "border": "#363a41", "hover": "#2e3238",
    "selection": "#27406b", "accent": "#6a9cf0", "accent_hover": "#82adf3",
    "accent_text": "#0f1620", "chip": "#22324d", "chip_border": "#34507e",
    "error": "#ef6b5f", "success": "#5cc38a", "warning": "#d9a030",
    "warning_bg": "#3b3120", "warning_text": "#f0cf8a", "highlight": "#ffc21a",
    "overlay": "rgba(106, 156, 240, 48)",
}  # fmt: skip


def is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    scheme = hints.colorScheme()
    if scheme != Qt.ColorScheme.Unknown:
        return scheme == Qt.ColorScheme.Dark
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


def colors() -> dict[str, str]:
    return DARK if is_dark() else LIGHT


def style_sheet(tokens: dict[str, str], template: str | None = None) -> str:
    """The style sheet with every ``@token`` replaced (longest names first)."""
    text = template if template is not None else _template(STYLE_PATH)
    names = sorted(tokens, key=len, reverse=True)
    pattern = re.compile("@(" + "|".join(map(re.escape, names)) + r")\b")
    return pattern.sub(lambda m: tokens[m.group(1)], text)


def _template(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""  # a missing sheet leaves the platform look: usable, just plainer


def apply(app: QApplication) -> dict[str, str]:
    """Style the application for the current scheme; returns the colours used."""
    tokens = colors()
    if app.style().name().lower() != "macos":
        app.setStyle("Fusion")  # the sheet is written against Fusion's metrics elsewhere
    app.setPalette(palette(tokens))
    app.setStyleSheet(style_sheet(tokens))
    return tokens


def palette(tokens: dict[str, str]) -> QPalette:
    """A palette from the same colours, for what the style sheet does not reach (menus,
    scroll bars, dialogs)."""
    result = QPalette()
    role = QPalette.ColorRole
    for name, token in (
        (role.Window, "bg"), (role.WindowText, "text"), (role.Base, "surface"),
        (role.AlternateBase, "sidebar"), (role.Text, "text"), (role.Button, "surface"),
        (role.ButtonText, "text"), (role.ToolTipBase, "surface"), (role.ToolTipText, "text"),
        (role.PlaceholderText, "muted"), (role.Highlight, "accent"),
        (role.HighlightedText, "accent_text"), (role.Link, "accent"), (role.Mid, "border"),
    ):  # fmt: skip
        result.setColor(name, QColor(tokens[token]))
    return result


def follow_system(app: QApplication, on_change: object = None) -> None:
    """Re-apply the style when the system switches between light and dark."""

    def changed(*_: object) -> None:
        apply(app)
        if callable(on_change):
            on_change()

    QGuiApplication.styleHints().colorSchemeChanged.connect(changed)
