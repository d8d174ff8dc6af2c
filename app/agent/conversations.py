"""Conversations kept in the library, so a follow-up asked from the command line
(``ask --conversation ID``, ``chat``) sees the turns before it, like the window's thread.

One JSON file per conversation in ``<library>/conversations/``, written atomically.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import uuid
from pathlib import Path

from app.agent.state import Turn

VALID_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
KEEP_TURNS = 50


class ConversationError(ValueError):
    """A conversation id is not usable, or its file cannot be read."""


def new_id() -> str:
    return uuid.uuid4().hex[:12]


class Conversations:
    """The conversations of one library."""

    def __init__(self, library_root: Path) -> None:
        self.folder = library_root / "conversations"

    def path(self, conversation_id: str) -> Path:
        if not VALID_ID.match(conversation_id):
            raise ConversationError(
                f"conversation id {conversation_id!r}: use letters, digits, '-', '_' or '.'"
            )
        return self.folder / f"{conversation_id}.json"

    def load(self, conversation_id: str) -> list[Turn]:
        """The turns so far (none for a new conversation)."""
        path = self.path(conversation_id)
        if not path.is_file():
            return []
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return [Turn(t["question"], t["answer"], tuple(t["sources"])) for t in raw["turns"]]
        except (OSError, KeyError, TypeError, json.JSONDecodeError) as exc:
            raise ConversationError(f"cannot read conversation {conversation_id}: {exc}") from exc

    def append(self, conversation_id: str, turn: Turn) -> None:
        turns = [*self.load(conversation_id), turn][-KEEP_TURNS:]
        data = {
            "id": conversation_id,
            "turns": [
                {"question": t.question, "answer": t.answer, "sources": list(t.sources)}
                for t in turns
            ],
        }
        self.folder.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=self.folder, suffix=".part")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, ensure_ascii=False, indent=1)
        os.replace(temp, self.path(conversation_id))
