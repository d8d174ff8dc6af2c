"""Command-line subcommands for a library that lives with the technician: revisions,
portable packs, conversations and watched folders. Kept apart from ``app.cli`` so each
adds a parser and a handler without touching the others; ``app.cli`` registers them."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Handler = Callable[[argparse.Namespace, Any], int]
AddLibrary = Callable[[argparse.ArgumentParser], argparse.ArgumentParser]


def add_parsers(sub: Any, with_library: AddLibrary) -> None:
    """Add this module's subcommands to ``python -m app``'s parser."""
    p = with_library(sub.add_parser("revisions", help="a manual's revisions, newest last"))
    p.add_argument("doc", nargs="?", help="id, file name or title (default: every manual)")
    p.add_argument("--json", action="store_true")

    p = with_library(sub.add_parser("chat", help="a conversation: follow-up questions on stdin"))
    p.add_argument("--conversation", metavar="ID", help="continue this conversation")
    p.add_argument("--json", action="store_true", help="one JSON event per line")

    p = with_library(sub.add_parser("watch", help="folders Lantern keeps up with"))
    p.add_argument(
        "action",
        choices=["add", "remove", "list", "sync", "run", "prune"],
        help="add/remove DIR; list; sync now; run (sync, then watch until Ctrl-C); "
        "prune (remove manuals whose files are gone, after confirming)",
    )
    p.add_argument("folder", nargs="?", type=Path)
    p.add_argument("--yes", action="store_true", help="prune without asking")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")

    p = with_library(sub.add_parser("pack", help="export or import a portable manual pack"))
    p.add_argument("action", choices=["export", "import"])
    p.add_argument("file", type=Path, help="the .lanternpack file to write or read")
    p.add_argument("docs", nargs="*", help="export: manuals (id, file name, title); default all")


def conversation_for(library: Any, answerer: Any, conversation_id: str | None) -> Any:
    """The agent as a Conversation: kept in the library under ``conversation_id``, or a
    one-off with no history when None."""
    from app.agent.conversations import ConversationError, Conversations
    from app.agent.service import Conversation

    if not conversation_id:
        return Conversation(answerer)
    try:
        return Conversation(answerer, Conversations(library.root), conversation_id)
    except ConversationError as exc:
        library.close()
        raise SystemExit(f"error: {exc}") from None


def cmd_chat(args: argparse.Namespace, settings: Any) -> int:
    """Questions from stdin, one a line, each a follow-up of the ones before ('/new' starts
    another conversation); answers stream as ``ask`` prints them."""
    from app.agent.conversations import new_id
    from app.cli_common import answerer_for

    library, answerer = answerer_for(settings)
    chat = conversation_for(library, answerer, args.conversation or new_id())
    tty = sys.stdin.isatty()
    if not args.json:
        print(f"Conversation {chat.id} (a blank line or Ctrl-D ends; /new starts another)")
    failed = False
    try:
        while True:
            if tty:
                print("> ", end="", flush=True)
            line = sys.stdin.readline()
            question = line.strip()
            if not question:
                break
            if question == "/new":
                chat = conversation_for(library, answerer, new_id())
                print(f"Conversation {chat.id}")
                continue
            failed |= _show(chat.ask(question), args.json)
    finally:
        library.close()
    return 1 if failed else 0


def _show(events: Any, as_json: bool) -> bool:
    """Print an answer's events like ``ask``; True if it failed."""
    from app.agent.events import Answer, Error, Token, to_json

    failed = False
    for event in events:
        failed |= isinstance(event, Error) and not event.recoverable
        if as_json:
            print(json.dumps(to_json(event), ensure_ascii=False), flush=True)
        elif isinstance(event, Token):
            if event.reset:
                print("\n[the answer above was not supported by the manuals; revised:]\n")
            print(event.text, end="", flush=True)
        elif isinstance(event, Answer):
            print()
            for i, c in enumerate(event.citations, start=1):
                print(f"  [{i}] {c.document} p.{c.page}")
            print()
        elif isinstance(event, Error) and not event.recoverable:
            print(f"error: {event.message}", file=sys.stderr)
    return failed


