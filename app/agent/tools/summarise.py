"""summarise: keep the environment small enough for the decision prompt.

It fires on its own when the environment passes a token budget: the best pages
keep their excerpts, the others keep only their reference, title and page (so citations
and reference ids still resolve), and one summary object lists what was set aside.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.agent.events import Status
from app.agent.state import Found, TreeData
from app.agent.tools import Available, Resources, Tool, ToolResult, ToolRun

# About 6,000 characters: what a small local model can read per decision in a second or two.
TOKEN_BUDGET = 1500


class SummariseInputs(BaseModel):
    keep: int = Field(default=5, ge=1, le=20, description="how many best pages keep excerpts")


class SummariseTool(Tool):
    """Compress what has been retrieved: the best pages keep their excerpts, the rest keep
    only their reference, title and page. Runs on its own when the environment grows past
    its budget; choose it when the environment is long and mostly off the point."""

    name = "summarise"
    Inputs = SummariseInputs

    repeatable = True  # the environment changes between runs; the budget is the guard
    trigger = "the environment passed its token budget"

    def __init__(self, resources: Resources, budget: int = TOKEN_BUDGET) -> None:
        super().__init__(resources)
        self.budget = budget

    def is_available(self, state: TreeData) -> Available:
        if len(_with_excerpts(state)) <= SummariseInputs().keep:
            return Available(False, "the environment is already small")
        return Available(True)

    def auto_trigger(self, state: TreeData) -> BaseModel | None:
        tokens = state.environment.tokens()
        if tokens > self.budget and tokens > state.summarised_at and self.is_available(state):
            return SummariseInputs()
        return None

    def __call__(self, state: TreeData, inputs: BaseModel) -> ToolRun:
        assert isinstance(inputs, SummariseInputs)
        env = state.environment
        before = env.tokens()
        yield Status("Condensing what has been found so far…", self.name)
        pages = _with_excerpts(state)
        kept, dropped = pages[: inputs.keep], pages[inputs.keep :]
        for item in dropped:
            env.update(item.ref, excerpt="")
        for old in env.of_kind("summary"):
            env.update(old.ref, excerpt="")
        listing = ", ".join(f"{p.ref} {p.label}" for p in dropped)
        note = Found(
            kind="summary",
            title="set aside",
            file_name="",
            document_id=0,
            page=len(env.of_kind("summary")),
            excerpt=f"pages set aside (excerpts dropped): {listing}",
        )
        state.summarised_at = env.tokens() + len(note.excerpt) // 4
        summary = (
            f"kept excerpts of {len(kept)} pages, set aside {len(dropped)} "
            f"({before} -> {state.summarised_at} tokens)"
        )
        return ToolResult(summary, "summary", (note,))


def _with_excerpts(state: TreeData) -> list[Found]:
    return [p for p in state.environment.pages() if p.excerpt]
