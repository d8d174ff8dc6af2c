"""Interactive mode: a random question from the dataset without its answer; the
technician answers it (or has Lantern answer it, blind); "Evaluate" shows the judge's
verdict and then the ground truth; "Judge 5×" judges the same answer five times to show
how steady the judge's score is."""

from __future__ import annotations

import random
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.bench.dataset import BenchItem
from app.ui.benchmark.records import NO_LLM_JUDGE
from app.ui.widgets import named

CONSISTENCY_REPEATS = 5
DETERMINISTIC = (
    "The key-fact check is deterministic (no LLM installed): the same answer always gets "
    "the same score, so this shows the check, not a model's consistency."
)


def ground_truth_html(item: BenchItem) -> str:
    """The item's answer, key facts and evidence pages, for after the verdict."""
    from html import escape

    lines = [f"<p>{escape(item.answer) or '<i>no answer given in the dataset</i>'}</p>"]
    if item.key_facts:
        lines.append(
            "<p><b>Key facts:</b> " + ", ".join(escape(f) for f in item.key_facts) + "</p>"
        )
    pages = "; ".join(
        f"{escape(ref.document)} p.{', '.join(map(str, ref.pages))}" for ref in item.evidence
    )
    if pages:
        lines.append(f"<p><b>Evidence:</b> {pages}</p>")
    return "".join(lines)


def verdict_html(verdict: dict[str, Any]) -> str:
    from html import escape

    method = "LLM judge" if verdict.get("method") == "llm" else NO_LLM_JUDGE
    lines = [
        f"<p><span style='font-size:22px;font-weight:600'>{verdict.get('score', 0)}</span>"
        f" / 100 &nbsp; <span style='color:gray'>{escape(method)}</span></p>",
        f"<p>{escape(str(verdict.get('reasoning', '')))}</p>",
    ]
    for key, label in (("missing_facts", "Missing"), ("incorrect_facts", "Wrong")):
        if verdict.get(key):
            lines.append(
                f"<p><b>{label}:</b> " + ", ".join(escape(f) for f in verdict[key]) + "</p>"
            )
    return "".join(lines)


def consistency_html(figures: dict[str, Any], ruled: bool = False) -> str:
    """``judge_consistency``'s figures in one line: scores, mean, spread and method, with why
    a spread of 0 may say nothing about a model (rule-scored, deterministic, fallbacks)."""
    from html import escape

    scores = ", ".join(str(s) for s in figures.get("scores", ()))
    method = str(figures.get("method", ""))
    line = (
        f"scores {scores} · mean {float(figures.get('mean', 0)):g} · "
        f"spread {figures.get('spread', 0)} · method {method}"
    )
    notes = []
    if ruled:
        notes.append("Scored by rule (an unanswerable question or an abstention): no judge asked.")
    elif method != "llm":
        notes.append(DETERMINISTIC)
    elif figures.get("fallbacks"):
        notes.append(
            f"{figures['fallbacks']} of {figures.get('repeats')} verdicts fell back to the "
            "key-fact check (the model's reply could not be read)."
        )
    note = "".join(f"<p style='color:gray'>{escape(n)}</p>" for n in notes)
    return f"<p><b>Judged {figures.get('repeats')} times:</b> {escape(line)}</p>{note}"


