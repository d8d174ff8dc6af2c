"""The fast part of the reliability suite, run in CI: every kind of bad input, a kill -9
during an import and during a removal, and two imports with questions at once. The
whole table is printed (``pytest -s`` shows it); ``bench/reliability.py`` runs the full
size (20 kill trials, 1,000 fuzzed decisions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.bad_inputs import FILE_CASES, QUESTION_CASES
from tests.reliability.harness import (
    Row,
    bad_input_rows,
    contention_rows,
    format_table,
    kill_rows,
    make_base,
)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_base(tmp_path_factory.mktemp("reliability") / "library")


def _assert_all_pass(rows: list[Row]) -> None:
    print("\n" + format_table(rows))
    failed = [f"{r.case}: expected {r.expected}, observed {r.observed}" for r in rows if not r.ok]
    assert failed == []


def test_the_suite_tries_at_least_thirty_kinds_of_bad_input() -> None:
    assert len(FILE_CASES) + len(QUESTION_CASES) >= 30


def test_every_kind_of_bad_input_is_handled_and_changes_nothing(base: Path, tmp_path: Path) -> None:
    rows = list(bad_input_rows(base, tmp_path))

    assert len(rows) == len(FILE_CASES) + len(QUESTION_CASES)
    _assert_all_pass(rows)


def test_kill_9_during_an_import_and_a_removal_leaves_a_sound_library(
    base: Path, tmp_path: Path
) -> None:
    rows = list(kill_rows(base, tmp_path, trials=2))

    assert [r.case.split(",")[0] for r in rows] == [
        "kill -9 during import",
        "kill -9 during removal",
    ]
    _assert_all_pass(rows)


def test_two_imports_and_questions_at_once(
    base: Path, tmp_path: Path, cli_env: dict[str, str]
) -> None:
    env = {
        **cli_env,
        "LANTERN_EMBEDDER": "hashing",
        "LANTERN_OCR_ENGINE": "none",
        "LANTERN_LLM": "none",
    }

    _assert_all_pass(list(contention_rows(base, tmp_path, env)))
