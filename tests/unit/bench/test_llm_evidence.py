"""The pages a model would answer from in LLM mode, read back from a no-LLM run's trace:
the searches' pages in the order the ranker listed them, not by confidence."""

from __future__ import annotations

import json
from pathlib import Path

from app.agent.events import Done
from app.bench.evidence import evidence_pages
from app.library.embedding import HashingEmbedder
from app.library.library import Library
from tests.helpers.agents import answerer, note_library_fixture


def _page(document: str, page: int, confidence: float) -> dict[str, object]:
    return {"kind": "page", "document": document, "title": document, "page": page,
            "score": 1.0, "confidence": confidence}  # fmt: skip


def test_the_pages_come_in_the_searches_order() -> None:
    trace = {
        "steps": [
            {"step": 1, "tool": "text_search", "inputs": {"query": "q"},
             "objects": [_page("a.pdf", 7, 0.3), _page("a.pdf", 3, 0.9), _page("a.pdf", 5, 0.8)]},
            {"step": 2, "tool": "text_search", "inputs": {"query": "q again"},
             "objects": [_page("b.pdf", 1, 0.4), _page("a.pdf", 3, 0.9)]},
            {"step": 3, "tool": "answer", "inputs": {"refs": []}, "objects": []},
        ]
    }  # fmt: skip
    assert evidence_pages(trace) == [("b.pdf", 1), ("a.pdf", 7), ("a.pdf", 3), ("a.pdf", 5)]
    assert evidence_pages(trace, limit=1) == [("b.pdf", 1)]
    assert evidence_pages({}) == []


library = note_library_fixture(
    "evidence",
    {
        "Kestrel_HP9.pdf": (
            "Kestrel HP9 Heat Pump",
            ["Wire the siren to terminals 5 and 6.", "The siren sounds for 3 minutes."],
        ),
        "Wren_KP2.pdf": ("Wren KP2 Keypad", ["The keypad siren volume has three steps."]),
    },
)


def test_a_real_trace_gives_the_first_search_s_best_page_first(
    library: Library, tmp_path: Path
) -> None:
    agent = answerer(library, HashingEmbedder(), tmp_path)
    done = next(e for e in agent.ask("How do I wire the siren?") if isinstance(e, Done))
    trace = json.loads(Path(done.trace).read_text("utf-8"))
    first = next(s for s in trace["steps"] if s["tool"] == "text_search")
    pages = evidence_pages(trace)
    assert 0 < len(pages) <= 4
    assert pages[0] == (first["objects"][0]["document"], first["objects"][0]["page"])
