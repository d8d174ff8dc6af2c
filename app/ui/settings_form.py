"""A form generated from the single declaration of settings (``app.config.Settings``):
one editor per field, chosen by its type, with its description as the explanation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.config import Settings
from app.ui.widgets import named

Editor = QSpinBox | QDoubleSpinBox | QLineEdit | QCheckBox


def _bounds(name: str) -> tuple[float, float]:
    """The ge/le limits pydantic declares for a field (wide ones when it declares none)."""
    low: float = 0
    high: float = 10**6
    for rule in Settings.model_fields[name].metadata:
        low = getattr(rule, "ge", low)
        high = getattr(rule, "le", high)
    return low, high


WORDS = {"llm": "LLM", "vlm": "VLM", "ocr": "OCR", "dpi": "DPI", "colqwen": "ColQwen",
         "gb": "(GB)", "dir": "folder"}  # fmt: skip


def label(name: str) -> str:
    """A setting's name as a form label: "ocr_dpi" -> "OCR DPI", "library_dir" -> "Library
    folder"."""
    words = [WORDS.get(word, word) for word in name.split("_")]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def make_editor(name: str, value: Any) -> Editor:
    annotation = Settings.model_fields[name].annotation
    low, high = _bounds(name)
    editor: Editor
    if annotation is bool:
        editor = QCheckBox()
        editor.setChecked(bool(value))
    elif annotation is int:
        editor = QSpinBox()
        editor.setRange(
            int(low if low is not None else 0), int(high if high is not None else 10**6)
        )
        editor.setValue(int(value))
    elif annotation is float:
        editor = QDoubleSpinBox()
        editor.setDecimals(2)
        editor.setSingleStep(0.25)
        editor.setRange(
            float(low if low is not None else 0), float(high if high is not None else 1e6)
        )
        editor.setValue(float(value))
    else:
        editor = QLineEdit(str(value))
    return editor


def editor_value(editor: Editor) -> Any:
    if isinstance(editor, QCheckBox):
        return editor.isChecked()
    if isinstance(editor, QSpinBox | QDoubleSpinBox):
        return editor.value()
    return editor.text().strip()


class SettingsForm(QWidget):
    """Every setting, editable; ``values()`` validates through the declaration itself."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.editors: dict[str, Editor] = {}
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        form.setVerticalSpacing(10)
        for name, default, description in Settings.describe():
            editor = make_editor(name, getattr(settings, name))
            editor.setToolTip(f"{description}\nDefault: {default}")
            self.editors[name] = editor
            help_text = named(QLabel(description), "docMeta")
            help_text.setWordWrap(True)
            cell = QVBoxLayout()
            cell.setSpacing(2)
            cell.addWidget(editor)
            cell.addWidget(help_text)
            form.addRow(label(name), cell)
        self.error = named(QLabel(""), "importDetail")
        self.error.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addStretch(1)

    def values(self) -> Settings | None:
        """The edited settings, or None (with the reason shown) when one is invalid."""
        data = self.settings.model_dump()
        for name, editor in self.editors.items():
            value = editor_value(editor)
            data[name] = Path(value) if isinstance(data[name], Path) else value
        try:
            result = Settings(**data)
        except ValidationError as exc:
            self.error.setText(f"Not saved: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}")
            return None
        self.error.setText("")
        return result
