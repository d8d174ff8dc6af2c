"""Feedback on answers: stored in the library (migration m005), turned into training items,
and a verified answer added to a dataset file the benchmark reads back."""

from __future__ import annotations

import json
from pathlib import Path

import apsw
import pytest

from app.agent.events import CitationOut, Decision, PageOut
from app.bench.dataset import DatasetError, load_dataset
from app.bench.feedback import FeedbackError, FeedbackStore, key_facts
from app.library.migrations import MIGRATIONS
from app.library.store import Store

INSTALL, USER = "Lumen_AX200_Installation_Manual.pdf", "Lumen_AX200_User_Manual.pdf"
AUX = "What voltage does the AUX+ terminal supply?"
ANSWER = (
    "From the manuals:\nThe AUX+ terminal supplies 13.8 V DC, up to 500 mA [1].\n\n"
    "Sources:\n[1] Lumen AX-200 Installation Guide p.6"
)


@pytest.fixture
def feedback(store: Store) -> FeedbackStore:
    return FeedbackStore(store)


def add_verified(feedback: FeedbackStore) -> int:
    return feedback.add(
        AUX,
        ANSWER,
        rating=1,
        decisions=[Decision("text_search", "look it up", {"query": "AUX+"}, 1, "llm")],
        citations=[CitationOut(INSTALL, "Lumen AX-200 Installation Guide", 6, [[1, 2, 3, 4]])],
        pages=[PageOut(INSTALL, 6, 0.9), PageOut(USER, 2, 0.4)],
    )


def test_an_entry_round_trips_with_its_steps_citations_and_pages(
    feedback: FeedbackStore,
) -> None:
    first = add_verified(feedback)
    second = feedback.add("Is there Z-Wave?", "The manuals don't say.", abstained=True)

    stored = feedback.list()
    assert [f.id for f in stored] == [first, second]
    entry = stored[0]
    assert (entry.question, entry.answer, entry.rating, entry.abstained) == (AUX, ANSWER, 1, False)
    assert entry.decisions[0]["tool"] == "text_search"
    assert entry.decisions[0]["inputs"] == {"query": "AUX+"}
    assert entry.citations[0]["page"] == 6 and entry.pages[1] == {
        "document": USER,
        "page": 2,
        "score": 0.4,
    }
    assert entry.created.endswith("Z") and stored[1].abstained and stored[1].rating == 0
    assert json.loads(json.dumps(entry.to_dict()))["right_pages"] == []


def test_right_pages_and_ratings_change_an_entry(feedback: FeedbackStore) -> None:
    entry = feedback.add("How long is the lockout?", "90 seconds [1]", rating=-1)

    feedback.set_right_page(entry, USER, 13)
    feedback.set_right_page(entry, USER, 13)
    feedback.set_right_page(entry, USER, 14)
    feedback.set_rating(entry, 0)

    stored = feedback.get(entry)
    assert stored.right_pages == ((USER, 13), (USER, 14)), "marking a page twice is once"
    assert stored.rating == 0
    with pytest.raises(FeedbackError, match="no feedback with id 999"):
        feedback.set_right_page(999, USER, 1)
    with pytest.raises(FeedbackError, match="rating"):
        feedback.set_rating(entry, 5)


def test_training_items_from_verdicts(feedback: FeedbackStore) -> None:
    verified = add_verified(feedback)
    abstained = feedback.add("Is there Z-Wave?", "The manuals don't say.", abstained=True, rating=1)
    wrong = feedback.add("Lockout time?", "5 minutes [1]", rating=-1)
    feedback.set_right_page(wrong, USER, 13)
    feedback.add("Unclear?", "Something [1]", rating=-1)  # wrong, and nothing says what is right
    feedback.add("Just asked?", "Something [1]")  # no verdict at all

    items = {item.id: item for item in feedback.training_items()}

    assert set(items) == {f"fb{verified}", f"fb{abstained}", f"fb{wrong}"}
    good = items[f"fb{verified}"]
    assert good.query == AUX and good.category == "direct"
    assert good.key_facts == ("13.8 V", "500 mA")
    assert good.gold_pages() == {(INSTALL, 6)}, "the cited page, as nothing else was marked"
    assert "Sources" not in good.answer and "[1]" not in good.answer
    assert items[f"fb{abstained}"].unanswerable
    page_only = items[f"fb{wrong}"]
    assert page_only.gold_pages() == {(USER, 13)} and page_only.key_facts == ()
    assert good.extra == {"source": "feedback", "feedback_id": verified}


