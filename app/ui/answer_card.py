"""One exchange of the conversation: the question, the answer streaming in, its
citations as buttons, thumbs and a copy button, and the reasoning timeline under it."""

from __future__ import annotations

from dataclasses import asdict

from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import QGuiApplication, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.agent.events import Answer, CitationOut, Decision, Done, Error, Result, Status, Token
from app.ui.answer_format import answer_html, plain_answer
from app.ui.feedback_bar import FeedbackBar
from app.ui.flow_layout import FlowLayout
from app.ui.timeline import Timeline
from app.ui.widgets import named, short_title
from app.worker.messages import AnsweredQuestion

ABSTAIN_TITLE = "The manuals don't answer this"


class AnswerText(QTextBrowser):
    """Rich text that grows to fit its content instead of scrolling."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("answerText")
        self.setOpenLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().setDocumentMargin(0)

    def set_body(self, html: str) -> None:
        self.setHtml(html)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        self.document().setTextWidth(self.viewport().width())
        height = int(self.document().size().height()) + 4
        if height != self.height():
            self.setFixedHeight(max(height, 20))

    def sizeHint(self) -> QSize:
        return QSize(400, self.height())


class AnswerCard(QFrame):
    """Builds itself from the events of one question."""

    citation_clicked = Signal(object)  # CitationOut
    finished = Signal()

    def __init__(self, question: str, link_color: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("answerCard")
        self.question = question
        self.link_color = link_color
        self.text = ""
        self.answer: Answer | None = None
        self.running = True
        self.stopped = False
        self.steps: list[dict[str, object]] = []  # the agent's decisions, results and errors
        self.feedback_id: int | None = None  # the stored feedback row, once there is one
        self._build()

    def _build(self) -> None:
        self.question_label = named(QLabel(self.question), "questionText")
        self.question_label.setWordWrap(True)
        self.question_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notice = named(QLabel(ABSTAIN_TITLE), "abstainNotice")
        self.notice.hide()
        self.body = AnswerText(self)
        self.body.anchorClicked.connect(self._anchor)
        self.status = named(QLabel("Thinking…"), "answerStatus")
        self.copy_button = named(QPushButton("Copy"), "copyButton")
        self.copy_button.setToolTip("Copy the answer with its sources")
        self.copy_button.clicked.connect(self.copy)
        self.copy_button.setEnabled(False)
        self.feedback = FeedbackBar(self.link_color, self)
        self.feedback.hide()
        self.chips = FlowLayout(spacing=6)
        self.timeline = Timeline(self)
        footer = QHBoxLayout()
        footer.addWidget(self.status, 1)
        footer.addWidget(self.feedback)
        footer.addWidget(self.copy_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 12)
        layout.setSpacing(8)
        layout.addWidget(self.question_label)
        layout.addWidget(self.notice)
        layout.addWidget(self.body)
        layout.addLayout(self.chips)
        layout.addLayout(footer)
        layout.addWidget(self.timeline)

    # ---- events ----------------------------------------------------------------------------
    def add_event(self, event: object) -> None:
        self.timeline.add_event(event)
        if isinstance(event, Decision | Result | Error):
            self.steps.append(asdict(event))
        if isinstance(event, Token):
            self.text = event.text if getattr(event, "reset", False) else self.text + event.text
            self._render()
        elif isinstance(event, Status):
            self.status.setText(event.message)
        elif isinstance(event, Answer):
            self._set_answer(event)
        elif isinstance(event, Error) and not event.recoverable:
            self.text = self.text or f"Lantern could not answer: {event.message}"
            self._render()
        elif isinstance(event, Done):
            self.stopped = event.status == "stopped"
            self._finish(event)

    def _set_answer(self, answer: Answer) -> None:
        self.answer = answer
        self.text = answer.text
        self.notice.setVisible(answer.abstained)
        self.setProperty("abstained", answer.abstained)
        self._render()
        for number, citation in enumerate(answer.citations, start=1):
            label = f"[{number}]  {short_title(citation.title)} · p.{citation.page}"
            chip = named(QPushButton(label), "citationChip")
            chip.setToolTip(f"Show {citation.title}, page {citation.page}")
            chip.setCursor(Qt.CursorShape.PointingHandCursor)
            chip.clicked.connect(lambda _=False, c=citation: self.citation_clicked.emit(c))
            self.chips.addWidget(chip)

    def _finish(self, done: Done) -> None:
        self.running = False
        self.copy_button.setEnabled(bool(self.text))
        self.feedback.setVisible(self.answer is not None)
        if self.stopped:
            self.status.setText("Stopped")
            if not self.text:
                self.body.set_body("<i>Stopped before an answer was written.</i>")
        else:
            self.status.setText(f"Answered in {done.seconds:.1f} s")
        self.finished.emit()

    def _render(self) -> None:
        self.body.set_body(answer_html(self.text, self.link_color))

    def _anchor(self, url: QUrl) -> None:
        if url.scheme() != "cite" or self.answer is None:
            return
        index = int(url.path() or url.toString().split(":", 1)[1]) - 1
        if 0 <= index < len(self.answer.citations):
            self.citation_clicked.emit(self.answer.citations[index])

    def citation(self, number: int) -> CitationOut | None:
        if self.answer is None or not 1 <= number <= len(self.answer.citations):
            return None
        return self.answer.citations[number - 1]

    def source_labels(self) -> tuple[str, ...]:
        """The answer's citations as "title p.N" labels, for follow-up questions."""
        if self.answer is None:
            return ()
        return tuple(f"{c.title} p.{c.page}" for c in self.answer.citations)

    def answered(self) -> AnsweredQuestion | None:
        """The finished answer with the agent's steps, for feedback (None without one)."""
        if self.answer is None or self.running:
            return None
        return AnsweredQuestion(
            self.question,
            self.answer.text,
            self.answer.abstained,
            tuple(self.steps),
            tuple(asdict(c) for c in self.answer.citations),
            tuple(asdict(p) for p in self.answer.pages),
        )

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(plain_answer(self.text))
        self.status.setText("Copied to the clipboard")
