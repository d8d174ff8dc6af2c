"""The messages the window and its worker process exchange.

Requests go from the window to the worker; replies come back. All are small frozen
dataclasses that pickle across the process boundary; the agent's own events
(``app.agent.events``) and the importer's (``ImportProgress``/``ImportResult``) travel
inside replies unchanged, so widgets read the same types the command line prints.
This module imports no Qt and nothing heavy: both sides load it at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.agent.turn import Turn
from app.config import Settings
from app.library.import_events import ImportProgress, ImportResult
from app.library.models import DocumentInfo
from app.worker.bench_messages import BenchReply, BenchRequest
from app.worker.library_messages import PackDone, PackRequest, WatchRequest, WatchState

DEFAULT_ANSWERER = "app.worker.answerers:agent_answerer"


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """How the worker process is set up; tests swap the answerer for a scripted one."""

    settings: Settings
    answerer: str = DEFAULT_ANSWERER
    token_interval: float = 0.04
    progress_interval: float = 0.1


# ---- requests (window -> worker) ---------------------------------------------------------
@dataclass(frozen=True, slots=True)
class AskRequest:
    job: int
    question: str
    history: tuple[Turn, ...] = ()


@dataclass(frozen=True, slots=True)
class ImportRequest:
    paths: tuple[str, ...]
    on_match: str = "keep-both"  # app.library.revisions.OnMatch


@dataclass(frozen=True, slots=True)
class RemoveRequest:
    document_id: int


@dataclass(frozen=True, slots=True)
class ReindexRequest:
    """Read a manual again from the library's copy, in place (``Importer.reread``)."""

    document_id: int


@dataclass(frozen=True, slots=True)
class RereadStale:
    """Read again, in place, every manual an older version of Lantern read (sent by the
    worker itself at start; it gives way to any request waiting, and comes back after)."""


@dataclass(frozen=True, slots=True)
class RenderRequest:
    """A page image at ``zoom`` (1.0 = 72 dpi); ``document`` is a file name, title or id."""

    document: str
    page: int
    zoom: float


@dataclass(frozen=True, slots=True)
class ThumbnailsRequest:
    """The stored thumbnails of some pages, as (document, page) pairs."""

    pages: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class ModelsRequest:
    """The models list for the models dialog."""


@dataclass(frozen=True, slots=True)
class DownloadRequest:
    repo_id: str


@dataclass(frozen=True, slots=True)
class CancelAnswer:
    """Stop question ``job`` at its next step or token."""

    job: int


@dataclass(frozen=True, slots=True)
class CancelImports:
    """Stop the running import and drop the queued ones."""


@dataclass(frozen=True, slots=True)
class StopRequest:
    """Shut the worker down (pending work is dropped)."""


@dataclass(frozen=True, slots=True)
class AnsweredQuestion:
    """What feedback is about: a finished answer as the window saw it, with the agent's
    steps (its Decision, Result and Error events as JSON dicts), citations and pages."""

    question: str
    answer: str
    abstained: bool
    decisions: tuple[dict[str, Any], ...] = ()
    citations: tuple[dict[str, Any], ...] = ()
    pages: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class RateRequest:
    """Thumbs up (1), down (-1) or cleared (0) on the answer of question ``job``;
    ``feedback_id`` is the row an earlier click stored, so a new click updates it."""

    job: int
    about: AnsweredQuestion
    rating: int
    feedback_id: int | None = None


@dataclass(frozen=True, slots=True)
class RightPageRequest:
    """The technician says ``document`` page ``page`` is the one answering question ``job``."""

    job: int
    about: AnsweredQuestion
    document: str
    page: int
    feedback_id: int | None = None


@dataclass(frozen=True, slots=True)
class AddToBenchmarkRequest:
    """Append the (thumbed-up) answer of question ``job`` to the dataset file ``dataset``."""

    job: int
    about: AnsweredQuestion
    dataset: str
    feedback_id: int | None = None