def test_a_verified_answer_is_added_to_a_dataset_the_benchmark_reads(
    feedback: FeedbackStore, tmp_path: Path
) -> None:
    entry = add_verified(feedback)
    feedback.set_right_page(entry, INSTALL, 7)
    path = tmp_path / "new" / "shop.json"

    new_id = feedback.append_to_dataset(entry, path)

    assert feedback.append_to_dataset(entry, path) == new_id, "one click, one item"
    (item,) = load_dataset(path)
    assert item.id == new_id and item.query == AUX
    assert item.key_facts == ("13.8 V", "500 mA") and "13.8 V DC" in item.answer
    assert item.gold_pages() == {(INSTALL, 7)}, "the page marked right is the evidence"
    raw = json.loads(path.read_text(encoding="utf-8"))[0]
    assert raw["category"] == "direct" and raw["routing_trap"] is False
    assert raw["evidence"]["locations"] == [{"page": 7}] and f"#{entry}" in raw["notes"]


def test_appending_keeps_the_items_already_there(feedback: FeedbackStore, tmp_path: Path) -> None:
    path = tmp_path / "shop.json"
    path.write_text(json.dumps({"questions": [{"id": "q01", "query": "Old question?"}]}))
    abstained = feedback.add("Is there Z-Wave?", "The manuals don't say.", abstained=True, rating=1)

    feedback.append_to_dataset(abstained, path)

    items = load_dataset(path)
    assert [i.id for i in items] == ["q01", f"fb{abstained}"]
    assert items[1].unanswerable and items[1].evidence == ()


def test_an_id_another_library_used_is_not_taken_twice(
    feedback: FeedbackStore, tmp_path: Path
) -> None:
    entry = add_verified(feedback)
    path = tmp_path / "shop.json"
    other = {"id": f"fb{entry}", "query": "A question another library added?", "answer": "x"}
    path.write_text(json.dumps([other]))

    new_id = feedback.append_to_dataset(entry, path)

    assert new_id == f"fb{entry}-2"
    assert [i.id for i in load_dataset(path)] == [f"fb{entry}", new_id]
    assert feedback.append_to_dataset(entry, path) == new_id, "still one click, one item"


def test_only_a_verified_answer_becomes_a_benchmark_item(
    feedback: FeedbackStore, tmp_path: Path
) -> None:
    wrong = feedback.add("Lockout time?", "5 minutes [1]", rating=-1)
    with pytest.raises(FeedbackError, match="not marked right"):
        feedback.append_to_dataset(wrong, tmp_path / "shop.json")
    assert not (tmp_path / "shop.json").exists()

    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(DatasetError, match="cannot read"):
        feedback.append_to_dataset(add_verified(feedback), broken)


def test_key_facts_are_the_values_an_answer_states() -> None:
    assert key_facts("Fit J3 on pins 2-3 for 5 V [2]; PGM2 then gives 100 mA.") == (
        "J3",
        "2-3",
        "5 V",
        "PGM2",
        "100 mA",
    )
    assert key_facts("See the wiring section, p. 21.") == ()


def test_an_old_library_gains_the_feedback_table(tmp_path: Path) -> None:
    folder = tmp_path / "lib"
    folder.mkdir()
    db = apsw.Connection(str(folder / "library.db"))
    db.execute(
        "CREATE TABLE migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " applied_at TEXT NOT NULL)"
    )
    for number, migration in enumerate(MIGRATIONS[:4], start=1):
        migration(db)
        db.execute(
            "INSERT INTO migrations VALUES (?, ?, datetime('now'))", (number, migration.__name__)
        )
    db.close()

    store = Store.open(folder)
    entry = FeedbackStore(store).add("Q?", "A [1]", rating=1)
    assert store.schema_version() == len(MIGRATIONS) and FeedbackStore(store).get(entry).verified
    store.close()
