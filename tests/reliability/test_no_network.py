"""No network at run time: the test suite runs with sockets refused (pytest-socket, set
in pyproject), and ``import`` and ``ask`` run in processes whose sockets refuse anything
but Unix ones, so a connection attempt anywhere on those paths would fail them."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.bad_inputs import _with_links, filler_pdf

REPO = Path(__file__).resolve().parents[2]
# Runs the app with every socket family but AF_UNIX refused, and counts the attempts.
NO_NETWORK = """
import socket, sys, runpy
real = socket.socket
class Refused(real):
    def __init__(self, family=-1, *a, **k):
        if family not in (-1, socket.AF_UNIX):
            sys.stderr.write(f"NETWORK ATTEMPT family={family}\\n")
            raise OSError("network refused by the test")
        super().__init__(family, *a, **k)
socket.socket = Refused
socket.create_connection = lambda *a, **k: (_ for _ in ()).throw(OSError("refused"))
sys.argv = ["app", *sys.argv[1:]]
runpy.run_module("app", run_name="__main__")
"""


def test_the_suite_itself_cannot_open_a_network_socket() -> None:
    with pytest.raises(Exception, match=r"[Ss]ocket"):
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    a, b = socket.socketpair()  # Unix sockets stay allowed (Qt, asyncio)
    a.close()
    b.close()


def test_import_and_ask_work_with_networking_refused(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    env = {
        **cli_env,
        "LANTERN_EMBEDDER": "hashing",
        "LANTERN_OCR_ENGINE": "none",
        "LANTERN_LLM": "none",
    }
    card = filler_pdf(tmp_path / "pump.pdf")
    links = _with_links(tmp_path / "links.pdf")  # web links the import must not follow
    library = tmp_path / "library"

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", NO_NETWORK, *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    imported = run("import", str(card), str(links), "--library", str(library))
    asked = run(
        "ask", "How often is the impeller seal replaced?", "--json", "--library", str(library)
    )

    for done in (imported, asked):
        assert done.returncode == 0, done.stderr
        assert "NETWORK ATTEMPT" not in done.stderr
    assert '"type": "answer"' in asked.stdout
