"""Building the agent for a library and settings: which models, which mode.

``build_answerer(library, settings)`` is what the command line and the window call. It
picks LLM mode when an LLM is named in the settings or an installed one is large enough
to follow the decision format, and no-LLM mode otherwise (the default on a fresh
machine). The choice and its reason are on the agent (``mode``, ``llm_choice``), and
``Conversation`` keeps the turns of a chat so follow-up questions have their context.

Optimised prompt programs live in the library's ``programs/`` folder, one folder per
version (``programs/v0003/decide.json``, ``answer.json``, ``meta.json``); the newest is
loaded at start. The older flat layout (``programs/decide.json``) is still read.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.agent.degraded import DegradingEmbedder
from app.agent.events import Answer, Event
from app.agent.library_search import LibrarySearch
from app.agent.loop import Tree
from app.agent.mode import LlmChoice
from app.agent.policy import LlmPolicy
from app.agent.state import Turn
from app.agent.tools import Resources
from app.config import Settings
from app.library.embedding import Embedder, safe_embedder
from app.library.library import Library
from app.runtime.types import Cancel

log = logging.getLogger(__name__)

# Installed models smaller than this are not picked on their own: they cannot follow the
# decision format (SmolLM2-135M, kept in models/ for tests, is the case in point). Naming
# one in the settings still uses it.
MIN_AUTO_LLM_BYTES = int(0.8 * 1024**3)
OFF = frozenset({"none", "off", "no", "no-llm", "false", "0"})
VERSION_DIR = re.compile(r"^v(\d{4,})$")
PROGRAM_NAMES = ("decide", "answer", "route")


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """The models the agent will use (each a function returning the loaded backend)."""

    llm: Callable[[], Any] | None
    vlm: Callable[[], Any] | None
    reason: str
    llm_id: str = ""  # the chosen LLM's model id; empty in no-LLM mode

    @property
    def llm_choice(self) -> LlmChoice:
        if self.llm is None:
            return LlmChoice("", self.reason)
        return LlmChoice(self.llm_id or "LLM", self.reason)  # "LLM": a model given unnamed


def choose_models(settings: Settings, registry: Any = None) -> ModelChoice:
    """The LLM and VLM to use, from the settings, else the registry's installed models."""
    if registry is None:
        from app.runtime.registry import ModelRegistry

        registry = ModelRegistry(settings)
    llm, llm_why, llm_id = _pick(registry, "llm", settings.llm)
    vlm, _, _ = _pick(registry, "vlm", settings.vlm)
    return ModelChoice(llm, vlm, llm_why, llm_id)


def _pick(registry: Any, kind: str, configured: str) -> tuple[Callable[[], Any] | None, str, str]:
    """A lazy backend for the configured model of ``kind``, else the best installed one
    (recommended first, then the largest that fits; LLMs of MIN_AUTO_LLM_BYTES or more),
    with why and its model id."""
    if configured.strip().lower() in OFF:
        return None, f"no {kind}: turned off in the settings", ""
    try:
        if configured:
            handle = registry.get(configured)
        else:
            info = _best_installed(registry, kind)
            if info is None:
                return None, f"no {kind} model (large enough) is installed", ""
            handle = registry.get(info.id)
    except Exception as exc:  # ModelNotFoundError, an unreadable folder
        log.warning("no %s: %s", kind, exc)
        return None, f"no {kind}: {exc}", ""
    return (lambda: handle.backend), f"{kind} {handle.info.id}", handle.info.id


def _best_installed(registry: Any, kind: str) -> Any:
    from app.runtime.registry import RECOMMENDED

    least = MIN_AUTO_LLM_BYTES if kind == "llm" else 0
    usable = [m for m in registry.models(kind) if m.fits and m.weight_bytes >= least]
    order = [r.repo_id for r in RECOMMENDED]
    usable.sort(key=lambda m: (order.index(m.id) if m.id in order else len(order), -m.weight_bytes))
    return usable[0] if usable else None


def build_resources(
    library: Library,
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    models: ModelChoice | None = None,
    visual: Any = None,
) -> Resources:
    """What the tools need: the text search, the visual search if set up, the models."""
    embedder = DegradingEmbedder(embedder or safe_embedder(settings.embedder))
    models = models or ModelChoice(None, None, "no models")
    return Resources(
        library=library,
        embedder=embedder,
        text_search=LibrarySearch(
            library.store, embedder, all_revisions=settings.search_old_revisions
        ),
        settings=settings,
        visual_search=visual if visual is not None else _visual_search(library, settings),
        llm=models.llm,
        vlm=models.vlm,
    )


def _visual_search(library: Library, settings: Settings) -> Any:
    """Visual search when a ColQwen model is configured (it loads on the first search)."""
    if not settings.colqwen:
        return None
    from app.retrieval.visual import VisualSearch
    from app.runtime.colqwen_registry import colqwen_backend

    try:
        backend = colqwen_backend(settings)
    except Exception as exc:
        log.warning("visual search is off: %s", exc)
        return None
    return VisualSearch(library.store, backend, settings.colqwen)


def build_answerer(
    library: Library,
    settings: Settings,
    *,
    registry: Any = None,
    embedder: Embedder | None = None,
    models: ModelChoice | None = None,
) -> Tree:
    """The agent for ``library``: LLM mode when a usable LLM is there, no-LLM mode if not."""
    models = models or choose_models(settings, registry)
    resources = build_resources(library, settings, embedder=embedder, models=models)
    policy = None
    if resources.llm is not None:
        policy = LlmPolicy(resources.llm, cancel=lambda: resources.cancel, clock=resources.clock)
    tree = Tree(resources, policy=policy)
    tree.llm_choice = models.llm_choice
    if policy is not None:
        load_programs(tree, library.programs_dir)
    return tree


