"""The worker process: it owns the library and the models, and runs answers and imports.

Why a process and not a thread of the window's process: PyMuPDF holds the GIL while it
reads or renders a page (40-60 ms measured on the sample manuals), and importing torch or
loading the embedder holds it for 170-250 ms. In a thread of the window's process each of
those would freeze the window for that long; in a process of its own they cannot.

Inside, a router thread receives requests from the window and hands them to lanes
(``lanes``, ``work_lanes``, ``feedback_lane``): answers, page images, imports and feedback
each have a thread and a SQLite connection of their own. Cancelling is immediate: the
router sets the job's ``threading.Event`` while the lane is busy, and the answerer checks
it between steps and tokens. No Qt here.
"""

from __future__ import annotations

import contextlib
import threading
from multiprocessing.connection import Connection
from typing import Any

from app.agent.mode import LlmChoice
from app.library.library import Library
from app.library.store import LibraryDamaged
from app.runtime.idle import IdleUnloader
from app.worker.bench_lane import BenchLane
from app.worker.bench_messages import BenchRequest, BenchStopRequest
from app.worker.feedback_lane import FeedbackLane
from app.worker.lanes import WARM, AnswerLane
from app.worker.library_messages import PackRequest, WatchRequest
from app.worker.messages import (
    AskRequest,
    CancelAnswer,
    CancelImports,
    DownloadRequest,
    DownloadUpdate,
    EngineConfig,
    FeedbackRequest,
    ImportRequest,
    ModelsRequest,
    ReindexRequest,
    RemoveRequest,
    RenderRequest,
    Reply,
    RereadStale,
    StopRequest,
    ThumbnailsRequest,
    WorkerFailure,
    WorkerReady,
)
from app.worker.work_lanes import ImportLane, PagesLane


class Outbox:
    """The one pipe back to the window, shared by every lane."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.lock = threading.Lock()

    def send(self, reply: Reply) -> None:
        # OSError/ValueError: the window has gone, so there is no one left to tell.
        with self.lock, contextlib.suppress(OSError, ValueError):
            self.conn.send(reply)


def idle_unloader(settings: Any) -> IdleUnloader:
    """Unloads the worker's idle models after ``idle_unload_minutes`` (0: never)."""
    from app.runtime.registry import shared_registries

    return IdleUnloader(shared_registries, settings.idle_unload_minutes)


class Engine:
    """Routes the window's requests to the lanes."""

    def __init__(self, config: EngineConfig, outbox: Outbox) -> None:
        self.config = config
        self.send = outbox.send
        settings = config.settings
        self.answers = AnswerLane(settings, self.send, config.answerer, config.token_interval)
        self.imports = ImportLane(
            settings, self.send, config.progress_interval, self._library_changed
        )
        self.pages = PagesLane("pages", settings, self.send)
        self.bench = BenchLane(settings, self.send, config.answerer, self._library_changed)
        self.feedback = FeedbackLane(settings, self.send)
        self.idle = idle_unloader(settings)

    def start(self) -> None:
        settings = self.config.settings
        # Create and migrate the library once, before the lanes open it side by side: two
        # connections migrating a new database at the same moment collide.
        try:
            Library.open(settings.library_dir).close()
        except LibraryDamaged as exc:
            fix = f"python -m app list --library {settings.library_dir}"
            self.send(
                WorkerFailure(
                    f"{exc}: run `{fix}` to keep it aside and rebuild it from the manuals it stored"
                )
            )
        except Exception as exc:
            self.send(WorkerFailure(f"cannot open the library: {exc}"))
        for lane in (self.answers, self.imports, self.pages, self.feedback):
            lane.start()
        self.bench.start()
        self.idle.start()
        named = LlmChoice.from_settings(settings)
        self.send(WorkerReady(str(settings.library_dir), named.label, named.models(settings)))
        self.pages.put("library")
        self.answers.put(WARM)
        self.imports.enqueue(WatchRequest("start"))  # catch up on the watched folders
        self.imports.enqueue(RereadStale())  # and on what reading PDFs learnt since

    def stop(self) -> None:
        self.idle.stop()
        self.imports.watching.stop()
        self.imports.cancel_all()
        for cancel in self.answers.cancels.values():
            cancel.set()
        for stop in self.bench.stops.values():
            stop.set()
        self.bench.stop()
        for lane in (self.answers, self.imports, self.pages, self.feedback):
            lane.stop()

    def _library_changed(self) -> None:
        self.answers.library_version += 1
        self.bench.library_version += 1

    def route(self, request: Any) -> bool:
        """Hand one request to its lane; False when the worker should stop."""
        if isinstance(request, AskRequest):
            self.answers.cancel_event(request.job)
            self.answers.put(request)
        elif isinstance(request, CancelAnswer):
            self.answers.cancel_event(request.job).set()
        elif isinstance(
            request,
            ImportRequest
            | RemoveRequest
            | ReindexRequest
            | RereadStale
            | PackRequest
            | WatchRequest,
        ):
            self.imports.enqueue(request)
        elif isinstance(request, CancelImports):
            self.imports.cancel_all()
        elif isinstance(request, RenderRequest | ThumbnailsRequest | ModelsRequest):
            self.pages.put(request)
        elif isinstance(request, FeedbackRequest):
            self.feedback.put(request)
        elif isinstance(request, BenchStopRequest):
            self.bench.stop_event(request.job).set()
        elif isinstance(request, BenchRequest):
            self.bench.put(request)
        elif isinstance(request, DownloadRequest):
            threading.Thread(target=self._download, args=(request,), daemon=True).start()
        elif isinstance(request, StopRequest):
            return False
        return True

    def _download(self, request: DownloadRequest) -> None:
        from app.runtime.download import DownloadError, download_model

        def report(progress: Any) -> None:
            total = progress.bytes_total or 1
            text = f"{progress.bytes_done / 1e6:.0f} of {progress.bytes_total / 1e6:.0f} MB"
            self.send(DownloadUpdate(request.repo_id, progress.bytes_done / total, text))

        try:
            path = download_model(request.repo_id, self.config.settings.models_dir, report)
        except DownloadError as exc:
            self.send(DownloadUpdate(request.repo_id, 0.0, "", True, str(exc)))
            return
        self.send(DownloadUpdate(request.repo_id, 1.0, f"installed in {path}", True))


def engine_main(requests: Connection, replies: Connection, config: EngineConfig) -> None:
    """Serve the window's requests until told to stop or orphaned."""
    engine = Engine(config, Outbox(replies))
    engine.start()
    try:
        while True:
            try:
                request = requests.recv()
            except (EOFError, OSError):
                break
            if not engine.route(request):
                break
    finally:
        engine.stop()
