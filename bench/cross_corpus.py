"""Lantern beside the naive baseline on every development corpus, in one run.

    .venv/bin/python bench/cross_corpus.py [--cache DIR] [--out FILE]
        [--lower | --codes | --spelling british|american] [--together]

Each corpus is imported into a library of its own (a temporary one, or ``--cache DIR/<name>``
kept between runs: importing again skips manuals already there by hash, so only the first
run pays for OCR). Then every question of its dataset is asked blind, with no LLM, by
Lantern (the same path as ``python -m app ask``) and by the naive baseline
(``bench/baseline.py``). Printed per corpus and per category: Hit@1/3/5, MRR, manual
accuracy, key-fact recall, key facts under the highlighted regions, unanswerables
abstained, false abstentions, answers hedged ("the manuals may not state this exactly"),
the median answer length in characters, answer latency p50/p95. Overall, beside Hit@1/3
and the unanswerables declined: for how many answerable questions a right page is among
the pages a model would answer from in LLM mode (``app.bench.evidence``, read back from
each question's trace).

Sets are ``NAME=CORPUS_DIR:DATASET``; by default the two development corpora, held-out
questions over each (``bench/datasets``), the repository's generated sample manuals, and
questions over each corpus about equipment whose manual is not in it (``-other``). The
held-out questions over the second corpus and the ``-other`` sets (``TEST_ONLY``) are left
out of every fit. The ``_NOTEXT`` copy of a scan is left out, as the development set's
README says. With ``--lower`` every question is asked as typed on a phone: in lower case,
without its question marks and commas (``lowered``); with ``--codes``, with its codes
written another way (``respelled``: "BOGP-3" as "BOGP3", "DYN2" as "DYN-2"); with
``--spelling british`` (or ``american``), with its words spelled as in British (American)
English (``in_spelling``: "color" as "colour", "analog" as "analogue"). With ``--together``
every set's manuals go into one library (``--cache DIR/together``), as on the van of a
technician of several trades, and each set's questions are asked there: the right manual
must be found among all of them, and what is generic is read off all of them.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from baseline import NaiveBaseline  # noqa: E402

from app.agent.extractive import HEDGE_LEAD  # noqa: E402
from app.agent.tools.answer import EVIDENCE_PAGES  # noqa: E402
from app.bench.dataset import BenchItem, load_dataset  # noqa: E402
from app.bench.evidence import evidence_pages  # noqa: E402
from app.bench.judge import KeyFactJudge  # noqa: E402
from app.bench.metrics import summarise  # noqa: E402
from app.bench.regions import region_figures, summarise_regions  # noqa: E402
from app.bench.runner import ask_blind, judge_record  # noqa: E402

SHARED = ROOT.parent / "shared"
DATASETS = ROOT / "bench" / "datasets"
DEFAULT_SETS = (
    f"alarm={SHARED / 'corpus'}:{SHARED / 'bench' / 'dev.json'}",
    f"trades={SHARED / 'corpus2'}:{SHARED / 'bench' / 'dev2.json'}",
    f"alarm-heldout={SHARED / 'corpus'}:{ROOT / 'bench' / 'datasets' / 'corpus_heldout.json'}",
    f"trades-heldout={SHARED / 'corpus2'}:{ROOT / 'bench' / 'datasets' / 'corpus2_heldout.json'}",
    f"samples={ROOT / 'manuals'}:{ROOT / 'manuals' / 'questions.json'}",
    f"alarm-other={SHARED / 'corpus'}:{DATASETS / 'other_equipment_alarm.json'}",
    f"trades-other={SHARED / 'corpus2'}:{DATASETS / 'other_equipment_trades.json'}",
)
# Questions no ranking or abstention choice is made on: the fitting scripts leave them out
# (``FIT_SETS``), so this set says how a choice does on questions it never saw.
# The "-other" sets ask only about equipment whose manual is not in the library (another
# maker's panel, an accessory no manual prints), written blind from the PDFs: they say
# whether Lantern declines them instead of answering from a manual that shares words.
TEST_ONLY = ("trades-heldout", "alarm-other", "trades-other")
FIT_SETS = tuple(s for s in DEFAULT_SETS if s.partition("=")[0] not in TEST_ONLY)
SKIP_NAMES = ("_NOTEXT",)
# The cache folder of the one library ``--together`` imports every set's manuals into.
TOGETHER = "together"


@dataclass(frozen=True, slots=True)
class BenchSet:
    name: str
    corpus: Path
    dataset: Path

    @classmethod
    def parse(cls, spec: str) -> BenchSet:
        name, _, rest = spec.partition("=")
        corpus, _, dataset = rest.partition(":")
        if not (name and corpus and dataset):
            raise SystemExit(f"error: a set is NAME=CORPUS_DIR:DATASET, not {spec!r}")
        return cls(name, Path(corpus), Path(dataset))


def corpus_pdfs(corpus: Path) -> list[Path]:
    return sorted(
        p for p in corpus.glob("*.pdf") if p.is_file() and not any(s in p.name for s in SKIP_NAMES)
    )


def open_library(
    corpus: Path | Sequence[Path], cache: Path | None, name: str | None = None
) -> tuple[Any, Any]:
    """The corpus's library (imported now, or topped up from the cache) and settings. Given
    several corpora, one library holds them all (``--together``), kept as ``name``."""
    from app.config import load_settings
    from app.library.importer import Importer
    from app.library.library import Library
    from app.retrieval import line_index

    corpora = [corpus] if isinstance(corpus, Path) else list(corpus)
    name = name or corpora[0].resolve().name
    folder = cache / name if cache else Path(tempfile.mkdtemp(prefix=f"lantern-{name}-"))
    settings = load_settings(library_dir=folder, llm="none", colqwen="", vlm="")
    library = Library.open(folder)
    started = time.perf_counter()
    pdfs = [pdf for each in corpora for pdf in corpus_pdfs(each)]
    for event in Importer(library, settings).import_paths(pdfs):
        status = getattr(event, "status", None)
        if status is not None:
            print(f"  {Path(event.path).name}: {status} {event.reason}".rstrip(), file=sys.stderr)
    line_index.fill_all(library.store)  # as the app does after an import
    print(f"  library ready in {time.perf_counter() - started:.0f} s: {folder}", file=sys.stderr)
    return library, settings


def cached(path: Path | None, sets: Sequence[BenchSet], cache: Path | None, collect: Any) -> Any:
    """What ``collect(usable sets, cache)`` returns, read from ``path`` when it exists and
    saved there when given: the fitting scripts' figures come again in seconds."""
    if path is not None and path.is_file():
        return pickle.loads(path.read_bytes())
    usable = [s for s in sets if s.corpus.is_dir() and s.dataset.is_file()]
    found = collect(usable, cache)
    if path is not None:
        path.write_bytes(pickle.dumps(found))
    return found


