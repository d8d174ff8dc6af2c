"""Portable manual packs: a ``.lanternpack`` file moves indexed manuals between libraries.

A pack is a zip holding, per manual: the PDF, its pages (text, word boxes, thumbnails),
chunks with their search text and vectors, ColQwen page vectors if any, its profile and
revision; and a ``manifest.json`` with the format version, the embedder's id and
dimension, and the SHA-256 of every member. Importing one re-runs no OCR and no
embedding. It is checked whole before anything is written (format, embedder, hashes),
and all its manuals are written in one transaction: a pack is imported entirely or not
at all, like a PDF.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from app.library.library import Library
from app.library.models import ChunkDraft, DocumentInfo, ManualProfile
from app.library.revisions import distinct_label, revision_of
from app.library.store import NewDocument, PageRecord, lines_from_json
from app.library.symbols import searchable_text

FORMAT = "lanternpack"
FORMAT_VERSION = 1
SUFFIX = ".lanternpack"
MANIFEST = "manifest.json"

Progress = Callable[[int, int, str], None]


class PackError(Exception):
    """A pack cannot be written or read; the message is the one line shown to the user."""


@dataclass(frozen=True, slots=True)
class PackReport:
    """What an import or export did."""

    path: str
    imported: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()  # already in the library (same content)
    documents: tuple[str, ...] = field(default=())


def _quiet(_done: int, _total: int, _text: str) -> None:
    return None


# ---- export ----------------------------------------------------------------------------
def export_pack(
    library: Library,
    out: Path,
    documents: Sequence[int | str] | None = None,
    progress: Progress = _quiet,
) -> PackReport:
    """Write the given manuals (ids, file names or titles; all when None) to ``out``.

    Written to ``out.part`` and renamed, so a pack on disk is always whole.
    """
    store = library.store
    docs = _select(library, documents)
    if not docs:
        raise PackError("nothing to export: the library has no such manual")
    embedder, dim = store.embedder_name(), store.vector_dim()
    out = out if out.suffix == SUFFIX else out.with_name(out.name + SUFFIX)
    part = out.with_name(out.name + ".part")
    hashes: dict[str, str] = {}
    entries = []
    try:
        with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:

            def put(name: str, data: bytes) -> None:
                hashes[name] = hashlib.sha256(data).hexdigest()
                zf.writestr(name, data)

            for index, doc in enumerate(docs):
                progress(index, len(docs), f"packing {doc.file_name}")
                entries.append(_export_document(library, doc, put))
            manifest = {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "embedder": {"id": embedder, "dim": dim},
                "documents": entries,
                "hashes": hashes,
            }
            zf.writestr(MANIFEST, json.dumps(manifest, indent=1, ensure_ascii=False))
        os.replace(part, out)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    progress(len(docs), len(docs), f"wrote {out.name}")
    names = tuple(d.file_name for d in docs)
    return PackReport(str(out), documents=names)


def _select(library: Library, refs: Sequence[int | str] | None) -> list[DocumentInfo]:
    if refs is None:
        return library.store.list_documents()
    docs = []
    for ref in refs:
        doc = library.store.get_document(ref)
        if doc is None:
            raise PackError(f"no manual matches {ref!r}")
        docs.append(doc)
    return docs


def _export_document(
    library: Library, doc: DocumentInfo, put: Callable[[str, bytes], None]
) -> dict[str, Any]:
    db = library.store.db
    base = f"documents/{doc.sha256}"
    pdf = library.pdf_path(doc)
    if not pdf.is_file():
        raise PackError(f"{doc.file_name}: its PDF copy is missing from the library")
    put(f"{base}/document.pdf", pdf.read_bytes())
    pages = []
    for number, width, height, text, ocr, lines, thumb in db.execute(
        "SELECT number, width, height, text, ocr, lines, thumbnail FROM pages"
        " WHERE document_id = ? ORDER BY number",
        (doc.id,),
    ):
        if thumb is not None:
            put(f"{base}/thumbs/{number}.png", bytes(thumb))
        pages.append([number, width, height, text, ocr, json.loads(lines), thumb is not None])
    chunks, vectors = [], []
    for _cid, page, kind, heading, text, search, lines, vec in db.execute(
        "SELECT c.id, c.page, c.kind, c.heading, c.text, c.search_text, c.lines, v.embedding"
        " FROM chunks c JOIN chunk_vectors v ON v.chunk_id = c.id"
        " WHERE c.document_id = ? ORDER BY c.seq",
        (doc.id,),
    ):
        chunks.append([page, kind, heading, text, search, json.loads(lines)])
        vectors.append(np.frombuffer(vec, dtype=np.float32))
    buffer = io.BytesIO()
    np.save(buffer, np.stack(vectors) if vectors else np.zeros((0, 0), np.float32))
    put(f"{base}/vectors.npy", buffer.getvalue())
    visual = _export_visual(db, doc.id, base, put)
    row = db.execute(
        "SELECT manual_id, revision, extraction FROM documents WHERE id = ?", (doc.id,)
    ).fetchone()
    data = {
        "sha256": doc.sha256,
        "file_name": doc.file_name,
        "title": doc.title,
        "profile": doc.profile.to_dict(),
        "manual": row[0] if row else doc.id,
        "revision": row[1] if row else 1,
        # Which reading of PDFs wrote it: a pack made by an older Lantern reads as stale.
        "extraction": row[2] if row else 0,
        "pages": pages,
        "chunks": chunks,
        "visual": visual,
    }
    put(f"{base}/document.json", json.dumps(data, ensure_ascii=False).encode())
    return {"sha256": doc.sha256, "file_name": doc.file_name, "title": doc.title,
            "pages": doc.pages, "revision": data["revision"]}  # fmt: skip


def _export_visual(db: Any, doc_id: int, base: str, put: Callable[[str, bytes], None]) -> list[Any]:
    rows = db.execute(
        "SELECT p.number, v.model, v.n_vectors, v.dim, v.grid_h, v.grid_w, v.vectors, v.pooled"
        " FROM page_visual v JOIN pages p ON p.id = v.page_id WHERE p.document_id = ?",
        (doc_id,),
    ).fetchall()
    out = []
    for number, model, n, dim, gh, gw, vectors, pooled in rows:
        put(f"{base}/visual/{number}.vectors", bytes(vectors))
        put(f"{base}/visual/{number}.pooled", bytes(pooled))
        out.append([number, model, n, dim, gh, gw])
    return out


# ---- import ----------------------------------------------------------------------------
def read_manifest(path: Path) -> dict[str, Any]:
    """The pack's manifest, or PackError saying why the file is not a pack this reads."""
    try:
        with zipfile.ZipFile(path) as zf:
            manifest = json.loads(zf.read(MANIFEST))
    except FileNotFoundError:
        raise PackError(f"{path}: no such file") from None
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError, OSError) as exc:
        raise PackError(f"{path.name} is not a Lantern pack ({exc})") from None
    if manifest.get("format") != FORMAT:
        raise PackError(f"{path.name} is not a Lantern pack")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise PackError(
            f"{path.name} is pack format {version}; this Lantern reads format {FORMAT_VERSION}:"
            " export it again with this version"
        )
    return manifest  # type: ignore[no-any-return]


