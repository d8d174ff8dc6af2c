"""Numbered schema migrations, applied in order and recorded in ``migrations``.

A migration is a function taking the connection; its number is its position in
``MIGRATIONS``. Never edit a migration that has shipped: add a new one.
"""

from __future__ import annotations

from collections.abc import Callable

import apsw


def m001_initial(db: apsw.Connection) -> None:
    db.execute(
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE documents (
            id INTEGER PRIMARY KEY,
            sha256 TEXT NOT NULL UNIQUE,
            file_name TEXT NOT NULL,
            title TEXT NOT NULL,
            page_count INTEGER NOT NULL,
            ocr_pages INTEGER NOT NULL DEFAULT 0,
            imported_at TEXT NOT NULL,
            profile TEXT NOT NULL DEFAULT '{}',
            source_path TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE pages (
            id INTEGER PRIMARY KEY,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            number INTEGER NOT NULL,
            width REAL NOT NULL,
            height REAL NOT NULL,
            text TEXT NOT NULL,
            ocr INTEGER NOT NULL DEFAULT 0,
            lines TEXT NOT NULL DEFAULT '[]',
            thumbnail BLOB,
            UNIQUE (document_id, number)
        );
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            page INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            heading TEXT NOT NULL DEFAULT '',
            text TEXT NOT NULL,
            search_text TEXT NOT NULL,
            lines TEXT NOT NULL
        );
        CREATE INDEX chunks_by_page ON chunks(document_id, page);
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            search_text, heading,
            content='chunks', content_rowid='id',
            tokenize="unicode61 remove_diacritics 2"
        );
        CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts(rowid, search_text, heading)
            VALUES (new.id, new.search_text, new.heading);
        END;
        CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, search_text, heading)
            VALUES ('delete', old.id, old.search_text, old.heading);
        END;
        """
    )


def m002_vectors(db: apsw.Connection) -> None:
    # Float vectors are kept as blobs for exact rescoring; the sqlite-vec index over them
    # (its dimension depends on the embedder) is created by the store when first needed.
    db.execute(
        """
        CREATE TABLE chunk_vectors (
            chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
            embedding BLOB NOT NULL
        );
        CREATE TRIGGER chunks_vec_ad AFTER DELETE ON chunks BEGIN
            DELETE FROM chunk_vectors WHERE chunk_id = old.id;
        END;
        """
    )


def m003_visual(db: apsw.Connection) -> None:
    # ColQwen multi-vectors per page (float16 blobs) and a pooled vector for the first pass.
    db.execute(
        """
        CREATE TABLE page_visual (
            page_id INTEGER PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            n_vectors INTEGER NOT NULL,
            dim INTEGER NOT NULL,
            grid_h INTEGER NOT NULL DEFAULT 0,
            grid_w INTEGER NOT NULL DEFAULT 0,
            vectors BLOB NOT NULL,
            pooled BLOB NOT NULL
        );
        """
    )


def m004_page_fts(db: apsw.Connection) -> None:
    # Whole-page full-text index: a page-level BM25 signal next to the chunk-level one.
    db.execute(
        """
        CREATE VIRTUAL TABLE pages_fts USING fts5(
            text, content='', contentless_delete=1,
            tokenize="unicode61 remove_diacritics 2"
        );
        CREATE TRIGGER pages_ad AFTER DELETE ON pages BEGIN
            DELETE FROM pages_fts WHERE rowid = old.id;
        END;
        """
    )


def m005_feedback(db: apsw.Connection) -> None:
    # The technician's verdicts on answers (thumbs, the right page), kept with the question,
    # the agent's steps and what it answered, so they can feed the prompt optimiser. Pages
    # are named by file name, like citations, so a removed manual does not orphan them.
    db.execute(
        """
        CREATE TABLE feedback (
            id INTEGER PRIMARY KEY,
            created TEXT NOT NULL,
            question TEXT NOT NULL,
            answer TEXT NOT NULL DEFAULT '',
            abstained INTEGER NOT NULL DEFAULT 0,
            rating INTEGER NOT NULL DEFAULT 0 CHECK (rating IN (-1, 0, 1)),
            right_pages TEXT NOT NULL DEFAULT '[]',
            decisions TEXT NOT NULL DEFAULT '[]',
            citations TEXT NOT NULL DEFAULT '[]',
            pages TEXT NOT NULL DEFAULT '[]'
        );
        """
    )


def m006_porter_fts(db: apsw.Connection) -> None:
    # Both full-text indexes stem with the Porter algorithm, so BM25 meets "charging" in
    # "charged" without a hand-written word list; the retrieval layer stems question terms
    # with the same algorithm (PyStemmer) to read the indexes' vocabularies.
    from app.library.symbols import searchable_text

    tokenizer = "porter unicode61 remove_diacritics 2"
    db.execute(
        f"""
        DROP TRIGGER chunks_ai;
        DROP TRIGGER chunks_ad;
        DROP TABLE chunks_fts;
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            search_text, heading, content='chunks', content_rowid='id',
            tokenize="{tokenizer}"
        );
        CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts(rowid, search_text, heading)
            VALUES (new.id, new.search_text, new.heading);
        END;
        CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, search_text, heading)
            VALUES ('delete', old.id, old.search_text, old.heading);
        END;
        INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');
        DROP TRIGGER pages_ad;
        DROP TABLE pages_fts;
        CREATE VIRTUAL TABLE pages_fts USING fts5(
            text, content='', contentless_delete=1, tokenize="{tokenizer}"
        );
        CREATE TRIGGER pages_ad AFTER DELETE ON pages BEGIN
            DELETE FROM pages_fts WHERE rowid = old.id;
        END;
        """
    )
    rows = list(db.execute("SELECT id, text FROM pages"))
    for page_id, text in rows:
        db.execute(
            "INSERT INTO pages_fts(rowid, text) VALUES (?, ?)", (page_id, searchable_text(text))
        )


def m007_revisions(db: apsw.Connection) -> None:
    # A manual is a line of revisions: each document belongs to one manual (the id of its
    # first revision) and has a revision number; the newest answers by default. Before
    # this migration every document was a manual of its own, at revision 1.
    db.execute(
        """
        ALTER TABLE documents ADD COLUMN manual_id INTEGER;
        ALTER TABLE documents ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;
        UPDATE documents SET manual_id = id;
        CREATE INDEX documents_by_manual ON documents(manual_id, revision);
        CREATE TRIGGER documents_manual AFTER INSERT ON documents
        WHEN new.manual_id IS NULL BEGIN
            UPDATE documents SET manual_id = new.id WHERE id = new.id;
        END;
        """
    )


def m008_watched_folders(db: apsw.Connection) -> None:
    # Folders Lantern keeps up with, and what it last saw of each PDF in them (size and
    # modification time, the document it became), so changes made while Lantern was closed
    # are found at the next start. A file gone from its folder is flagged (missing_since),
    # never deleted from the library without the technician's confirmation.
    db.execute(
        """
        CREATE TABLE watched_folders (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            added_at TEXT NOT NULL
        );
        CREATE TABLE watched_files (
            path TEXT PRIMARY KEY,
            folder_id INTEGER NOT NULL REFERENCES watched_folders(id) ON DELETE CASCADE,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            document_id INTEGER,
            missing_since TEXT
        );
        """
    )


def m009_decision_records(db: apsw.Connection) -> None:
    # Every decision of a question (route to manual, next step, answer or abstain) with
    # what the rules and the LLM each chose (the "shadow" record), the LLM's confidence and
    # who was followed; a later outcome (thumbs, judge, critic) labels each side right or
    # wrong, making the labelled examples the rolling accuracy and the optimiser read.
    db.execute(
        """
        CREATE TABLE decision_records (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL,
            created TEXT NOT NULL,
            question TEXT NOT NULL,
            answer TEXT NOT NULL DEFAULT '',
            abstained INTEGER NOT NULL DEFAULT 0,
            signature TEXT NOT NULL,
            step INTEGER NOT NULL DEFAULT 0,
            inputs TEXT NOT NULL DEFAULT '{}',
            rule_choice TEXT NOT NULL DEFAULT 'null',
            llm_choice TEXT NOT NULL DEFAULT 'null',
            llm_confidence REAL,
            calibrated REAL,
            used TEXT NOT NULL,
            program_version TEXT NOT NULL DEFAULT '',
            rule_right INTEGER,
            llm_right INTEGER,
            label_source TEXT,
            labelled_at TEXT
        );
        CREATE INDEX decision_records_by_run ON decision_records(run_id);
        CREATE INDEX decision_records_by_question ON decision_records(question, created);
        CREATE INDEX decision_records_labelled ON decision_records(signature, labelled_at);
        """
    )


def m010_line_terms(db: apsw.Connection) -> None:
    # What the search needs to know of each line of a chunk (its word stems, the values
    # it prints), derived once rather than at every search that re-ranks its page. The
    # retrieval layer writes and reads it (``app/retrieval/line_index.py``); ``version``
    # says which reading of lines wrote a row, so a row an older reading wrote is
    # ignored and written again.
    db.execute(
        """
        CREATE TABLE line_terms (
            chunk_id INTEGER PRIMARY KEY,
            version INTEGER NOT NULL,
            terms TEXT NOT NULL
        );
        CREATE TRIGGER chunks_terms_ad AFTER DELETE ON chunks BEGIN
            DELETE FROM line_terms WHERE chunk_id = old.id;
        END;
        """
    )


def m011_extraction(db: apsw.Connection) -> None:
    # Which reading of PDFs wrote a document's pages and chunks (``importer.EXTRACTION``):
    # a manual read by an older one (0: before this column) can be read again from the
    # library's copy, in place, when reading improves (``Importer.reread``).
    db.execute("ALTER TABLE documents ADD COLUMN extraction INTEGER NOT NULL DEFAULT 0")


MIGRATIONS: list[Callable[[apsw.Connection], None]] = [
    m001_initial,
    m002_vectors,
    m003_visual,
    m004_page_fts,
    m005_feedback,
    m006_porter_fts,
    m007_revisions,
    m008_watched_folders,
    m009_decision_records,
    m010_line_terms,
    m011_extraction,
]


def apply_migrations(db: apsw.Connection) -> list[str]:
    """Apply every migration not yet recorded; returns the names applied.

    All of it runs under one write lock (BEGIN IMMEDIATE), so two connections opening a
    new library at once (the window's answer and import workers) cannot both migrate.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(
            "CREATE TABLE IF NOT EXISTS migrations ("
            " number INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        done = {row[0] for row in db.execute("SELECT number FROM migrations")}
        applied = []
        for number, migration in enumerate(MIGRATIONS, start=1):
            if number in done:
                continue
            migration(db)
            db.execute(
                "INSERT INTO migrations(number, name, applied_at) VALUES (?, ?, datetime('now'))",
                (number, migration.__name__),
            )
            applied.append(migration.__name__)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return applied
