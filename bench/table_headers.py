"""Which tables of the corpora have no header row, and why (``text.no_header``).

    .venv/bin/python bench/table_headers.py [--cache DIR] [CORPUS_DIR ...]

Imports each corpus (or reads it from the libraries ``cross_corpus.py --cache DIR`` keeps)
and reads the first row of every table, once per table (a table cut into chunks repeats
it): how many are column headings, and how many are a sentence, a setting and its value,
or a title, each of those listed with its manual and page, for reading by eye whether a
rule mistook a row of headings.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cross_corpus import SHARED, open_library  # noqa: E402

from app.retrieval.text import first_band, no_header  # noqa: E402

DEFAULT_CORPORA = (SHARED / "corpus", SHARED / "corpus2", ROOT / "manuals")


def first_rows(corpus: Path, cache: Path | None) -> list[tuple[str, int, str, str]]:
    """(manual, page, why it is no header or "", the row) of every table of a corpus."""
    library, _ = open_library(corpus, cache)
    out = []
    try:
        for doc in library.store.list_documents():
            for page in range(1, doc.pages + 1):
                seen: set[tuple[str, str]] = set()
                for chunk in library.store.page_chunks(doc.id, page):
                    if chunk.kind != "table" or not chunk.lines:
                        continue
                    table = (chunk.heading, chunk.lines[0].text)
                    if table in seen:
                        continue  # the same table, continued in another chunk
                    seen.add(table)
                    band = first_band(chunk.lines)
                    rows = [ln.text for ln in chunk.lines[len(band) : len(band) + 6]]
                    out.append((doc.file_name, page, no_header(band, rows), " / ".join(band)))
    finally:
        library.close()
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", type=Path, default=list(DEFAULT_CORPORA))
    parser.add_argument("--cache", type=Path, help="the libraries cross_corpus.py keeps")
    args = parser.parse_args(argv)
    counts: Counter[str] = Counter()
    for corpus in args.corpora:
        rows = first_rows(corpus, args.cache)
        counts.update(why or "header" for _, _, why, _ in rows)
        print(f"== {corpus}: {len(rows)} tables")
        for name, page, why, text in rows:
            if why:
                print(f"  {why:<9} {name[:28]:<28} p{page:<4} {text[:90]}")
    print("first rows, all corpora:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
