"""The library owns its tables: no module outside ``app/library`` runs a SQL statement, so
a schema change touches one package."""

from __future__ import annotations

import re
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"
SQL = re.compile(r"\.execute(?:many)?\(|\b(?:SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b")


def test_no_sql_outside_the_library() -> None:
    found = [
        f"{path.relative_to(APP.parent)}:{number}: {line.strip()}"
        for path in sorted(APP.rglob("*.py"))
        if "library" not in path.relative_to(APP).parts[:1]
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if SQL.search(line)
    ]
    assert found == []
