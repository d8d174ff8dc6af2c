"""Small helpers shared by the widgets."""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtWidgets import QWidget

W = TypeVar("W", bound=QWidget)


def named(widget: W, name: str) -> W:
    """``widget`` with an object name, which the style sheet (resources/style.qss) styles by."""
    widget.setObjectName(name)
    return widget


def repolish(widget: QWidget) -> None:
    """Re-apply the style sheet after a dynamic property the sheet selects on changed."""
    widget.style().unpolish(widget)
    widget.style().polish(widget)


def short_title(title: str) -> str:
    """The part of a manual's title worth a button or a header: "Lumen AX-200 Hybrid Alarm
    Panel - Installation Manual" gives "Installation Manual"."""
    for separator in (" - ", " — ", ": "):
        if separator in title:
            return title.rsplit(separator, 1)[1]
    return title if len(title) <= 40 else title[:38] + "…"
