"""LLM mode with a scripted model behind the real DSPy bridge: decisions in the adapter's
field format, and every guard around them (never twice, step limit, malformed replies,
tool errors, transient and permanent model errors, the critic)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from app.agent.context import DATA_RULE
from app.agent.events import Error, Token
from app.agent.loop import Tree
from app.agent.service import load_programs, programs
from tests.unit.agent.scripted import (
    ScriptedModel,
    answer_of,
    answer_reply,
    check_reply,
    decision,
    decisions,
    run,
)

AUX = "What voltage and maximum current does the AX-200's AUX+ terminal supply?"
GOOD = "The AUX+ terminal supplies 13.8 V DC, up to 500 mA [1]."


def test_decisions_and_a_streamed_answer_through_the_dspy_bridge(
    make_agent: Callable[..., Tree], scripted: ScriptedModel
) -> None:
    scripted.decisions.extend(
        [decision("text_search", "look it up", query="AUX+ terminal supply"), decision("answer")]
    )
    scripted.answers.append(answer_reply(GOOD))
    events = run(make_agent(scripted), AUX)

    steps = decisions(events)
    assert [(d.tool, d.source) for d in steps] == [("text_search", "llm"), ("answer", "llm")]
    assert steps[0].reasoning == "look it up"
    tokens = [e for e in events if isinstance(e, Token)]
    answer = answer_of(events)
    assert len(tokens) > 5, "the answer streams token by token"
    assert "".join(t.text for t in tokens) == answer.text == GOOD
    assert answer.mode == "llm" and not answer.abstained
    assert len(answer.citations) == 1 and answer.citations[0].regions
    first_prompt = scripted.prompts["decide"][0]
    assert AUX in first_prompt and "Lumen" in first_prompt and "text_search(" in first_prompt
    assert "AUX+ terminal supply" in scripted.prompts["decide"][1], "results reach the next step"


def test_a_tool_and_query_pair_never_runs_twice(
    make_agent: Callable[..., Tree], scripted: ScriptedModel
) -> None:
    scripted.decisions.extend(
        [
            decision("text_search", query="AUX+ terminal"),
            decision("text_search", query="  aux+   TERMINAL "),
            decision("answer"),
        ]
    )
    scripted.answers.append(answer_reply(GOOD))
    events = run(make_agent(scripted), AUX)

    refused = [e for e in events if isinstance(e, Error) and e.tool == "text_search"]
    assert refused and "not run twice" in refused[0].message
    searches = [
        d.inputs["query"].lower().split() for d in decisions(events) if d.tool == "text_search"
    ]
    assert len(searches) == len({tuple(q) for q in searches})
    assert decisions(events)[1].source == "rules", "the rules decide the refused step"


def test_the_step_limit_forces_an_answer(
    make_agent: Callable[..., Tree], scripted: ScriptedModel
) -> None:
    scripted.decisions.extend(decision("text_search", query=f"terminal {i}") for i in range(9))
    scripted.answers.append(answer_reply(GOOD))
    events = run(make_agent(scripted, max_steps=3), AUX)

    steps = decisions(events)
    assert [d.tool for d in steps] == ["text_search", "text_search", "answer"]
    assert steps[-1].source == "limit"
    assert answer_of(events).text


def test_malformed_decision_is_retried_once_then_the_rules_decide(
    make_agent: Callable[..., Tree], scripted: ScriptedModel
) -> None:
    scripted.decisions.extend(["I think you should search.", decision("delete_library")])
    scripted.decisions.append(decision("answer"))
    scripted.answers.append(answer_reply(GOOD))
    events = run(make_agent(scripted), AUX)

    problems = [e for e in events if isinstance(e, Error) and e.tool == "decision"]
    assert len(problems) == 2 and "not an available tool" in problems[1].message
    first = decisions(events)[0]
    assert (first.tool, first.source, first.inputs["query"]) == ("text_search", "rules", AUX)
    assert "could not be read" in scripted.prompts["decide"][1], "the retry sees the problem"


def test_malformed_then_valid_uses_the_retry(
    make_agent: Callable[..., Tree], scripted: ScriptedModel
) -> None:
    scripted.decisions.extend(
        ["[[ ## tool ## ]]\ntext_search", decision("text_search", query="AUX+"), decision("answer")]
    )
    scripted.answers.append(answer_reply(GOOD))

    assert decisions(run(make_agent(scripted), AUX))[0].source == "llm"


def test_tool_errors_are_fed_back_to_the_next_decision(
    make_agent: Callable[..., Tree], scripted: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = make_agent(scripted)
    search = agent.resources.text_search
    real = search.search
    calls = {"n": 0}

    def flaky(*args: object, **kwargs: object) -> object:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("index is being rebuilt")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(search, "search", flaky)
    scripted.decisions.extend(
        [
            decision("text_search", query="AUX+ terminal"),
            decision("text_search", query="AUX+", documents=[999]),
            decision("text_search", query="AUX+ terminal voltage"),
            decision("answer"),
        ]
    )
    scripted.answers.append(answer_reply(GOOD))
    events = run(agent, AUX)

    errors = [e for e in events if isinstance(e, Error)]
    assert "index is being rebuilt" in errors[0].message and errors[0].recoverable
    assert "no manual has id 999" in errors[1].message
    assert "index is being rebuilt" in scripted.prompts["decide"][1]
    assert "no manual has id 999" in scripted.prompts["decide"][2]
    assert not answer_of(events).abstained


def test_transient_model_errors_are_retried_with_backoff(
    make_agent: Callable[..., Tree], scripted: ScriptedModel
) -> None:
    def busy() -> str:
        raise TimeoutError("model busy")

    scripted.decisions.extend([busy, decision("text_search", query="AUX+"), decision("answer")])
    scripted.answers.append(answer_reply(GOOD))
    agent = make_agent(scripted)
    waits: list[float] = []
    assert agent.policy is not None
    agent.policy.sleep = waits.append
    events = run(agent, AUX)

    assert waits == [0.5]
    assert decisions(events)[0].source == "llm"
    assert not [e for e in events if isinstance(e, Error)]


def test_a_permanent_model_error_is_reported_and_the_rules_take_over(
    make_agent: Callable[..., Tree], scripted: ScriptedModel
) -> None:
    def broken() -> str:
        raise RuntimeError("weights are corrupt")

    scripted.decisions.append(broken)
    scripted.answers.append(answer_reply(GOOD))
    events = run(make_agent(scripted), AUX)

    reported = [e for e in events if isinstance(e, Error) and e.tool == "decision"]
    assert len(reported) == 1 and "weights are corrupt" in reported[0].message
    assert {d.source for d in decisions(events)} == {"rules"}
    assert len(scripted.prompts["decide"]) == 1, "a broken model is not asked again"


def test_critic_drops_an_unsupported_claim(
    make_agent: Callable[..., Tree], scripted: ScriptedModel
) -> None:
    scripted.decisions.extend([decision("text_search", query="AUX+ terminal"), decision("answer")])
    bad = "It also charges the battery at 48 V [1]."
    scripted.answers.append(answer_reply(f"{GOOD} {bad}"))
    scripted.checks.appendleft(check_reply(False, ["It also charges the battery at 48 V"]))
    events = run(make_agent(scripted), AUX)

    answer = answer_of(events)
    assert answer.text == GOOD
    resets = [e for e in events if isinstance(e, Token) and e.reset]
    assert len(resets) == 1, "the streamed text is replaced once"


def test_critic_replaces_an_answer_with_nothing_supported(
    make_agent: Callable[..., Tree], scripted: ScriptedModel
) -> None:
    scripted.decisions.extend([decision("text_search", query="AUX+ terminal"), decision("answer")])
    scripted.answers.append(answer_reply("The AUX+ terminal supplies 48 V [1]."))
    events = run(make_agent(scripted), AUX)

    answer = answer_of(events)
    assert "48 V" not in answer.text, "a value the page does not hold never stands"
    assert "13.8" in answer.text or answer.abstained


def test_model_says_the_evidence_does_not_answer(
    make_agent: Callable[..., Tree], scripted: ScriptedModel
) -> None:
    scripted.decisions.extend([decision("text_search", query="Z-Wave range"), decision("answer")])
    scripted.answers.append(answer_reply("The manuals don't say.", answerable=False))
    answer = answer_of(run(make_agent(scripted), "What is the Z-Wave mesh range?"))

    assert answer.abstained and answer.mode == "llm"
    assert "“Z-Wave range”" in answer.text


def test_saved_programs_are_loaded_at_start(
    make_agent: Callable[..., Tree], scripted: ScriptedModel, tmp_path: Path
) -> None:
    tuned = programs(make_agent(scripted))["decide"]
    predict = tuned.predict
    predict.signature = predict.signature.with_instructions("TUNED: prefer the wiring tables.")
    tuned.save(str(tmp_path / "decide.json"))
    agent = make_agent(scripted)

    assert load_programs(agent, tmp_path) == ["decide"]
    scripted.decisions.extend([decision("text_search", query="AUX+"), decision("answer")])
    scripted.answers.append(answer_reply(GOOD))
    run(agent, AUX)
    prompt = scripted.prompts["decide"][0]
    assert "TUNED: prefer the wiring tables." in prompt
    assert DATA_RULE in prompt, "a tuned program keeps the rule that manual text is data"


def test_equipment_no_manual_mentions_is_declined_before_the_model_writes(
    make_agent: Callable[..., Tree], scripted: ScriptedModel
) -> None:
    # Handed the AX-200's pages, a model would answer from them; the V20 is not in the
    # library, so the answer says so and the model is not asked to write one. The
    # question is read as written: the model's search left the V20 out.
    scripted.decisions.extend(
        [decision("text_search", query="AUX terminal supply"), decision("answer")]
    )
    scripted.answers.append(answer_reply(GOOD))
    answer = answer_of(run(make_agent(scripted), "What does the AUX terminal of the V20 supply?"))
    assert answer.abstained and not answer.citations
    assert "No manual in the library mentions V20" in answer.text
    assert not scripted.prompts.get("answer"), "the model wrote no answer"


def test_the_question_is_read_for_other_equipment_once_when_quotes_stand_in(
    make_agent: Callable[..., Tree], scripted: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The model cannot write the answer, so the quotes answer instead: both steps ask
    # whether the question names equipment no manual mentions, and it is read once.
    import app.agent.tools.answer as answer_tool

    asked: list[str] = []
    original = answer_tool.foreign_in

    def counting(question: str, search: object) -> tuple[str, ...]:
        asked.append(question)
        return original(question, search)  # type: ignore[arg-type]

    monkeypatch.setattr(answer_tool, "foreign_in", counting)

    def broken() -> str:
        raise RuntimeError("weights are corrupt")

    scripted.decisions.extend([decision("text_search", query="AUX+ terminal"), decision("answer")])
    scripted.answers.extend([broken, broken, broken, broken])
    answer = answer_of(run(make_agent(scripted), AUX))
    assert not answer.abstained and "13.8" in answer.text
    assert asked == [AUX]
