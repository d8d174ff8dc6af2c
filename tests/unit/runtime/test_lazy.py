"""The lifecycle the model backends share: load on first use, busy, unload, memory."""

from __future__ import annotations

from pathlib import Path

from app.runtime.lazy import LazyModel
from app.runtime.model_files import RUNTIME_OVERHEAD


class Counting(LazyModel):
    """A backend whose 'weights' are a counter of loads."""

    weights: int | None = None
    loads = 0
    frees = 0

    @property
    def loaded(self) -> bool:
        return self.weights is not None

    def _load_weights(self) -> None:
        self.loads += 1
        self.weights = self.loads

    def _drop_weights(self) -> None:
        self.weights = None

    def _free_memory(self) -> None:
        self.frees += 1

    def use(self) -> tuple[bool, int | None]:
        with self._lock:
            self._ensure_loaded()
            return self.busy, self.weights


def test_loads_once_on_first_use_and_again_after_an_unload(tmp_path: Path) -> None:
    model = Counting(tmp_path / "my-model")
    assert not model.loaded and model.loads == 0 and model.model_id == "my-model"
    assert model.use() == (True, 1)  # busy while the use holds the lock
    assert model.use() == (True, 1) and model.loads == 1 and not model.busy
    model.unload()
    assert not model.loaded and model.frees == 1
    model.load()
    assert model.loaded and model.loads == 2


def test_memory_is_the_weights_on_disk_with_the_runtime_overhead(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"\0" * 1000)
    (tmp_path / "README.md").write_text("not weights")
    assert Counting(tmp_path).memory_bytes == int(1000 * RUNTIME_OVERHEAD)
    assert Counting(tmp_path / "absent").memory_bytes == 0
    assert Counting().memory_bytes == 0
