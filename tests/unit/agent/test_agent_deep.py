"""Deep mode: the analyst drafts, the critic checks claims and precedence, the writer
revises; each round is a JSON file beside the trace and a step of the timeline. The
setting turns it on, off, or on for hard questions only."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.agent.critic import Claim
from app.agent.events import Done, Result
from app.agent.loop import Tree
from app.agent.precedence import SourceInfo, is_exact, precedence_problems
from app.agent.service import ModelChoice, build_answerer
from app.config import Settings
from app.library.embedding import Embedder
from app.library.library import Library
from tests.unit.agent.scripted import (
    ScriptedModel,
    answer_of,
    answer_reply,
    critique_reply,
    decision,
    revise_reply,
    run,
)

AUX = "What voltage and maximum current does the AX-200's AUX+ terminal supply?"
GOOD = "The AUX+ terminal supplies 13.8 V DC, up to 500 mA [1]."
WRONG = "The AUX+ terminal supplies 13.8 V DC, up to 900 mA [1]."


@pytest.fixture
def agent_with(sample_library: Library, tmp_path: Path, embedder: Embedder) -> Iterator[Any]:
    def make(model: ScriptedModel, **settings: Any) -> Tree:
        agent = build_answerer(
            sample_library,
            Settings(library_dir=sample_library.root, **settings),
            embedder=embedder,
            models=ModelChoice(lambda: model.llm, None, "test"),
        )
        agent.traces_dir = tmp_path / "traces"
        assert agent.policy is not None
        agent.policy.sleep = lambda _s: None
        return agent

    yield make
    with sample_library.store.transaction() as db:
        db.execute("DELETE FROM decision_records")


def scripted_search_then_answer(model: ScriptedModel, draft: str) -> None:
    model.decisions.extend([decision("text_search", query="AUX+ terminal"), decision("answer")])
    model.answers.append(answer_reply(draft))


def test_the_critic_catches_a_wrong_value_and_the_writer_fixes_it(
    agent_with: Any, scripted: ScriptedModel, qtbot: Any
) -> None:
    scripted_search_then_answer(scripted, WRONG)
    scripted.critiques.extend(
        [critique_reply(False, ["the evidence says 500 mA, not 900 mA"]), critique_reply(True)]
    )
    scripted.revisions.append(revise_reply(GOOD))
    events = run(agent_with(scripted, deep_mode="on"), AUX)

    assert answer_of(events).text == GOOD
    steps = [(e.tool, e.summary) for e in events if isinstance(e, Result)]
    roles = [tool for tool, _ in steps]
    assert roles[1:5] == ["analyst", "critic", "writer", "critic"], roles
    assert "900 mA" in steps[2][1] and "approved" in steps[4][1]
    assert "500 mA, not 900 mA" in "\n".join(scripted.prompts["writer"])
    assert "revision 1 of 1 (newest)" in scripted.prompts["critic"][0], "the critic sees precedence"

    done = events[-1]
    assert isinstance(done, Done)
    folder = Path(done.trace).with_suffix(".deep")
    files = sorted(p.name for p in folder.iterdir())
    assert files == ["iteration-00.json", "iteration-01.json", "iteration-02.json"]
    first = json.loads((folder / "iteration-01.json").read_text(encoding="utf-8"))
    assert set(first) == {"iteration", "inputs", "outputs", "verdicts", "timings"}
    assert first["inputs"]["draft"] == WRONG and first["outputs"]["revised"] == GOOD
    assert first["verdicts"]["lexical"]["unsupported"], "the lexical check found 900 mA"
    assert not first["verdicts"]["approved"] and first["timings"]["writer"] >= 0
    trace = json.loads(Path(done.trace).read_text(encoding="utf-8"))
    answer_step = trace["steps"][-1]
    assert answer_step["detail"]["deep"]["files"] == [str(folder / f) for f in files]

    from app.ui.timeline import Timeline

    timeline = Timeline()
    qtbot.add_widget(timeline)
    for event in events:
        timeline.add_event(event)
    shown = [row.tool for row in timeline.rows]
    assert shown[:6] == ["text_search", "answer", "analyst", "critic", "writer", "critic"], shown
    assert "round 1" in timeline.rows[3].found.text()


def test_automatic_deep_mode_is_for_questions_asking_for_care(
    agent_with: Any, scripted: ScriptedModel
) -> None:
    scripted_search_then_answer(scripted, GOOD)
    plain = run(agent_with(scripted), AUX)
    assert not any(isinstance(e, Result) and e.tool == "analyst" for e in plain)

    scripted_search_then_answer(scripted, GOOD)
    scripted.critiques.append(critique_reply(True))
    careful = run(agent_with(scripted), AUX + " Please check carefully.")
    assert [e.tool for e in careful if isinstance(e, Result)][1:3] == ["analyst", "critic"]
    assert answer_of(careful).text == GOOD


def test_deep_mode_off_never_runs(agent_with: Any, scripted: ScriptedModel) -> None:
    scripted_search_then_answer(scripted, GOOD)
    events = run(agent_with(scripted, deep_mode="off"), AUX + " Check carefully.")
    assert not any(isinstance(e, Result) and e.tool in ("analyst", "critic") for e in events)


def test_an_unresolved_draft_keeps_only_its_supported_claims(
    agent_with: Any, scripted: ScriptedModel
) -> None:
    scripted_search_then_answer(scripted, f"{GOOD} It also powers a 24 V siren [1].")
    scripted.critiques.extend([critique_reply(False, ["no siren is mentioned"])] * 2)
    scripted.revisions.extend([revise_reply(f"{GOOD} It powers a 24 V siren [1].")] * 2)
    events = run(agent_with(scripted, deep_mode="on", deep_iterations=2), AUX)

    assert answer_of(events).text.strip() == GOOD, "the unsupported claim is dropped"
    critics = [e for e in events if isinstance(e, Result) and e.tool == "critic"]
    assert len(critics) == 2, "no more rounds than deep_iterations"


def info(number: int, revision: int, of: int, exact: bool | None = None) -> SourceInfo:
    return SourceInfo(number, number, f"Guide p.{number}", revision, of, exact, manual_id=1)


def test_precedence_prefers_the_newer_revision_and_the_exact_model() -> None:
    infos = [info(1, 1, 2), info(2, 2, 2)]
    old = Claim("Use 18 AWG", (1,))
    problems = precedence_problems([old, Claim("Use 20 AWG", (2,))], infos)
    assert problems == ["“Use 18 AWG” cites a superseded revision ([1]); the newer revision is [2]"]

    family = [info(1, 1, 1, exact=False), info(2, 1, 1, exact=True)]
    problems = precedence_problems([Claim("Zone 9 is spare", (1,))], family)
    assert problems and "family manual ([1])" in problems[0] and "[2]" in problems[0]
    assert not precedence_problems([Claim("Zone 9 is spare", (1, 2))], family)

    assert is_exact("fuse of the AX-200?", "Lumen AX200") is True
    assert is_exact("fuse of the AX-200?", "Lumen AX series 200 family") is False
    assert is_exact("fuse of the AX-200?", "Lumen AX-300") is False
    assert is_exact("which fuse?", "Lumen AX200") is None
