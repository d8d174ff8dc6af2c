"""Judge consistency: how steady the judge's score is when it judges the same answer again.

Each question of the dataset is answered once, blind, by the real agent (built as
``python -m app bench`` builds it, from the settings and the library); then the judge
grades that one answer ``--repeats`` times. Per question the table gives the scores, their
mean, population standard deviation and range; overall: the mean stdev, the share of
questions whose scores all agree, the largest spread, the verdicts the LLM reached versus
those that fell back to the key-fact check, and the seconds spent.

Without ``--llm`` the judge is the one ``bench`` uses: the LLM judge when the agent has an
LLM, else the deterministic key-fact check, whose spread is 0 by construction (that shows
the fallback is deterministic, not that a model is steady). ``--llm`` names the judge's
model (an id or a folder, e.g. the SmolLM2-135M test model in ``models/``) and
``--temperature`` samples it (``--max-tokens`` shortens its replies on a slow CPU); the
agent still answers as its settings say. Unanswerable questions and abstentions are scored
by rule, without asking the model (marked "rule"); a verdict the model's reply could not
give falls back to the key-fact check (counted per question under "fb").

    .venv/bin/python bench/judge_consistency.py --dataset manuals/questions.json \\
        --library DIR [--repeats 5] [--llm MODEL_ID_OR_PATH] [--temperature 0.7] [--limit N]
        [--max-tokens 400]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")  # a shared 2-core box stalls on BLAS threads

from app.agent.service import build_answerer  # noqa: E402
from app.bench.dataset import BenchItem, load_dataset  # noqa: E402
from app.bench.judge import (  # noqa: E402
    Judge,
    KeyFactJudge,
    LlmJudge,
    judge_consistency,
    make_judge,
    rule_verdict,
)
from app.bench.runner import ask_blind  # noqa: E402
from app.config import load_settings  # noqa: E402
from app.library.embedding import make_embedder  # noqa: E402
from app.library.library import Library  # noqa: E402


def make_bench_judge(answerer: Any, settings: Any, args: argparse.Namespace) -> Judge:
    """The judge on ``--llm`` (id or folder) when given, else the one ``bench`` would use."""
    backend = answerer.resources.llm
    if args.llm:
        from app.runtime.registry import ModelRegistry

        handle = ModelRegistry(settings).get(args.llm)
        backend = lambda: handle.backend  # noqa: E731 (loaded on the first verdict)
    judge = make_judge(backend)
    if isinstance(judge, LlmJudge):
        judge.temperature, judge.max_tokens = args.temperature, args.max_tokens
    return judge


def measure(
    answerer: Any, judge: Judge, items: list[BenchItem], repeats: int
) -> list[dict[str, Any]]:
    """Per question: the agent's answer once, then ``judge_consistency`` on it."""
    rows = []
    for item in items:
        started = time.perf_counter()
        record = ask_blind(item.query, answerer.ask)
        answered = time.perf_counter()
        result = judge_consistency(judge, item, record["answer"], record["abstained"], repeats)
        result.update(
            id=item.id,
            ruled=rule_verdict(item, record["abstained"], judge.method) is not None,
            answer_s=answered - started,
            judge_s=time.perf_counter() - answered,
        )
        rows.append(result)
        print(f"  {item.id}: judged {result['scores']}", file=sys.stderr, flush=True)
    return rows


def report(rows: list[dict[str, Any]], judge: Judge, repeats: int) -> None:
    """The per-question table, then the overall figures."""
    head = f"{'id':<6}{'how':<11}{'scores':<28}{'mean':>7}{'stdev':>7}{'range':>10}{'fb':>4}"
    print(f"{head}{'judge s':>9}")
    for r in rows:
        scores = ", ".join(map(str, r["scores"]))
        how = "rule" if r["ruled"] else judge.method
        span = f"{r['min']}-{r['max']}"
        print(
            f"{r['id']:<6}{how:<11}{scores:<28}{r['mean']:>7.1f}{r['stdev']:>7.1f}{span:>10}"
            f"{r['fallbacks']:>4}{r['judge_s']:>9.1f}"
        )
    asked = [r for r in rows if not r["ruled"]]
    verdicts = len(asked) * repeats
    fallbacks = sum(r["fallbacks"] for r in asked)
    agree = sum(r["spread"] == 0 for r in rows)
    agree_asked = sum(r["spread"] == 0 for r in asked)
    print()
    print(f"judge: {judge.method} ({getattr(judge, 'description', '')})")
    print(f"questions: {len(rows)} ({len(asked)} graded by the judge, the rest by rule)")
    print(f"mean stdev: {statistics.fmean(r['stdev'] for r in rows):.2f}", end="")
    if asked:
        print(f" (graded only: {statistics.fmean(r['stdev'] for r in asked):.2f})", end="")
    print()
    print(
        f"scores all agree: {agree}/{len(rows)} = {agree / len(rows):.0%}"
        f" (graded only: {agree_asked}/{len(asked)})"
    )
    print(f"max spread: {max(r['spread'] for r in rows)} points")
    if judge.method == "llm":
        print(f"verdicts: {verdicts - fallbacks} by the LLM, {fallbacks} key-fact fallbacks")
        if verdicts and fallbacks == verdicts:
            print("every verdict fell back: the spread is the key-fact check's, not the LLM's")
    else:
        print(
            "verdicts: all by the deterministic key-fact check; its spread is 0 by"
            " construction: this shows the fallback, not a model's consistency"
        )
    answer_s, judge_s = (sum(r[k] for r in rows) for k in ("answer_s", "judge_s"))
    per = judge_s / max(verdicts, 1)
    print(f"seconds: answering {answer_s:.1f}, judging {judge_s:.1f} ({per:.2f} per verdict)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", type=Path, required=True, help="benchmark dataset (JSON)")
    parser.add_argument("--library", type=Path, required=True, help="library folder")
    parser.add_argument("--repeats", type=int, default=5, help="verdicts per answer")
    parser.add_argument("--llm", default="", help="judge model id or folder (default: bench's)")
    parser.add_argument("--temperature", type=float, default=0.0, help="LLM judge temperature")
    parser.add_argument("--limit", type=int, help="only the first N questions")
    parser.add_argument(
        "--max-tokens", type=int, default=400, help="LLM judge's reply length (400 as in bench)"
    )
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    items = load_dataset(args.dataset)[: args.limit]
    settings = load_settings(library_dir=args.library)
    library = Library.open(settings.library_dir)
    started = time.perf_counter()
    answerer = build_answerer(library, settings, embedder=make_embedder(settings.embedder))
    judge = make_bench_judge(answerer, settings, args)
    print(
        f"{len(items)} questions x {args.repeats} verdicts; agent: {answerer.llm_choice.reason}",
        file=sys.stderr,
    )
    if isinstance(judge, KeyFactJudge):
        print("no LLM judge: the deterministic key-fact check grades every answer")
    rows = measure(answerer, judge, items, args.repeats)
    report(rows, judge, args.repeats)
    print(f"wall time: {time.perf_counter() - started:.1f} s")
    library.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
