"""Running a dataset: a verdict per question, the judge in the summary, stopping part way."""

from __future__ import annotations

from app.bench.judge import LlmJudge
from app.bench.runner import BenchProgress, format_summary, run_bench
from app.runtime.fake import FakeLLM
from tests.unit.bench.fake_runs import ITEMS, ScriptedAsk, good_answers, judge_reply


def test_every_record_carries_its_question_and_the_judges_verdict() -> None:
    events = list(run_bench(ITEMS, ScriptedAsk(good_answers())))
    progress, result = events[:-1], events[-1]

    assert [p.item_id for p in progress if isinstance(p, BenchProgress)] == ["q1", "q2", "q3"]
    assert all(isinstance(p, BenchProgress) and p.record is not None for p in progress)
    assert isinstance(result, dict) and result["stopped"] is False
    records = {r["id"]: r for r in result["records"]}
    assert records["q1"]["query"] == ITEMS[0].query
    assert (
        records["q1"]["judge"]["score"] == 100 and records["q1"]["judge"]["method"] == "key-facts"
    )
    assert records["q2"]["judge"]["score"] == 0 and records["q2"]["judge"]["missing_facts"] == [
        "amber"
    ]
    assert records["q3"]["judge"]["score"] == 100  # abstained on an unanswerable question


def test_the_summary_has_the_judge_mean_overall_and_per_category() -> None:
    *_, result = run_bench(ITEMS, ScriptedAsk(good_answers()))
    summary = result["summary"]  # type: ignore[index]

    assert summary["judge_mean"] == round(200 / 3, 1) and summary["judge_method"] == "key-facts"
    assert summary["per_category"]["visual"]["judge_mean"] == 0
    assert summary["per_category"]["unanswerable"]["judge_mean"] == 100
    table = format_summary(summary)
    assert "judge" in table.splitlines()[0] and "66.7" in table.splitlines()[1]


def test_the_agent_never_sees_the_ground_truth_but_the_judge_does() -> None:
    ask = ScriptedAsk(good_answers())
    llm = FakeLLM([judge_reply(90), judge_reply(40)])

    *_, result = run_bench(ITEMS, ask, judge=LlmJudge(llm))

    assert ask.asked == [item.query for item in ITEMS]
    assert len(llm.calls) == 2  # the unanswerable one is ruled, not judged
    assert ITEMS[1].answer in llm.calls[1].messages[-1]["content"]
    assert [r["judge"]["score"] for r in result["records"]] == [90, 40, 100]  # type: ignore[index]
    assert result["summary"]["judge_method"] == "llm"  # type: ignore[index]


def test_a_stopped_run_summarises_the_questions_done_so_far() -> None:
    ask = ScriptedAsk(good_answers())
    finished: list[BenchProgress] = []

    def should_stop() -> bool:
        return len(finished) >= 2

    result = None
    for event in run_bench(ITEMS, ask, should_stop=should_stop):
        if isinstance(event, BenchProgress):
            finished.append(event)
        else:
            result = event

    assert result is not None and result["stopped"] is True
    assert [r["id"] for r in result["records"]] == ["q1", "q2"] and len(ask.asked) == 2
    summary = result["summary"]
    assert summary["questions"] == 2 and summary["questions_planned"] == 3
    assert summary["hit@1"] == 0.5 and summary["judge_mean"] == 50
    assert set(summary["per_category"]) == {"direct", "visual"}


def test_a_run_stopped_before_the_first_question_still_ends_with_a_summary() -> None:
    events = list(run_bench(ITEMS, ScriptedAsk(good_answers()), should_stop=lambda: True))

    assert len(events) == 1
    result = events[0]
    assert isinstance(result, dict) and result["stopped"] and result["records"] == []
    assert result["summary"]["questions"] == 0 and result["summary"]["judge_mean"] is None
    assert "all" in format_summary(result["summary"])
