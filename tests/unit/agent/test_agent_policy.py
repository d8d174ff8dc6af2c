"""The rule-based policy's choices: search, a comparison searched product by product, a
reformulated search when weak, then answer; and the answer that joins compared products."""

from __future__ import annotations

from collections.abc import Callable

from app.agent.atlas import build_atlas
from app.agent.extractive import Citation, ExtractiveAnswer
from app.agent.loop import Tree
from app.agent.policy import Choice, RulePolicy, key_words
from app.agent.state import SearchRun, TreeData
from app.agent.tools.answer import combine_quotes
from app.library.models import DocumentInfo, ManualProfile
from app.retrieval.query import QueryAnalysis, product_names
from app.retrieval.text import SearchResult

HYBRID = ManualProfile("Hybrid Alarm", "installation")
HSGW = ManualProfile("HSGW-MAX8-DT18", "programming")
DOCS = [
    DocumentInfo(1, "a", "Hybrid.pdf", "Hybrid Guide", 64, 0, "", HYBRID),
    DocumentInfo(3, "b", "HSGW.pdf", "HSGW Manual", 87, 0, "", HSGW),
]
COMPARE = "Compare the backup batteries of the Hybrid and the HSGW-MAX8: capacity and charge time"


def searched(state: TreeData, choice: Choice, agent: Tree, confidence: float) -> None:
    """Record a search as the loop would, with a result of the given confidence."""
    query = QueryAnalysis(choice.inputs.query, (), (), None, ())  # type: ignore[attr-defined]
    result = SearchResult(query, (), confidence)
    state.searches.append(SearchRun(query.text, tuple(choice.inputs.documents), result))  # type: ignore[attr-defined]
    state.ran.add((choice.tool, agent.by_name[choice.tool].run_key(choice.inputs)))


def walk(agent: Tree, question: str, confidence: float) -> list[Choice]:
    # The library's pages say which name words are distinctive; here no page prints a word
    # of a product name, so each names its product.
    atlas = build_atlas(DOCS, product_names(DOCS, pages_with=lambda word: {}))
    state, rules, choices = TreeData(question, atlas), RulePolicy(), []
    tools = {t.name: t for t in agent.tools if t.name in ("text_search", "answer")}
    while not choices or choices[-1].tool != "answer":
        choices.append(rules.decide(state, tools))
        if choices[-1].tool == "text_search":
            searched(state, choices[-1], agent, confidence)
    return choices


def test_a_comparison_is_searched_product_by_product(make_agent: Callable[..., Tree]) -> None:
    choices = walk(make_agent(), COMPARE, confidence=0.3)

    assert [c.tool for c in choices] == ["text_search"] * 3 + ["answer"]
    first, hybrid, hsgw = (c.inputs.model_dump() for c in choices[:3])
    assert first == {"query": COMPARE, "documents": []}
    assert hybrid["documents"] == [1] and "hsgw-max8" not in hybrid["query"]
    assert hsgw["documents"] == [3] and "hybrid" not in hsgw["query"]


def test_weak_evidence_gets_one_reformulated_search_then_an_answer(
    make_agent: Callable[..., Tree],
) -> None:
    choices = walk(make_agent(), "How long does the HSGW-MAX8 battery take to charge?", 0.3)

    assert [c.tool for c in choices] == ["text_search", "text_search", "answer"]
    second = choices[1].inputs.model_dump()
    assert second["documents"] == [3], "routed to the product's manual"
    assert second["query"] == "long battery take charge"


def test_strong_evidence_is_answered_at_once(make_agent: Callable[..., Tree]) -> None:
    choices = walk(make_agent(), "How long does the HSGW-MAX8 battery take to charge?", 0.9)

    assert [c.tool for c in choices] == ["text_search", "answer"]


def test_key_words_drop_phrasing_and_named_products() -> None:
    words = key_words("How long does the HSGW-MAX8 take to charge?", {"hsgw-max8-dt18"})
    assert words == "long take charge"


def test_compared_answers_are_joined_with_renumbered_citations() -> None:
    def part(label: str, page: int) -> ExtractiveAnswer:
        cite = Citation(f"{label}.pdf", label, page, ())
        text = f"From the manuals:\n- {label} battery is 12 V [1]\n\nSources:\n[1] {label} p.{page}"
        return ExtractiveAnswer(text, (cite,), False, 0.8)

    joined = combine_quotes([("Hybrid", part("Hybrid", 10)), ("HSGW", part("HSGW", 6))])

    assert "Hybrid:\n- Hybrid battery is 12 V [1]\nHSGW:\n- HSGW battery is 12 V [2]" in joined.text
    assert joined.text.endswith("Sources:\n[1] Hybrid p.10\n[2] HSGW p.6")
    assert [c.page for c in joined.citations] == [10, 6]