def run_lantern(library: Any, settings: Any, items: Sequence[BenchItem]) -> list[dict[str, Any]]:
    from app.agent.service import build_answerer

    answerer = build_answerer(library, settings)
    judge = KeyFactJudge()
    for warm in ("warm-up",):  # the first question pays for loading the embedder
        list(answerer.ask(warm))
    records = []
    for item in items:
        record = judge_record(item, ask_blind(item.query, answerer.ask), judge)
        record["regions"] = region_figures(library.store, item, record)
        record["evidence"] = llm_evidence(record)
        if not item.unanswerable:
            gold = item.gold_pages()
            record["evidence_hit"] = any(tuple(p) in gold for p in record["evidence"])
        records.append(record)
    return records


def llm_evidence(record: dict[str, Any]) -> list[tuple[str, int]]:
    """The pages a model would answer from in LLM mode (``evidence_pages``), read back
    from the question's trace; none without a trace."""
    trace = record.get("trace")
    if not trace or not Path(trace).is_file():
        return []
    return evidence_pages(json.loads(Path(trace).read_text("utf-8")))


def run_baseline(library: Any, items: Sequence[BenchItem]) -> list[dict[str, Any]]:
    from app.library.embedding import make_embedder

    baseline = NaiveBaseline(library.store, make_embedder("minilm"))
    judge = KeyFactJudge()
    records = []
    for item in items:
        started = time.perf_counter()
        pages = baseline.search(item.query)
        record = {
            "answer": "",
            "abstained": False,
            "citations": [],
            "pages": [{"document": p.document, "page": p.page, "score": p.score} for p in pages],
            "timings": {"total": round(time.perf_counter() - started, 4)},
        }
        records.append(judge_record(item, record, judge))
    return records


COLUMNS = (
    ("questions", "n", "{}"),
    ("hit@1", "Hit@1", "{:.3f}"),
    ("hit@3", "Hit@3", "{:.3f}"),
    ("hit@5", "Hit@5", "{:.3f}"),
    ("mrr", "MRR", "{:.3f}"),
    ("manual_accuracy", "manual", "{:.3f}"),
    ("key_fact_recall", "facts", "{:.3f}"),
    ("region_fact_recall", "in-region", "{:.3f}"),
    ("abstained", "unans-abst", "{}"),
    ("false_abstentions", "false-abst", "{}"),
    ("hedged", "hedged", "{}"),
    ("answer_chars_p50", "chars p50", "{:.0f}"),
    ("latency_p50_s", "p50 ms", "ms"),
    ("latency_p95_s", "p95 ms", "ms"),
)


