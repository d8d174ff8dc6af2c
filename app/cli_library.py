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

    p = with_library(sub.add_parser("pack", help="export or import a portable manual pack"))
    p.add_argument("action", choices=["export", "import"])
    p.add_argument("file", type=Path, help="the .lanternpack file to write or read")
    p.add_argument("docs", nargs="*", help="export: manuals (id, file name, title); default all")


def cmd_pack(args: argparse.Namespace, settings: Any) -> int:
    from app.cli import _open_library
    from app.library.packs import PackError, configured_embedder, export_pack, import_pack

    library = _open_library(settings, must_exist=args.action == "export")
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
    from app.cli import _open_library
    from app.library.revisions import revision_of, revisions

    library = _open_library(settings, must_exist=True)
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
}
