"""download_model through a local stand-in for the hub, and the rows of ``python -m app models``."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from huggingface_hub.errors import RepositoryNotFoundError

from app.config import Settings
from app.runtime.download import (
    DownloadCancelled,
    DownloadError,
    DownloadProgress,
    default_transport,
    download_model,
    format_table,
    list_models,
)
from app.runtime.registry import ModelRegistry


class LocalHub:
    """Stands in for ``snapshot_download``: same keywords, copies ``<root>/<repo_id>``.

    Progress goes through the ``tqdm_class`` it is given, the way huggingface_hub drives
    it: a file-count bar, and a byte bar whose total grows as each file starts.
    """

    def __init__(self, root: Path, chunk: int = 4096) -> None:
        self.root = root
        self.chunk = chunk
        self.calls: list[dict[str, Any]] = []

    def __call__(self, *, repo_id: str, local_dir: str, tqdm_class: Any, **kwargs: Any) -> str:
        self.calls.append({"repo_id": repo_id, "local_dir": local_dir, **kwargs})
        source = self.root / repo_id
        if not source.is_dir():
            response = httpx.Response(404, request=httpx.Request("GET", f"https://hub/{repo_id}"))
            raise RepositoryNotFoundError(f"404: {repo_id}", response=response)
        files = sorted(p for p in source.rglob("*") if p.is_file())
        byte_bar = tqdm_class(total=0, unit="B", desc="Downloading bytes")
        with tqdm_class(total=len(files), desc=f"Fetching {len(files)} files") as file_bar:
            for path in files:
                self._copy(path, Path(local_dir) / path.relative_to(source), byte_bar)
                file_bar.update(1)
        byte_bar.close()
        return local_dir

    def _copy(self, path: Path, target: Path, byte_bar: Any) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_file() and target.stat().st_size == path.stat().st_size:
            return  # already fetched by an earlier, interrupted run
        byte_bar.total += path.stat().st_size
        with open(path, "rb") as src, open(target, "wb") as dst:
            while block := src.read(self.chunk):
                dst.write(block)
                byte_bar.update(len(block))


@pytest.fixture
def hub(tmp_path: Path) -> LocalHub:
    repo = tmp_path / "hub" / "mlx-community" / "Tiny-Instruct-4bit"
    repo.mkdir(parents=True)
    (repo / "config.json").write_text(
        json.dumps({"model_type": "qwen2", "quantization": {"bits": 4}})
    )
    (repo / "model.safetensors").write_bytes(b"\0" * 50_000)
    (repo / "tokenizer.json").write_text("{}")
    (tmp_path / "hub" / "org" / "not-a-model").mkdir(parents=True)
    (tmp_path / "hub" / "org" / "not-a-model" / "README.md").write_text("hello")
    return LocalHub(tmp_path / "hub")


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test suite runs with HF_HUB_OFFLINE=1; these tests play a connected machine."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)


@pytest.mark.usefixtures("online")
def test_download_lands_in_org_name_folder_with_progress(hub: LocalHub, tmp_path: Path) -> None:
    models = tmp_path / "models"
    events: list[DownloadProgress] = []

    folder = download_model(
        "mlx-community/Tiny-Instruct-4bit", models, events.append, transport=hub
    )

    assert folder == models / "mlx-community--Tiny-Instruct-4bit"
    assert sorted(p.name for p in folder.iterdir()) == [
        "config.json",
        "model.safetensors",
        "tokenizer.json",
    ]
    assert not list(models.glob("*.partial"))
    done = [e.bytes_done for e in events]
    assert done == sorted(done) and len(events) > 10
    final = events[-1]
    assert final.finished and final.files_done == final.files_total == 3
    assert final.bytes_done == final.bytes_total > 50_000
    registry = ModelRegistry(Settings(models_dir=models), roots=[(models, "app")], hf_cache=False)
    (info,) = registry.scan()
    assert (info.id, info.kind, info.location, info.quant_bits) == (
        "mlx-community/Tiny-Instruct-4bit", "llm", "app", 4
    )  # fmt: skip


def test_refuses_when_offline(hub: LocalHub, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    with pytest.raises(DownloadError, match="offline"):
        download_model("mlx-community/Tiny-Instruct-4bit", tmp_path / "models", transport=hub)
    assert hub.calls == []


@pytest.mark.usefixtures("online")
def test_unreachable_hub_gives_a_clear_message(tmp_path: Path) -> None:
    def no_network(**_kwargs: Any) -> str:
        raise httpx.ConnectError("[Errno -3] Temporary failure in name resolution")

    with pytest.raises(DownloadError, match="cannot reach the Hugging Face hub"):
        download_model("org/model", tmp_path / "models", transport=no_network)


@pytest.mark.usefixtures("online")
@pytest.mark.parametrize(
    ("repo_id", "message"),
    [
        ("not an id", "not a Hugging Face model id"),
        ("org/missing", "not found on the Hugging Face hub"),
        ("org/not-a-model", "does not look like a model"),
    ],
)
def test_bad_requests(hub: LocalHub, tmp_path: Path, repo_id: str, message: str) -> None:
    with pytest.raises(DownloadError, match=message):
        download_model(repo_id, tmp_path / "models", transport=hub)
    assert not (tmp_path / "models" / repo_id.replace("/", "--")).exists()


@pytest.mark.usefixtures("online")
def test_cancel_keeps_partial_files_and_a_retry_resumes(hub: LocalHub, tmp_path: Path) -> None:
    models, cancel = tmp_path / "models", threading.Event()

    def cancel_midway(event: DownloadProgress) -> None:
        if event.bytes_done > 20_000:
            cancel.set()

    with pytest.raises(DownloadCancelled):
        download_model(
            "mlx-community/Tiny-Instruct-4bit", models, cancel_midway, cancel=cancel, transport=hub
        )
    assert not (models / "mlx-community--Tiny-Instruct-4bit").exists()
    assert (models / "mlx-community--Tiny-Instruct-4bit.partial" / "config.json").is_file()

    folder = download_model("mlx-community/Tiny-Instruct-4bit", models, transport=hub)
    assert (folder / "model.safetensors").stat().st_size == 50_000


@pytest.mark.usefixtures("online")
def test_an_installed_model_is_not_fetched_again_unless_forced(
    hub: LocalHub, tmp_path: Path
) -> None:
    models = tmp_path / "models"
    download_model("mlx-community/Tiny-Instruct-4bit", models, transport=hub)
    events: list[DownloadProgress] = []

    download_model("mlx-community/Tiny-Instruct-4bit", models, events.append, transport=hub)
    assert len(hub.calls) == 1 and events[-1].finished

    download_model("mlx-community/Tiny-Instruct-4bit", models, force=True, transport=hub)
    assert len(hub.calls) == 2


def test_the_real_transport_is_huggingface_hub_snapshot_download() -> None:
    from huggingface_hub import snapshot_download

    assert default_transport() is snapshot_download


@pytest.mark.usefixtures("online")
def test_list_models_rows_for_the_cli(hub: LocalHub, tmp_path: Path) -> None:
    models = tmp_path / "models"
    download_model("mlx-community/Tiny-Instruct-4bit", models, transport=hub)
    shutil.copytree(models / "mlx-community--Tiny-Instruct-4bit", tmp_path / "repo" / "dev-model")
    registry = ModelRegistry(
        Settings(models_dir=models, memory_budget_gb=4),
        roots=[(models, "app"), (tmp_path / "repo", "repo")],
        hf_cache=False,
    )

    rows = list_models(registry=registry)
    table = format_table(rows)

    assert [(r.name, r.location) for r in rows[:2]] == [
        ("mlx-community/Tiny-Instruct-4bit", "app"),
        ("dev-model", "repo"),
    ]
    assert rows[0].fits and rows[0].size == "0 MB"
    missing = {r.name: r for r in rows[2:]}
    assert missing["mlx-community/Qwen2.5-7B-Instruct-4bit"].location == "not downloaded"
    assert not missing["mlx-community/Qwen2.5-7B-Instruct-4bit"].fits  # 4.3 GB > 4 GB budget
    assert table.splitlines()[0].split() == ["NAME", "KIND", "SIZE", "FITS", "LOCATION"]
    assert any(
        line.split()[:2] == ["vidore/colqwen2.5-v0.2", "colqwen"] for line in table.splitlines()
    )