def cmd_watch(args: argparse.Namespace, settings: Any) -> int:
    from app.cli_common import open_library
    from app.library import watch

    if args.action in ("add", "remove") and args.folder is None:
        print(f"error: watch {args.action} needs a folder", file=sys.stderr)
        return 2
    library = open_library(settings, must_exist=args.action not in ("add", "list"))
    try:
        store = library.store
        if args.action == "add":
            folder = watch.add_folder(store, args.folder)
            print(f"watching {folder}")
            return _sync(library, settings, args.quiet)
        if args.action == "remove":
            gone = watch.remove_folder(store, args.folder)
            print(f"no longer watching {args.folder}" if gone else f"{args.folder} was not watched")
            return 0 if gone else 1
        if args.action == "list":
            for folder in watch.folders(store):
                print(folder)
            for item in watch.missing(store):
                print(f"  missing since {item.since[:10]}: {item.path}")
            return 0
        if args.action == "prune":
            return _prune(library, args.yes)
        status = _sync(library, settings, args.quiet)
        if args.action == "run":
            status = _run_watch(library, settings, args.quiet)
        return status
    except watch.WatchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        library.close()


def _sync(library: Any, settings: Any, quiet: bool, only: Path | None = None) -> int:
    from app.cli_common import ProgressPrinter, print_result
    from app.library.importer import Importer, ImportProgress, ImportResult
    from app.library.watch import missing, sync

    progress = ProgressPrinter(enabled=not quiet)
    failed = 0
    for event in sync(library, Importer(library, settings), only):
        if isinstance(event, ImportProgress):
            progress.show(event)
        elif isinstance(event, ImportResult):
            progress.clear()
            failed += event.status == "failed"
            print_result(event)
    gone = missing(library.store)
    if gone:
        print(
            f"{len(gone)} watched file(s) are gone; their manuals stay until "
            "'python -m app watch prune'",
            file=sys.stderr,
        )
    return 1 if failed else 0


def _run_watch(library: Any, settings: Any, quiet: bool) -> int:
    import queue

    from app.library.watch import FolderWatcher, folders

    pending: queue.Queue[Path] = queue.Queue()
    watcher = FolderWatcher(pending.put)
    for folder in folders(library.store):
        watcher.watch(folder)
    watcher.start()
    print("watching; Ctrl-C stops", file=sys.stderr)
    try:
        while True:
            _sync(library, settings, quiet, pending.get())
    except KeyboardInterrupt:
        return 0
    finally:
        watcher.stop()


def _prune(library: Any, yes: bool) -> int:
    from app.library.watch import missing, remove_missing

    gone = missing(library.store)
    if not gone:
        print("no watched file is missing")
        return 0
    for item in gone:
        print(f"gone: {item.path}")
    if not yes:
        if not sys.stdin.isatty():
            print("error: pass --yes to remove their manuals", file=sys.stderr)
            return 2
        if input(f"Remove the manuals of these {len(gone)} file(s)? [y/N] ").lower() != "y":
            return 1
    for name in remove_missing(library):
        print(f"removed {name}")
    return 0


def cmd_pack(args: argparse.Namespace, settings: Any) -> int:
    from app.cli_common import open_library
    from app.library.packs import PackError, configured_embedder, export_pack, import_pack

    library = open_library(settings, must_exist=args.action == "export")
    try:
        if args.action == "export":
            report = export_pack(library, args.file, args.docs or None)
            print(f"exported {len(report.documents)} manual(s) to {report.path}")
        else:
            report = import_pack(library, args.file, configured_embedder(settings.embedder))
            for name in report.imported:
                print(f"imported {name}")
            for name in report.skipped:
                print(f"present  {name}")
    except PackError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        library.close()
    return 0


def cmd_revisions(args: argparse.Namespace, settings: Any) -> int:
    from app.cli_common import open_library
    from app.library.revisions import revision_of, revisions

    library = open_library(settings, must_exist=True)
    try:
        manual = None
        if args.doc:
            doc = library.store.get_document(args.doc)
            rev = revision_of(library.store, doc.id) if doc is not None else None
            if rev is None:
                print(f"error: no manual {args.doc!r} in the library", file=sys.stderr)
                return 1
            manual = rev.manual_id
        for rev in revisions(library.store, manual):
            if args.json:
                print(json.dumps(rev.to_dict(), ensure_ascii=False))
            else:
                answers = "  (answers)" if rev.current else ""
                print(f"{rev.document_id:>3}  {rev.file_name}  {rev.label()}{answers}")
    finally:
        library.close()
    return 0


COMMANDS: dict[str, Handler] = {
    "revisions": cmd_revisions,
    "pack": cmd_pack,
    "chat": cmd_chat,
    "watch": cmd_watch,
}
