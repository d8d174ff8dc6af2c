"""Search with a typing slip in the question: Lantern beside the naive baseline.

    .venv/bin/python bench/typos.py --cache DIR [--lower | --codes]

Each answerable question of the development and held-out sets is searched as written
and with one slip of typing: in its rarest word of six letters or more that the library
prints (fewest pages), the two middle letters swapped ("propane" -> "prpoane"). Printed
per set, in one run: Hit@1 and Hit@3 of the page search as written and with the slip,
for Lantern, for Lantern without reading misspelt words as the library's
(``TextSearch.corrections`` switched off), and for the naive baseline
(``bench/baseline.py``). The page search is the first stage of an answer: what it ranks
first is what the answer quotes. Last, every word the check replaces in the questions of
all the sets as written (unanswerable ones and the ``-other`` sets too): there it should
replace none.

With ``--lower`` the second column is each question typed as on a phone instead: in lower
case, without its question marks and commas ("shut the bg96 down how long do i keep it
pressed"). With ``--codes`` it is each question with its model codes written another way
(``respelled``): a hyphen dropped ("BOGP-3" -> "BOGP3", "UV-K5" -> "UVK5") or put between
letters and digits ("DYN2" -> "DYN-2", "C240" -> "C-240", "E05" -> "E-05").
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from baseline import NaiveBaseline  # noqa: E402
from cross_corpus import (  # noqa: E402
    DEFAULT_SETS,
    TEST_ONLY,
    BenchSet,
    lowered,
    open_library,
    respelled,
)

from app.bench.dataset import load_dataset  # noqa: E402
from app.library.embedding import make_embedder  # noqa: E402
from app.retrieval.text import TextSearch  # noqa: E402

SETS = tuple(s for s in DEFAULT_SETS if not s.partition("=")[0].endswith("-other"))
LONG_WORD = re.compile(r"[a-z]{6,}")  # a word of six letters or more


class LiteralSearch(TextSearch):
    """Lantern's search taking every word as written."""

    def corrections(self, text: str) -> dict[str, str]:
        return {}


def slip(word: str) -> str:
    """The word with its two middle letters swapped."""
    i = len(word) // 2
    return word[: i - 1] + word[i] + word[i - 1] + word[i + 1 :]


def with_slip(question: str, pages_with: dict[str, int]) -> str | None:
    """The question with a slip in its rarest long word the library prints, or None."""
    words = [w for w in LONG_WORD.findall(question) if pages_with.get(w)]
    if not words:
        return None
    word = min(words, key=lambda w: (pages_with[w], w))
    return re.sub(rf"\b{word}\b", slip(word), question, count=1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, help="the libraries cross_corpus.py keeps")
    parser.add_argument(
        "--lower", action="store_true", help="the question in lower case, not with a slip"
    )
    parser.add_argument(
        "--codes", action="store_true", help="its codes written another way, not with a slip"
    )
    args = parser.parse_args(argv)
    embedder = make_embedder("minilm")
    libraries: dict[Path, object] = {}
    typed = "lower" if args.lower else "codes" if args.codes else "slip"
    header = f"{'set':<16}{'system':<22}{'n':>4}{'Hit@1':>8}{typed:>8}{'Hit@3':>8}{typed:>8}"
    print(header)
    totals: dict[str, list[int]] = {}
    for spec in SETS:
        bench_set = BenchSet.parse(spec)
        if not bench_set.corpus.is_dir() or not bench_set.dataset.is_file():
            print(f"skipping {bench_set.name}: corpus or dataset missing")
            continue
        if bench_set.corpus not in libraries:
            libraries[bench_set.corpus] = open_library(bench_set.corpus, args.cache)[0]
        store = libraries[bench_set.corpus].store  # type: ignore[attr-defined]
        systems = {
            "lantern": TextSearch(store, embedder),
            "lantern, as written": LiteralSearch(store, embedder),
        }
        baseline = NaiveBaseline(store, embedder)
        counts = {name: [0, 0, 0, 0] for name in [*systems, "baseline"]}
        asked = 0
        for item in load_dataset(bench_set.dataset):
            if item.unanswerable:
                continue
            words = set(LONG_WORD.findall(item.query))
            pages_with = {w: systems["lantern"]._pages_with(w) for w in words}
            if args.lower:
                slipped: str | None = lowered(item.query)
            elif args.codes:
                slipped = respelled(item.query)
            else:
                slipped = with_slip(item.query, pages_with)
            if slipped is None:
                continue
            asked += 1
            gold = item.gold_pages()
            for name in counts:
                for column, question in ((0, item.query), (1, slipped)):
                    if name == "baseline":
                        top = [(p.document, p.page) for p in baseline.search(question, k=3)]
                    else:
                        hits = systems[name].search(question, k=3).pages
                        top = [(p.file_name, p.page) for p in hits]
                    counts[name][column] += bool(top[:1] and top[0] in gold)
                    counts[name][column + 2] += bool(set(top) & gold)
        for name, (h1, s1, h3, s3) in counts.items():
            n = asked or 1
            print(
                f"{bench_set.name:<16}{name:<22}{asked:>4}{h1 / n:>8.3f}{s1 / n:>8.3f}"
                f"{h3 / n:>8.3f}{s3 / n:>8.3f}"
            )
            total = totals.setdefault(name, [0, 0, 0, 0, 0])
            for i, value in enumerate((asked, h1, s1, h3, s3)):
                total[i] += value
        for search in systems.values():
            search.close()
    for name, (n, h1, s1, h3, s3) in totals.items():
        n = n or 1
        print(
            f"{'all':<16}{name:<22}{n:>4}{h1 / n:>8.3f}{s1 / n:>8.3f}{h3 / n:>8.3f}{s3 / n:>8.3f}"
        )
    print(f"(sets no choice was fitted on: {', '.join(TEST_ONLY)})")
    replaced = []
    for spec in DEFAULT_SETS:
        bench_set = BenchSet.parse(spec)
        if bench_set.corpus not in libraries or not bench_set.dataset.is_file():
            continue
        search = TextSearch(libraries[bench_set.corpus].store, embedder)  # type: ignore[attr-defined]
        for item in load_dataset(bench_set.dataset):
            for typed, meant in search.corrections(item.query).items():
                replaced.append(f"{bench_set.name} {item.id}: {typed} -> {meant}")
        search.close()
    print(f"words replaced in the questions as written: {len(replaced)}")
    for line in replaced:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