def block(items: Sequence[BenchItem], records: Sequence[dict[str, Any]], answers: bool) -> dict:
    """The summary's figures for some questions (answer figures only where there are
    answers: the baseline only ranks pages)."""
    summary = summarise(items, records)
    rows = {"all": summary, **summary["per_category"]}
    out = {}
    for name, figures in rows.items():
        chosen = [
            (i, r)
            for i, r in zip(items, records, strict=True)
            if name == "all" or i.category == name
        ]
        unans = [r for i, r in chosen if i.unanswerable]
        row = dict(figures)
        row["abstained"] = f"{sum(r['abstained'] for r in unans)}/{len(unans)}" if unans else "-"
        if answers:
            row.update(summarise_regions([i for i, _ in chosen], [r for _, r in chosen]))
            answered = [r["answer"] for _, r in chosen if not r["abstained"]]
            # Answers that say the manuals may not state it exactly, and how long answers are.
            row["hedged"] = sum(a.startswith(HEDGE_LEAD) for a in answered)
            row["answer_chars_p50"] = statistics.median(map(len, answered)) if answered else None
        else:
            for key in ("key_fact_recall", "abstained", "false_abstentions", "hedged"):
                row[key] = None
            row["region_fact_recall"] = row["answer_chars_p50"] = None
        out[name] = row
    return out


def format_table(title: str, systems: dict[str, dict[str, dict]]) -> str:
    heads = "".join(f"{h:>11}" for _, h, _ in COLUMNS)
    lines = [title, f"{'category':<14}{'system':<10}{heads}"]
    categories = list(next(iter(systems.values())))
    for category in categories:
        for system, rows in systems.items():
            row = rows.get(category, {})
            cells = []
            for key, _, fmt in COLUMNS:
                value = row.get(key)
                if value is None:
                    cells.append("-")
                elif fmt == "ms":
                    cells.append(f"{1000 * value:.0f}")
                else:
                    cells.append(fmt.format(value))
            lines.append(f"{category:<14}{system:<10}" + "".join(f"{c:>11}" for c in cells))
    return "\n".join(lines)


def lowered(question: str) -> str:
    """A question typed as on a phone: lower case, no question marks or commas."""
    return re.sub(r"[?!,;]", " ", question.lower())


_MODEL_CODE = re.compile(r"\b[A-Za-z]+(?:-?[A-Za-z0-9]+)*\b")


def respelled(question: str) -> str:
    """The question with each code of letters and digits written another way: without its
    hyphens, or with one where its first letters meet its first digit."""

    def other(match: re.Match[str]) -> str:
        code = match.group()
        if not (re.search(r"[A-Za-z]", code) and re.search(r"\d", code)):
            return code
        if "-" in code:
            return code.replace("-", "")
        return re.sub(r"(?<=[A-Za-z])(?=\d)", "-", code, count=1)

    return _MODEL_CODE.sub(other, question)


