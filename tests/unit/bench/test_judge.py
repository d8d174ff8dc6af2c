"""The judge: the deterministic key-fact check, and the LLM judge on a scripted model."""

from __future__ import annotations

import threading

import pytest

from app.bench.dataset import BenchItem
from app.bench.judge import (
    KeyFactJudge,
    LlmJudge,
    Verdict,
    judge_consistency,
    make_judge,
)
from app.runtime.dspy_bridge import GenerationCancelled
from app.runtime.fake import FakeLLM
from tests.unit.bench.fake_runs import ITEMS, judge_reply

JUMPER, LED, UNANSWERABLE = ITEMS
OLD_FORMAT = BenchItem("o1", "direct", "Baud rate?", "The baud rate is 9600 baud by default.")


def test_key_fact_judge_scores_the_share_of_facts_and_lists_the_missing() -> None:
    verdict = KeyFactJudge().judge(JUMPER, "Use jumper J3 [1].", abstained=False)

    assert verdict.score == 50
    assert verdict.missing_facts == ("12 V",) and verdict.incorrect_facts == ()
    assert verdict.method == "key-facts"
    assert "no LLM is installed" in verdict.reasoning and "1 of 2" in verdict.reasoning


def test_an_item_without_key_facts_is_scored_by_overlap_with_the_ground_truth() -> None:
    full = KeyFactJudge().judge(OLD_FORMAT, "By default the baud rate is 9600.", False)
    none = KeyFactJudge().judge(OLD_FORMAT, "Press the reset button.", False)

    assert full.score == 100 and none.score == 0
    assert "no key facts" in full.reasoning and "ground-truth answer" in full.reasoning


@pytest.mark.parametrize(
    ("item", "abstained", "score"),
    [(UNANSWERABLE, True, 100), (UNANSWERABLE, False, 0), (JUMPER, True, 0)],
)
def test_abstentions_follow_the_rule_whatever_the_judge(
    item: BenchItem, abstained: bool, score: int
) -> None:
    llm = FakeLLM()  # no reply enqueued: the model must not be asked

    for judge in (KeyFactJudge(), LlmJudge(llm)):
        assert judge.judge(item, "The manuals don't say.", abstained).score == score
    assert llm.calls == []


def test_verdict_round_trips_through_a_dict() -> None:
    verdict = Verdict(70, "close", ("J3",), ("5 V",), "llm")

    assert Verdict.from_dict(verdict.to_dict()) == verdict


def test_llm_judge_reads_the_models_verdict_at_temperature_zero() -> None:
    llm = FakeLLM([judge_reply(85, "Right jumper, voltage missing.", ["12 V"], ["J4"])])

    verdict = LlmJudge(llm).judge(JUMPER, "Use jumper J3 or J4.", abstained=False)

    assert verdict == Verdict(85, "Right jumper, voltage missing.", ("12 V",), ("J4",), "llm")
    assert llm.calls[0].params.temperature == 0.0
    prompt = "\n".join(m["content"] for m in llm.calls[0].messages)
    assert "Jumper J3 in position 12V." in prompt and "Use jumper J3 or J4." in prompt


def test_a_malformed_verdict_falls_back_to_the_key_fact_check_and_says_so() -> None:
    llm = FakeLLM(["I think it is quite good, maybe 8/10."])

    verdict = LlmJudge(llm).judge(JUMPER, "Set J3 to 12V.", abstained=False)

    assert verdict.method == "key-facts" and verdict.score == 100
    assert "could not be used" in verdict.reasoning and "key-fact check" in verdict.reasoning


@pytest.mark.parametrize(("reply", "score"), [(150, 100), (-20, 0), (42, 42)])
def test_the_score_is_kept_within_0_and_100(reply: int, score: int) -> None:
    verdict = LlmJudge(FakeLLM([judge_reply(reply)])).judge(JUMPER, "J3", abstained=False)

    assert verdict.score == score and verdict.method == "llm"


def test_a_cancelled_judge_stops_instead_of_falling_back() -> None:
    cancel = threading.Event()
    cancel.set()
    judge = LlmJudge(FakeLLM([judge_reply(90)]), cancel=cancel)

    with pytest.raises(GenerationCancelled):
        judge.judge(JUMPER, "J3 12 V", abstained=False)


def test_make_judge_picks_the_llm_only_when_there_is_one() -> None:
    assert isinstance(make_judge(None), KeyFactJudge)
    llm = FakeLLM(model_id="tiny")
    lazy = make_judge(lambda: llm)
    assert isinstance(lazy, LlmJudge) and lazy.backend is llm
    assert "tiny" in lazy.description


def test_consistency_reports_the_spread_of_repeated_verdicts() -> None:
    llm = FakeLLM([judge_reply(s) for s in (80, 90, 70, 80, 80)])

    report = judge_consistency(LlmJudge(llm), JUMPER, "J3, 12 V", False, temperature=0.7)

    assert report["scores"] == [80, 90, 70, 80, 80]
    assert report["mean"] == 80 and report["min"] == 70 and report["max"] == 90
    assert report["spread"] == 20 and report["stdev"] == pytest.approx(6.32, abs=0.01)
    assert {c.params.temperature for c in llm.calls} == {0.7}


def test_the_key_fact_judge_is_perfectly_consistent() -> None:
    report = judge_consistency(KeyFactJudge(), JUMPER, "J3 only", False, repeats=3)

    assert report["scores"] == [50, 50, 50] and report["stdev"] == 0 and report["spread"] == 0
