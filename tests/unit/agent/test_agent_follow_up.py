"""Follow-ups: the next question is searched within the manuals the last answer quoted and
completed with its key words, in the agent, in `ask --conversation` and in `chat`."""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import pytest

from app.agent.events import Answer
from app.agent.loop import Tree
from app.agent.service import Conversation
from app.agent.state import Turn
from app.cli import run as cli
from app.library.library import Library
from tests.unit.agent.scripted import decisions

AUX = "What voltage and maximum current does the AX-200's AUX+ terminal supply?"
FOLLOW_UP = "And what fuse protects it?"


def cited_documents(library: Library, answer: Answer) -> set[int]:
    docs = {library.store.get_document(c.title) for c in answer.citations}
    return {d.id for d in docs if d is not None}


def test_a_follow_up_searches_where_the_last_answer_was_found(
    make_agent: Callable[..., Tree], sample_library: Library
) -> None:
    chat = Conversation(make_agent())
    [first] = [e for e in chat.ask(AUX) if isinstance(e, Answer)]
    assert first.citations and chat.turns[0].sources
    where = cited_documents(sample_library, first)
    assert len(where) < len(sample_library.store.list_documents()), "one manual of two"

    step = decisions(list(chat.ask(FOLLOW_UP)))[0]
    assert step.tool == "text_search"
    assert set(step.inputs["documents"]) == where, "the last answer's manuals"
    assert "aux" in step.inputs["query"].lower(), "'it' is resolved to the AUX output"
    assert "as last time" in step.reasoning


def test_sources_that_no_longer_resolve_search_everything(make_agent: Callable[..., Tree]) -> None:
    agent = make_agent()
    history = [Turn(AUX, "13.8 V", ("A Manual That Was Removed p.3",))]
    step = decisions(list(agent.ask(FOLLOW_UP, history=history)))[0]
    assert step.inputs["documents"] == []


@pytest.fixture
def cli_settings(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("LANTERN_SETTINGS", str(tmp_path / "none.json"))


def json_events(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_ask_json_continues_a_conversation_by_id(sample_library, cli_settings, capsys) -> None:
    lib = ["--library", str(sample_library.root)]
    assert cli(["ask", AUX, "--json", "--conversation", "job-42", *lib]) == 0
    capsys.readouterr()
    assert cli(["ask", FOLLOW_UP, "--json", "--conversation", "job-42", *lib]) == 0
    events = json_events(capsys.readouterr().out)
    first = next(e for e in events if e["type"] == "decision")
    assert "aux" in first["inputs"]["query"].lower() and first["inputs"]["documents"]
    saved = json.loads((sample_library.root / "conversations" / "job-42.json").read_text())
    assert [t["question"] for t in saved["turns"]] == [AUX, FOLLOW_UP]

    assert cli(["ask", FOLLOW_UP, "--json", *lib]) == 0, "without an id: no history"
    first = next(e for e in json_events(capsys.readouterr().out) if e["type"] == "decision")
    assert first["inputs"]["query"] == FOLLOW_UP


def test_a_bad_conversation_id_is_refused(sample_library, cli_settings) -> None:
    with pytest.raises(SystemExit, match="conversation id"):
        cli(["ask", AUX, "--conversation", "../etc", "--library", str(sample_library.root)])


def test_chat_answers_follow_ups_on_stdin(sample_library, cli_settings, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{AUX}\n{FOLLOW_UP}\n\n"))
    assert cli(["chat", "--json", "--library", str(sample_library.root)]) == 0
    events = json_events(capsys.readouterr().out)
    answers = [e for e in events if e["type"] == "answer"]
    assert len(answers) == 2
    starts = [e for e in events if e["type"] == "decision" and e["step"] == 1]
    assert "aux" in starts[1]["inputs"]["query"].lower() and starts[1]["inputs"]["documents"]


def test_a_follow_up_favours_the_pages_the_last_answer_quoted(
    make_agent: Callable[..., Tree], sample_library: Library
) -> None:
    agent = make_agent()
    chat = Conversation(agent)
    [first] = [e for e in chat.ask(AUX) if isinstance(e, Answer)]
    quoted = {(sample_library.store.get_document(c.title).id, c.page) for c in first.citations}  # type: ignore[union-attr]
    search = agent.resources.text_search

    plain = search.search("fuse rating")
    search.context_pages = frozenset(quoted)
    favoured = search.search("fuse rating")
    search.context_pages = frozenset()
    before = {(p.document_id, p.page): p.score for p in plain.pages}
    after = {(p.document_id, p.page): p.score for p in favoured.pages}
    shared = [key for key in quoted if key in before]
    assert shared, "the quoted page is among the results"
    assert all(after[key] > before[key] for key in shared)

    list(chat.ask(FOLLOW_UP))
    assert search.context_pages == frozenset(quoted), "set for the follow-up"
    list(agent.ask("How do I reset the installer code?"))
    assert search.context_pages == frozenset(), "a question without history: none"
