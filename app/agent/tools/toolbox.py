"""The one list of the agent's tools (apart from the package's base types, so a tool module
importing those does not import every other tool)."""

from __future__ import annotations

from app.agent.tools import Resources, Tool
from app.agent.tools.answer import AnswerTool
from app.agent.tools.interpret_page import InterpretPageTool
from app.agent.tools.summarise import SummariseTool
from app.agent.tools.text_search import TextSearchTool
from app.agent.tools.visual_search import VisualSearchTool


def default_tools(resources: Resources) -> list[Tool]:
    """Every tool the agent has, in the order the decision prompt lists them."""
    classes: list[type[Tool]] = [
        TextSearchTool,
        VisualSearchTool,
        InterpretPageTool,
        SummariseTool,
        AnswerTool,
    ]
    return [cls(resources) for cls in classes]