def programs(tree: Tree) -> dict[str, Any]:
    """The agent's DSPy programs by name, to optimise, save and load (LLM mode only)."""
    from app.agent.tools.answer import AnswerTool

    found: dict[str, Any] = {}
    if tree.policy is not None:
        found["decide"] = tree.policy.program
        found["route"] = tree.arbiter.route_program
    answer = tree.by_name.get("answer")
    if isinstance(answer, AnswerTool):
        found["answer"] = answer.program()
    return found


def set_programs(tree: Tree, found: Mapping[str, Any]) -> None:
    """Make the agent run these programs (by name, as ``programs`` gives them): the
    optimiser's candidates are run by the real loop this way."""
    from app.agent.tools.answer import AnswerTool

    if "decide" in found and tree.policy is not None:
        tree.policy.program = found["decide"]
    if "route" in found and tree.policy is not None:
        tree.arbiter.route_program = found["route"]
    answer = tree.by_name.get("answer")
    if "answer" in found and isinstance(answer, AnswerTool):
        answer._program = found["answer"]


def program_versions(folder: Path) -> list[str]:
    """The saved versions in a programs folder (``v0001``...), oldest first."""
    if not folder.is_dir():
        return []
    found = [
        (int(m.group(1)), p.name) for p in folder.iterdir() if (m := VERSION_DIR.match(p.name))
    ]
    return [name for _, name in sorted(found) if (folder / name).is_dir()]


def latest_program_version(folder: Path) -> str | None:
    """The newest saved version with a program in it, or None (built-in prompts)."""
    for name in reversed(program_versions(folder)):
        if any((folder / name / f"{p}.json").is_file() for p in PROGRAM_NAMES):
            return name
    return None


def program_version(tree: Tree) -> str | None:
    """The saved version ``load_programs`` put into the agent (None: built-in or flat files)."""
    return tree.program_version


def save_programs(found: Mapping[str, Any], folder: Path, meta: Mapping[str, Any]) -> Path:
    """Save programs as the next version folder with ``meta.json``; returns the folder.

    Written into a temporary folder first and renamed, so the loader never sees half a
    version. The rule that manual text is data is put back into any instructions an
    optimiser rewrote without it, so what is saved is exactly what will be loaded.
    """
    from app.agent.context import DATA_RULE

    folder.mkdir(parents=True, exist_ok=True)
    numbers = [int(v[1:]) for v in program_versions(folder)]
    version = f"v{max(numbers, default=0) + 1:04d}"
    staging = Path(tempfile.mkdtemp(dir=folder, prefix=f".{version}-"))
    try:
        for name, program in found.items():
            for predictor in program.predictors():
                if DATA_RULE not in predictor.signature.instructions:
                    predictor.signature = predictor.signature.append_instructions(DATA_RULE)
            program.save(str(staging / f"{name}.json"))
        record = {"version": version, **meta}
        text = json.dumps(record, indent=1, ensure_ascii=False, default=str)
        (staging / "meta.json").write_text(text, encoding="utf-8")
        os.replace(staging, folder / version)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return folder / version


def load_programs(tree: Tree, folder: Path) -> list[str]:
    """Load the saved programs there are into the agent; returns their names.

    ``folder`` is the library's programs folder: the newest version folder is read, else
    the flat ``<folder>/<name>.json`` files of the older layout. The version loaded is
    recorded on the agent (``program_version``). A file that does not load is reported in
    the log and the built-in program kept; the rule that manual text is data is put back
    if an optimiser rewrote it away.
    """
    from app.agent.context import DATA_RULE

    version = latest_program_version(folder)
    source = folder / version if version else folder
    loaded = []
    for name, program in programs(tree).items():
        path = source / f"{name}.json"
        if not path.is_file():
            continue
        try:
            program.load(str(path))
        except Exception as exc:
            log.warning("cannot load the saved program %s: %s", path, exc)
            continue
        for predictor in program.predictors():
            if DATA_RULE not in predictor.signature.instructions:
                predictor.signature = predictor.signature.append_instructions(DATA_RULE)
        loaded.append(name)
    tree.program_version = version if loaded and version else None
    if loaded:
        log.info("loaded saved programs %s from %s", ", ".join(loaded), source)
    return loaded


class Conversation:
    """A chat with the agent: each question sees the turns before it. With ``store`` and
    ``conversation_id`` (``app.agent.conversations``), the turns are read from and saved
    to the library, so a later command continues the same conversation."""

    def __init__(self, agent: Tree, store: Any = None, conversation_id: str = "") -> None:
        self.agent = agent
        self.store = store
        self.id = conversation_id
        self.turns: list[Turn] = store.load(conversation_id) if store is not None else []

    def ask(self, question: str, cancel: Cancel = None) -> Iterator[Event]:
        answer: Answer | None = None
        for event in self.agent.ask(question, history=self.turns, cancel=cancel):
            if isinstance(event, Answer):
                answer = event
            yield event
        if answer is not None:
            labels = tuple(f"{c.title} p.{c.page}" for c in answer.citations)
            self.turns.append(Turn(question, answer.text, labels))
            if self.store is not None:
                self.store.append(self.id, self.turns[-1])

    def clear(self) -> None:
        self.turns.clear()
