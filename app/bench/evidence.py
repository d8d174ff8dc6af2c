"""The pages an LLM would answer from, read back from a question's trace.

In LLM mode the answer tool hands the model the best few pages of what the searches found
(``AnswerTool.evidence_pages``: the first ``EVIDENCE_PAGES`` of ``Environment.pages``) when
the decision names none. A run without a model takes the same searches, so its trace tells
which pages those would be: whether a right page is among them says how well LLM mode
could answer, measured on a machine without the model.
"""

from __future__ import annotations

import json
from typing import Any

from app.agent.state import Environment, Found
from app.agent.tools.answer import EVIDENCE_PAGES


def evidence_pages(trace: dict[str, Any], limit: int = EVIDENCE_PAGES) -> list[tuple[str, int]]:
    """(file name, page) of the pages a model would be handed, best first, rebuilt from
    the pages each step of ``trace`` found, in the order it listed them."""
    env = Environment()
    ids: dict[str, int] = {}
    for step in trace.get("steps", []):
        pages = [o for o in step.get("objects") or [] if o.get("kind") == "page"]
        if not pages:
            continue
        found = [
            Found(
                "page",
                str(o.get("title", "")),
                str(o["document"]),
                ids.setdefault(str(o["document"]), len(ids) + 1),
                int(o["page"]),
                float(o.get("score") or 0.0),
                float(o.get("confidence") or 0.0),
            )
            for o in pages
        ]
        # Each step is a result of its own, as the loop stores it (tool, then query).
        name = f"{step.get('step')} {json.dumps(step.get('inputs', {}), sort_keys=True)}"
        env.add(str(step.get("tool", "")), name, found)
    return [(p.file_name, p.page) for p in env.pages()[:limit]]
