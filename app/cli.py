"""The command line: import, list, remove, ask, bench, optimize, models, screenshot.

Progress goes to stderr, results to stdout; ``--json`` prints one JSON object per line.
Exit status 0 means every requested thing succeeded.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.cli_common import (
    ProgressPrinter,
    answerer_for,
    check_library_dir,
    check_writable,
    open_library,
    print_result,
)
from app.cli_learning import COMMANDS as LEARNING_COMMANDS
from app.cli_learning import add_parsers as add_learning_parsers
from app.cli_library import COMMANDS as LIBRARY_COMMANDS
from app.cli_library import add_parsers as add_library_parsers
from app.config import SettingsError, load_settings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m app", description="Lantern: ask your manuals.")
    sub = parser.add_subparsers(dest="command")

    def with_library(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument("--library", type=Path, help="library folder (default: app-data folder)")
        return p

    p = with_library(sub.add_parser("import", help="import PDFs or folders of PDFs"))
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    same = p.add_mutually_exclusive_group()
    same.add_argument(
        "--replace",
        action="store_true",
        help="a file named or titled like a manual already there is its newer revision",
    )
    same.add_argument("--keep-both", action="store_true", help="... or another manual beside it")

    p = with_library(sub.add_parser("list", help="list the manuals in the library"))
    p.add_argument("--json", action="store_true")

    p = with_library(sub.add_parser("remove", help="remove a manual (id, file name or title)"))
    p.add_argument("doc")

    p = with_library(sub.add_parser("reindex", help="build missing indexes for imported manuals"))
    p.add_argument("--visual", action="store_true", help="ColQwen page vectors (setting colqwen)")
    p.add_argument(
        "--stale",
        action="store_true",
        help="read again the manuals an older version of Lantern read",
    )

    p = with_library(sub.add_parser("ask", help="ask the manuals a question"))
    p.add_argument("question")
    p.add_argument("--json", action="store_true", help="one JSON event per line")
    p.add_argument(
        "--conversation",
        metavar="ID",
        help="a follow-up in this conversation (kept in the library)",
    )
    p.add_argument(
        "--all-revisions", action="store_true", help="search older revisions of manuals too"
    )

    p = with_library(sub.add_parser("bench", help="run a benchmark dataset blind"))
    p.add_argument("dataset", type=Path)
    p.add_argument("--out", type=Path, help="write summary and records as JSON here")

    p = with_library(sub.add_parser("optimize", help="tune the agent's prompts on a dataset"))
    p.add_argument("--dataset", type=Path, help="benchmark dataset to learn from")
    p.add_argument("--optimizer", choices=["miprov2", "gepa"], default="miprov2")
    p.add_argument("--val-share", type=float, default=0.3, help="share kept for validation")
    p.add_argument(
        "--with-feedback", action="store_true", help="add the technician's verified answers"
    )
    p.add_argument("--budget", choices=["light", "medium", "heavy"], default="light")
    p.add_argument("--trials", type=int, help="a quick run: this many trials (GEPA: 10x questions)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the report as JSON")

    p = sub.add_parser("models", help="list local models, or download one")
    p.add_argument("action", nargs="?", choices=["list", "download"], default="list")
    p.add_argument("model_id", nargs="?", help="repository id to download, e.g. org/name")
    p.add_argument("--library", type=Path, help=argparse.SUPPRESS)

    p = with_library(sub.add_parser("screenshot", help="save a picture of the window"))
    p.add_argument("out", type=Path)
    p.add_argument("--question", default="", help="ask this first and wait for the answer")
    p.add_argument("--view", choices=["main", "benchmark", "learning"], default="main")
    p.add_argument(
        "--dataset",
        type=Path,
        help="with --view benchmark and no saved run: the dataset to run (default: the samples)",
    )

    p = with_library(sub.add_parser("open", help="open the window (the default)"))
    p.add_argument(
        "--quit-when-shown",
        action="store_true",
        help="a start-up check: print 'window shown' when the window paints, then quit",
    )
    add_library_parsers(sub, with_library)
    add_learning_parsers(sub, with_library)
    return parser


def run(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or "open"
    try:
        settings = load_settings(library_dir=getattr(args, "library", None))
    except SettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    handler = COMMANDS[command]
    try:
        return handler(args, settings)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def cmd_import(args: argparse.Namespace, settings: Any) -> int:
    from app.library.importer import Importer, ImportProgress, ImportResult, expand_paths
    from app.retrieval import line_index

    if not expand_paths(args.paths):
        print("error: no PDF files found in " + ", ".join(map(str, args.paths)), file=sys.stderr)
        return 1
    check_library_dir(settings.library_dir)
    check_writable(settings.library_dir)
    library = open_library(settings)
    importer = Importer(library, settings)
    importer.on_match = "revision" if args.replace else "keep-both" if args.keep_both else "ask"
    progress = ProgressPrinter(enabled=not args.quiet)
    failed = 0
    for event in importer.import_paths(args.paths):
        if isinstance(event, ImportProgress):
            progress.show(event)
        elif isinstance(event, ImportResult):
            progress.clear()
            failed += event.status == "failed"
            print_result(event)
    # Each new line's terms, read once for every later search (``line_index``).
    for event in line_index.fill_progress(library.store):
        progress.show(event)
    progress.clear()
    library.close()
    return 1 if failed else 0


def cmd_list(args: argparse.Namespace, settings: Any) -> int:
    from app.library.importer import EXTRACTION
    from app.library.store import DB_NAME

    check_library_dir(settings.library_dir)
    if not (settings.library_dir / DB_NAME).is_file() and not _pending(settings):
        if not args.json:
            print(f"The library at {settings.library_dir} is empty.")
        return 0
    library = open_library(settings)
    docs = library.store.list_documents()
    if args.json:
        for doc in docs:
            print(json.dumps(doc.to_dict(), ensure_ascii=False))
    elif not docs:
        print(f"The library at {settings.library_dir} is empty.")
    else:
        for doc in docs:
            ocr = f", {doc.ocr_pages} OCR'd" if doc.ocr_pages else ""
            kind = doc.profile.manual_type
            print(f"{doc.id:>3}  {doc.file_name}  ({doc.pages} pages{ocr}; {kind}: {doc.title})")
        stale = len(library.store.read_before(EXTRACTION))
        if stale:
            print(
                f"{stale} manual(s) were read by an older version of Lantern:"
                " `python -m app reindex --stale` reads them again, for better answers."
            )
    library.close()
    return 0


def _pending(settings: Any) -> bool:
    from app.library.recovery import pending

    return bool(pending(settings.library_dir))


def cmd_remove(args: argparse.Namespace, settings: Any) -> int:
    from app.library.store import StoreError

    check_library_dir(settings.library_dir)
    check_writable(settings.library_dir)
    library = open_library(settings, must_exist=True)
    try:
        doc = library.remove(args.doc)
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        library.close()
    print(f"removed {doc.file_name}")
    return 0


def cmd_reindex(args: argparse.Namespace, settings: Any) -> int:
    from app.library.importer import Importer

    if not args.visual and not args.stale:
        print("nothing to do: pass --stale or --visual", file=sys.stderr)
        return 2
    if args.stale:
        status = _reread_stale(settings)
        if status or not args.visual:
            return status
    if not settings.colqwen:
        print("error: no ColQwen model is configured (setting 'colqwen')", file=sys.stderr)
        return 2
    library = open_library(settings, must_exist=True)
    progress = ProgressPrinter(enabled=True)
    failed = False
    for event in Importer(library, settings).embed_visual():
        if event.message.startswith("visual search unavailable"):
            print(f"error: {event.message}", file=sys.stderr)
            failed = True
        progress.show(event)
    progress.clear()
    library.close()
    return 1 if failed else 0


def _reread_stale(settings: Any) -> int:
    """Read again, in place, every manual an older reading of PDFs wrote."""
    from app.library.importer import (
        EXTRACTION,
        ImportCancelled,
        Importer,
        ImportFailure,
        ImportProgress,
        follow,
    )
    from app.retrieval import line_index

    check_writable(settings.library_dir)
    library = open_library(settings, must_exist=True)
    stale = library.store.read_before(EXTRACTION)
    if not stale:
        print("every manual was read by this version: nothing to read again")
        library.close()
        return 0
    importer = Importer(library, settings)
    progress = ProgressPrinter(enabled=True)

    def show(event: Any) -> None:
        if isinstance(event, ImportProgress):
            progress.show(event)

    failed = 0
    for doc in stale:
        try:
            result = follow(importer.reread(doc.id), show)
        except (ImportFailure, ImportCancelled, OSError) as exc:
            progress.clear()
            print(f"{doc.file_name}: failed: {exc}", file=sys.stderr)
            failed += 1
            continue
        progress.clear()
        ocr = f", {result.ocr_pages} OCR'd" if result.ocr_pages else ""
        print(f"read again {doc.file_name}: {result.pages} pages{ocr}; title: {result.title}")
        for warning in result.warnings:
            print(f"  warning: {warning}")
    for event in line_index.fill_progress(library.store):
        progress.show(event)
    progress.clear()
    library.close()
    return 1 if failed else 0


def cmd_models(args: argparse.Namespace, settings: Any) -> int:
    from app.runtime.download import DownloadError, download_model, format_table, list_models

    if args.action == "list":
        print(format_table(list_models(settings)))
        return 0
    if not args.model_id:
        print("error: models download needs a model id (org/name)", file=sys.stderr)
        return 2

    def show(p: Any) -> None:
        mb = p.bytes_done / 1e6
        total = f"/{p.bytes_total / 1e6:.0f}" if p.bytes_total else ""
        print(
            f"{p.repo_id}: {p.files_done}/{p.files_total} files, {mb:.0f}{total} MB",
            file=sys.stderr,
        )

    # The only network use in Lantern: an explicit download the user asked for.
    try:
        path = download_model(args.model_id, settings.models_dir, show)
    except DownloadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"downloaded {args.model_id} to {path}")
    return 0


def cmd_ask(args: argparse.Namespace, settings: Any) -> int:
    from app.agent.events import Answer, Error, Token, to_json
    from app.cli_library import conversation_for

    if args.all_revisions:
        settings = settings.model_copy(update={"search_old_revisions": True})
    library, answerer = answerer_for(settings)
    chat = conversation_for(library, answerer, args.conversation)
    failed = False
    for event in chat.ask(args.question):
        failed |= isinstance(event, Error) and not event.recoverable
        if args.json:
            print(json.dumps(to_json(event), ensure_ascii=False), flush=True)
        elif isinstance(event, Token):
            if event.reset:
                print("\n[the answer above was not supported by the manuals; revised:]\n")
            print(event.text, end="", flush=True)
        elif isinstance(event, Answer):
            print()
            for i, c in enumerate(event.citations, start=1):
                print(f"  [{i}] {c.document} p.{c.page}: {len(c.regions)} region(s)")
        elif isinstance(event, Error):
            print(f"error: {event.message}", file=sys.stderr)
    library.close()
    return 1 if failed else 0


def cmd_bench(args: argparse.Namespace, settings: Any) -> int:
    from app.bench.dataset import DatasetError, load_dataset
    from app.bench.judge import make_judge
    from app.bench.runner import BenchProgress, format_summary, run_bench
    from app.bench.runs import RunMeta, RunStore, now_iso, runs_dir

    try:
        items = load_dataset(args.dataset)
    except DatasetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from app.bench.regions import region_figures, summarise_regions

    library, answerer = answerer_for(settings)
    judge = make_judge(answerer.resources.llm)
    started = now_iso()
    output: dict[str, Any] = {}
    from app.bench.outcomes import judge_labeller

    labeller = judge_labeller(library.store)
    for event in run_bench(items, answerer.ask, judge=judge, on_judged=labeller):
        if isinstance(event, BenchProgress):
            hit = f"hit at {event.rank}" if event.rank else "no hit"
            score = event.record["judge"]["score"] if event.record else "-"
            print(
                f"[{event.done}/{event.total}] {event.item_id}: {hit}, judge {score}",
                file=sys.stderr,
            )
        else:
            output = event
    for item, record in zip(items, output["records"], strict=False):
        record["regions"] = region_figures(library.store, item, record)
    output["summary"]["regions"] = summarise_regions(
        items[: len(output["records"])], output["records"]
    )
    llm_mode = answerer.mode == "llm"
    meta = RunMeta(
        dataset_path=str(args.dataset.resolve()),
        dataset_name=args.dataset.stem,
        library_path=str(library.root),
        started=started,
        finished=now_iso(),
        mode=answerer.llm_choice.run_mode,
        judge_method=judge.method,
        program_version=_run_version(output["records"])
        or (_program_version(library.programs_dir) if llm_mode else None),
        questions=len(output["records"]),
        stopped=output["stopped"],
    )
    saved = RunStore(runs_dir(library.root)).save(output, meta)
    library.close()
    print(format_summary(output["summary"]))
    regions = output["summary"]["regions"]
    print(
        f"regions: {regions['region_fact_recall']} of key facts under the highlights,"
        f" covering {regions['region_page_share']} of a cited page on average"
    )
    print(f"judge: {judge.method} ({judge.description})")
    print(f"saved run {saved.id} in {saved.path.parent}", file=sys.stderr)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(output, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def _run_version(records: list[dict[str, Any]]) -> str | None:
    """The program version the run's answers name (their traces' version)."""
    versions = {str(r.get("program_version") or "") for r in records} - {""}
    return ", ".join(sorted(versions)) or None


def _program_version(programs_dir: Path) -> str | None:
    """The optimised program version the agent loads (None until the optimiser has saved one;
    looked up by name so the bench runs whether or not the optimiser is part of this build)."""
    import importlib

    for module in ("app.bench.optimize", "app.agent.service"):
        try:
            find = getattr(importlib.import_module(module), "latest_program_version", None)
        except ImportError:
            continue
        if find is not None:
            version = find(programs_dir)
            return str(version) if version else None
    return None


def cmd_optimize(args: argparse.Namespace, settings: Any) -> int:
    from app.agent.service import choose_models
    from app.bench.dataset import DatasetError, load_dataset
    from app.bench.feedback import FeedbackStore
    from app.bench.optimize import Budget, OptimizeError, format_report, optimize

    if not args.dataset and not args.with_feedback:
        print("error: give --dataset FILE, --with-feedback, or both", file=sys.stderr)
        return 2
    try:
        items = load_dataset(args.dataset) if args.dataset else []
    except DatasetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    models = choose_models(settings)
    if models.llm is None:
        print(f"error: optimising the prompts needs an LLM ({models.reason})", file=sys.stderr)
        return 2
    library = open_library(settings, must_exist=True)
    if not library.store.list_documents():
        library.close()
        print(f"error: the library at {settings.library_dir} is empty", file=sys.stderr)
        return 2
    if args.with_feedback:
        items += FeedbackStore(library.store).training_items()
    budget = Budget()
    if args.trials:
        budget = Budget(auto=None, trials=args.trials, metric_calls=10 * args.trials)
    elif args.budget != budget.auto:
        budget = Budget(auto=args.budget)

    def show(p: Any) -> None:
        print(f"{p.stage}: {p.done} questions run", file=sys.stderr, flush=True)

    try:
        report = optimize(
            library,
            settings,
            items,
            backend=models.llm(),
            optimizer=args.optimizer,
            val_share=args.val_share,
            seed=args.seed,
            budget=budget,
            progress=show,
            dataset=str(args.dataset or ""),
        )
    except OptimizeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        library.close()
    print(json.dumps(report.to_dict()) if args.json else format_report(report))
    return 0


def cmd_screenshot(args: argparse.Namespace, settings: Any) -> int:
    from app.ui.screenshot import run_screenshot

    dataset = str(args.dataset) if args.dataset else ""
    return run_screenshot(settings, args.out, args.question, args.view, dataset)


def cmd_open(args: argparse.Namespace, settings: Any) -> int:
    from app.ui.main import run_window

    return run_window(settings, quit_when_shown=getattr(args, "quit_when_shown", False))


COMMANDS = {
    "import": cmd_import,
    "list": cmd_list,
    "remove": cmd_remove,
    "open": cmd_open,
    "ask": cmd_ask,
    "reindex": cmd_reindex,
    "models": cmd_models,
    "screenshot": cmd_screenshot,
    "bench": cmd_bench,
    "optimize": cmd_optimize,
    **LIBRARY_COMMANDS,
    **LEARNING_COMMANDS,
}
