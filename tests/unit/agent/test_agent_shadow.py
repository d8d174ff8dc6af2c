"""Confidence and counterfactuals: each decision (route, next step, answer or abstain) is
taken from the model only when its calibrated confidence reaches the threshold, both
sides are recorded in the trace and the library's decision book, and a question stays
within its token budget. Scripted model behind the real DSPy bridge."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.agent.decision_book import DecisionBook, Outcome
from app.agent.events import Done, Status
from app.agent.learning import NO_LLM_VERSION, builtin_version
from app.agent.loop import Tree
from app.agent.service import ModelChoice, build_answerer
from app.agent.shadow import Calibrator, ShadowRecord, arbitrate, stated_confidence
from app.config import Settings
from app.library.embedding import Embedder
from app.library.library import Library
from tests.unit.agent.scripted import (
    ScriptedModel,
    answer_of,
    answer_reply,
    decision,
    decisions,
    route_reply,
    run,
)

AUX = "What voltage and maximum current does the AX-200's AUX+ terminal supply?"
GOOD = "The AUX+ terminal supplies 13.8 V DC, up to 500 mA [1]."


@pytest.fixture
def agent_with(sample_library: Library, tmp_path: Path, embedder: Embedder) -> Iterator[Any]:
    def make(model: ScriptedModel | None, **settings: Any) -> Tree:
        llm = (lambda: model.llm) if model is not None else None
        agent = build_answerer(
            sample_library,
            Settings(library_dir=sample_library.root, **settings),
            embedder=embedder,
            models=ModelChoice(llm, None, "test"),
        )
        agent.traces_dir = tmp_path / "traces"
        if agent.policy is not None:
            agent.policy.sleep = lambda _s: None
        return agent

    clear(sample_library)
    yield make
    clear(sample_library)


def clear(library: Library) -> None:
    """The session's library starts each test with no recorded decisions (their labels
    would calibrate the next test's model)."""
    with library.store.transaction() as db:
        db.execute("DELETE FROM decision_records")


def trace_of(events: list[Any]) -> dict[str, Any]:
    done = events[-1]
    assert isinstance(done, Done) and done.trace
    data: dict[str, Any] = json.loads(Path(done.trace).read_text(encoding="utf-8"))
    return data


def test_a_confident_model_decides_and_both_sides_are_recorded(
    agent_with: Any, scripted: ScriptedModel
) -> None:
    scripted.decisions.extend(
        [decision("text_search", confidence=0.95, query="AUX+ supply"), decision("answer")]
    )
    scripted.answers.append(answer_reply(GOOD))
    events = run(agent_with(scripted), AUX)

    assert [d.source for d in decisions(events)] == ["llm", "llm"]
    shadow = trace_of(events)["shadow"]
    assert [r["signature"] for r in shadow] == ["route", "next_step", "next_step", "answer"]
    first = shadow[1]
    assert first["used"] == "llm" and first["confidence"] == 0.95
    assert first["llm"]["inputs"]["query"] == "AUX+ supply"
    assert first["rule"]["inputs"]["query"] == AUX, "the rules' choice is kept beside it"
    assert not first["agree"]


def test_an_unsure_model_is_overruled_by_the_rules(
    agent_with: Any, scripted: ScriptedModel
) -> None:
    scripted.decisions.extend(
        [decision("text_search", confidence=0.3, query="AUX+ supply"), decision("answer")]
    )
    scripted.answers.append(answer_reply(GOOD))
    events = run(agent_with(scripted), AUX)

    first = decisions(events)[0]
    assert (first.source, first.inputs["query"]) == ("rules", AUX)
    assert "not confident enough (0.30 < 0.70)" in first.reasoning
    record = trace_of(events)["shadow"][1]
    assert record["used"] == "rules" and record["llm"]["inputs"]["query"] == "AUX+ supply"


def test_the_threshold_is_a_setting(agent_with: Any, scripted: ScriptedModel) -> None:
    scripted.decisions.extend(
        [decision("text_search", confidence=0.3, query="AUX+ supply"), decision("answer")]
    )
    scripted.answers.append(answer_reply(GOOD))
    events = run(agent_with(scripted, llm_override_threshold=0.2), AUX)
    assert decisions(events)[0].source == "llm"


def test_calibration_on_labelled_decisions_overrules_an_overconfident_model(
    agent_with: Any, scripted: ScriptedModel, sample_library: Library
) -> None:
    book = DecisionBook(sample_library.store)
    wrong = ShadowRecord("next_step", 1, {}, {"tool": "answer"}, {"tool": "text_search"},
                         0.9, 0.9, "llm")  # fmt: skip
    for i in range(12):
        book.save(f"old-{i}", f"old question {i}", [wrong])
        assert book.label(f"old-{i}", Outcome("feedback", good=False)) == 1
    scripted.decisions.extend(
        [decision("text_search", confidence=0.9, query="AUX+ supply"), decision("answer")]
    )
    scripted.answers.append(answer_reply(GOOD))
    events = run(agent_with(scripted), AUX)
    record = trace_of(events)["shadow"][1]
    assert record["confidence"] == 0.9 and record["calibrated"] < 0.3
    assert decisions(events)[0].source == "rules"


def test_a_model_unsure_whether_to_abstain_leaves_it_to_the_rules(
    agent_with: Any, scripted: ScriptedModel
) -> None:
    scripted.decisions.extend([decision("text_search", query="AUX+ terminal"), decision("answer")])
    scripted.answers.append(answer_reply("The manuals don't say.", False, confidence=0.4))
    events = run(agent_with(scripted), AUX)

    answer = answer_of(events)
    assert not answer.abstained and "13.8" in answer.text, "the rules' answer (quotes) stands"
    record = trace_of(events)["shadow"][-1]
    assert record["signature"] == "answer" and record["used"] == "rules"
    assert record["llm"] == {"abstain": True} and record["rule"] == {"abstain": False}
    assert any(isinstance(e, Status) and "rules decide whether" in e.message for e in events)


