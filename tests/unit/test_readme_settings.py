"""The README's settings table is generated from app/config.py and must not drift."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_settings_table_matches_the_declaration() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "readme_settings.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
