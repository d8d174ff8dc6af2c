"""Model download (the app's only network use) and the rows of ``python -m app models``.

``download_model`` fetches a Hugging Face repository into ``<models_dir>/<org>--<name>``
with ``huggingface_hub.snapshot_download``, reporting progress as small frozen events. The
transport is injectable: tests pass a stand-in with the same signature that copies from a
local folder, so the code path under test is the real one. Files land in a ``.partial``
folder first and are renamed into place at the end, so a cancelled or failed download never
looks like an installed model (and a retry resumes it).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.config import Settings
from app.runtime.model_files import GB, RUNTIME_OVERHEAD, is_model_dir
from app.runtime.registry import RECOMMENDED, ModelRegistry
from app.runtime.types import Cancel, cancel_checker

REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
Transport = Callable[..., Any]
"""``snapshot_download``'s signature: repo_id, local_dir, revision, tqdm_class keywords."""


class DownloadError(RuntimeError):
    """A download could not be done; the message is meant for the person who asked."""


class DownloadCancelled(DownloadError):
    """The person cancelled the download; the partial files are kept for a retry."""


@dataclass(frozen=True, slots=True)
class DownloadProgress:
    """Where a download stands. ``bytes_total`` grows as the hub announces files."""

    repo_id: str
    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int
    finished: bool = False


ProgressCallback = Callable[[DownloadProgress], None]


class _ProgressTracker:
    """Collects huggingface_hub's progress bars into DownloadProgress events.

    snapshot_download reports through tqdm bars: one counting files, two counting bytes
    (received and written; we report the larger count). Bars update from worker threads.
    """

    def __init__(self, repo_id: str, report: ProgressCallback, cancelled: Callable[[], bool]):
        self.repo_id = repo_id
        self.report = report
        self.cancelled = cancelled
        self.bars: list[Any] = []
        self.lock = threading.Lock()

    def snapshot(self, finished: bool = False) -> DownloadProgress:
        byte_bars = [b for b in self.bars if getattr(b, "unit", "") == "B"]
        file_bars = [b for b in self.bars if getattr(b, "unit", "") != "B"]
        return DownloadProgress(
            repo_id=self.repo_id,
            files_done=int(sum(b.n for b in file_bars)),
            files_total=int(sum(b.total or 0 for b in file_bars)),
            bytes_done=int(max((b.n for b in byte_bars), default=0)),
            bytes_total=int(max((b.total or 0 for b in byte_bars), default=0)),
            finished=finished,
        )

    def changed(self) -> None:
        if self.cancelled():
            raise DownloadCancelled(f"download of {self.repo_id} cancelled")
        with self.lock:
            event = self.snapshot()
        self.report(event)

    def tqdm_class(self) -> type:
        """A silent tqdm subclass that forwards every update to this tracker."""
        from tqdm.std import tqdm

        tracker = self

        class ProgressBar(tqdm):  # type: ignore[misc]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                kwargs.pop("name", None)
                kwargs.update(file=io.StringIO(), disable=False, mininterval=0)
                super().__init__(*args, **kwargs)
                with tracker.lock:
                    tracker.bars.append(self)

            def update(self, n: float | None = 1) -> bool | None:
                shown = super().update(n)
                tracker.changed()
                return shown

        return ProgressBar


def default_transport() -> Transport:
    from huggingface_hub import snapshot_download

    return snapshot_download


def hub_is_offline() -> bool:
    """True when the environment asks Hugging Face libraries to stay offline."""
    flags = (os.environ.get("HF_HUB_OFFLINE", ""), os.environ.get("TRANSFORMERS_OFFLINE", ""))
    return any(f.strip().lower() in ("1", "true", "yes", "on") for f in flags)


def target_folder(models_dir: Path, repo_id: str) -> Path:
    """Where ``repo_id`` is kept: ``<models_dir>/<org>--<name>``."""
    return Path(models_dir) / repo_id.replace("/", "--")


