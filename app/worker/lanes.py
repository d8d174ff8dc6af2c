"""The worker process's lanes: one thread each for answers, page images and imports.

Each lane owns its own Library (its own SQLite connection; WAL lets the import lane write
while the others read) and works through a queue of requests in order. Lanes send their
replies through one shared ``Outbox``. No Qt here: this runs in the worker process.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from app.agent.events import Done, DoneStatus, Error, Token
from app.agent.mode import NO_LLM, LlmChoice
from app.config import Settings
from app.library.library import Library
from app.worker.answerers import load_factory
from app.worker.messages import (
    AnswerEvent,
    AskRequest,
    LibraryState,
    Reply,
    WorkerFailure,
    WorkerReady,
)

Send = Callable[[Reply], None]
WARM = "warm"  # asks the answer lane to build its answerer before the first question


def mode_report(settings: Settings, answerer: Any) -> WorkerReady:
    """The status bar's view of an answerer: its mode, its models, and why."""
    choice = llm_choice_of(answerer)
    return WorkerReady(
        str(settings.library_dir), choice.label, choice.models(settings), choice.reason
    )


def llm_choice_of(answerer: Any) -> LlmChoice:
    """The answerer's LLM choice; a scripted one without it counts as no-LLM."""
    choice = getattr(answerer, "llm_choice", NO_LLM)
    return choice if answerer.mode == "llm" else LlmChoice("", choice.reason)


class Lane(threading.Thread):
    """A thread that opens the library, then handles its requests one at a time."""

    def __init__(self, name: str, settings: Settings, send: Send) -> None:
        super().__init__(name=f"lantern-{name}", daemon=True)
        self.settings = settings
        self.send = send
        self.requests: queue.Queue[Any] = queue.Queue()
        self.library: Library | None = None

    def put(self, request: Any) -> None:
        self.requests.put(request)

    def stop(self) -> None:
        self.requests.put(None)

    def run(self) -> None:
        try:
            self.library = Library.open(self.settings.library_dir)
        except Exception as exc:  # tell the window rather than die silently
            self.send(WorkerFailure(f"cannot open the library: {exc}", self.name))
            return
        while (request := self.requests.get()) is not None:
            try:
                self.handle(request)
            except Exception as exc:  # a lane must outlive one bad request
                self.send(WorkerFailure(f"{type(exc).__name__}: {exc}", type(request).__name__))
        self.library.close()

    def handle(self, request: Any) -> None:
        raise NotImplementedError


class TokenBatcher:
    """Joins tokens that arrive within ``interval`` seconds, so the window gets ~25 updates
    a second however fast the model streams; any other event flushes the tokens first.

    A timer flushes tokens that would otherwise wait for the next one (a model pausing
    mid-answer), so nothing sits unseen for longer than ``interval``.
    """

    def __init__(self, job: int, send: Send, interval: float) -> None:
        self.job = job
        self.send = send
        self.interval = interval
        self.pending: list[str] = []
        self.last = time.perf_counter()
        self.lock = threading.Lock()
        self.timer: threading.Timer | None = None

    def push(self, event: Any) -> None:
        with self.lock:
            if isinstance(event, Token) and not getattr(event, "reset", False):
                self.pending.append(event.text)
                if time.perf_counter() - self.last >= self.interval:
                    self._flush()
                elif self.timer is None:
                    self.timer = threading.Timer(self.interval, self.flush)
                    self.timer.daemon = True
                    self.timer.start()
                return
            self._flush()
            self.send(AnswerEvent(self.job, event))

    def flush(self) -> None:
        with self.lock:
            self._flush()

    def _flush(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.pending:
            self.send(AnswerEvent(self.job, Token("".join(self.pending))))
            self.pending.clear()
        self.last = time.perf_counter()


class AnswerLane(Lane):
    """Runs questions through the answerer; rebuilt when the library changes."""

    def __init__(self, settings: Settings, send: Send, factory: str, token_interval: float) -> None:
        super().__init__("answers", settings, send)
        self.factory = factory
        self.token_interval = token_interval
        self.cancels: dict[int, threading.Event] = {}
        self.library_version = 0
        self._answerer: tuple[int, Any] | None = None

    def cancel_event(self, job: int) -> threading.Event:
        return self.cancels.setdefault(job, threading.Event())

    def answerer(self) -> Any:
        """The answerer, built again after the library changed (it caches what it read)."""
        if self._answerer is None or self._answerer[0] != self.library_version:
            assert self.library is not None
            made = load_factory(self.factory)(self.library, self.settings)
            self._answerer = (self.library_version, made)
            if getattr(made, "mode", ""):
                self.send(mode_report(self.settings, made))
        return self._answerer[1]

    def handle(self, request: AskRequest | str) -> None:
        if request == WARM:
            warm_up = getattr(self.answerer(), "warm_up", None)
            if warm_up is not None:
                warm_up()
            return
        assert isinstance(request, AskRequest)
        cancel = self.cancel_event(request.job)
        batcher = TokenBatcher(request.job, self.send, self.token_interval)
        started = time.perf_counter()
        status: DoneStatus = "finished"  # the answerer's own Done said so
        try:
            if not cancel.is_set():
                self._stream(request, cancel, batcher)
        except Exception as exc:
            batcher.push(Error(f"the answer failed: {exc}", "answer", recoverable=False))
            status = "failed"
        finally:
            self.cancels.pop(request.job, None)
        if cancel.is_set():
            status = "stopped"
        if status != "finished":
            batcher.push(Done(round(time.perf_counter() - started, 3), status=status))

    def _stream(self, request: AskRequest, cancel: threading.Event, batcher: TokenBatcher) -> None:
        for event in self.answerer().ask(request.question, list(request.history), cancel):
            if cancel.is_set():
                return
            batcher.push(event)
        batcher.flush()


def library_state(library: Library) -> LibraryState:
    """The documents and the folder's size on disk."""
    size = 0
    for path in library.root.rglob("*"):
        try:
            size += path.stat().st_size if path.is_file() else 0
        except OSError:
            continue
    from app.library.revisions import revisions

    several = tuple((r.document_id, r.revision, r.of) for r in revisions(library.store) if r.of > 1)
    return LibraryState(tuple(library.store.list_documents()), size, several)


def llm_of(answerer: Any) -> Callable[[], Any] | None:
    """The function that loads the answerer's LLM (the agent's, in LLM mode), else None.
    The judge and the optimiser use the same model rather than loading a second copy."""
    resources = getattr(getattr(answerer, "_tree", None), "resources", None)
    llm = getattr(resources, "llm", None)
    return llm if callable(llm) else None


def plain(value: Any) -> Any:
    """A report as JSON-safe dicts and lists (paths and other objects become strings)."""
    return json.loads(json.dumps(value, default=str))
