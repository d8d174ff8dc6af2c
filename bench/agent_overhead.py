"""Agent overhead: time per question the decision loop spends outside search and models.

Each question runs through ``Tree.ask``; its trace splits the wall time into search (text
and visual), the answerer's and models' calls, and the rest: the loop's own cost (state,
decisions of the rule policy, events, the critic's checks, building and writing the
trace). Two modes are measured on the same library:

- no-LLM: the rule-based policy and the extractive answerer (the default mode);
- scripted LLM: a FakeLLM answers every DSPy signature instantly, so its column is DSPy's
  own formatting and parsing plus the loop, with no model time at all.

Target: loop cost under 20 ms per question. By default the sample manuals are imported
into a temporary library with the hashing embedder (seconds); ``--library`` uses a real one.

    .venv/bin/python bench/agent_overhead.py [--library DIR] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")  # a shared 2-core box stalls on BLAS threads

from app.agent.events import Done  # noqa: E402
from app.agent.loop import Tree  # noqa: E402
from app.agent.service import ModelChoice, build_answerer  # noqa: E402
from app.config import Settings  # noqa: E402
from app.library.embedding import Embedder, HashingEmbedder, make_embedder  # noqa: E402
from app.library.importer import Importer, import_blocking  # noqa: E402
from app.library.library import Library  # noqa: E402
from app.runtime.fake import FakeLLM  # noqa: E402

SEARCH = ("search", "visual search")
ANSWERER = ("answerer", "vlm")
COLUMNS = ("total", "search", "answerer", "llm", "loop")
GROUNDED = (
    "[[ ## grounded ## ]]\nTrue\n\n[[ ## unsupported_claims ## ]]\n[]\n\n[[ ## completed ## ]]"
)


def sample_library(folder: Path) -> Library:
    library = Library.open(folder / "library")
    importer = Importer(library, Settings(ocr_engine="none"), embedder=HashingEmbedder())
    import_blocking(importer, [REPO / "manuals"])
    return library


def scripted_reply(messages: list[dict[str, Any]]) -> str:
    """An instant reply to any of the agent's signatures, in DSPy's field format."""
    system, user = messages[0]["content"], messages[-1]["content"]
    if "`grounded`" in system:
        return GROUNDED
    if "`answerable`" in system:
        body = "The manual states it on the cited page [1]."
        return (
            f"[[ ## answerable ## ]]\nTrue\n\n[[ ## answer ## ]]\n{body}\n\n[[ ## completed ## ]]"
        )
    tool = "answer" if "1. text_search" in user else "text_search"
    inputs = json.dumps({"query": "terminal wiring"} if tool == "text_search" else {})
    return (
        f"[[ ## reasoning ## ]]\nnext step\n\n[[ ## tool ## ]]\n{tool}\n\n"
        f"[[ ## tool_inputs ## ]]\n{inputs}\n\n[[ ## completed ## ]]"
    )


def agent(library: Library, embedder: Embedder, llm: Callable[[], Any] | None) -> Tree:
    tree = build_answerer(
        library,
        Settings(library_dir=library.root),
        embedder=embedder,
        models=ModelChoice(llm, None, "bench"),
    )
    tree.traces_dir = Path(tempfile.mkdtemp(prefix="lantern-traces-"))
    return tree


def measure(tree: Tree, questions: list[str], rounds: int) -> dict[str, list[float]]:
    """Per question: total, search, answerer, LLM-call and loop seconds, from its trace."""
    rows: dict[str, list[float]] = {k: [] for k in COLUMNS}
    for _ in range(rounds):
        for question in questions:
            done = next(e for e in tree.ask(question) if isinstance(e, Done))
            external = json.loads(Path(done.trace).read_text(encoding="utf-8"))["timings"][
                "external"
            ]
            parts = {
                "search": sum(external.get(k, 0.0) for k in SEARCH),
                "answerer": sum(external.get(k, 0.0) for k in ANSWERER),
                "llm": external.get("llm", 0.0),
            }
            rows["total"].append(done.seconds)
            for key, value in parts.items():
                rows[key].append(value)
            rows["loop"].append(max(done.seconds - sum(parts.values()), 0.0))
    return rows


def report(name: str, rows: dict[str, list[float]], with_llm: bool) -> float:
    """Print a mode's row; return its loop cost (with DSPy's when the model is scripted)."""

    def ms(values: list[float], q: int) -> float:
        ordered = sorted(values)
        return 1000 * ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]

    cells = "".join(f"{ms(rows[k], 50):>8.1f}{ms(rows[k], 95):>8.1f}" for k in COLUMNS)
    print(f"{name:<14}{cells}")
    own = rows["loop"]
    if with_llm:
        own = [a + b for a, b in zip(rows["loop"], rows["llm"], strict=True)]
    return statistics.median(own) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--library", type=Path, help="a library folder (default: sample manuals)")
    parser.add_argument("--embedder", default="minilm", help="embedder of --library")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.library:
        library, embedder = Library.open(args.library), make_embedder(args.embedder)
    else:
        library, embedder = sample_library(Path(tempfile.mkdtemp())), HashingEmbedder()
    questions = [q["query"] for q in json.loads((REPO / "manuals" / "questions.json").read_text())]
    fake = FakeLLM(default=scripted_reply)
    modes = {
        "no-LLM": agent(library, embedder, None),
        "scripted LLM": agent(library, embedder, lambda: fake),
    }
    for tree in modes.values():  # warm up: embedder load, first queries, DSPy import
        measure(tree, questions[:2], 1)
    print(f"{len(questions)} questions x {args.rounds} rounds; ms, p50 and p95 per column")
    print(f"{'mode':<14}" + "".join(f"{k:>16}" for k in COLUMNS))
    costs = {
        name: report(name, measure(tree, questions, args.rounds), tree.mode == "llm")
        for name, tree in modes.items()
    }
    for name, cost in costs.items():
        verdict = "ok" if cost < 20 else "OVER"
        print(f"loop cost p50, {name}: {cost:.1f} ms per question (target < 20 ms): {verdict}")
    library.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
