"""Schema migrations: applied once, in order, recorded; old libraries upgrade keeping data."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest

from app.library import migrations
from app.library.migrations import MIGRATIONS, apply_migrations
from app.library.store import Store, StoreError


def names(db: apsw.Connection) -> list[str]:
    return [r[0] for r in db.execute("SELECT name FROM migrations ORDER BY number")]


def tables(db: apsw.Connection) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_a_new_store_has_every_migration_applied_in_order(store: Store) -> None:
    assert store.schema_version() == len(MIGRATIONS)
    assert names(store.db) == [m.__name__ for m in MIGRATIONS]
    assert {"documents", "pages", "chunks", "chunks_fts", "pages_fts", "page_visual"} <= tables(
        store.db
    )


def test_applying_migrations_again_changes_nothing(store: Store) -> None:
    assert apply_migrations(store.db) == []
    assert store.schema_version() == len(MIGRATIONS)


def test_an_old_library_is_upgraded_on_open_and_keeps_its_documents(tmp_path: Path) -> None:
    folder = tmp_path / "lib"
    folder.mkdir()
    db = apsw.Connection(str(folder / "library.db"))
    db.execute(
        "CREATE TABLE migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " applied_at TEXT NOT NULL)"
    )
    for number, migration in enumerate(MIGRATIONS[:2], start=1):
        migration(db)
        db.execute(
            "INSERT INTO migrations VALUES (?, ?, datetime('now'))", (number, migration.__name__)
        )
    db.execute(
        "INSERT INTO documents(sha256, file_name, title, page_count, imported_at)"
        " VALUES ('abc', 'Old.pdf', 'Old manual', 0, '2024-01-01T00:00:00Z')"
    )
    db.close()

    store = Store.open(folder)

    assert store.schema_version() == len(MIGRATIONS)
    assert [d.title for d in store.list_documents()] == ["Old manual"]
    assert "pages_fts" in tables(store.db)
    assert store.check_integrity() == []
    store.close()


def test_a_failing_migration_is_rolled_back_and_retried_next_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = apsw.Connection(":memory:")
    apply_migrations(db)

    def m999_broken(conn: apsw.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x INTEGER)")
        conn.execute("INSERT INTO no_such_table VALUES (1)")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, m999_broken])
    with pytest.raises(apsw.SQLError):
        apply_migrations(db)

    assert "half_done" not in tables(db)
    assert names(db) == [m.__name__ for m in MIGRATIONS]

    def m999_fixed(conn: apsw.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x INTEGER)")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, m999_fixed])
    assert apply_migrations(db) == ["m999_fixed"]
    assert "half_done" in tables(db)


def test_a_store_whose_migration_fails_reports_a_store_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def m999_broken(conn: apsw.Connection) -> None:
        conn.execute("SELECT * FROM no_such_table")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, m999_broken])
    with pytest.raises(StoreError, match="cannot migrate"):
        Store.memory()


def test_two_connections_opening_a_new_library_at_once_both_succeed(tmp_path: Path) -> None:
    """Six connections open one new library together, 40 times over: before the WAL switch
    was retried, about 1 round in 20 failed with "database is locked"."""
    import threading

    from app.library.store import Store

    errors: list[BaseException] = []

    def open_it(folder: Path, start: threading.Barrier) -> None:
        try:
            start.wait()
            Store.open(folder).close()
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    for round_ in range(40):
        start = threading.Barrier(6)
        folder = tmp_path / f"lib{round_}"
        threads = [threading.Thread(target=open_it, args=(folder, start)) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []
