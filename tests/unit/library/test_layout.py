"""Structure from positioned lines: enumerators and bullets set apart still open their item,
labels set apart from their values are joined to them."""

from __future__ import annotations

from app.library.layout import group_blocks, join_label_values
from app.library.models import TextLine


def test_an_enumerator_in_its_own_block_joins_the_title_after_it() -> None:
    enumerator = [TextLine("B.", (10, 10, 20, 20))]
    body = [
        TextLine("Printer and Computer Interface Specifications:", (60, 10, 300, 20)),
        TextLine("The outputs are set up as follows.", (60, 30, 300, 40)),
    ]
    blocks = group_blocks([enumerator, body], body_size=0.0)
    assert [b.kind for b in blocks] == ["heading", "paragraph"]
    assert blocks[0].text == "B. Printer and Computer Interface Specifications:"
    assert blocks[0].box == (10, 10, 300, 20)


def test_a_numbered_step_in_lower_case_stays_a_list_item() -> None:
    lines = [TextLine("3.", (10, 50, 20, 60)), TextLine("connect the wires.", (30, 50, 300, 60))]
    (block,) = group_blocks([lines], body_size=0.0)
    assert block.kind == "list_item" and block.text == "3. connect the wires."


def _texts(groups: list[list[TextLine]]) -> list[list[str]]:
    return [[ln.text for ln in group] for group in groups]


def test_a_label_column_is_joined_row_by_row_to_the_values_beside_it() -> None:
    # A specification list set as two blocks: labels right-aligned, values beside them.
    labels = [
        TextLine("Channel:", (91, 69, 125, 77)),
        TextLine("Frequency Stability\uff1a", (57, 95, 125, 103)),
        TextLine("Weight:", (96, 120, 125, 128)),
    ]
    values = [
        TextLine("200", (135, 69, 150, 77)),
        TextLine("\u00b11ppm", (135, 95, 160, 103)),
        TextLine("234g", (135, 120, 152, 128)),
    ]
    joined = join_label_values([labels, values])
    assert _texts(joined) == [
        ["Channel: 200", "Frequency Stability\uff1a \u00b11ppm", "Weight: 234g"]
    ]
    assert joined[0][1].box == (57, 95, 160, 103)


def test_a_value_goes_to_the_nearest_label_and_a_label_is_no_value() -> None:
    left = TextLine("Name:", (10, 10, 40, 20))
    right = TextLine("Address:", (50, 10, 90, 20))  # a label beside a label: a form
    value = TextLine("12 High St", (95, 10, 150, 20))
    assert _texts(join_label_values([[left], [right], [value]])) == [
        ["Name:"],
        ["Address: 12 High St"],
    ]


def test_lines_of_another_row_or_column_are_not_joined() -> None:
    label = TextLine("Before you start, check the following:", (10, 100, 190, 110))
    below = TextLine("the supply is off", (10, 112, 100, 122))  # the next row
    other_column = TextLine("Fig. 3 The front panel", (230, 100, 330, 110))  # a gutter away
    groups = [[label, below], [other_column]]
    assert _texts(join_label_values(groups)) == _texts(groups)


def test_a_bold_label_before_plain_text_makes_no_heading() -> None:
    label = TextLine("WAITING LED:", (20, 50, 80, 60), 10.0, True)
    text = TextLine("When lit, a message is waiting", (90, 50, 320, 60), 10.0)
    (group,) = join_label_values([[label], [text]])
    (line,) = group
    assert not line.bold
    (block,) = group_blocks([group], body_size=10.0)
    assert block.kind == "paragraph"
    assert block.text == "WAITING LED: When lit, a message is waiting"


def test_a_numbered_section_title_keeps_its_text_apart() -> None:
    title = TextLine("3. MANUAL Mode on Computer Failure:", (20, 50, 200, 60))
    text = TextLine("As an option, the No. 685 may be set", (210, 50, 400, 60))
    groups = [[title], [text]]
    assert _texts(join_label_values(groups)) == _texts(groups)


def test_a_title_whose_number_is_set_apart_keeps_its_text_apart() -> None:
    # A scan sets "3." as a block of its own; it meets its title only in group_blocks.
    number = TextLine("3.", (20, 50, 32, 60))
    title = TextLine("DISPLAY NEXT MESSAGE Switch:", (45, 50, 200, 60))
    text = TextLine("This momentary action pushbutton is used", (210, 50, 400, 60))
    groups = [[number], [title], [text]]
    assert _texts(join_label_values(groups)) == _texts(groups)
    blocks = group_blocks(join_label_values(groups), body_size=0.0)
    assert blocks[0].text == "3. DISPLAY NEXT MESSAGE Switch:"


def test_a_number_on_another_row_leaves_a_label_its_value() -> None:
    number = TextLine("3.", (20, 30, 32, 40))  # the row above
    label = TextLine("Weight:", (45, 50, 80, 60))
    value = TextLine("234 g", (90, 50, 120, 60))
    assert _texts(join_label_values([[number], [label], [value]])) == [
        ["3."],
        ["Weight: 234 g"],
    ]
