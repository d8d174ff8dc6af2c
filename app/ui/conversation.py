"""The conversation column: the answers so far, and the question box under them.

Ctrl/Cmd+Enter asks, Esc (a window shortcut) stops. Follow-up questions carry the earlier
exchanges as history. The column scrolls itself to follow a streaming answer unless the
technician has scrolled up to read something.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QDragEnterEvent, QKeyEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.agent.events import Done
from app.agent.turn import Turn
from app.ui.answer_card import AnswerCard
from app.ui.widgets import named

WELCOME = (
    "<h2 style='margin-bottom:6px'>Ask your manuals</h2>"
    "<p>Type a question below and press <b>Ctrl+Enter</b>. Answers quote the manuals and "
    "cite their pages; the cited pages appear on the right with the passages highlighted."
    "</p><p style='margin-top:10px'>For example:<br>"
    "<i>Which terminal powers the keypads, and how much current can it supply?</i><br>"
    "<i>How do I enter installer programming?</i></p>"
)


class QuestionBox(QPlainTextEdit):
    """A few lines of question; Ctrl/Cmd+Enter submits, dropped files go to the window."""

    submitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("questionBox")
        self.setPlaceholderText("Ask about your manuals…   (Ctrl+Enter to ask, Esc to stop)")
        self.setTabChangesFocus(True)
        self.setFixedHeight(74)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.submitted.emit()
            return
        super().keyPressEvent(event)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.ignore()  # let the window import them
            return
        super().dragEnterEvent(event)


class ConversationPanel(QWidget):
    ask_requested = Signal(str)
    stop_requested = Signal()
    citation_clicked = Signal(object)  # CitationOut
    card_finished = Signal(object)  # AnswerCard

    def __init__(self, link_color: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.link_color = link_color
        self.cards: dict[int, AnswerCard] = {}
        self.busy = False
        self._build()

    def _build(self) -> None:
        self.welcome = named(QLabel(WELCOME), "welcome")
        self.welcome.setWordWrap(True)
        self.welcome.setAlignment(Qt.AlignmentFlag.AlignTop)
        container = named(QWidget(), "conversationPage")
        self.column = QVBoxLayout(container)
        self.column.setContentsMargins(18, 18, 18, 18)
        self.column.setSpacing(14)
        self.column.addWidget(self.welcome)
        self.column.addStretch(1)
        self.scroller = named(QScrollArea(), "conversationScroll")
        self.scroller.setWidget(container)
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.scroller.verticalScrollBar().rangeChanged.connect(self._follow)
        bar = self._question_bar()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.scroller, 1)
        layout.addLayout(bar)
        self._at_bottom = True
        self.scroller.verticalScrollBar().valueChanged.connect(self._note_position)

    def _question_bar(self) -> QHBoxLayout:
        self.question = QuestionBox(self)
        self.question.submitted.connect(self.submit)
        self.ask_button = named(QPushButton("Ask"), "askButton")
        self.ask_button.setToolTip("Ask (Ctrl+Enter); while answering: stop (Esc)")
        self.ask_button.clicked.connect(self._ask_or_stop)
        bar = QHBoxLayout()
        bar.setContentsMargins(18, 8, 18, 14)
        bar.setSpacing(10)
        bar.addWidget(self.question, 1)
        bar.addWidget(self.ask_button, 0, Qt.AlignmentFlag.AlignBottom)
        return bar

    # ---- asking ----------------------------------------------------------------------------
    def submit(self) -> None:
        text = self.question.toPlainText().strip()
        if text:
            self.ask_requested.emit(text)

    def _ask_or_stop(self) -> None:
        if self.busy:
            self.stop_requested.emit()
        else:
            self.submit()

    def start_answer(self, job: int, question: str) -> AnswerCard:
        """A new card for question ``job``; the box is cleared for the follow-up."""
        self.welcome.hide()
        card = AnswerCard(question, self.link_color, self)
        card.citation_clicked.connect(self.citation_clicked)
        card.timeline.toggled.connect(lambda _=False: self._keep_visible(card))
        self.cards[job] = card
        self.column.insertWidget(self.column.count() - 1, card)
        self.question.clear()
        self._at_bottom = True
        self.set_busy(True)
        return card

    def add_event(self, job: int, event: object) -> None:
        card = self.cards.get(job)
        if card is None or not card.running:
            return
        card.add_event(event)
        if isinstance(event, Done):
            self.set_busy(False)
            self.card_finished.emit(card)

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.ask_button.setText("Stop" if busy else "Ask")
        self.ask_button.setProperty("stop", busy)
        self.ask_button.style().unpolish(self.ask_button)
        self.ask_button.style().polish(self.ask_button)

    def history(self) -> list[Turn]:
        """Answered exchanges, oldest first, for follow-up questions (a stopped or failed
        answer is left out: its half-written text would mislead the next one)."""
        return [
            Turn(card.question, card.text, card.source_labels())
            for card in self.cards.values()
            if not card.running and card.answer is not None
        ]

    def last_card(self) -> AnswerCard | None:
        return list(self.cards.values())[-1] if self.cards else None

    def clear(self) -> None:
        for card in self.cards.values():
            card.deleteLater()
        self.cards.clear()
        self.welcome.show()

    # ---- scrolling -------------------------------------------------------------------------
    def _note_position(self, value: int) -> None:
        bar = self.scroller.verticalScrollBar()
        self._at_bottom = value >= bar.maximum() - 24

    def _follow(self, _low: int, high: int) -> None:
        if self._at_bottom and self.busy:
            self.scroller.verticalScrollBar().setValue(high)

    def _keep_visible(self, card: AnswerCard) -> None:
        QTimer.singleShot(0, lambda: self.scroller.ensureWidgetVisible(card.timeline, 0, 40))