def check_embedder(manifest: dict[str, Any], library: Library, configured: str | None) -> None:
    """Refuse a pack whose vectors come from another embedder than the library's."""
    pack = manifest.get("embedder") or {}
    pack_id, pack_dim = pack.get("id"), pack.get("dim")
    store = library.store
    have_id = store.embedder_name() if store.chunk_count() else configured
    have_dim = store.vector_dim() if store.chunk_count() else None
    if have_id and pack_id and have_id != pack_id:
        raise PackError(
            f"the pack was embedded with {pack_id}, this library uses {have_id}: "
            "import the PDFs instead, or export the pack from a library using the same embedder"
        )
    if have_dim and pack_dim and int(have_dim) != int(pack_dim):
        raise PackError(
            f"the pack's vectors have {pack_dim} dimensions, this library's have {have_dim}"
        )


def import_pack(
    library: Library,
    path: Path,
    configured_embedder: str | None = None,
    progress: Progress = _quiet,
) -> PackReport:
    """Import every manual of a pack, all or nothing; manuals already there are skipped.

    ``configured_embedder`` is the embedder id this Lantern would use on an empty library
    (``Embedder.name``); a pack from another embedder is refused before anything is read.
    """
    manifest = read_manifest(path)
    check_embedder(manifest, library, configured_embedder)
    with zipfile.ZipFile(path) as zf:
        members = _verified(zf, manifest)
        entries = sorted(
            (
                json.loads(members[f"documents/{e['sha256']}/document.json"])
                for e in manifest["documents"]
            ),
            key=lambda d: (d["manual"], d["revision"]),
        )
        store = library.store
        todo = [d for d in entries if store.find_by_hash(d["sha256"]) is None]
        skipped = tuple(d["file_name"] for d in entries if d not in todo)
        for d in todo:
            library.keep_copy(members[f"documents/{d['sha256']}/document.pdf"], d["sha256"])
        embedder = manifest.get("embedder") or {}
        if todo and embedder.get("id") and embedder.get("dim"):
            store.ensure_embedder(str(embedder["id"]), int(embedder["dim"]))
        manuals: dict[Any, int] = {}
        for d in entries:  # a manual partly there already: new revisions join it
            there = store.find_by_hash(d["sha256"])
            rev = revision_of(store, there.id) if there is not None else None
            if rev is not None:
                manuals.setdefault(d["manual"], rev.manual_id)
        with store.transaction():  # every manual or none: add_document nests as savepoints
            for index, d in enumerate(todo):
                progress(index, len(todo), f"adding {d['file_name']}")
                new = _new_document(library, d, members)
                new.revision_of = manuals.get(d["manual"])
                if new.revision_of is None:  # a file name still names one manual
                    new.file_name = distinct_label(store, new.file_name)
                doc_id = store.add_document(new)
                _insert_visual(store.db, doc_id, d, members)
                manual = store.db.execute(
                    "SELECT manual_id FROM documents WHERE id = ?", (doc_id,)
                ).fetchone()
                manuals.setdefault(d["manual"], int(manual[0]) if manual else doc_id)
    progress(len(todo), len(todo), "done")
    return PackReport(
        str(path),
        imported=tuple(d["file_name"] for d in todo),
        skipped=skipped,
        documents=tuple(d["file_name"] for d in entries),
    )


