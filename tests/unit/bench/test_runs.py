"""Saved runs: written whole, read back the same, listed newest first, deleted."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.bench.runs import RunMeta, RunStore, RunStoreError, runs_dir
from tests.unit.bench.fake_runs import finished_run

META = RunMeta(
    dataset_path="/data/dev set.json",
    dataset_name="dev set",
    library_path="/lib",
    started="2025-03-01T09:00:00+01:00",
    finished="2025-03-01T09:05:00+01:00",
    mode="no-LLM",
    judge_method="key-facts",
    program_version=None,
    questions=3,
    stopped=False,
)


def test_a_saved_run_loads_back_the_same(tmp_path: Path) -> None:
    store = RunStore(runs_dir(tmp_path / "library"))
    run = finished_run()

    info = store.save(run, META)
    loaded = store.load(info.id)

    assert info.path.parent == tmp_path / "library" / "bench_runs"
    assert loaded["records"] == run["records"] and loaded["summary"] == run["summary"]
    assert RunMeta.from_dict(loaded["meta"]) == META
    assert info.summary["hit@1"] == run["summary"]["hit@1"] and "per_category" not in info.summary
    assert not list(info.path.parent.glob(".*.tmp"))  # written through a renamed temp file


def test_runs_are_listed_newest_first_and_deleted(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    older = store.save(finished_run(), META)
    newer = store.save(finished_run(), replace(META, started="2025-03-02T08:00:00+01:00"))
    same_time = store.save(finished_run(), META)

    assert same_time.id != older.id
    assert [i.id for i in store.list()] == [newer.id, same_time.id, older.id]
    assert "dev set" in newer.label and "2025-03-02 08:00" in newer.label

    store.delete(older.id)
    assert older.id not in {i.id for i in store.list()}
    with pytest.raises(RunStoreError, match="no saved run"):
        store.load(older.id)


def test_an_empty_or_foreign_folder_lists_nothing_and_bad_ids_are_refused(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    assert store.list() == []
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "notes.json").write_text('{"hello": 1}')
    (tmp_path / "runs" / "broken.json").write_text("{")

    assert store.list() == []
    with pytest.raises(RunStoreError, match="not a run id"):
        store.load("../secrets")