FeedbackRequest = RateRequest | RightPageRequest | AddToBenchmarkRequest


Request = (
    AskRequest
    | ImportRequest
    | RemoveRequest
    | ReindexRequest
    | RereadStale
    | RenderRequest
    | ThumbnailsRequest
    | ModelsRequest
    | DownloadRequest
    | CancelAnswer
    | CancelImports
    | StopRequest
    | RateRequest
    | RightPageRequest
    | AddToBenchmarkRequest
    | BenchRequest
    | PackRequest
    | WatchRequest
)


# ---- replies (worker -> window) ----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class WorkerReady:
    """The worker process has started and opened the library."""

    library_dir: str
    mode: str
    models: tuple[str, ...] = ()
    reason: str = ""  # why this mode (e.g. "no llm model (large enough) is installed")


@dataclass(frozen=True, slots=True)
class LibraryState:
    """Every document of the library, sent at start and after each change."""

    documents: tuple[DocumentInfo, ...]
    size_bytes: int = 0
    revisions: tuple[tuple[int, int, int], ...] = ()  # (document id, revision, of) when of > 1


@dataclass(frozen=True, slots=True)
class AnswerEvent:
    """One agent event of question ``job`` (tokens arrive already batched)."""

    job: int
    event: Any  # app.agent.events.Event


@dataclass(frozen=True, slots=True)
class ImportEvent:
    """One import event, throttled (the importer's own events: that module is dataclasses
    only, so they cross to the window as they are)."""

    event: ImportProgress | ImportResult


@dataclass(frozen=True, slots=True)
class ImportQueued:
    """Files accepted into the import queue, in the order they will run."""

    paths: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Pixels:
    """A decoded RGB image (8 bits per channel). Images cross the pipe decoded, so the
    window's thread only wraps them (a memory copy) instead of decoding a PNG."""

    data: bytes
    width: int
    height: int
    stride: int


@dataclass(frozen=True, slots=True)
class PageImage:
    """A page rendered at ``zoom`` pixels per point; the page is ``width`` x ``height``
    PDF points. ``path`` is the cached PNG the pixels were read from."""

    document: str
    page: int
    zoom: float
    path: str
    width: float
    height: float
    page_count: int
    title: str = ""
    error: str = ""
    pixels: Pixels | None = None


@dataclass(frozen=True, slots=True)
class Thumbnails:
    """Thumbnail pixels per (document, page); missing thumbnails are left out."""

    images: tuple[tuple[str, int, Pixels], ...]


@dataclass(frozen=True, slots=True)
class ModelsListed:
    rows: tuple[Any, ...]  # app.runtime.download.ModelRow
    error: str = ""
    memory: str = ""  # app.runtime.idle.MemoryUse.describe(): budget, loaded, idle unloading


@dataclass(frozen=True, slots=True)
class DownloadUpdate:
    repo_id: str
    fraction: float
    text: str
    finished: bool = False
    error: str = ""


@dataclass(frozen=True, slots=True)
class FeedbackSaved:
    """Feedback on question ``job`` is stored as row ``feedback_id`` (``error`` says why
    not). ``action`` is "rate", "right_page" or "benchmark"; a benchmark item's new id and
    dataset file come back in ``item_id`` and ``dataset``."""

    job: int
    action: str
    feedback_id: int | None
    rating: int = 0
    page: tuple[str, int] | None = None
    item_id: str = ""
    dataset: str = ""
    error: str = ""


@dataclass(frozen=True, slots=True)
class WorkerFailure:
    """Something the worker could not do; ``message`` is for the person at the window."""

    message: str
    context: str = ""


Reply = (
    WorkerReady
    | LibraryState
    | AnswerEvent
    | ImportEvent
    | ImportQueued
    | PageImage
    | Thumbnails
    | ModelsListed
    | DownloadUpdate
    | FeedbackSaved
    | WorkerFailure
    | BenchReply
    | PackDone
    | WatchState
)
