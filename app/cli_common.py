"""What the command line's modules share: opening the library (or recovering a damaged
one), printing import progress and results, and building the answerer."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

# Exit status when the library was found damaged (and set aside and rebuilt).
EXIT_DAMAGED = 3


def open_library(settings: Any, must_exist: bool = False) -> Any:
    """The library, or SystemExit with a one-line reason (damaged, missing, unwritable).

    A damaged database is never used: it is kept aside, the library is rebuilt from the
    PDF copies it stored (with progress), and the command ends with EXIT_DAMAGED so a
    missing answer is never mistaken for a manual that does not cover the question.
    """
    from app.library.library import Library
    from app.library.recovery import pending
    from app.library.store import DB_NAME, LibraryDamaged, StoreError

    check_library_dir(settings.library_dir)
    if pending(settings.library_dir):
        rebuild(settings, "a rebuild of the damaged library was interrupted; resuming it")
        raise SystemExit(EXIT_DAMAGED)
    if must_exist and not (settings.library_dir / DB_NAME).is_file():
        raise SystemExit(f"error: no library at {settings.library_dir}: import manuals first")
    try:
        return Library.open(settings.library_dir)
    except LibraryDamaged as exc:
        recover(settings, exc)
        raise SystemExit(EXIT_DAMAGED) from None
    except StoreError as exc:
        raise SystemExit(f"error: {exc}") from None


def check_library_dir(folder: Path) -> None:
    """A path that exists but is not a folder is not a library: say so, never 'empty'."""
    if folder.exists() and not folder.is_dir():
        hint = f" (did you mean its folder {folder.parent}?)" if folder.name == "library.db" else ""
        raise SystemExit(f"error: {folder} is not a library: it is a file, not a folder{hint}")


def check_writable(folder: Path) -> None:
    """One sentence, before any work, when the library folder cannot be written."""
    from app.library.library import writable_problem

    problem = writable_problem(folder)
    if problem:
        raise SystemExit(f"error: {problem}")


def recover(settings: Any, damage: Exception) -> None:
    from app.library.recovery import copies_to_rebuild, set_aside

    root = settings.library_dir
    print(f"error: {damage}.", file=sys.stderr)
    try:
        aside = set_aside(root)
    except OSError as exc:
        print(
            f"error: the damaged library cannot be moved aside ({exc.strerror or exc}):"
            f" move {root} away and import the manuals again",
            file=sys.stderr,
        )
        return
    count = len(copies_to_rebuild(root))
    rebuild(
        settings,
        f"it is kept in {aside}; rebuilding the library from the {count} manual(s) it stored",
    )


def rebuild(settings: Any, why: str) -> None:
    from app.library.importer import ImportProgress, ImportResult
    from app.library.recovery import copies_to_rebuild, rebuild

    print(why, file=sys.stderr)
    progress = ProgressPrinter(enabled=True)
    done = failed = 0
    for event in rebuild(settings.library_dir, settings):
        if isinstance(event, ImportProgress):
            progress.show(event)
        elif isinstance(event, ImportResult):
            progress.clear()
            print_result(event)
            done += event.status != "failed"
            failed += event.status == "failed"
    left = len(copies_to_rebuild(settings.library_dir))
    note = f", {failed} could not be read (kept aside)" if failed else ""
    more = f"; {left} still to do: run the command again" if left else ""
    print(
        f"library rebuilt: {done} manual(s) imported again{note}{more}. Run the command again.",
        file=sys.stderr,
    )


def print_result(result: Any) -> None:
    name = Path(result.path).name
    if result.status == "failed":
        print(f"failed   {name}: {result.reason}", file=sys.stderr)
        return
    extra = f", {result.ocr_pages} OCR'd" if result.ocr_pages else ""
    verb = "imported" if result.status == "imported" else "present "
    print(f"{verb} {name}: {result.pages} pages{extra} ({result.seconds:.1f} s)", file=sys.stderr)
    if result.status == "imported" and result.reason:
        print(f"  as {result.reason}", file=sys.stderr)
    for warning in result.warnings:
        print(f"  warning: {warning}", file=sys.stderr)


class ProgressPrinter:
    """One self-overwriting progress line on stderr (plain lines when not a terminal)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self._last = 0.0
        self._last_phase = ""

    def show(self, event: Any) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        key = f"{event.path}:{event.phase}"
        finished = event.done == event.total
        if (
            key == self._last_phase
            and not finished
            and now - self._last < (0.2 if self.tty else 2.0)
        ):
            return
        self._last, self._last_phase = now, key
        eta = f", ETA {event.eta_s:.0f} s" if event.eta_s else ""
        line = f"{Path(event.path).name}: {event.phase} {event.done}/{event.total}{eta}"
        if self.tty:
            print(f"\r\033[K{line[:150]}", end="", file=sys.stderr, flush=True)
        else:
            print(line, file=sys.stderr, flush=True)

    def clear(self) -> None:
        if self.enabled and self.tty:
            print("\r\033[K", end="", file=sys.stderr, flush=True)


def answerer_for(settings: Any) -> Any:
    from app.agent.service import build_answerer
    from app.library.embedding import safe_embedder

    library = open_library(settings, must_exist=True)
    if not library.store.list_documents():
        library.close()
        raise SystemExit(
            f"error: the library at {settings.library_dir} is empty: import manuals first"
        )
    return library, build_answerer(library, settings, embedder=safe_embedder(settings.embedder))
