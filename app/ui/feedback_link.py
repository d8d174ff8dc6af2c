"""Feedback from the conversation to the worker: the thumbs and "Add to benchmark" on each
answer card, and "This is the right page" on the evidence pane.

Each request carries the finished answer with the agent's steps (``AnswerCard.answered``)
and the card's feedback row once the worker has named it, so a later click updates that
row instead of adding one. Replies are said in the status bar; a failed one puts the
control back as it was. The dataset file for new benchmark items is asked for the first
time and remembered in the window's settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from app.agent.events import Answer
from app.worker.messages import AddToBenchmarkRequest, FeedbackSaved, RateRequest, RightPageRequest

if TYPE_CHECKING:
    from app.ui.answer_card import AnswerCard
    from app.ui.commands import WindowCommands

DATASET_KEY = "feedback/dataset"
RATED = {1: "marked as a right answer", -1: "marked as a wrong answer", 0: "rating cleared"}


class FeedbackLink(QObject):
    """Connects every answer card and the evidence pane to the worker's feedback lane."""

    def __init__(self, window: WindowCommands) -> None:
        super().__init__(window._window())
        self.window = window
        self.controller = window.controller
        self.saved_ratings: dict[int, int] = {}  # job -> rating the worker has stored
        self._wired: set[int] = set()
        self.controller.answer_event.connect(self._answer_event)
        self.controller.feedback_saved.connect(self._saved)
        self.controller.restarted.connect(self._abandon)
        window.evidence.right_page_marked.connect(self.mark_right_page)

    def _card(self, job: int) -> AnswerCard | None:
        return self.window.conversation.cards.get(job)

    def _answer_event(self, job: int, event: object) -> None:
        """Wire a card at its first event; the evidence of a new answer belongs to it
        (the window has just shown it: its slot was connected first)."""
        card = self._card(job)
        if card is None:
            return
        if job not in self._wired:
            self._wired.add(job)
            card.feedback.rated.connect(lambda rating, j=job: self.rate(j, rating))
            card.feedback.benchmark_requested.connect(lambda j=job: self.add_to_benchmark(j))
            card.feedback.choose_dataset_requested.connect(self.choose_dataset)
            card.citation_clicked.connect(lambda _c, j=job: self.window.evidence.set_origin(j))
        if isinstance(event, Answer) and job == self.controller.current_job:
            self.window.evidence.set_origin(job)

    # ---- requests ------------------------------------------------------------------------
    def rate(self, job: int, rating: int) -> None:
        card = self._card(job)
        about = card.answered() if card is not None else None
        if card is not None and about is not None:
            self.controller.send_feedback(RateRequest(job, about, rating, card.feedback_id))

    def mark_right_page(self, job: int, document: str, page: int) -> None:
        card = self._card(job)
        about = card.answered() if card is not None else None
        if card is None or about is None:
            self.window.evidence.right_page_saved(job, document, page, ok=False)
            self._say("Wait for the answer to finish before marking its page")
            return
        request = RightPageRequest(job, about, document, page, card.feedback_id)
        self.controller.send_feedback(request)

    def add_to_benchmark(self, job: int) -> None:
        card = self._card(job)
        about = card.answered() if card is not None else None
        if card is None or about is None:
            return
        dataset = self.dataset() or self.choose_dataset()
        if not dataset:
            return
        card.feedback.set_adding()
        request = AddToBenchmarkRequest(job, about, dataset, card.feedback_id)
        self.controller.send_feedback(request)

    def dataset(self) -> str:
        """The dataset file new benchmark items go to ("" until one is chosen)."""
        value = self.window.state.value(DATASET_KEY, "")
        return str(value) if value else ""

    def choose_dataset(self) -> str:
        """Ask for the dataset file (new or existing) and remember it; "" if cancelled."""
        current = self.dataset() or str(Path.home() / "lantern-benchmark.json")
        path, _ = QFileDialog.getSaveFileName(
            self.window._window(),
            "Benchmark dataset for new items",
            current,
            "Benchmark datasets (*.json)",
            options=QFileDialog.Option.DontConfirmOverwrite,  # items are added, not replaced
        )
        if not path:
            return ""
        if Path(path).suffix.lower() != ".json":
            path += ".json"
        self.window.state.setValue(DATASET_KEY, path)
        self.window.state.sync()
        self._say(f"New benchmark items go to {path}")
        return path

    # ---- replies -------------------------------------------------------------------------
    def _saved(self, reply: FeedbackSaved) -> None:
        card = self._card(reply.job)
        if card is not None and reply.feedback_id is not None:
            card.feedback_id = reply.feedback_id
        if reply.page is not None:
            self.window.evidence.right_page_saved(reply.job, *reply.page, ok=not reply.error)
        if reply.error:
            self._undo(card, reply)
            self._say(f"Could not save the feedback: {reply.error}", 10_000)
        elif reply.action == "rate":
            self.saved_ratings[reply.job] = reply.rating
            self._say(f"Feedback saved: {RATED.get(reply.rating, 'rated')}")
        elif reply.action == "right_page" and reply.page is not None:
            self._say(f"Feedback saved: page {reply.page[1]} of {reply.page[0]} is the right page")
        elif reply.action == "benchmark":
            if card is not None:
                card.feedback.set_added(reply.item_id, reply.dataset)
            self._say(f"Added to the benchmark as {reply.item_id} in {Path(reply.dataset).name}")

    def _undo(self, card: AnswerCard | None, reply: FeedbackSaved) -> None:
        """Put a control whose request failed back as the worker last stored it."""
        if card is None:
            return
        if reply.action == "rate":
            card.feedback.set_rating(self.saved_ratings.get(reply.job, 0))
        elif reply.action == "benchmark":
            card.feedback.set_added(card.feedback.item_id, "")

    def _abandon(self) -> None:
        """The worker restarted and its queue is gone: nothing is being saved any more."""
        evidence = self.window.evidence
        for origin, document, page in [k for k, saved in evidence.marked.items() if not saved]:
            evidence.right_page_saved(origin, document, page, ok=False)
        for card in self.window.conversation.cards.values():
            if not card.feedback.add_button.isEnabled() and not card.feedback.item_id:
                card.feedback.set_added("", "")

    def _say(self, message: str, timeout: int = 6_000) -> None:
        self.window.status.showMessage(message, timeout)