def download_model(
    repo_id: str,
    models_dir: Path,
    progress: ProgressCallback | None = None,
    *,
    revision: str | None = None,
    force: bool = False,
    cancel: Cancel = None,
    transport: Transport | None = None,
) -> Path:
    """Download ``repo_id`` into ``models_dir`` and return its folder.

    Raises:
        DownloadError: bad id, offline, unreachable hub, unknown repository, or files that
            are not a model. ``DownloadCancelled`` when ``cancel`` was set.
    """
    if not REPO_ID.match(repo_id):
        raise DownloadError(f"{repo_id!r} is not a Hugging Face model id like 'org/name'")
    target = target_folder(models_dir, repo_id)
    report = progress or (lambda _event: None)
    if is_model_dir(target) and not force:
        report(DownloadProgress(repo_id, 0, 0, 0, 0, finished=True))
        return target
    if hub_is_offline():
        raise DownloadError(
            f"cannot download {repo_id}: Lantern is set to work offline (HF_HUB_OFFLINE). "
            "Unset it, connect to the internet, and try again; or copy the model folder "
            f"into {models_dir} by hand."
        )
    partial = target.with_name(target.name + ".partial")
    tracker = _ProgressTracker(repo_id, report, cancel_checker(cancel))
    _fetch(transport or default_transport(), repo_id, partial, revision, tracker)
    _install(partial, target)
    report(tracker.snapshot(finished=True))
    return target


def _fetch(
    transport: Transport,
    repo_id: str,
    partial: Path,
    revision: str | None,
    tracker: _ProgressTracker,
) -> None:
    """Run the transport, turning its many failure types into one clear DownloadError."""
    partial.parent.mkdir(parents=True, exist_ok=True)
    try:
        transport(
            repo_id=repo_id,
            local_dir=str(partial),
            revision=revision,
            tqdm_class=tracker.tqdm_class(),
        )
    except DownloadError:
        raise
    except Exception as exc:
        raise DownloadError(_explain(repo_id, exc)) from exc
    if not is_model_dir(partial):
        raise DownloadError(f"{repo_id} has no config.json: it does not look like a model")


def _explain(repo_id: str, exc: Exception) -> str:
    name = type(exc).__name__
    if "RepositoryNotFound" in name or "RevisionNotFound" in name or "GatedRepo" in name:
        return f"{repo_id} was not found on the Hugging Face hub (or needs a login): {exc}"
    if "Offline" in name or "Connect" in name or "Timeout" in name or isinstance(exc, OSError):
        return f"cannot reach the Hugging Face hub to download {repo_id}: check the network ({exc})"
    return f"download of {repo_id} failed: {name}: {exc}"


def _install(partial: Path, target: Path) -> None:
    """Move a finished download into place (replacing an older copy)."""
    if target.exists():
        shutil.rmtree(target)
    os.replace(partial, target)


# ---- the rows of `python -m app models` ------------------------------------------------
@dataclass(frozen=True, slots=True)
class ModelRow:
    """One line of the models list: an installed model, or a recommended one to download."""

    name: str
    kind: str
    size_bytes: int
    fits: bool
    location: str
    path: str = ""
    purpose: str = ""

    @property
    def size(self) -> str:
        return format_size(self.size_bytes)


def format_size(size: int) -> str:
    if size >= GB:
        return f"{size / GB:.1f} GB"
    return f"{size / 1024**2:.0f} MB"


def list_models(
    settings: Settings | None = None,
    *,
    registry: ModelRegistry | None = None,
    include_recommended: bool = True,
) -> list[ModelRow]:
    """Installed models (kind, size on disk, fits the budget, where), then missing recommended."""
    registry = registry or ModelRegistry(settings)
    rows = [
        ModelRow(m.id, m.kind, m.disk_bytes, m.fits, m.location, str(m.path))
        for m in registry.scan()
    ]
    if include_recommended:
        installed = {row.name for row in rows}
        for rec in RECOMMENDED:
            if rec.repo_id not in installed:
                size = int(rec.approx_gb * GB)
                fits = size * RUNTIME_OVERHEAD <= registry.budget_bytes
                rows.append(
                    ModelRow(rec.repo_id, rec.kind, size, fits, "not downloaded", "", rec.purpose)
                )
    return rows


def format_table(rows: list[ModelRow]) -> str:
    """The rows as an aligned text table for the terminal."""
    header = ("NAME", "KIND", "SIZE", "FITS", "LOCATION")
    cells = [header] + [
        (r.name, r.kind, r.size, "yes" if r.fits else "no", r.location) for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    )
