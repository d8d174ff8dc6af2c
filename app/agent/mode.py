"""Which mode the agent answers in, as a typed value read once from the settings.

The status bar, a saved benchmark run and the command line each show the mode; they read
``LlmChoice`` rather than parsing a "llm <id>" string of their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.config import Settings

AgentMode = Literal["llm", "no-llm"]


@dataclass(frozen=True, slots=True)
class LlmChoice:
    """The LLM the agent answers with (``model_id``; empty in no-LLM mode) and why."""

    model_id: str = ""
    reason: str = ""  # e.g. "llm Qwen/Qwen2.5-7B", "no llm model (large enough) is installed"

    @classmethod
    def chosen(cls, model_id: str) -> LlmChoice:
        """The choice of an LLM by its model id."""
        return cls(model_id, f"llm {model_id}")

    @classmethod
    def from_settings(cls, settings: Settings) -> LlmChoice:
        """What the settings name, before any model is looked for (the worker's first
        status line; the agent's own choice follows once it is built)."""
        return cls("" if settings.llm_off else settings.llm)

    @property
    def mode(self) -> AgentMode:
        return "llm" if self.model_id else "no-llm"

    @property
    def label(self) -> str:
        """The status bar's pill: "LLM · <id>" or "no-LLM"."""
        return f"LLM · {self.model_id}" if self.model_id else "no-LLM"

    @property
    def run_mode(self) -> str:
        """A saved benchmark run's mode: the LLM's model id, or "no-LLM"."""
        return self.model_id or "no-LLM"

    def models(self, settings: Settings) -> tuple[str, ...]:
        """The models the worker uses in this mode, for the status bar."""
        return tuple(m for m in (settings.embedder, self.model_id, settings.vlm) if m)


NO_LLM = LlmChoice()
