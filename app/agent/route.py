"""Routing a question: which manuals it belongs to, and whether it is hard.

The rules route by the products a question names (the Atlas) and call a question hard
when it asks to be checked carefully or compares several products. In LLM mode the
RouteQuestion signature (in ``route_signature``) routes too, with a confidence; the
shadow arbitration picks whose route the question follows. The route narrows the rules'
second search, and a hard question gets deep mode when the setting is "automatic".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from app.agent.state import TreeData

CAREFUL = re.compile(
    r"\b(check(ed)?\s+(it\s+|this\s+|that\s+)?carefully|double[- ]check|carefully|"
    r"be\s+careful|think\s+hard|deep\s+mode|verify\s+(it|this|that))\b",
    re.IGNORECASE,
)
COMPARISON = frozenset("compare comparison difference differences differ versus vs both".split())


@dataclass(frozen=True, slots=True)
class Route:
    """A routing decision: the manuals to search first (empty: every manual) and whether
    the question is hard."""

    documents: tuple[int, ...]
    hard: bool
    why: str = ""

    def choice(self, state: TreeData) -> dict[str, Any]:
        files = sorted(
            {m.file_name for m in state.atlas.manuals if m.document_id in self.documents}
        )
        return {"documents": sorted(self.documents), "files": files, "hard": self.hard}


def asks_carefully(question: str) -> bool:
    """The technician asked for a careful answer ("check carefully", "double-check")."""
    return bool(CAREFUL.search(question))


def rule_route(state: TreeData) -> Route:
    """The rules' route: the products the question names; hard when it asks for care or
    compares two products or more."""
    documents = tuple(state.atlas.route(state.prompt))
    words = {w.lower().strip("?,.") for w in state.prompt.split()}
    compares = len(state.atlas.products_named(state.prompt)) >= 2 and bool(words & COMPARISON)
    hard = asks_carefully(state.prompt) or compares
    why = "asks to be checked carefully" if asks_carefully(state.prompt) else ""
    why = why or ("compares products" if compares else "")
    return Route(documents, hard, why)


def llm_route(outputs: dict[str, Any], state: TreeData) -> Route | None:
    """The RouteQuestion outputs as a Route; None when they name no manual of the library."""
    known = {m.document_id for m in state.atlas.manuals}
    raw = outputs.get("documents") or []
    if not isinstance(raw, list):
        return None
    try:
        documents = tuple(int(d) for d in raw)
    except (TypeError, ValueError):
        return None
    if any(d not in known for d in documents):
        return None
    hard = outputs.get("hard")
    if not isinstance(hard, bool):
        return None
    return Route(documents, hard, str(outputs.get("reasoning") or ""))
