"""Saved benchmark runs: one JSON file per run in the library's ``bench_runs`` folder.

A run is ``{"id", "meta", "summary", "records"}``; the meta says what was run against what
(dataset, library, mode, judge, program version, when), so two runs can be compared later
and a report read on its own. Files are written to a temporary name and renamed, so a
crash never leaves half a run behind.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from pathlib import Path
from typing import Any

RUNS_DIR_NAME = "bench_runs"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class RunStoreError(Exception):
    """A saved run is missing, unreadable, or its id is not a run id."""


def runs_dir(library_root: Path) -> Path:
    """Where a library keeps its saved runs."""
    return Path(library_root) / RUNS_DIR_NAME


def now_iso() -> str:
    """The local time, to the second, as the meta's started/finished stamps."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class RunMeta:
    """What a run was: its dataset, library, models and when it ran.

    Attributes:
        mode: "no-LLM", or the LLM's model id.
        judge_method: "key-facts" or "llm".
        program_version: The optimised program version the agent loaded, if any.
        questions: Questions answered (fewer than the dataset's when stopped).
    """

    dataset_path: str
    dataset_name: str
    library_path: str
    started: str
    finished: str
    mode: str
    judge_method: str
    program_version: str | None = None
    questions: int = 0
    stopped: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunMeta:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True, slots=True)
class RunInfo:
    """A saved run as listed: its id, file, meta and overall summary figures."""

    id: str
    path: Path
    meta: RunMeta
    summary: dict[str, Any]

    @property
    def label(self) -> str:
        """One line to pick the run by: when, which dataset, which mode, how many."""
        when = self.meta.started[:16].replace("T", " ")
        stopped = ", stopped" if self.meta.stopped else ""
        return (
            f"{when} · {self.meta.dataset_name} · {self.meta.mode} · "
            f"{self.meta.questions} q{stopped}"
        )


class RunStore:
    """The saved runs in ``folder`` (``runs_dir(library.root)``); created on first save."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def save(self, result: dict[str, Any], meta: RunMeta) -> RunInfo:
        """Save a ``run_bench`` result (summary and records) with its meta; returns its info."""
        self.folder.mkdir(parents=True, exist_ok=True)
        run_id = self._new_id(meta)
        run = {
            "id": run_id,
            "meta": meta.to_dict(),
            "summary": result["summary"],
            "records": result["records"],
        }
        path = self._path(run_id)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(json.dumps(run, indent=1, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
        return RunInfo(run_id, path, meta, _headline(result["summary"]))

    def list(self) -> list[RunInfo]:
        """Every readable saved run, newest first; unreadable files are skipped."""
        infos = []
        for path in self.folder.glob("*.json") if self.folder.is_dir() else ():
            try:
                run = self._read(path)
            except RunStoreError:
                continue
            meta = RunMeta.from_dict(run["meta"])
            infos.append(RunInfo(path.stem, path, meta, _headline(run["summary"])))
        infos.sort(key=lambda i: (_timestamp(i.meta.started), i.id), reverse=True)
        return infos

    def load(self, run_id: str) -> dict[str, Any]:
        """The saved run: ``{"id", "meta", "summary", "records"}``."""
        path = self._path(run_id)
        if not path.is_file():
            raise RunStoreError(f"no saved run {run_id!r} in {self.folder}")
        return self._read(path)

    def delete(self, run_id: str) -> None:
        path = self._path(run_id)
        if not path.is_file():
            raise RunStoreError(f"no saved run {run_id!r} in {self.folder}")
        path.unlink()

    def _path(self, run_id: str) -> Path:
        if not _ID.match(run_id):
            raise RunStoreError(f"not a run id: {run_id!r}")
        return self.folder / f"{run_id}.json"

    def _new_id(self, meta: RunMeta) -> str:
        stamp = re.sub(r"[^0-9]", "", meta.started[:19])
        stamp = f"{stamp[:8]}-{stamp[8:14]}" if len(stamp) >= 14 else stamp or "run"
        name = re.sub(r"[^A-Za-z0-9]+", "-", meta.dataset_name).strip("-")[:40] or "dataset"
        base, n = f"{stamp}-{name}", 1
        run_id = base
        while self._path(run_id).exists():
            n += 1
            run_id = f"{base}-{n}"
        return run_id

    @staticmethod
    def _read(path: Path) -> dict[str, Any]:
        try:
            run = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise RunStoreError(f"{path}: cannot read the saved run ({exc})") from exc
        if not isinstance(run, dict) or not {"meta", "summary", "records"} <= run.keys():
            raise RunStoreError(f"{path}: not a saved benchmark run")
        run.setdefault("id", path.stem)
        return run


def _headline(summary: dict[str, Any]) -> dict[str, Any]:
    """The overall figures (no per-category blocks), for lists and labels."""
    return {k: v for k, v in summary.items() if not isinstance(v, dict)}


def _timestamp(iso: str) -> float:
    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return 0.0
