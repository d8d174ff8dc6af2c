"""Fuzzed model decisions (CI size; ``bench/reliability.py`` runs 1,000): whatever the
scripted fake LM says, the loop ends within its step budget with one answer."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from app.library.library import Library
from tests.reliability.fuzz import Script, check_run, decision_reply, run_examples, scripts
from tests.reliability.harness import make_base


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    root = make_base(tmp_path_factory.mktemp("fuzz") / "library")
    library = Library.open(root)
    yield library
    library.close()


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(script=scripts)
def test_any_decisions_end_in_one_answer_within_the_budget(
    library: Library, tmp_path_factory: pytest.TempPathFactory, script: Script
) -> None:
    logging.disable(logging.WARNING)  # the loop logs each bad decision; thousands of lines
    try:
        check_run(library, script, tmp_path_factory.getbasetemp() / "fuzz-traces")
    finally:
        logging.disable(logging.NOTSET)


@pytest.mark.parametrize(
    "replies",
    [
        [""],  # empty output, every time
        [decision_reply("text_search", {"query": "battery"})],  # the same step forever
        [decision_reply("delete_library", {"path": "/"})],
        [decision_reply("text_search", '{"query": ')],  # invalid JSON
        [decision_reply("text_search", {"query": "x" * 100_000})],
        [decision_reply("text_search", {"query": 42, "documents": "all"})],
        ["The answer is to call text_search(query='x') [[ ## tool ## ]] answer"],
    ],
    ids=["empty", "repeated", "unknown-tool", "bad-json", "huge", "wrong-types", "tool-in-text"],
)
def test_named_bad_decisions(library: Library, tmp_path: Path, replies: list[str]) -> None:
    script = Script(
        replies,
        ["[[ ## answerable ## ]]\nTrue\n\n[[ ## answer ## ]]\nJ24 [1]\n\n[[ ## completed ## ]]"],
        ["[[ ## completed ## ]]"],
    )
    assert check_run(library, script, tmp_path) in ("answered", "abstained")


def test_the_runner_counts_outcomes(library: Library, tmp_path: Path) -> None:
    outcomes, broken = run_examples(library, tmp_path, examples=5)
    assert broken == []
    assert outcomes["answered"] + outcomes["abstained"] == 5
