"""Messages between the window and the worker for portable packs and watched folders
(frozen dataclasses, like ``messages``; kept apart so those features merge cleanly)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class PackRequest:
    """Export manuals to a pack (``documents``: ids; empty = the whole library), or import one."""

    action: Literal["export", "import"]
    path: str
    documents: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class PackDone:
    """A pack was written or read (``error`` empty), or why not."""

    action: Literal["export", "import"]
    path: str
    text: str
    error: str = ""


@dataclass(frozen=True, slots=True)
class WatchRequest:
    """Watched folders: 'start' (catch up and watch, sent by the worker itself), 'add' or
    'remove' a folder, 'sync' one (``path``) or all, 'prune' the manuals of missing files."""

    action: Literal["start", "add", "remove", "sync", "prune"]
    path: str = ""


@dataclass(frozen=True, slots=True)
class WatchState:
    """The watched folders, and the watched files gone from them (manuals kept)."""

    folders: tuple[str, ...]
    missing: tuple[str, ...] = ()
    message: str = ""
