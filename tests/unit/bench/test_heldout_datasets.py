"""The held-out questions over the second corpus hold what their answers need: every key
fact of an answerable question is printed in the text of one of its gold pages (read off
the page image for the scan with no text layer, which this cannot check), and
unanswerable ones name none. (The set over the first corpus wrote its facts as the scan's
pages print them, which its text layer sometimes misreads: "T3.6V" for 13.6V.)"""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from app.bench.dataset import load_dataset

ROOT = Path(__file__).resolve().parents[3]
SETS = {"corpus2_heldout.json": ROOT.parent / "shared" / "corpus2"}


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower())


@pytest.mark.parametrize("name", sorted(SETS))
def test_key_facts_are_printed_on_their_gold_pages(name: str) -> None:
    corpus = SETS[name]
    if not corpus.is_dir():
        pytest.skip(f"{corpus} is not beside the repository")
    items = load_dataset(ROOT / "bench" / "datasets" / name)
    docs: dict[str, pymupdf.Document] = {}
    missing = []
    for item in items:
        if item.unanswerable:
            assert not item.key_facts, item.id
            continue
        texts = []
        for document, page in sorted(item.gold_pages()):
            doc = docs.setdefault(document, pymupdf.open(corpus / document))
            texts.append(_normal(doc[page - 1].get_text()))
        if not any(t.strip() for t in texts):
            continue  # a scan with no text layer: its facts were read off the image
        for fact in item.key_facts:
            fact = _normal(fact)
            if not any(fact in t or fact.replace(" ", "") in t.replace(" ", "") for t in texts):
                missing.append((item.id, fact))
    assert not missing
