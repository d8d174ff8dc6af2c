"""One finished exchange of a conversation: what the window keeps, the worker sends and
the agent reads as history. Its own module so that the window and the worker's messages
import it without the agent's state (and with it the search)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Turn:
    """One finished exchange of the conversation, for follow-up questions."""

    question: str
    answer: str
    sources: tuple[str, ...] = ()  # citation labels, e.g. "BOGP-3 p.12"