def test_a_confident_route_is_followed_and_the_rules_route_kept(
    agent_with: Any, scripted: ScriptedModel, sample_library: Library
) -> None:
    user = next(d for d in sample_library.store.list_documents() if "User" in d.file_name)
    scripted.routes = type(scripted.routes)([route_reply([user.id], confidence=0.95)])
    scripted.decisions.extend([decision("answer")])
    scripted.answers.append(answer_reply(GOOD))
    events = run(agent_with(scripted), AUX)

    route = trace_of(events)["shadow"][0]
    assert route["signature"] == "route" and route["used"] == "llm"
    assert route["llm"]["files"] == [user.file_name]
    assert len(route["rule"]["files"]) == 2, "the rules route to both manuals of the AX-200"


def test_no_llm_mode_records_the_rules_decisions_and_names_its_program(
    agent_with: Any, sample_library: Library
) -> None:
    events = run(agent_with(None), AUX)
    trace = trace_of(events)
    assert trace["program_version"] == NO_LLM_VERSION == events[-1].program_version
    assert {r["used"] for r in trace["shadow"]} == {"rules"}
    assert trace["tokens"]["used"] == 0
    book = DecisionBook(sample_library.store)
    saved = book.records(trace["run_id"])
    assert saved[0].signature == "route" and saved[-1].signature == "answer"
    assert saved[-1].label_source == "critic", "the critic's verdict is the first label"


def test_the_trace_names_the_program_version_and_token_use(
    agent_with: Any, scripted: ScriptedModel
) -> None:
    scripted.decisions.extend([decision("text_search", query="AUX+ terminal"), decision("answer")])
    scripted.answers.append(answer_reply(GOOD))
    events = run(agent_with(scripted), AUX)

    trace, done = trace_of(events), events[-1]
    assert trace["program_version"] == builtin_version() == done.program_version
    assert trace["program_version"].startswith("builtin-")
    tokens = trace["tokens"]
    assert tokens["calls"] == 5  # route, two decisions, the answer, the grounding check
    assert tokens["used"] == tokens["prompt"] + tokens["generated"] == done.tokens > 1000


def test_the_token_budget_ends_the_question_with_the_best_answer_so_far(
    agent_with: Any, scripted: ScriptedModel
) -> None:
    scripted.decisions.extend(
        decision("text_search", query=f"AUX+ terminal {w}") for w in "abcdefgh"
    )
    events = run(agent_with(scripted, token_budget=4000, max_steps=10), AUX)

    steps = decisions(events)
    assert steps[-1].tool == "answer" and steps[-1].source == "budget"
    assert "token budget spent" in steps[-1].reasoning
    assert any(isinstance(e, Status) and e.tool == "budget" for e in events)
    assert len(steps) < 10, "it stopped before the step limit"
    assert not answer_of(events).abstained, "the best answer found so far is given"
    trace = trace_of(events)
    assert trace["tokens"]["spent"] and trace["tokens"]["used"] <= 4000


def test_stated_confidence_reads_numbers_and_percentages() -> None:
    assert stated_confidence("0.8") == 0.8
    assert stated_confidence("85%") == 0.85
    assert stated_confidence(None) is None and stated_confidence("high") is None
    assert stated_confidence(True) is None


def test_calibration_moves_toward_the_record_of_its_bin() -> None:
    assert Calibrator().calibrate("route", 0.9) == 0.9
    right = Calibrator({"route": [(0.9, True)] * 20})
    wrong = Calibrator({"route": [(0.9, False)] * 20})
    assert right.calibrate("route", 0.9) > 0.95 and wrong.calibrate("route", 0.9) < 0.2
    assert wrong.calibrate("route", 0.3) == 0.3, "another bin's record does not move it"
    assert wrong.calibrate("route", None) is not None and Calibrator().calibrate("x", None) is None
    assert arbitrate("route", None, Calibrator(), 0.7)[0], "no confidence, no record: the model"
    assert not arbitrate("route", 0.9, wrong, 0.7)[0]


def test_ask_json_names_the_program_version_and_token_use_in_done_and_trace(
    sample_library: Library, cli_env: dict[str, str]
) -> None:
    import subprocess
    import sys

    args = [
        sys.executable,
        "-m",
        "app",
        "ask",
        AUX,
        "--json",
        "--library",
        str(sample_library.root),
    ]
    env = {**cli_env, "LANTERN_LLM": "none"}
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    done = json.loads(out.stdout.splitlines()[-1])
    assert done["type"] == "done" and done["program_version"] == NO_LLM_VERSION
    assert done["tokens"] == 0
    trace = json.loads(Path(done["trace"]).read_text(encoding="utf-8"))
    assert trace["program_version"] == NO_LLM_VERSION and trace["tokens"]["budget"] == 32768
    assert trace["shadow"][0]["signature"] == "route"
    assert DecisionBook(sample_library.store).records(trace["run_id"]), "saved in the library"


def test_a_question_read_only_to_its_answer_stops_counting_tokens(
    agent_with: Any, scripted: ScriptedModel
) -> None:
    scripted.decisions.extend([decision("text_search", query="AUX+ terminal"), decision("answer")])
    scripted.answers.append(answer_reply(GOOD))
    agent = agent_with(scripted)
    events = agent.ask(AUX)
    next(e for e in events if type(e).__name__ == "Answer")
    events.close()  # the caller stopped reading: the judge's calls must not be counted
    assert not agent.tally.active
