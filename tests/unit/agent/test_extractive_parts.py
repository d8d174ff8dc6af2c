"""The no-LLM answer quotes each thing a question asks for, from the manual it is about."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from app.agent.extractive import Evidence, _cover_parts, answer_pages, answer_weights
from app.retrieval.query import analyse
from app.retrieval.text import PageHit, SearchResult


def hit(doc: int, page: int) -> PageHit:
    return PageHit(doc, f"m{doc}.pdf", f"Manual {doc}", page, 1.0, 1.0, (), ())


def unit(text: str, score: float) -> Evidence:
    return Evidence(text, hit(1, 1), 0, (0.0, 0.0, 1.0, 1.0), score=score)


def test_quotes_come_from_the_best_pages_manual_unless_the_question_names_others() -> None:
    pages = (hit(1, 3), hit(2, 7), hit(1, 4), hit(3, 1), hit(1, 9))
    query = analyse("What fuse does it take?", [])
    result = SearchResult(query, pages, 1.0)
    assert [(p.document_id, p.page) for p in answer_pages(result)] == [(1, 3), (1, 4), (1, 9)]
    both = SearchResult(replace(query, products=(1, 2)), pages, 1.0)
    assert [(p.document_id, p.page) for p in answer_pages(both)] == [(1, 3), (2, 7), (1, 4)]


def test_a_question_naming_its_equipment_is_not_answered_from_another_manual() -> None:
    # Manual 1's page ranks first, but the question names manual 2's equipment: what
    # manual 1 says is about other equipment, so only manual 2's pages are quoted ...
    pages = (hit(1, 11), hit(2, 6), hit(1, 10), hit(2, 1), hit(2, 7))
    query = replace(analyse("What RF frequency does it use?", []), products=(2,))
    named = SearchResult(query, pages, 1.0)
    assert [(p.document_id, p.page) for p in answer_pages(named)] == [(2, 6), (2, 1), (2, 7)]
    # ... and none when the search found none of them.
    elsewhere = SearchResult(query, (hit(1, 11), hit(1, 10)), 1.0)
    assert answer_pages(elsewhere) == []


def test_the_page_after_the_best_one_is_quoted_when_the_search_found_it() -> None:
    pages = (hit(1, 31), hit(1, 64), hit(1, 35), hit(1, 32), hit(2, 32))
    result = SearchResult(analyse("How long do I hold it?", []), pages, 1.0)
    assert [(p.document_id, p.page) for p in answer_pages(result)] == [
        (1, 31), (1, 64), (1, 35), (1, 32)
    ]  # fmt: skip


def test_each_asked_part_gets_the_best_quote_that_prints_its_key_with_a_value() -> None:
    fuse = unit("Model → Fuse Rated Current(A) | 12 | 17 | 36", 1.0)
    fuse2 = unit("Model → Fuse Rated Current(A) | 17 | 17", 0.98)
    topic = unit("Power Cable And Signal Wire Connection 1. Remove the cover", 0.55)
    cable = unit("Model → Power Cable (mm²) | 4.00 | 4.00 | 6.00", 0.5)
    weak = unit("Secure the cable with the wire clamp.", 0.2)  # below the share of the best
    scored = [fuse, fuse2, topic, cable, weak]
    weights = {"fuse": 4.6, "rating": 3.0, "cable": 3.0, "size": 3.7}
    parts = (("fuse", "rating"), ("cable", "size"))
    chosen = _cover_parts([fuse, fuse2, topic], scored, weights, parts, limit=4)
    assert cable in chosen and fuse in chosen
    # At the limit the weakest quote makes room.
    assert _cover_parts([fuse, fuse2, topic], scored, weights, parts, limit=3)[-1] is cable


def test_each_part_keeps_its_quote_when_the_quotes_are_full() -> None:
    # Three things asked, four quotes chosen for the first: the line quoted for one part
    # does not give way to the next part's; the weakest of the others do.
    volt = unit("Supply voltage: 24 V DC nominal, 20 to 28 V.", 1.0)
    volt2 = unit("The supply voltage is monitored; below 20 V the unit stops.", 0.9)
    volt3 = unit("Check the supply voltage at terminals L+ and M.", 0.8)
    volt4 = unit("A supply voltage outside the range raises fault F3.", 0.7)
    fuse = unit("Fuse rating: 6.3 A slow-blow.", 0.6)
    cable = unit("Cable size: 1.5 mm2 for runs up to 30 m.", 0.6)
    scored = [volt, volt2, volt3, volt4, fuse, cable]
    weights = {"supply": 1.0, "voltage": 2.0, "fuse": 3.5, "rating": 2.0, "cable": 3.4}
    parts = (("supply", "voltage"), ("fuse", "rating"), ("cable", "size"))
    chosen = _cover_parts([volt, volt2, volt3, volt4], scored, weights, parts, limit=4)
    assert chosen == [volt, volt2, fuse, cable]
    # With room for a quote more (three things asked), the weakest gives way once.
    kept: list[Evidence] = []
    chosen = _cover_parts([volt, volt2, volt3, volt4], scored, weights, parts, 4, 5, kept)
    assert chosen == [volt, volt2, volt3, fuse, cable]
    assert kept == [volt, fuse, cable]
    # With no quote left to give way, a part goes without.
    assert _cover_parts([volt, fuse], scored, weights, parts, limit=2) == [volt, fuse]


def test_one_thing_asked_gets_a_quote_with_its_value_when_none_prints_one() -> None:
    what = unit("Power supply overcurrent restart time: if a short circuit is detected", 1.0)
    report = unit("The panel reports the short circuit to the monitoring station.", 0.7)
    times = unit("You can set the restart time to 1, 3, 5, 10, or 15 minutes.", 0.5)
    scored = [what, report, times]
    weights = {"short": 1.4, "circuit": 3.1, "restart": 1.7, "times": 1.9}
    asked = (("restart", "times"),)
    assert _cover_parts([what, report], scored, weights, asked, limit=4) == [what, report, times]
    # A quote that prints a value beside the asked words already answers it.
    assert _cover_parts([times], scored, weights, asked, limit=4) == [times]
    # So does nothing, when no candidate prints one.
    assert _cover_parts([what], [what, report], weights, asked, limit=4) == [what]


def test_a_later_search_replaces_the_first_only_when_surer_it_answers() -> None:
    from app.agent.extractive import ExtractiveAnswer
    from app.agent.tools.answer import _better

    first = ExtractiveAnswer("a", (), False, support=0.4, probability=0.6)
    wordier = ExtractiveAnswer("b", (), False, support=0.9, probability=0.5)
    surer = ExtractiveAnswer("c", (), False, support=0.5, probability=0.8)
    assert not _better(wordier, first)  # more of the question's words, less of an answer
    assert _better(surer, first)


def test_a_quote_of_a_reference_list_does_not_cite_other_pages() -> None:
    from app.agent.critic import check_lexically
    from app.agent.extractive import _compose

    page = "6 Appendix A References\n[3] FC20_Hardware_Design FC20 series hardware design"
    quote = unit("[3] FC20_Hardware_Design FC20 series hardware design", 1.0)
    text = _compose([quote], 1.0).text
    assert "[3]" not in text and "(3) FC20_Hardware_Design" in text
    # The quote cites its own page only, so the critic finds it there.
    assert check_lexically(text, {1: page}).grounded


def test_a_quote_without_its_value_runs_on_into_the_next_sentence_of_its_passage() -> None:
    from app.agent.extractive import _with_next

    def at(text: str, chunk: int, score: float, top: float) -> Evidence:
        box = (0.0, top, 100.0, top + 10.0)
        return Evidence(text, hit(1, 1), 0, box, score=score, chunk_id=chunk)

    topic = at("To restore the defaults, hold the reset key.", 1, 1.0, 0.0)
    value = at("Hold it for 5 seconds until the LED blinks.", 1, 0.2, 10.0)
    other = at("The 12 V output is rated 500 mA.", 1, 0.6, 20.0)
    last = at("Clean the case with a dry cloth.", 2, 0.1, 30.0)
    row = at("Model | Output → A1 | 12 V", 2, 0.5, 40.0)
    next_row = at("Model | Output → A2 | 24 V", 2, 0.1, 50.0)
    units = [topic, value, other, last, row, next_row]
    grown = _with_next([topic, other, row], units)
    assert grown[0].text == f"{topic.text} {value.text}"
    assert grown[0].box == (0.0, 0.0, 100.0, 20.0)  # the highlight covers both
    # A quote with a value stays as it is (it is not the best), and so does a table row:
    # the next row is another row's value; a passage never runs into the next chunk.
    assert grown[1:] == [other, row]
    # The best quote runs on only within its passage: the next unit is in another chunk.
    assert _with_next([other], units)[0].text == other.text


def test_a_table_row_is_quoted_cell_by_cell_under_the_columns_it_fills() -> None:
    from app.agent.extractive import table_row

    header = ["Model | RS485 | M-Bus | Digital Input"]
    assert table_row(header, "X-DI | ● |  | ●") == "Model: X-DI → RS485: ●; Digital Input: ●"
    assert table_row(header, "X-MB |  | ● | ") == "Model: X-MB → M-Bus: ●"
    # Cells that do not line up (a multi-line header, a row from an older import that
    # dropped its empty cells) are read after the whole header instead.
    assert table_row(header, "X-DI | ● | ●") is None
    assert table_row(["Model | RS485", "(max) | (bps)"], "X | 9600") is None
    # A heading spanning two columns lands in one, its values in the other.
    header = ["Item |  | BLN-006 |  |  | BLN-018 | "]
    assert table_row(header, "Fuse (A) | 12 |  |  | 36 |  | ") == (
        "Item: Fuse (A) → BLN-006: 12; BLN-018: 36"
    )
    header = ["Item | Value | "]  # a heading already taken is not taken twice
    assert table_row(header, "Fuse (A) | 12 | 36") == "Item: Fuse (A) → Value: 12; 36"
    header = ["Standby current | 7 Ah battery | 18 Ah battery"]  # values in a real header
    assert table_row(header, "500 mA | 11.9 h | 30.6 h") == (
        "Standby current: 500 mA → 7 Ah battery: 11.9 h; 18 Ah battery: 30.6 h"
    )


def test_a_joined_question_word_is_found_by_its_words() -> None:
    from app.agent.extractive import _found, _stems

    quoted = _stems("The factory default user code is 1234.")
    assert _found("factory-default", quoted)
    assert not _found("factory-reset", quoted)


def test_the_best_quotes_passage_gives_every_value_it_lists_of_the_asked_quantity() -> None:
    from app.agent.extractive import _greedy
    from app.retrieval.units import quantity_keys

    time = next(iter(quantity_keys("3 s")))
    best = unit("press and hold the button for 3 seconds to run a phone test", 1.0)
    best = replace(best, context="Button", chunk_id=7)
    listed = replace(best, text="Learn Mode (10-20 seconds): adds sensors", score=0.6)
    elsewhere = replace(listed, text="Reset: hold for 30 seconds", chunk_id=8, context="Reset")
    weights = {"button": 3.0, "hold": 3.0, "phone": 3.0, "test": 2.6}
    chosen = _greedy([best, listed, elsewhere], weights, 4, (time,))
    assert chosen == [best, listed]  # another passage's value is not the list's
    # The section runs on over the page break: its next page's items are the list's too.
    overleaf = replace(listed, chunk_id=9, page_hit=hit(1, 2), text="Power Cycle (20-30 seconds)")
    assert overleaf in _greedy([best, overleaf, elsewhere], weights, 4, (time,))
    # A question that asks for no quantity gets no more than the terms ask for.
    assert _greedy([best, listed, elsewhere], weights, 4) == [best]
    # Another row of the best quote's table is another thing, not an item of its answer.
    current = next(iter(quantity_keys("500 mA")))
    aux = replace(best, text="Terminal: AUX+ → Rating: 13.8 V DC, 500 mA max", row=True)
    pgm = replace(aux, text="Terminal: PGM1 → Rating: 100 mA max", score=0.6)
    assert _greedy([aux, pgm], {"aux+": 5.0, "current": 2.0}, 4, (current,)) == [aux]


def test_the_measure_word_of_how_adds_nothing_to_the_quotes() -> None:
    from app.agent.extractive import _greedy
    from app.retrieval.query import measure_words

    question = "How long do I hold the button to power-cycle it, and how many beeps?"
    assert measure_words(question) == {"long", "many"}
    best = unit("Press and hold the button to start a phone test.", 1.0)
    beep = replace(best, text="One long beep: invalid code", score=0.8, chunk_id=5)
    cycle = replace(best, text="Power Cycle (20-30 seconds): restarts it", score=0.7, chunk_id=6)
    weights = {"long": 2.0, "hold": 3.0, "button": 3.0, "power-cycle": 6.0}
    # "One long beep" holds "long", but that is not what an answer prints.
    assert _greedy([best, beep, cycle], weights, 2) == [best, beep]
    assert _greedy([best, beep, cycle], weights, 2, unprinted={"long"}) == [best, cycle]


def test_quotes_follow_the_bursty_words_but_the_decision_to_answer_does_not(
    make_agent: Callable[..., Any],
) -> None:
    from app.agent.extractive import answer_extractively

    resources = make_agent().resources
    search, store = resources.text_search, resources.library.store
    result = search.search("What voltage does the AUX+ terminal supply to the keypad?")
    idf = search._idf(result.query.terms)
    plain = answer_extractively(result, store, idf)
    same = answer_extractively(result, store, idf, burstiness={t: 1.0 for t in idf})
    assert same.text == plain.text and same.signals == plain.signals
    # Only "keypad" weighs when quoting: other quotes, the same pages judged the same way.
    keypad = answer_extractively(
        result, store, idf, burstiness={t: float(t == "keypad") for t in idf}
    )
    assert keypad.text != plain.text
    assert keypad.signals.support == plain.signals.support
    assert keypad.signals.rank_score == plain.signals.rank_score


def test_a_quantity_the_manual_prints_no_value_of_anywhere_is_not_answered(
    make_agent: Callable[..., Any],
) -> None:
    from app.agent.events import Answer
    from app.agent.extractive import answer_extractively, answer_from_search
    from app.retrieval.units import quantity_keys

    resources = make_agent().resources
    search, store = resources.text_search, resources.library.store
    result = search.search("What torque should the AX-200 terminal screws be tightened to?")
    manual = result.pages[0].document_id
    # The installation manual prints volts and amps, but no torque (N·m) anywhere ...
    assert next(iter(quantity_keys("13.8 V"))) in search.printed(manual)
    assert result.query.quantities[0] not in search.printed(manual)
    assert "torqu" not in search.printed(manual)  # nor the word
    quotes = answer_from_search(result, search, store)
    assert quotes.abstained and quotes.unprinted == ("torque",)
    # A manual that names the quantity ("Torque | 12", no unit) may state it after all.
    idf = search._idf(result.query.terms)
    named = answer_extractively(result, store, idf, printed=lambda m: {"torqu"})
    assert named.unprinted == ()
    # ... and the agent says so, naming what it searched.
    events = list(
        make_agent().ask("What torque should the AX-200 terminal screws be tightened to?")
    )
    answer = next(e for e in events if isinstance(e, Answer))
    assert answer.abstained and "gives a torque value" in answer.text
    # A quantity it does print is answered as before.
    volts = search.search("What voltage does the AUX+ terminal supply?")
    assert not answer_from_search(volts, search, store).abstained


def test_the_line_two_chunks_share_is_quoted_once() -> None:
    from app.agent.extractive import _join_fragments

    # The chunker repeats a passage's boundary line at the start of the next chunk.
    end = replace(
        unit("Wire it as shown. 10) The kit is supplied pre-aligned for the", 1.0), chunk_id=1
    )
    start = replace(
        unit("10) The kit is supplied pre-aligned for the layout shown. Check it.", 1.0),
        chunk_id=2,
    )
    (joined,) = _join_fragments([end, start])
    assert joined.text == (
        "Wire it as shown. 10) The kit is supplied pre-aligned for the layout shown. Check it."
    )
    # Within one chunk a repeated phrase is the text's own ("70 dB, 70 dB"): kept.
    (kept,) = _join_fragments([end, replace(start, chunk_id=1)])
    assert kept.text == f"{end.text} {start.text}"


def test_what_a_manual_prints_is_read_once_while_it_is_in_the_library(
    make_agent: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    resources = make_agent().resources
    search, store = resources.text_search, resources.library.store
    reads: list[int] = []
    page_texts = store.page_texts
    monkeypatch.setattr(store, "page_texts", lambda d: reads.append(d) or page_texts(d))
    manual = store.list_documents()[0].id
    search.search("What voltage does the AUX+ terminal supply?")
    first = search.printed(manual)
    # Answers, traces and feedback are written to the library too: none of it is read again.
    store.db.execute("CREATE TABLE IF NOT EXISTS scratch_write (x)")
    store.db.execute("INSERT INTO scratch_write VALUES (1)")
    search.search("What voltage does the AUX+ terminal supply?")
    assert search.printed(manual) == first and reads == [manual]


def test_a_title_names_its_product_not_what_a_user_or_installer_asks() -> None:
    # The manual's title and file name name its product ("KX-400", "Gateway"), whose words
    # route a question and do not answer it; "User", "Installation" and "Manual" say what
    # kind of document it is, and a question's "user code" or "installation" is asked.
    page = PageHit(1, "KX-400_User_Installation_Manual.pdf", "KX-400 Gateway", 3, 1, 1, (), ())
    query = analyse("What is the default user code of the KX-400 gateway?", [])
    idf = {"default": 1.0, "user": 2.0, "code": 1.5, "kx-400": 4.0, "gateway": 3.0}
    weights = answer_weights(SearchResult(query, (page,), 1.0), idf)
    assert weights == {"default": 1.0, "user": 2.0, "code": 1.5}
