"""The command line under bad conditions, in subprocesses as a technician meets them:
a damaged library, bad questions, a file given as the library, a read-only library and
the same manual imported by two processes at once. Hashing embedder, no OCR, no LLM."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import pdfs
from tests.unit.library.test_bad_library import damage

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(cli_env: dict[str, str]) -> dict[str, str]:
    return {
        **cli_env,
        "LANTERN_EMBEDDER": "hashing",
        "LANTERN_OCR_ENGINE": "none",
        "LANTERN_LLM": "none",
    }


def app(env: dict[str, str], *args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app", *map(str, args)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def library(env: dict[str, str], tmp_path: Path) -> Path:
    root = tmp_path / "library"
    guide = pdfs.text_manual_pdf(tmp_path / "Panel Guide.pdf", pages=6)
    done = app(env, "import", guide, "--library", root, "--quiet")
    assert done.returncode == 0, done.stderr
    return root


@pytest.mark.parametrize("command", ["ask", "list", "import"])
def test_a_damaged_library_is_told_kept_aside_rebuilt_and_exits_non_zero(
    command: str, env: dict[str, str], library: Path, tmp_path: Path
) -> None:
    damage(library / "library.db")
    args = {
        "ask": ["ask", "Which jumper selects 12 V?"],
        "list": ["list"],
        "import": ["import", pdfs.text_manual_pdf(tmp_path / "other.pdf", title="Other")],
    }[command]

    done = app(env, *args, "--library", library)

    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert f"the library database {library / 'library.db'} is damaged" in done.stderr
    assert "rebuilding 1/1" in done.stderr and "library rebuilt: 1 manual(s)" in done.stderr
    [aside] = library.glob("damaged-*")
    assert (aside / "library.db").is_file()
    listed = app(env, "list", "--json", "--library", library)
    assert listed.returncode == 0, listed.stderr
    assert [json.loads(x)["file_name"] for x in listed.stdout.splitlines()] == ["Panel Guide.pdf"]
    asked = app(env, "ask", "Which jumper selects 12 V?", "--library", library)
    assert asked.returncode == 0 and "J24" in asked.stdout


@pytest.mark.parametrize("question", ["", "   ", "?!.", "¿…!"])
def test_a_question_without_words_is_declined_cleanly(
    question: str, env: dict[str, str], library: Path
) -> None:
    done = app(env, "ask", question, "--json", "--library", library)

    assert done.returncode == 0
    assert "Traceback" not in done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["type"] for e in events] == ["token", "answer", "done"]
    answer = events[1]
    assert answer["abstained"] and answer["citations"] == [] and answer["pages"] == []
    assert "question" in answer["text"]


def test_list_of_a_regular_file_says_it_is_not_a_library(
    env: dict[str, str], tmp_path: Path
) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("hello", encoding="utf-8")

    for command in (["list"], ["list", "--json"], ["ask", "battery?"]):
        done = app(env, *command, "--library", file)
        assert done.returncode != 0
        assert done.stderr.strip() == f"error: {file} is not a library: it is a file, not a folder"


@pytest.mark.skipif(
    os.geteuid() == 0,
    reason="root writes through permission bits; "
    "tests/unit/library/test_bad_library.py covers the refused write",
)
def test_a_read_only_library_is_one_sentence(
    env: dict[str, str], library: Path, tmp_path: Path
) -> None:
    other = pdfs.text_manual_pdf(tmp_path / "other.pdf", title="Other")
    for path in [library, *library.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        done = app(env, "import", other, "--library", library)
    finally:
        for path in [library, *library.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"error: the library folder {library} cannot be written (permission denied):"
        " make it writable, or choose another folder with --library"
    )


def test_the_same_manual_imported_by_two_processes_at_once_is_present(
    env: dict[str, str], tmp_path: Path
) -> None:
    root = tmp_path / "library"
    guide = pdfs.text_manual_pdf(tmp_path / "guide.pdf", pages=12)
    command = [sys.executable, "-m", "app", "import", str(guide), "--library", str(root)]
    procs = [
        subprocess.Popen(
            command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]

    for proc, (_out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert "unexpected error" not in err and "Traceback" not in err
    stderr = "".join(err for _out, err in outputs)
    assert stderr.count("imported guide.pdf") + stderr.count("present  guide.pdf") == 2
    listed = app(env, "list", "--json", "--library", root)
    assert len(listed.stdout.splitlines()) == 1
