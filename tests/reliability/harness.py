"""The reliability suite's runs: bad inputs, kill -9 trials, contention. Each gives rows of
(case, expected, observed, pass) for one table; ``bench/reliability.py`` runs them all at
full size and the CI tests a fast part. No LLM: rule policy and extractive answerer, the
hashing embedder, no OCR, so a case takes well under a second.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.agent.events import Answer, Done, Error
from app.agent.service import ModelChoice, build_answerer
from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.importer import Importer, import_blocking
from app.library.library import Library
from tests.helpers import pdfs
from tests.reliability.bad_inputs import (
    FILE_CASES,
    MARKER_NAME,
    QUESTION_CASES,
    FileCase,
    QuestionCase,
    filler_pdf,
)

REPO = Path(__file__).resolve().parents[2]
QUESTION = "Which jumper selects the PGM output voltage?"
SETTINGS = Settings(ocr_engine="none", embedder="hashing", llm="none")
HANG_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Row:
    case: str
    expected: str
    observed: str
    ok: bool


def importer(library: Library) -> Importer:
    return Importer(library, SETTINGS, embedder=HashingEmbedder(), ocr=None)


def make_base(root: Path) -> Path:
    """A library holding the three-page alarm panel guide the suite asks about."""
    source = root.parent / "base-manual"
    source.mkdir(parents=True, exist_ok=True)
    pdf = pdfs.text_manual_pdf(source / "Panel Guide.pdf", pages=3)
    library = Library.open(root)
    try:
        assert import_blocking(importer(library), [pdf])[0].status == "imported"
    finally:
        library.close()
    return root


def ask(library: Library, question: str, traces: Path) -> list[Any]:
    agent = build_answerer(
        library,
        SETTINGS.model_copy(update={"library_dir": library.root}),
        embedder=HashingEmbedder(),
        models=ModelChoice(None, None, "no LLM"),
    )
    agent.traces_dir = traces
    return list(agent.ask(question))


def answer_key(events: list[Any]) -> tuple[str, tuple[tuple[str, int], ...]]:
    [answer] = [e for e in events if isinstance(e, Answer)]
    return answer.text, tuple((c.document, c.page) for c in answer.citations)


@dataclass(frozen=True, slots=True)
class Snapshot:
    documents: tuple[tuple[str, str, int], ...]
    chunks: int
    problems: tuple[str, ...]
    answer: tuple[str, tuple[tuple[str, int], ...]]


def snapshot(library: Library, traces: Path) -> Snapshot:
    store = library.store
    docs = tuple((d.sha256, d.file_name, d.pages) for d in store.list_documents())
    return Snapshot(
        docs,
        store.chunk_count(),
        tuple(store.check_integrity()),
        answer_key(ask(library, QUESTION, traces)),
    )


# ---- bad files ------------------------------------------------------------------------


def run_file_case(case: FileCase, root: Path, work: Path) -> Row:
    """Import the case's input into the library at ``root`` and check that it did what was
    expected, left the manuals there as they were, and answers as before."""
    folder = work / "input"
    folder.mkdir(parents=True)
    paths = case.make(folder)
    library = Library.open(root)
    try:
        before = snapshot(library, work / "traces")
        results, error = _import_watched(library, paths)
        observed = error or "; ".join(_describe(r) for r in results)
        after = snapshot(library, work / "traces")
        added = [
            d
            for d in library.store.list_documents()
            if d.sha256 not in {sha for sha, _n, _p in before.documents}
        ]
        unchanged = set(before.documents) <= set(after.documents) and not after.problems
        # A manual taken in shifts word statistics, so the quoted lines may differ; the
        # pages cited must not. A refused file leaves everything, the answer too, as it was.
        same_answer = (
            after.answer[1] == before.answer[1] if added else after.answer == before.answer
        )
        for doc in added:  # back to the base library for the next case
            library.remove(doc.id)
        if added:
            same_answer &= snapshot(library, work / "traces") == before
    finally:
        library.close()
    marker = any(p.name == MARKER_NAME for p in work.rglob("*")) or (root / MARKER_NAME).exists()
    ok = _matches(case.expect, results) and not error and unchanged and same_answer
    ok = ok and not marker and not (case.expect.startswith("failed") and added)
    notes = [] if unchanged else ["library changed"]
    notes += [] if same_answer else ["answer changed"]
    notes += ["an action ran"] if marker else []
    return Row(case.name, case.expect, observed + (f" [{', '.join(notes)}]" if notes else ""), ok)


def _import_watched(library: Library, paths: list[Path]) -> tuple[list[Any], str]:
    """The import in a thread, so a file that blocks (a pipe) shows as a hang, not a stall
    of the whole suite."""
    out: list[Any] = []
    failure: list[str] = []

    def run() -> None:
        try:
            out.extend(import_blocking(importer(library), paths))
        except BaseException as exc:  # reported in the table
            failure.append(f"raised {exc!r}")

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_SECONDS)
    if thread.is_alive():
        return out, f"hung for {HANG_SECONDS:.0f} s"
    return out, failure[0] if failure else ""


def _describe(result: Any) -> str:
    return f"{result.status}: {result.reason}" if result.reason else result.status


def _matches(expect: str, results: list[Any]) -> bool:
    wanted = [e.strip() for e in expect.split(",")]
    if len(wanted) != len(results):
        return False
    for want, result in zip(wanted, results, strict=True):
        status, _, reason = want.partition(":")
        if result.status != status or not result.reason.startswith(reason.strip()):
            return False
        if "unexpected error" in result.reason or "Traceback" in result.reason:
            return False
    return True


def run_question_case(case: QuestionCase, root: Path, work: Path) -> Row:
    library = Library.open(root)
    try:
        before = snapshot(library, work)
        try:
            events = ask(library, case.text, work)
            observed, ok = _judge_question(case, events)
        except Exception as exc:  # a traceback is the failure this row reports
            observed, ok = f"raised {exc!r}", False
        after = snapshot(library, work)
    finally:
        library.close()
    if after != before:
        observed, ok = observed + " [library or answer changed]", False
    expected = "declined, no citation" if case.declined else "answer or abstention, no error"
    return Row(f"question: {case.name}", expected, observed, ok)


def _judge_question(case: QuestionCase, events: list[Any]) -> tuple[str, bool]:
    answers = [e for e in events if isinstance(e, Answer)]
    fatal = [e for e in events if isinstance(e, Error) and not e.recoverable]
    done = [e for e in events if isinstance(e, Done)]
    if len(answers) != 1 or fatal or len(done) != 1 or events[-1] is not done[0]:
        return f"{len(answers)} answers, errors {[e.message for e in fatal]}", False
    answer = answers[0]
    kind = "declined" if answer.abstained else "answered"
    observed = f"{kind}, {len(answer.citations)} citation(s)"
    if case.declined:
        return observed, answer.abstained and not answer.citations
    return observed, True


def bad_input_rows(root: Path, work: Path, cases: Iterable[Any] | None = None) -> Iterator[Row]:
    """One row per kind of bad input (files, paths, questions) against the base library."""
    chosen = list(cases) if cases is not None else [*FILE_CASES, *QUESTION_CASES]
    for n, case in enumerate(chosen):
        where = work / f"case{n:02d}"
        if isinstance(case, FileCase):
            yield run_file_case(case, root, where)
        else:
            where.mkdir(parents=True)
            yield run_question_case(case, root, where)


# ---- kill -9 ----------------------------------------------------------------------------


def _child_import(root: str, pdf: str) -> None:
    library = Library.open(Path(root))
    import_blocking(importer(library), [Path(pdf)])
    library.close()


def _child_remove(root: str, name: str) -> None:
    library = Library.open(Path(root))
    library.remove(name)
    library.close()


def _timed(target: Callable[..., None], *args: str) -> float:
    started = time.perf_counter()
    target(*args)
    return time.perf_counter() - started


def kill_rows(template: Path, work: Path, trials: int, seed: int = 18) -> Iterator[Row]:
    """``trials`` SIGKILLs at random moments: half during an import of a 60-page manual,
    half during the removal of it. The library must open sound, hold the manual wholly or
    not at all, keep no stray copy, and the import or removal must then succeed."""
    rng = random.Random(seed)
    work.mkdir(parents=True, exist_ok=True)
    big = pdfs.text_manual_pdf(work / "Big Manual.pdf", pages=60, title="Big manual")
    with_big = work / "with-big"
    shutil.copytree(template, with_big)
    import_time = _timed(_child_import, str(with_big), str(big))
    probe = work / "probe"
    shutil.copytree(with_big, probe)
    remove_time = _timed(_child_remove, str(probe), "Big Manual.pdf")
    context = multiprocessing.get_context("fork")
    for n in range(trials):
        removal = n % 2 == 1
        root = work / f"kill{n:02d}"
        shutil.copytree(with_big if removal else template, root)
        duration = remove_time if removal else import_time
        delay = rng.uniform(0.0, duration * 1.1)
        target, arg = (_child_remove, "Big Manual.pdf") if removal else (_child_import, str(big))
        proc = context.Process(target=target, args=(str(root), arg))
        proc.start()
        time.sleep(delay)
        finished = not proc.is_alive()
        if not finished:
            os.kill(proc.pid or 0, signal.SIGKILL)
        proc.join(30)
        what = "removal" if removal else "import"
        case = f"kill -9 during {what}, at {delay:.2f} of {duration:.2f} s"
        yield _check_killed(case, root, big, removal, finished)


def _check_killed(case: str, root: Path, big: Path, removal: bool, finished: bool) -> Row:
    expected = "sound; manual whole or absent; no stray copy; re-run succeeds"
    try:
        library = Library.open(root)
    except Exception as exc:
        return Row(case, expected, f"cannot open: {exc}", False)
    try:
        store = library.store
        problems = store.check_integrity()
        docs = {d.file_name: d for d in store.list_documents()}
        big_doc = docs.get("Big Manual.pdf")
        whole = big_doc is None or (big_doc.pages == 60 and bool(store.page_chunks(big_doc.id, 60)))
        copies = sorted(p.name for p in library.documents_dir.glob("*.pdf"))
        stray = copies != sorted(f"{d.sha256}.pdf" for d in docs.values())
        state = "with the manual" if big_doc else "without the manual"
        if removal:
            rerun = (
                big_doc is None or library.remove("Big Manual.pdf").file_name == "Big Manual.pdf"
            )
            rerun_ok = rerun and store.get_document("Big Manual.pdf") is None
        else:
            [result] = import_blocking(importer(library), [big])
            rerun_ok = result.status in ("imported", "skipped")
        ok = not problems and whole and not stray and rerun_ok and "Panel Guide.pdf" in docs
    finally:
        library.close()
    observed = f"{'finished first' if finished else 'killed'}; {state}"
    observed += "" if not problems else f"; problems {problems[:1]}"
    observed += "; stray copy" if stray else ""
    observed += "; re-run ok" if rerun_ok else "; re-run FAILED"
    return Row(case, expected, observed, ok)


# ---- contention ---------------------------------------------------------------------------


def contention_rows(template: Path, work: Path, env: dict[str, str]) -> Iterator[Row]:
    """Two ``python -m app import`` processes and a stream of questions on one library."""
    work.mkdir(parents=True, exist_ok=True)
    root = work / "busy"
    shutil.copytree(template, root)
    a = filler_pdf(work / "Pump Card.pdf", pages=40)
    b = pdfs.text_manual_pdf(work / "Keypad Guide.pdf", pages=30, title="Keypad guide")
    command = [sys.executable, "-m", "app", "import", "--quiet", "--library", str(root)]
    procs = [
        subprocess.Popen(
            [*command, str(p)],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p in (a, b)
    ]
    asked, bad = 0, []
    library = Library.open(root)
    try:
        while any(p.poll() is None for p in procs) or asked < 3:
            events = ask(library, QUESTION, work / "traces")
            asked += 1
            answers = [e for e in events if isinstance(e, Answer)]
            errors = [e.message for e in events if isinstance(e, Error)]
            if len(answers) != 1 or errors:
                bad.append(errors[:1] or ["no answer"])
    finally:
        library.close()
    outs = [p.communicate(timeout=300) for p in procs]
    codes = [p.returncode for p in procs]
    yield Row(
        "two imports at once",
        "both exit 0",
        f"exit {codes}",
        codes == [0, 0] and not any("Traceback" in err for _o, err in outs),
    )
    yield Row(
        f"{asked} questions during the imports",
        "each answered, no error",
        f"{asked - len(bad)} answered" + (f", errors {bad[:1]}" if bad else ""),
        not bad,
    )
    library = Library.open(root)
    try:
        names = sorted(d.file_name for d in library.store.list_documents())
        problems = library.store.check_integrity()
    finally:
        library.close()
    want = ["Keypad Guide.pdf", "Panel Guide.pdf", "Pump Card.pdf"]
    yield Row(
        "library after the contention",
        "3 manuals, sound",
        f"{len(names)} manuals" + (f", {problems[0]}" if problems else ", sound"),
        names == want and not problems,
    )


# ---- the table ----------------------------------------------------------------------------


def format_table(rows: list[Row]) -> str:
    headers = ("case", "expected", "observed", "pass")
    cells = [(r.case, r.expected, r.observed, "PASS" if r.ok else "FAIL") for r in rows]
    widths = [min(60, max(len(h), *(len(c[i]) for c in cells))) for i, h in enumerate(headers)]

    def line(values: tuple[str, ...]) -> str:
        return " | ".join(_fit(v, w) for v, w in zip(values, widths, strict=True))

    out = [line(headers), "-+-".join("-" * w for w in widths)]
    out += [line(c) for c in cells]
    passed = sum(r.ok for r in rows)
    out.append(f"{passed} of {len(rows)} cases passed")
    return "\n".join(out)


def _fit(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text.ljust(width) if len(text) <= width else text[: width - 1] + "…"
