"""Regenerate the README's settings table from the single declaration in app/config.py.

python scripts/readme_settings.py          rewrite README.md
python scripts/readme_settings.py --check  exit 1 if README.md is out of date
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import Settings, default_data_dir  # noqa: E402

START, END = "<!-- settings:start -->", "<!-- settings:end -->"


def settings_table() -> str:
    data_dir = str(default_data_dir())
    rows = ["| setting | default | what it does |", "|---|---|---|"]
    for name, default, description in Settings.describe():
        shown = f"`{default.replace(data_dir, '<app data>')}`" if default else "(empty)"
        rows.append(f"| `{name}` | {shown} | {description} |")
    return "\n".join(rows)


def render(readme: str) -> str:
    block = f"{START}\n{settings_table()}\n{END}"
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.S)
    if not pattern.search(readme):
        raise SystemExit("README.md has no settings markers")
    return pattern.sub(lambda _: block, readme)


def main() -> int:
    path = ROOT / "README.md"
    current = path.read_text(encoding="utf-8")
    updated = render(current)
    if "--check" in sys.argv:
        if updated != current:
            print("README.md settings table is out of date: run scripts/readme_settings.py")
            return 1
        return 0
    path.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
