#!/usr/bin/env bash
# Install Lantern with its development tools, then run lint, types, the import contract
# and the whole test suite. Extra arguments go to pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/setup.sh --dev
export QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \
       LITELLM_LOCAL_MODEL_COST_MAP=True PYTHONDONTWRITEBYTECODE=1
BIN=.venv/bin
echo "== ruff" && "$BIN/ruff" check app tests bench scripts
echo "== ruff format" && "$BIN/ruff" format --check app tests bench scripts
echo "== mypy" && "$BIN/mypy"
echo "== import contracts" && "$BIN/lint-imports"
echo "== pytest" && "$BIN/python" -m pytest "$@"
