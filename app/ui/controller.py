"""The window's side of the worker: starts the worker process and turns its replies into
queued Qt signals that carry the frozen event dataclasses.

Replies are read in the window's thread without blocking it (see ``receiver``) and turned
into signals carrying the frozen dataclasses; page images arrive already decoded.
Widgets never see the pipes.
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
from collections.abc import Iterable, Sequence
from dataclasses import replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from app.agent.events import Done, Error
from app.agent.turn import Turn
from app.ui.receiver import Receiver
from app.worker.bench_messages import BENCH_REPLIES, BenchRequest
from app.worker.entry import run_engine
from app.worker.library_messages import PackDone, PackRequest, WatchRequest, WatchState
from app.worker.messages import (
    AnswerEvent,
    AskRequest,
    CancelAnswer,
    CancelImports,
    DownloadRequest,
    DownloadUpdate,
    EngineConfig,
    FeedbackRequest,
    FeedbackSaved,
    ImportEvent,
    ImportQueued,
    ImportRequest,
    LibraryState,
    ModelsListed,
    ModelsRequest,
    ReindexRequest,
    RemoveRequest,
    RenderRequest,
    Request,
    StopRequest,
    ThumbnailsRequest,
    WorkerFailure,
    WorkerReady,
)


class Controller(QObject):
    """Everything the widgets can ask of the worker, and the signals its replies become."""

    ready = Signal(object)  # WorkerReady
    library_changed = Signal(object)  # LibraryState
    answer_event = Signal(int, object)  # job, app.agent.events.Event
    import_queued = Signal(object)  # ImportQueued
    import_event = Signal(object)  # ImportProgress | ImportResult
    page_ready = Signal(object, QImage)  # PageImage, decoded image
    thumbnails_ready = Signal(object)
    models_listed = Signal(object)  # ModelsListed
    download_update = Signal(object)  # DownloadUpdate
    feedback_saved = Signal(object)  # FeedbackSaved
    bench_reply = Signal(object)  # a reply of app.worker.bench_messages
    pack_done = Signal(object)  # PackDone
    watch_state = Signal(object)  # WatchState
    failure = Signal(str)
    restarted = Signal()  # a new worker (after a crash or a library switch): old queue gone

    def __init__(self, config: EngineConfig, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.config = config
        self._jobs = itertools.count(1)
        self.current_job = 0
        self.process: Any = None
        self.conn: Connection | None = None
        self.replies: Connection | None = None
        self.receiver: Receiver | None = None
        self._stopping = False

    # ---- lifetime ------------------------------------------------------------------------
    def start(self) -> None:
        """Start the worker process (spawned: forking a process with Qt threads is unsafe)."""
        context = mp.get_context("spawn")
        requests_in, requests_out = context.Pipe(duplex=False)
        replies_in, replies_out = context.Pipe(duplex=False)
        self.process = context.Process(
            target=run_engine,
            args=(requests_in, replies_out, self.config),
            name="lantern-worker",
            daemon=True,
        )
        self.process.start()
        requests_in.close()
        replies_out.close()
        self.conn = requests_out
        self.replies = replies_in
        self.receiver = Receiver(replies_in.fileno(), self)
        self.receiver.received.connect(self._dispatch)
        self.receiver.page.connect(self.page_ready)
        self.receiver.thumbnails.connect(self.thumbnails_ready)
        self.receiver.lost.connect(self._lost)

    def shutdown(self, timeout: float = 3.0) -> None:
        """Ask the worker to stop, wait a little, then make sure it is gone."""
        self._stopping = True
        if self.process is None:
            return
        self.stop_answer()
        self._send(StopRequest())
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout)
        self._close_pipes()
        self.process = None

    def switch_library(self, library_dir: Path) -> None:
        """Stop the worker cleanly and start one on another library folder, with the rest
        of its configuration unchanged. The new worker's ``ready`` and ``library_changed``
        replies refill the panels; ``restarted`` tells them the old worker's queue is gone."""
        self.shutdown()
        settings = self.config.settings.model_copy(update={"library_dir": Path(library_dir)})
        self.config = replace(self.config, settings=settings)
        self._stopping = False
        self.start()
        self.restarted.emit()

    def _lost(self) -> None:
        """The worker died (a crash in a model or a PDF library): end the question it was
        answering with an error, and start a new worker so Lantern keeps working."""
        if self._stopping or self.process is None:
            return
        self.failure.emit("The background worker stopped unexpectedly; it has been restarted.")
        if self.current_job:
            message = "the background worker stopped while answering; please ask again"
            self.answer_event.emit(self.current_job, Error(message, "answer", False))
            self.answer_event.emit(self.current_job, Done(0.0, status="failed"))
        self._close_pipes()
        self.process = None
        self.start()
        self.restarted.emit()

    def _close_pipes(self) -> None:
        if self.receiver is not None:
            self.receiver.notifier.setEnabled(False)
            self.receiver.deleteLater()
            self.receiver = None
        for conn in (self.conn, self.replies):
            if conn is not None:
                conn.close()
        self.conn = self.replies = None

    def _send(self, request: Request) -> None:
        if self.conn is None:
            return
        try:
            self.conn.send(request)
        except (OSError, ValueError):
            self._lost()

    def _dispatch(self, reply: object) -> None:
        if isinstance(reply, AnswerEvent):
            self.answer_event.emit(reply.job, reply.event)
        elif isinstance(reply, ImportEvent):
            self.import_event.emit(reply.event)
        elif isinstance(reply, BENCH_REPLIES):
            self.bench_reply.emit(reply)
        else:
            signal = {
                WorkerReady: self.ready,
                LibraryState: self.library_changed,
                ImportQueued: self.import_queued,
                ModelsListed: self.models_listed,
                DownloadUpdate: self.download_update,
                FeedbackSaved: self.feedback_saved,
                PackDone: self.pack_done,
                WatchState: self.watch_state,
            }.get(type(reply))
            if signal is not None:
                signal.emit(reply)
            elif isinstance(reply, WorkerFailure):
                self.failure.emit(reply.message)

    # ---- requests ------------------------------------------------------------------------
    def ask(self, question: str, history: Sequence[Turn] = ()) -> int:
        """Start answering; returns the job number its events will carry."""
        self.current_job = next(self._jobs)
        self._send(AskRequest(self.current_job, question, tuple(history)))
        return self.current_job

    def stop_answer(self) -> None:
        if self.current_job:
            self._send(CancelAnswer(self.current_job))

    def import_paths(self, paths: Iterable[str], on_match: str = "keep-both") -> None:
        """Import files and folders; ``on_match``: what a file named or titled like a
        manual already there becomes ('revision' or 'keep-both')."""
        paths = tuple(str(p) for p in paths)
        if paths:
            self._send(ImportRequest(paths, on_match))

    def watch(self, action: str, path: str = "") -> None:
        """Watched folders: 'add'/'remove' a folder, 'sync', 'prune'; ``watch_state`` answers."""
        self._send(WatchRequest(action, path))  # type: ignore[arg-type]

    def pack(self, request: PackRequest) -> None:
        """Export or import a portable pack; ``pack_done`` answers."""
        self._send(request)

    def cancel_imports(self) -> None:
        self._send(CancelImports())

    def remove(self, document_id: int) -> None:
        self._send(RemoveRequest(document_id))

    def reindex(self, document_id: int) -> None:
        self._send(ReindexRequest(document_id))

    def render(self, document: str, page: int, zoom: float) -> None:
        self._send(RenderRequest(document, page, zoom))

    def thumbnails(self, pages: Iterable[tuple[str, int]]) -> None:
        self._send(ThumbnailsRequest(tuple(pages)))

    def list_models(self) -> None:
        self._send(ModelsRequest())

    def download(self, repo_id: str) -> None:
        self._send(DownloadRequest(repo_id))

    def send_bench(self, request: BenchRequest) -> None:
        """A benchmark run, stop, question, verdict or optimisation; ``bench_reply`` answers."""
        self._send(request)

    def send_feedback(self, request: FeedbackRequest) -> None:
        """Thumbs, a right-page mark or a new benchmark item; ``feedback_saved`` answers."""
        self._send(request)
