"""Optimising the prompts from the panel: pick MIPROv2 or GEPA and the validation share,
run ``app.bench.optimize`` in the worker, follow its progress, read the before and after
figures on the validation questions and where the new program version was saved.

Only in LLM mode: the button is disabled, with a tooltip saying why, when no LLM is
installed (the no-LLM agent has no prompts to optimise)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.widgets import named

NO_LLM_TIP = (
    "Optimising the prompts needs an LLM, and none is installed: the no-LLM agent has no "
    "prompts to optimise. Install one in Models and Settings."
)

NO_DATASET_TIP = "Load a dataset first: the optimiser trains on its questions."


def report_rows(report: dict[str, Any]) -> list[tuple[str, str]]:
    """An ``OptimizeReport.to_dict()`` as (label, text) lines, before and after first."""
    rows = [("Validation score", f"{_fmt(report.get('before'))} → {_fmt(report.get('after'))}")]
    for key, label in (("train_ids", "Training questions"), ("val_ids", "Validation questions")):
        if isinstance(report.get(key), list):
            rows.append((label, str(len(report[key]))))
    for key, label in (
        ("optimizer", "Optimiser"),
        ("model", "Model"),
        ("from_version", "Started from"),
        ("version", "Saved as version"),
        ("path", "Saved in"),
        ("seconds", "Seconds"),
        ("note", "Note"),
    ):
        if report.get(key):
            rows.append((label, _fmt(report[key])))
    return rows


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "–" if value is None else str(value)


class OptimiseView(QWidget):
    optimise_requested = Signal(str, float)  # optimizer, validation share
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.optimizer = QComboBox(self)
        self.optimizer.addItem("MIPROv2", "miprov2")
        self.optimizer.addItem("GEPA", "gepa")
        self.val_share = QDoubleSpinBox(self)
        self.val_share.setRange(0.1, 0.9)
        self.val_share.setSingleStep(0.05)
        self.val_share.setValue(0.3)
        self.button = named(QPushButton("Optimise prompts", self), "benchPrimary")
        self.button.clicked.connect(self._start)
        self.stop_button = QPushButton("Stop", self)
        self.stop_button.setToolTip("Stop the optimisation; nothing is saved")
        self.stop_button.clicked.connect(self.stop_requested)
        self.status = named(QLabel(""), "benchNote")
        self.status.setWordWrap(True)
        self.result = named(QLabel(""), "benchTruth")
        self.result.setTextFormat(Qt.TextFormat.RichText)
        self.result.setWordWrap(True)
        self.log = named(QPlainTextEdit(self), "benchLog")
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(500)
        self.log.setPlaceholderText("The optimiser's progress appears here.")
        self.running = False
        self.has_llm = False
        self.has_dataset = False
        self._layout()
        self.set_available(False, False)

    def _layout(self) -> None:
        form = QFormLayout()
        form.addRow("Optimiser", self.optimizer)
        form.addRow("Validation share", self.val_share)
        intro = named(
            QLabel(
                "Optimises the agent's decision and answer prompts on the loaded dataset, "
                "split into training and validation questions. The new program is saved "
                "as a new version in the library and used from the next question on."
            ),
            "benchNote",
        )
        intro.setWordWrap(True)
        left = QVBoxLayout()
        left.addWidget(intro)
        left.addLayout(form)
        row = QHBoxLayout()
        row.addWidget(self.button)
        row.addWidget(self.stop_button)
        row.addStretch(1)
        left.addLayout(row)
        left.addWidget(self.status)
        left.addWidget(named(QLabel("Before and after"), "sectionTitle"))
        left.addWidget(self.result)
        left.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.setSpacing(16)
        layout.addLayout(left, 2)
        layout.addWidget(self.log, 3)

    def set_available(self, has_llm: bool, has_dataset: bool) -> None:
        self.has_llm, self.has_dataset = has_llm, has_dataset
        self._update()

    def _update(self) -> None:
        ok = self.has_llm and self.has_dataset and not self.running
        self.button.setEnabled(ok)
        self.stop_button.setEnabled(self.running)
        if not self.has_llm:
            tip = NO_LLM_TIP
        elif not self.has_dataset:
            tip = NO_DATASET_TIP
        elif self.running:
            tip = "Optimising…"
        else:
            tip = "Optimise the prompts on the loaded dataset"
        self.button.setToolTip(tip)
        if not self.running and not self.button.isEnabled():
            self.status.setText(tip)
        elif not self.running and self.status.text() in (NO_LLM_TIP, NO_DATASET_TIP):
            self.status.setText("")

    def _start(self) -> None:
        self.running = True
        self.log.clear()
        self.result.setText("")
        self.status.setText("Optimising… this can take a long time with a local model.")
        self._update()
        self.optimise_requested.emit(self.optimizer.currentData(), self.val_share.value())

    def on_update(
        self, text: str, finished: bool, report: dict[str, Any] | None, error: str
    ) -> None:
        if text and not finished:
            self.log.appendPlainText(text)
        if not finished:
            return
        self.running = False
        self._update()
        if error:
            self.status.setText(f"Optimisation failed: {error}")
            return
        report = report or {}
        if report.get("version"):
            text = f"Saved as {report['version']}: the agent uses the new prompts from now on."
        else:
            text = f"Finished; nothing saved: {report.get('note') or 'no improvement'}."
        self.status.setText(text)
        rows = report_rows(report)
        self.result.setText(
            "<table>"
            + "".join(
                f"<tr><td>{k}</td><td style='padding-left:16px'><b>{v}</b></td></tr>"
                for k, v in rows
            )
            + "</table>"
        )
