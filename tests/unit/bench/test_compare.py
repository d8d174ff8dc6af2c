"""Comparing two runs: figures that moved, and the questions that got better or worse."""

from __future__ import annotations

from app.bench.compare import compare_runs
from tests.unit.bench.fake_runs import ITEMS, answer_for, finished_run, good_answers


def _after() -> dict:
    answers = good_answers()
    # q1: the right page drops from rank 1 to 2; q2: it rises from 2 to 1, answer now right.
    answers[ITEMS[0].query] = answer_for(
        [("Install.pdf", 5), ("Install.pdf", 21)], "Set jumper J3 to 12 V [1]."
    )
    answers[ITEMS[1].query] = answer_for([("User.pdf", 4)], "The fault LED is amber [1].")
    return finished_run(answers)


def test_questions_whose_rank_improved_or_worsened_are_listed() -> None:
    comparison = compare_runs(finished_run(), _after())

    assert [(q.id, q.before_rank, q.after_rank) for q in comparison.better] == [("q2", 2, 1)]
    assert [(q.id, q.before_rank, q.after_rank) for q in comparison.worse] == [("q1", 1, 2)]
    assert [q.id for q in comparison.same] == ["q3"]
    assert comparison.better[0].query == ITEMS[1].query


def test_at_the_same_rank_the_judge_score_decides() -> None:
    answers = good_answers()
    answers[ITEMS[0].query] = answer_for([("Install.pdf", 21)], "Use jumper J3 [1].")

    comparison = compare_runs(finished_run(), finished_run(answers))

    worse = comparison.worse[0]
    assert (worse.id, worse.before_rank, worse.after_rank) == ("q1", 1, 1)
    assert (worse.before_score, worse.after_score) == (100, 50)


def test_summary_deltas_overall_and_per_category_say_which_way_is_better() -> None:
    comparison = compare_runs(finished_run(), _after())

    overall = {d.figure: d for d in comparison.overall}
    assert overall["mrr"].change == 0 and overall["mrr"].improved is None
    visual = {d.figure: d for d in comparison.per_category["visual"]}
    assert (visual["hit@1"].before, visual["hit@1"].after, visual["hit@1"].improved) == (
        0.0,
        1.0,
        True,
    )
    assert visual["judge_mean"].change == 100
    direct = {d.figure: d for d in comparison.per_category["direct"]}
    assert direct["hit@1"].improved is False
    data = comparison.to_dict()
    assert data["better"][0]["id"] == "q2" and data["overall"][0]["figure"] == "questions"


def test_questions_in_only_one_run_are_reported_apart() -> None:
    before, after = finished_run(), finished_run()
    after["records"] = after["records"][:2]

    comparison = compare_runs(before, after)

    assert comparison.only_before == ["q3"] and comparison.only_after == []
    assert len(comparison.same) == 2