def _verified(zf: zipfile.ZipFile, manifest: dict[str, Any]) -> dict[str, bytes]:
    """Every member the manifest lists, read and checked against its hash."""
    hashes: dict[str, str] = manifest.get("hashes") or {}
    members = {}
    for name, expected in hashes.items():
        try:
            data = zf.read(name)
        except (KeyError, zipfile.BadZipFile, OSError) as exc:
            raise PackError(f"the pack is damaged: {name} cannot be read ({exc})") from None
        if hashlib.sha256(data).hexdigest() != expected:
            raise PackError(f"the pack is damaged: {name} does not match its hash")
        members[name] = data
    for entry in manifest.get("documents", []):
        base = f"documents/{entry['sha256']}"
        for name in (f"{base}/document.json", f"{base}/document.pdf", f"{base}/vectors.npy"):
            if name not in members:
                raise PackError(f"the pack is incomplete: {name} is missing")
        if hashlib.sha256(members[f"{base}/document.pdf"]).hexdigest() != entry["sha256"]:
            raise PackError(f"the pack is damaged: {entry['file_name']} is not the PDF it names")
    return members


def _new_document(library: Library, d: dict[str, Any], members: dict[str, bytes]) -> NewDocument:
    base = f"documents/{d['sha256']}"
    pages = [
        PageRecord(
            number=number,
            width=width,
            height=height,
            text=text,
            search_text=searchable_text(text),
            ocr=bool(ocr),
            lines=lines_from_json(json.dumps(lines)),
            thumbnail=members.get(f"{base}/thumbs/{number}.png") if thumb else None,
        )
        for number, width, height, text, ocr, lines, thumb in d["pages"]
    ]
    chunks = [
        ChunkDraft(page, text, lines_from_json(json.dumps(lines)), heading, kind)
        for page, kind, heading, text, _search, lines in d["chunks"]
    ]
    vectors = np.load(io.BytesIO(members[f"{base}/vectors.npy"]), allow_pickle=False)
    source = library.pdf_path(d["sha256"]).relative_to(library.root)
    return NewDocument(
        sha256=d["sha256"],
        file_name=d["file_name"],
        title=d["title"],
        source_path=str(source),
        pages=pages,
        chunks=chunks,
        chunk_search_texts=[c[4] for c in d["chunks"]],
        vectors=vectors.astype(np.float32).reshape(len(chunks), -1),
        profile=ManualProfile.from_dict(d.get("profile") or {}),
        extraction=int(d.get("extraction") or 0),
    )


def _insert_visual(db: Any, doc_id: int, d: dict[str, Any], members: dict[str, bytes]) -> None:
    base = f"documents/{d['sha256']}/visual"
    for number, model, n, dim, gh, gw in d.get("visual", []):
        db.execute(
            "INSERT INTO page_visual(page_id, model, n_vectors, dim, grid_h, grid_w, vectors,"
            " pooled) SELECT id, ?, ?, ?, ?, ?, ?, ? FROM pages"
            " WHERE document_id = ? AND number = ?",
            (model, n, dim, gh, gw, members[f"{base}/{number}.vectors"],
             members[f"{base}/{number}.pooled"], doc_id, number),
        )  # fmt: skip


def configured_embedder(setting: str) -> str | None:
    """The id of the embedder a setting names (the model is not loaded), None if unknown."""
    from app.library.embedding import UnavailableEmbedder, safe_embedder

    embedder = safe_embedder(setting)
    return None if isinstance(embedder, UnavailableEmbedder) else embedder.name


def pack_paths(paths: Iterable[str]) -> list[str]:
    """The ``.lanternpack`` files among dropped or chosen paths."""
    return [p for p in paths if p.lower().endswith(SUFFIX)]
