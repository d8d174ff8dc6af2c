"""A damaged library: keep the broken database aside and rebuild from the stored PDFs.

``Store.open`` refuses a database that fails SQLite's quick check (``LibraryDamaged``).
``set_aside`` then moves ``library.db`` (with its WAL files) and the ``documents/`` copies
into ``damaged-<time>/`` in the library folder, so nothing is deleted, and
``rebuild`` imports each kept copy into a fresh database with the usual progress
events. The manuals' file names are read back from the damaged database when the rows
that hold them are still readable; otherwise a copy is named by its title.

A copy is deleted from the aside folder only once it is in the new library, so a
rebuild that is stopped (or killed) resumes where it was: ``pending`` lists the folders
that still hold copies, and a copy that cannot be imported is moved to ``not-imported/``
beside the damaged database, never lost.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import apsw

from app.config import Settings
from app.library.import_events import ImportEvent, ImportProgress, ImportResult
from app.library.library import Library
from app.library.store import DB_NAME

ASIDE_PREFIX = "damaged-"
NAMES_FILE = "names.json"


def set_aside(root: Path) -> Path:
    """Move the damaged database and the stored PDFs into ``damaged-<time>/``; returns it."""
    aside = root / f"{ASIDE_PREFIX}{time.strftime('%Y%m%d-%H%M%S')}"
    n = 1
    while aside.exists():
        n += 1
        aside = root / f"{ASIDE_PREFIX}{time.strftime('%Y%m%d-%H%M%S')}-{n}"
    aside.mkdir()
    names = salvage_names(root / DB_NAME)
    (aside / NAMES_FILE).write_text(json.dumps(names, indent=1), encoding="utf-8")
    for suffix in ("", "-wal", "-shm", "-journal"):
        db_file = root / f"{DB_NAME}{suffix}"
        if db_file.exists():
            os.replace(db_file, aside / db_file.name)
    documents = root / "documents"
    if documents.is_dir():
        os.replace(documents, aside / "documents")
    return aside


def salvage_names(db_path: Path) -> dict[str, str]:
    """{sha256: file name} for the documents whose rows can still be read (maybe none)."""
    names: dict[str, str] = {}
    try:
        db = apsw.Connection(
            f"file:{db_path}?mode=ro", flags=apsw.SQLITE_OPEN_URI | apsw.SQLITE_OPEN_READONLY
        )
    except apsw.Error:
        return names
    try:
        for sha, name in db.execute("SELECT sha256, file_name FROM documents"):
            names[str(sha)] = str(name)
    except apsw.Error:
        pass  # the damage reaches the documents table; titles will do
    finally:
        db.close()
    return names


def pending(root: Path) -> list[Path]:
    """Aside folders that still hold PDF copies waiting to be imported again."""
    if not root.is_dir():
        return []
    return sorted(
        p
        for p in root.glob(f"{ASIDE_PREFIX}*")
        if p.is_dir() and any((p / "documents").glob("*.pdf"))
    )


def copies_to_rebuild(root: Path) -> list[Path]:
    return [pdf for aside in pending(root) for pdf in sorted((aside / "documents").glob("*.pdf"))]


def rebuild(
    root: Path, settings: Settings, *, embedder: object | None = None
) -> Iterator[ImportEvent]:
    """Import every kept copy into the (new) library at ``root``; yields progress and one
    ImportResult per manual, named as the technician imported it."""
    from app.library.importer import Importer

    copies = copies_to_rebuild(root)
    library = Library.open(root)
    try:
        importer = Importer(library, settings, embedder=embedder)  # type: ignore[arg-type]
        for number, copy in enumerate(copies, start=1):
            yield ImportProgress(
                "library",
                "rebuilding",
                number - 1,
                len(copies),
                message=f"manual {number} of {len(copies)}",
            )
            yield from _rebuild_one(importer, copy)
        yield ImportProgress("library", "rebuilding", len(copies), len(copies))
    finally:
        library.close()


def _rebuild_one(importer: object, copy: Path) -> Iterator[ImportEvent]:
    aside = copy.parent.parent
    names = _names(aside)
    name = names.get(copy.stem) or f"{copy.stem[:12]}.pdf"
    with tempfile.TemporaryDirectory(dir=aside) as tmp:
        # The importer names a manual after its file: give the copy its old name back.
        staged = Path(tmp) / Path(name).name
        if _same_device(copy, tmp):
            os.link(copy, staged)
        else:
            shutil.copyfile(copy, staged)
        result: ImportResult | None = None
        for event in importer.import_paths([staged]):  # type: ignore[attr-defined]
            if isinstance(event, ImportResult):
                result = event
            yield event
    if result is not None and result.status in ("imported", "skipped"):
        copy.unlink(missing_ok=True)
    else:
        kept = aside / "not-imported"
        kept.mkdir(exist_ok=True)
        os.replace(copy, kept / Path(name).name)
    if not any((aside / "documents").glob("*.pdf")):
        shutil.rmtree(aside / "documents", ignore_errors=True)


def _names(aside: Path) -> dict[str, str]:
    try:
        data = json.loads((aside / NAMES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _same_device(a: Path, b: str) -> bool:
    try:
        return os.stat(a).st_dev == os.stat(b).st_dev
    except OSError:
        return False
