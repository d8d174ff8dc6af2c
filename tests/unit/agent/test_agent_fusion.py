"""The answer's ranked pages fuse text and page-image search by reciprocal rank."""

from __future__ import annotations

from collections.abc import Callable

from app.agent.atlas import build_atlas
from app.agent.loop import Tree
from app.agent.state import Found, SearchRun, TreeData
from app.agent.tools.answer import AnswerTool
from app.retrieval.fusion import fuse, reciprocal_rank

QUESTION = "What does the AUX output supply?"


def test_reciprocal_rank_rewards_agreement_and_keeps_a_single_list_in_order() -> None:
    assert [k for k, _ in fuse([["a", "b", "c"]])] == ["a", "b", "c"]
    fused = reciprocal_rank([["a", "b", "c"], ["c", "d"]])
    assert max(fused, key=lambda k: fused[k]) == "c", "first in one list, third in the other"
    assert fused["d"] < fused["a"]
    weighted = reciprocal_rank([["a"], ["b"]], [1.0, 0.5])
    assert weighted["a"] == 2 * weighted["b"]


def _state(agent: Tree) -> tuple[TreeData, SearchRun, AnswerTool]:
    resources = agent.resources
    docs = resources.library.store.list_documents()
    state = TreeData(QUESTION, build_atlas(docs))
    run = SearchRun(QUESTION, (), resources.text_search.search(QUESTION, k=10))
    state.searches.append(run)
    tool = agent.by_name["answer"]
    assert isinstance(tool, AnswerTool)
    return state, run, tool


def test_without_a_page_image_search_the_text_ranking_stands(
    make_agent: Callable[..., Tree],
) -> None:
    state, run, tool = _state(make_agent())
    pages = tool.pages(state, run)
    assert [(p.document, p.page) for p in pages] == [
        (h.file_name, h.page) for h in run.result.pages
    ]
    assert [p.score for p in pages] == [h.score for h in run.result.pages]


def test_a_page_the_images_rank_first_joins_the_top_of_the_ranking(
    make_agent: Callable[..., Tree],
) -> None:
    state, run, tool = _state(make_agent())
    low = run.result.pages[-1]  # text search's tenth page
    looks_like = Found("page", low.title, low.file_name, low.document_id, low.page, 9.0, 0.8)
    other = run.result.pages[-2]
    second = Found("page", other.title, other.file_name, other.document_id, other.page, 8.0, 0.7)
    state.environment.add("visual_search", QUESTION, [looks_like, second])

    ranked = [(p.document, p.page) for p in tool.pages(state, run)]

    assert ranked.index((low.file_name, low.page)) < 3, ranked
    top = run.result.pages[0]
    assert ranked[0] == (top.file_name, top.page) or ranked[0] == (low.file_name, low.page)
    assert len(ranked) == len(set(ranked)) == len(run.result.pages)
