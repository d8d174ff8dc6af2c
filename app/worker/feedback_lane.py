"""The worker's feedback lane: thumbs, right-page marks and new benchmark items, stored
through ``app.bench.feedback.FeedbackStore`` on the lane's own SQLite connection.

One thread handles the requests in the order they were clicked, and remembers which row
each question's feedback went to: a second click that arrives before the window has
heard about the first one still updates that row instead of adding another. No Qt here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.worker.lanes import Lane, Send
from app.worker.messages import (
    AddToBenchmarkRequest,
    FeedbackRequest,
    FeedbackSaved,
    RateRequest,
    RightPageRequest,
)

ACTIONS = {RateRequest: "rate", RightPageRequest: "right_page", AddToBenchmarkRequest: "benchmark"}


class FeedbackLane(Lane):
    """Stores the window's feedback and confirms each request with a ``FeedbackSaved``."""

    def __init__(self, settings: Any, send: Send) -> None:
        super().__init__("feedback", settings, send)
        self.rows: dict[int, int] = {}  # job -> feedback id
        self._store: Any = None

    def store(self) -> Any:
        """The FeedbackStore, made on first use (imported here: the window never needs it)."""
        if self._store is None:
            from app.bench.feedback import FeedbackStore

            assert self.library is not None
            self._store = FeedbackStore(self.library.store)
        return self._store

    def handle(self, request: FeedbackRequest) -> None:
        action = ACTIONS[type(request)]
        try:
            reply = self._apply(request)
        except Exception as exc:  # said in the status bar; the lane carries on
            known = request.feedback_id or self.rows.get(request.job)
            page = None
            if isinstance(request, RightPageRequest):
                page = (request.document, request.page)
            reply = FeedbackSaved(request.job, action, known, page=page, error=_reason(exc))
        self.send(reply)
        if not reply.error:
            from app.worker.learning_lane import after_feedback

            after_feedback(self)  # the verdict labelled decisions: an optimisation due?

    def _apply(self, request: FeedbackRequest) -> FeedbackSaved:
        if isinstance(request, RateRequest):
            row, added = self._row(request, request.rating)
            if not added:
                self.store().set_rating(row, request.rating)
            return FeedbackSaved(request.job, "rate", row, rating=request.rating)
        if isinstance(request, RightPageRequest):
            row, _ = self._row(request, 0)
            self.store().set_right_page(row, request.document, request.page)
            page = (request.document, request.page)
            return FeedbackSaved(request.job, "right_page", row, page=page)
        row, _ = self._row(request, 1)  # adding to the benchmark vouches for the answer
        item_id = self.store().append_to_dataset(row, Path(request.dataset))
        return FeedbackSaved(request.job, "benchmark", row, item_id=item_id,
                             dataset=request.dataset)  # fmt: skip

    def _row(self, request: FeedbackRequest, rating: int) -> tuple[int, bool]:
        """The question's feedback row, and whether it was added now (with ``rating``)."""
        row = request.feedback_id or self.rows.get(request.job)
        added = row is None
        if row is None:
            about = request.about
            row = self.store().add(
                question=about.question,
                answer=about.answer,
                abstained=about.abstained,
                rating=rating,
                decisions=[dict(d) for d in about.decisions],
                citations=[dict(c) for c in about.citations],
                pages=[dict(p) for p in about.pages],
            )
        self.rows[request.job] = int(row)
        return int(row), added


def _reason(exc: Exception) -> str:
    """One line for the status bar: the message, or the error's kind when it has none."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
