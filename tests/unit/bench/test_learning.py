"""Outcomes label decisions (feedback, judge, critic, in that order of strength), the rolling
accuracy of each signature over its last 50 labels, the auto-optimiser's trigger, and the
``stats`` command."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from app.agent.decision_book import DecisionBook, Outcome
from app.agent.shadow import ShadowRecord
from app.bench.auto_optimize import OptimiseLog, check
from app.bench.dataset import BenchItem, EvidenceRef
from app.bench.feedback import FeedbackStore
from app.bench.outcomes import judge_labeller
from app.bench.rolling import accuracy_series, format_stats, rolling_accuracy
from app.library.library import Library
from app.library.store import Store

ROUTE = ShadowRecord(
    "route",
    0,
    {"question": "q"},
    {"documents": [], "files": [], "hard": False},
    {"documents": [2], "files": ["User.pdf"], "hard": False},
    0.8,
    0.8,
    "llm",
)
SEARCH = {"tool": "text_search", "inputs": {"query": "q"}}
AGAIN = {**SEARCH, "inputs": {"query": "Q "}}
STEP = ShadowRecord("next_step", 1, {}, SEARCH, AGAIN, 0.9, 0.9, "llm")
ANSWER = ShadowRecord("answer", 2, {}, {"abstain": True}, {"abstain": False}, 0.9, 0.9, "rules")


def saved(
    store: Store, run_id: str = "run-1", question: str = "Which fuse?", **kw: object
) -> DecisionBook:
    book = DecisionBook(store)
    book.save(run_id, question, [ROUTE, STEP, ANSWER], **kw)  # type: ignore[arg-type]
    return book


def labels(book: DecisionBook, run_id: str = "run-1") -> dict[str, tuple[object, object, object]]:
    return {r.signature: (r.rule_right, r.llm_right, r.label_source) for r in book.records(run_id)}


def test_a_thumbs_down_on_an_abstention_labels_who_would_have_answered(store: Store) -> None:
    book = saved(store, answer="The manuals don't say.", abstained=True)
    FeedbackStore(store).add("Which fuse?", "The manuals don't say.", abstained=True, rating=-1)

    found = labels(book)
    assert found["answer"] == (False, True, "feedback"), "the LLM wanted to answer: it was right"
    assert found["next_step"] == (False, False, "feedback"), "same choice, same label"
    assert found["route"][2] == "feedback"


def test_a_marked_page_labels_the_route_by_its_manual(store: Store) -> None:
    book = saved(store, answer="Fuse F2 [1].")
    entry = FeedbackStore(store).add("Which fuse?", "Fuse F2 [1].")
    assert labels(book)["route"] == (None, None, None), "no verdict yet"
    FeedbackStore(store).set_right_page(entry, "User.pdf", 7)

    rule_right, llm_right, source = labels(book)["route"]
    assert (rule_right, llm_right, source) == (True, True, "feedback")
    FeedbackStore(store).set_right_page(entry, "Other.pdf", 1)
    assert labels(book)["answer"][:2] == (False, True), "the answer is in the manuals"


def test_a_weaker_outcome_never_overwrites_a_stronger_one(store: Store) -> None:
    book = saved(store, answer="Fuse F2 [1].")
    FeedbackStore(store).add("Which fuse?", "Fuse F2 [1].", rating=1)
    assert book.label("run-1", Outcome("critic", good=False)) == 0
    assert labels(book)["next_step"] == (True, True, "feedback")


def test_the_judge_labels_the_run_its_trace_names(store: Store) -> None:
    book = saved(store, run_id="20261125-q01")
    item = BenchItem("q01", "unanswerable", "Which fuse?", "not in the manuals")
    record = {"trace": "/lib/traces/20261125-q01.json", "judge": {"score": 20}}
    judge_labeller(store)(item, record)

    assert record["labelled_decisions"] == 3
    found = labels(book, "20261125-q01")
    assert found["answer"] == (True, False, "judge"), "unanswerable: abstaining was right"
    item = BenchItem(
        "q02", "direct", "Which fuse?", "F2", ("F2",), (EvidenceRef("Main.pdf", (4,)),)
    )
    judge_labeller(store)(item, {**record, "judge": {"score": 90}})
    assert labels(book, "20261125-q01")["route"] == (True, False, "judge"), "Main.pdf, not User"


def labelled_run(book: DecisionBook, n: int, llm_right: bool, rule_right: bool = True) -> None:
    for i in range(n):
        run = f"r{len(book.labelled()) + i}"
        book.save(run, f"question {run}", [STEP])
        outcome = Outcome("judge", good=llm_right)
        book.label(run, outcome)
        with book.store.transaction() as db:
            db.execute(
                "UPDATE decision_records SET rule_right = ? WHERE run_id = ?",
                (int(rule_right), run),
            )


def test_rolling_accuracy_covers_the_last_50_labels_rules_and_llm_side_by_side(
    store: Store,
) -> None:
    book = DecisionBook(store)
    labelled_run(book, 10, llm_right=False, rule_right=False)
    labelled_run(book, 50, llm_right=True, rule_right=False)
    rows = {r.signature: r for r in rolling_accuracy(book)}
    step = rows["next_step"]
    assert (step.labelled, step.llm, step.rules, step.followed) == (50, 1.0, 0.0, 1.0)
    assert rows["route"].labelled == 0 and rows["route"].llm is None

    series = accuracy_series(book, "next_step", points=12)
    assert len(series) == 12 and series[0].llm == 0.0 and series[-1].llm == 1.0
    text = format_stats(list(rows.values()))
    assert "next tool" in text and "1.00 (50)" in text and "0.00 (50)" in text


def test_the_optimiser_is_due_after_enough_labels_when_accuracy_is_low_or_fell(
    tmp_path: Path, store: Store
) -> None:
    book, log = DecisionBook(store), OptimiseLog(tmp_path / "programs")
    labelled_run(book, 19, llm_right=False)
    assert check(book, log) is None, "19 new examples are not enough"
    labelled_run(book, 1, llm_right=False)
    due = check(book, log)
    assert due is not None and due.signature == "next_step" and due.new_examples == 20
    assert "below 0.70" in due.reason

    log.append(
        {
            "finished": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "signature": "next_step",
            "accuracy": {"next_step": 0.95},
        }
    )
    labelled_run(book, 40, llm_right=True)
    labelled_run(book, 5, llm_right=False)  # the window: 10 wrong, 40 right
    assert check(book, log) is None, "the last run was less than 24 h ago"
    tomorrow = datetime.now(UTC) + timedelta(hours=25)
    fell = check(book, log, clock=lambda: tomorrow)
    assert fell is not None and "fell from 0.95 to 0.80" in fell.reason
    assert check(book, log, clock=lambda: tomorrow, min_examples=100) is None


def test_stats_prints_rolling_accuracy_from_a_library_with_feedback(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    library = Library.open(tmp_path / "library")
    saved(library.store, answer="The manuals don't say.", abstained=True)
    FeedbackStore(library.store).add(
        "Which fuse?", "The manuals don't say.", abstained=True, rating=-1
    )
    library.close()
    args = [sys.executable, "-m", "app", "stats", "--library", str(tmp_path / "library")]
    out = subprocess.run(args, env=cli_env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "rolling accuracy over the last 50" in out.stdout
    answer_line = next(line for line in out.stdout.splitlines() if "answer or abstain" in line)
    assert "0.00 (1)" in answer_line and "1.00 (1)" in answer_line

    data = json.loads(
        subprocess.run(
            [*args, "--json"], env=cli_env, capture_output=True, text=True, timeout=120
        ).stdout
    )
    answer = next(s for s in data["signatures"] if s["signature"] == "answer")
    assert (answer["rules"], answer["llm"]) == (0.0, 1.0)


def test_calibration_learns_from_the_technician_and_the_judge_not_the_critic(
    store: Store,
) -> None:
    book = DecisionBook(store)
    for i in range(10):
        book.save(f"c{i}", f"q{i}", [STEP])
        book.label(f"c{i}", Outcome("critic", good=False))
    assert book.calibrator().calibrate("next_step", 0.9) == 0.9, "the model judging itself"
    for i in range(10):
        book.label(f"c{i}", Outcome("judge", good=False))
    assert book.calibrator().calibrate("next_step", 0.9) < 0.3