def in_spelling(question: str, dialect: str) -> str:
    """The question with each word breame's lists spell otherwise in ``dialect``
    ("british": "color" -> "colour", "center" -> "centre"; "american": the other way),
    when the English lexicon knows that spelling too ("filter" is not written "philtre").
    A word in capitals is a code ("AX" is no "axe")."""
    from breame.data.spelling_constants import (
        AMERICAN_ENGLISH_SPELLINGS,
        BRITISH_ENGLISH_SPELLINGS,
    )

    from app.library.textquality import lexicon_knows

    table = AMERICAN_ENGLISH_SPELLINGS if dialect == "british" else BRITISH_ENGLISH_SPELLINGS

    def other(match: re.Match[str]) -> str:
        word = match.group()
        spelled = table.get(word.lower())
        if spelled is None or (word.isupper() and len(word) > 1) or not lexicon_knows(spelled):
            return word
        return spelled.capitalize() if word[0].isupper() else spelled

    return re.sub(r"[A-Za-z]+", other, question)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", dest="sets", help="NAME=CORPUS_DIR:DATASET")
    parser.add_argument("--cache", type=Path, help="keep each corpus's library here")
    parser.add_argument("--out", type=Path, help="write every record and summary as JSON")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument(
        "--together",
        action="store_true",
        help="import every set's manuals into one library, as a van's library of several trades",
    )
    parser.add_argument(
        "--lower", action="store_true", help="ask every question typed in lower case"
    )
    parser.add_argument(
        "--codes", action="store_true", help="ask every question with its codes respelled"
    )
    parser.add_argument(
        "--spelling",
        choices=("british", "american"),
        help="ask every question spelled as in British or American English",
    )
    args = parser.parse_args(argv)
    sets = [BenchSet.parse(s) for s in (args.sets or DEFAULT_SETS)]
    libraries: dict[Path, tuple[Any, Any]] = {}
    if args.together:
        corpora = list(dict.fromkeys(s.corpus for s in sets if s.corpus.is_dir()))
        print(f"== one library of {len(corpora)} corpora", file=sys.stderr)
        shared = open_library(corpora, args.cache, TOGETHER)
        libraries = dict.fromkeys(corpora, shared)
    report: dict[str, Any] = {}
    tables = []
    for bench_set in sets:
        if not bench_set.corpus.is_dir() or not bench_set.dataset.is_file():
            print(f"skipping {bench_set.name}: {bench_set.corpus} or dataset missing")
            continue
        print(f"== {bench_set.name}: {bench_set.corpus}", file=sys.stderr)
        if bench_set.corpus not in libraries:
            libraries[bench_set.corpus] = open_library(bench_set.corpus, args.cache)
        library, settings = libraries[bench_set.corpus]
        items = load_dataset(bench_set.dataset)
        if args.lower:
            items = [replace(item, query=lowered(item.query)) for item in items]
        if args.codes:
            items = [replace(item, query=respelled(item.query)) for item in items]
        if args.spelling:
            items = [replace(item, query=in_spelling(item.query, args.spelling)) for item in items]
        systems: dict[str, dict] = {}
        records = {"lantern": run_lantern(library, settings, items)}
        if not args.no_baseline:
            records["baseline"] = run_baseline(library, items)
        for system, recs in records.items():
            systems[system] = block(items, recs, answers=system == "lantern")
        report[bench_set.name] = {"summary": systems, "records": records}
        title = f"{bench_set.name}: {len(items)} questions, {bench_set.dataset.name}"
        tables.append(format_table(title, systems))
        print(tables[-1] + "\n", flush=True)
        if args.out:  # after every set, so a long run's records survive a later failure
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False), "utf-8")
    print_overall(report)
    for library, _ in {id(lib): lib for lib in libraries.values()}.values():
        library.close()
    return 0


def print_overall(report: dict[str, Any]) -> None:
    """Hit@1 and Hit@3 over every answerable question of every set, per system."""
    totals: dict[str, list[int | None]] = {}
    for entry in report.values():
        for system, recs in entry["records"].items():
            ranks = totals.setdefault(system, [])
            ranks += [r["score"]["rank"] for r in recs if r["category"] != "unanswerable"]
    for system, ranks in totals.items():
        n = len(ranks) or 1
        hit = [sum(1 for r in ranks if r is not None and r <= k) / n for k in (1, 3)]
        mrr = statistics.fmean([1 / r if r else 0.0 for r in ranks]) if ranks else 0.0
        print(
            f"overall {system}: {len(ranks)} answerable, Hit@1 {hit[0]:.3f},"
            f" Hit@3 {hit[1]:.3f}, MRR {mrr:.3f}"
        )
    # Unanswerables of two kinds: about the library's own equipment (the manual covers the
    # topic, not the detail asked), and about equipment whose manual is not in it.
    kinds: dict[str, list[bool]] = {"own": [], "other": []}
    false = 0
    for name, entry in report.items():
        records = entry["records"].get("lantern", [])
        kind = kinds["other" if name.endswith("-other") else "own"]
        kind += [bool(r["abstained"]) for r in records if r["category"] == "unanswerable"]
        false += sum(bool(r["abstained"]) for r in records if r["category"] != "unanswerable")
    handed = [
        r["evidence_hit"]
        for entry in report.values()
        for r in entry["records"].get("lantern", [])
        if "evidence_hit" in r
    ]
    if handed:
        print(
            f"overall lantern: a right page among the {EVIDENCE_PAGES} pages an LLM answers"
            f" from for {sum(handed)}/{len(handed)} answerable questions"
        )
    if any(kinds.values()):
        print(
            f"overall lantern: unanswerables declined {sum(kinds['own'])}/{len(kinds['own'])}"
            f" about the library's equipment, {sum(kinds['other'])}/{len(kinds['other'])}"
            f" about other equipment; {false} false abstentions"
        )


if __name__ == "__main__":
    raise SystemExit(main())