class InteractiveView(QWidget):
    ask_requested = Signal(str)  # the question, for the agent to answer blind
    judge_requested = Signal(object, str, bool, int)  # BenchItem, answer, abstained, repeats
    evidence_requested = Signal(object)  # the record of Lantern's answer, for the evidence pane

    def __init__(self, parent: QWidget | None = None, seed: int | None = None) -> None:
        super().__init__(parent)
        self.items: list[BenchItem] = []
        self.item: BenchItem | None = None
        self.random = random.Random(seed)
        self.waiting = False
        self.judged_by_rule = False  # the answer being judged needs no judge (see rule_verdict)
        self.record: dict[str, Any] | None = None  # Lantern's answer to the question shown
        self._build()
        self.set_items([])

    def _build(self) -> None:
        self.suggest_button = QPushButton("Suggest question", self)
        self.suggest_button.clicked.connect(self.suggest)
        self.category = named(QLabel(""), "benchCategory")
        self.question = named(QLabel("Load a dataset, then ask for a question."), "benchQuestion")
        self.question.setWordWrap(True)
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.answer = named(QPlainTextEdit(self), "benchAnswer")
        self.answer.setPlaceholderText("Type your answer, or let Lantern answer it…")
        self.abstain = QCheckBox("The manuals do not answer this", self)
        self.ask_button = named(QPushButton("Ask Lantern", self), "benchPrimary")
        self.ask_button.clicked.connect(self.ask)
        self.evaluate_button = QPushButton("Evaluate", self)
        self.evaluate_button.clicked.connect(self.evaluate)
        self.repeat_button = QPushButton(f"Judge {CONSISTENCY_REPEATS}×", self)
        self.repeat_button.setToolTip(
            f"Judge the same answer {CONSISTENCY_REPEATS} times: how steady is the score?"
        )
        self.repeat_button.clicked.connect(self.judge_repeatedly)
        self.evidence_button = QPushButton("Show evidence", self)
        self.evidence_button.setToolTip("Open the pages Lantern cited, with their highlights")
        self.evidence_button.clicked.connect(self._show_evidence)
        self.verdict = named(QLabel(""), "benchVerdict")
        self.truth = named(QLabel(""), "benchTruth")
        for label in (self.verdict, self.truth):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict_box = self._box("Judge's verdict", self.verdict)
        self.truth_box = self._box("Ground truth", self.truth)
        self._layout()

    def _box(self, title: str, body: QLabel) -> QFrame:
        box = named(QFrame(self), "benchBox")
        layout = QVBoxLayout(box)
        layout.addWidget(named(QLabel(title), "sectionTitle"))
        layout.addWidget(body)
        box.hide()
        return box

    def _layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.suggest_button)
        top.addWidget(self.category)
        top.addStretch(1)
        actions = QHBoxLayout()
        actions.addWidget(self.abstain)
        actions.addStretch(1)
        actions.addWidget(self.ask_button)
        actions.addWidget(self.evidence_button)
        actions.addWidget(self.evaluate_button)
        actions.addWidget(self.repeat_button)
        left = QVBoxLayout()
        left.addLayout(top)
        left.addWidget(self.question)
        left.addWidget(self.answer, 1)
        left.addLayout(actions)
        right = QVBoxLayout()
        right.addWidget(self.verdict_box)
        right.addWidget(self.truth_box)
        right.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.setSpacing(16)
        layout.addLayout(left, 3)
        layout.addLayout(right, 2)

    # ---- flow ------------------------------------------------------------------------------
    def set_items(self, items: list[BenchItem]) -> None:
        self.items = list(items)
        self.suggest_button.setEnabled(bool(self.items))
        self._update_buttons()

    def suggest(self) -> None:
        """A random question (another one than shown, when there is a choice); no answer."""
        if not self.items:
            return
        choices = [i for i in self.items if i is not self.item] or self.items
        self.item = self.random.choice(choices)
        self.category.setText(self.item.category)
        self.question.setText(self.item.query)
        self.answer.clear()
        self.abstain.setChecked(False)
        self.record = None
        self.verdict_box.hide()
        self.truth_box.hide()
        self._update_buttons()

    def ask(self) -> None:
        if self.item is None:
            return
        self.waiting = True
        self.answer.setPlainText("")
        self.answer.setPlaceholderText("Lantern is answering…")
        self._update_buttons()
        self.ask_requested.emit(self.item.query)

    def on_answered(self, record: dict[str, Any] | None, error: str = "") -> None:
        self.waiting = False
        self.answer.setPlaceholderText("Type your answer, or let Lantern answer it…")
        self.record = record
        if record is None:
            self.answer.setPlainText(f"Lantern could not answer: {error}")
        else:
            self.answer.setPlainText(record.get("answer", ""))
            self.abstain.setChecked(bool(record.get("abstained")))
        self._update_buttons()

    def _show_evidence(self) -> None:
        if self.record is not None:
            self.evidence_requested.emit(self.record)

    def evaluate(self) -> None:
        self._judge(1)

    def judge_repeatedly(self) -> None:
        self._judge(CONSISTENCY_REPEATS)

    def _judge(self, repeats: int) -> None:
        if self.item is None:
            return
        self.waiting = True
        self.verdict.setText("Judging…" if repeats == 1 else f"Judging {repeats} times…")
        self.verdict_box.show()
        self.truth_box.hide()
        self._update_buttons()
        answer, abstained = self.answer.toPlainText(), self.abstain.isChecked()
        self.judged_by_rule = self.item.unanswerable or abstained
        self.judge_requested.emit(self.item, answer, abstained, repeats)

    def on_verdict(
        self,
        verdict: dict[str, Any] | None,
        error: str = "",
        consistency: dict[str, Any] | None = None,
    ) -> None:
        """The verdict (or the repeated verdicts' figures) first, then the ground truth."""
        self.waiting = False
        if consistency is not None:
            self.verdict.setText(consistency_html(consistency, self.judged_by_rule))
        elif verdict:
            self.verdict.setText(verdict_html(verdict))
        else:
            self.verdict.setText(f"The judge failed: {error}")
        self.verdict_box.show()
        if self.item is not None:
            self.truth.setText(ground_truth_html(self.item))
            self.truth_box.show()
        self._update_buttons()

    def _update_buttons(self) -> None:
        ready = self.item is not None and not self.waiting
        self.ask_button.setEnabled(ready)
        self.evaluate_button.setEnabled(ready)
        self.repeat_button.setEnabled(ready)
        cited = bool(self.record and self.record.get("citations"))
        self.evidence_button.setEnabled(cited and not self.waiting)
        self.answer.setEnabled(self.item is not None)
