"""Retrieval mode on the sample manuals with the real MiniLM embedder: the right page,
tight regions, honest abstention, and the ask/bench contracts."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.agent.events import Answer, Done, Token
from app.agent.retrieval_mode import RetrievalAnswerer
from app.bench.dataset import load_dataset
from app.bench.runner import run_bench
from app.library.embedding import make_embedder
from app.library.library import Library
from app.retrieval.text import TextSearch
from tests.helpers.samples import sample_library_copy

MANUALS = Path(__file__).resolve().parents[2] / "manuals"
pytestmark = pytest.mark.skipif(
    not list(MANUALS.glob("*.pdf")), reason="the sample manuals are not generated"
)


@pytest.fixture(scope="module")
def sample_library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    library = Library.open(sample_library_copy(tmp_path_factory, "sample"))
    yield library
    library.close()


@pytest.fixture(scope="module")
def answerer(sample_library: Library) -> RetrievalAnswerer:
    return RetrievalAnswerer(sample_library.store, make_embedder("minilm"))


def test_sample_questions_land_on_their_pages(sample_library: Library) -> None:
    search = TextSearch(sample_library.store, make_embedder("minilm"))
    items = [i for i in load_dataset(MANUALS / "questions.json") if not i.unanswerable]
    hits_at_3 = 0
    for item in items:
        pages = [(p.file_name, p.page) for p in search.search(item.query, k=3).pages]
        hits_at_3 += bool(set(pages) & item.gold_pages())
    assert hits_at_3 / len(items) >= 0.8


def test_regions_are_tight_boxes_on_the_cited_page(answerer: RetrievalAnswerer) -> None:
    answer = _answer(answerer, "What voltage and maximum current does the AUX+ terminal supply?")
    assert not answer.abstained
    assert "13.8" in answer.text
    citation = answer.citations[0]
    width, height = answerer.store.page_size(
        answerer.store.get_document(citation.document).id,
        citation.page,  # type: ignore[union-attr]
    ) or (0, 0)
    for x0, y0, x1, y1 in citation.regions:
        assert 0 <= x0 < x1 <= width + 1 and 0 <= y0 < y1 <= height + 1
        # a highlight points at the answer, not at the whole page
        assert (x1 - x0) * (y1 - y0) < 0.25 * width * height


def test_a_question_the_manuals_do_not_answer_is_declined(answerer: RetrievalAnswerer) -> None:
    # The sample manuals print no torque value anywhere.
    answer = _answer(answerer, "What torque should the panel's terminal screws be tightened to?")
    assert answer.abstained
    assert "don't say" in answer.text
    assert answer.citations == []


def test_answer_streams_tokens_then_the_answer_then_done(answerer: RetrievalAnswerer) -> None:
    events = list(answerer.ask("How do I arm the system in Stay mode?"))
    tokens = "".join(e.text for e in events if isinstance(e, Token))
    answers = [e for e in events if isinstance(e, Answer)]
    assert len(answers) == 1 and tokens == answers[0].text
    assert isinstance(events[-1], Done)
    assert len(answers[0].pages) >= 10


def test_bench_summary_reports_hits_and_abstention(answerer: RetrievalAnswerer) -> None:
    items = load_dataset(MANUALS / "questions.json")
    output = list(run_bench(items, answerer.ask))[-1]
    summary = output["summary"]
    assert summary["questions"] == len(items) == len(output["records"])
    assert summary["hit@3"] >= 0.8
    assert summary["false_abstentions"] <= 1
    for record in output["records"]:
        assert {"id", "answer", "abstained", "citations", "pages", "timings"} <= set(record)


def test_ask_json_cli_streams_wellformed_events(sample_library: Library) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "ask",
            "What is the default master code?",
            "--json",
            "--library",
            str(sample_library.root),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert types[0] == "decision" and types[-1] == "done"
    answer = next(e for e in events if e["type"] == "answer")
    assert {"text", "citations", "abstained", "pages"} <= set(answer)


def _answer(answerer: RetrievalAnswerer, question: str) -> Answer:
    return next(e for e in answerer.ask(question) if isinstance(e, Answer))
