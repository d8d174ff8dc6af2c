"""The reasoning timeline under an answer: one row per step the agent took.

Collapsed by default behind a one-line summary ("Reasoning · 2 steps · 0.8 s"). Each row
shows the tool, why it was chosen, what it found and how long it took; a row expands to
its details: the inputs, the objects found, status messages, and any error the agent
recovered from. Built incrementally from the same events the command line prints.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.agent.events import Decision, Done, Error, Result, Status
from app.ui.widgets import named, repolish


def describe_inputs(inputs: dict[str, Any]) -> str:
    if not inputs:
        return "no inputs"
    return ", ".join(f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in inputs.items())


def describe_object(obj: dict[str, Any]) -> str:
    """One found object as a short line: "Installation_Manual.pdf p.6 · score 0.80"."""
    where = f"{obj.get('document', '?')} p.{obj.get('page', '?')}"
    extras = [f"{k} {v:.2f}" for k, v in obj.items() if isinstance(v, float)]
    return " · ".join([where, *extras])


def format_seconds(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


class StepRow(QFrame):
    """One step: a header (number, tool, time), why, what it found, and hidden details."""

    def __init__(self, number: int, tool: str, why: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timelineStep")
        self.tool = tool
        self.arrow = named(QToolButton(self), "stepArrow")
        self.arrow.setArrowType(Qt.ArrowType.RightArrow)
        self.arrow.setCheckable(True)
        self.arrow.toggled.connect(self.set_expanded)
        self.title = named(QLabel(f"{number}  {tool}"), "stepTool")
        self.time = named(QLabel(""), "stepTime")
        self.why = self._label(why, "stepWhy")
        self.found = self._label("…", "stepFound")
        self.details = QWidget(self)
        self.details_layout = QVBoxLayout(self.details)
        self.details_layout.setContentsMargins(22, 2, 0, 2)
        self.details_layout.setSpacing(2)
        self.details.hide()
        header = QHBoxLayout()
        header.setSpacing(4)
        header.addWidget(self.arrow)
        header.addWidget(self.title, 1)
        header.addWidget(self.time)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 8, 6)
        layout.setSpacing(1)
        layout.addLayout(header)
        for widget in (self.why, self.found, self.details):
            layout.addWidget(widget)

    def _label(self, text: str, name: str) -> QLabel:
        label = named(QLabel(text), name)
        label.setWordWrap(True)
        label.setContentsMargins(22, 0, 0, 0)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def add_detail(self, text: str, error: bool = False) -> QLabel:
        label = named(QLabel(text), "stepError" if error else "stepDetail")
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details_layout.addWidget(label)
        return label

    def set_expanded(self, expanded: bool) -> None:
        self.arrow.setChecked(expanded)
        self.arrow.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.details.setVisible(expanded)

    def is_expanded(self) -> bool:
        return self.arrow.isChecked()


class Timeline(QWidget):
    """The collapsible list of the steps of one answer."""

    toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[StepRow] = []
        self.errors = 0
        self.seconds: float | None = None
        self.toggle = named(QToolButton(self), "timelineToggle")
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.toggled.connect(self.set_expanded)
        self.body = named(QFrame(self), "timelineBody")
        self.steps = QVBoxLayout(self.body)
        self.steps.setContentsMargins(4, 4, 4, 4)
        self.steps.setSpacing(2)
        self.body.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.body)
        self._update_summary()

    @property
    def current(self) -> StepRow | None:
        return self.rows[-1] if self.rows else None

    def add_event(self, event: object) -> None:
        if isinstance(event, Decision):
            self._add_step(event)
        elif isinstance(event, Status) and self.current is not None:
            self.current.add_detail(f"status: {event.message}")
        elif isinstance(event, Result):
            self._add_result(event)
        elif isinstance(event, Error):
            self._add_error(event)
        elif isinstance(event, Done):
            self.seconds = event.seconds
            for row in self.rows:
                if row.found.text() == "…":
                    row.found.setText("done")
        self._update_summary()

    def _new_row(self, tool: str, why: str, number: int = 0) -> StepRow:
        row = StepRow(number or len(self.rows) + 1, tool, why, self.body)
        self.rows.append(row)
        self.steps.addWidget(row)
        return row

    def _add_step(self, event: Decision) -> None:
        row = self._new_row(event.tool, event.reasoning, event.step)
        source = getattr(event, "source", "")
        row.add_detail(f"inputs: {describe_inputs(event.inputs)}")
        if source:
            row.add_detail(f"decided by: {source}")

    def _add_result(self, event: Result) -> None:
        row = self.current
        if row is None or row.tool != event.tool:
            row = self._new_row(event.tool, "")
        row.found.setText(f"→ {event.summary}")
        row.time.setText(format_seconds(event.seconds))
        for obj in event.objects[:10]:
            row.add_detail(f"found: {describe_object(obj)}")
        if len(event.objects) > 10:
            row.add_detail(f"… and {len(event.objects) - 10} more")

    def _add_error(self, event: Error) -> None:
        self.errors += event.recoverable
        row = self.current or self._new_row(event.tool or "error", "")
        state = "recovered" if event.recoverable else "failed"
        text = f"⚠ error ({state}): {event.message}"
        if event.suggestion:
            text += f" — {event.suggestion}"
        row.add_detail(text, error=True)
        row.found.setText(f"{row.found.text()}\n{text}" if row.found.text() != "…" else text)
        row.setProperty("error", True)
        repolish(row)

    def set_expanded(self, expanded: bool) -> None:
        self.toggle.setChecked(expanded)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.body.setVisible(expanded)
        self.toggled.emit(expanded)

    def is_expanded(self) -> bool:
        return self.toggle.isChecked()

    def _update_summary(self) -> None:
        count = len(self.rows)
        parts = ["Reasoning", f"{count} step{'s' if count != 1 else ''}"]
        if self.errors:
            parts.append(f"{self.errors} error{'s' if self.errors != 1 else ''} recovered")
        if self.seconds is not None:
            parts.append(format_seconds(self.seconds))
        self.toggle.setText(" · ".join(parts))
