"""Structure from positioned lines: enumerators and bullets set apart still open their item."""

from __future__ import annotations

from app.library.layout import group_blocks
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
