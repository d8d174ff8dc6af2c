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
if [[ $# -eq 0 ]]; then
    # The whole suite: the app bundle for tests/integration/test_frozen_app.py builds beside
    # the checks and the other tests (PyInstaller keeps one core busy); that test waits for
    # it, or reuses the bundle cached for these inputs. Its log: build/bundle.log.
    mkdir -p build
    # At the lowest CPU priority: the timing-sensitive window tests (stalls under 50 ms) run
    # meanwhile, and lost to the build twice in one run when it ran at normal priority.
    nice -n 19 "$BIN/python" packaging/build.py --print-path >build/bundle.log 2>&1 &
    BUNDLE_PID=$!
    # The trap must not change the exit status: under `set -e` a pkill that finds no child
    # (the build already ended) would otherwise turn a passing run into exit code 1.
    stop_bundle() {
        local status=$?
        pkill -P "$BUNDLE_PID" 2>/dev/null || true
        kill "$BUNDLE_PID" 2>/dev/null || true
        exit "$status"
    }
    trap stop_bundle EXIT
fi
echo "== ruff" && "$BIN/ruff" check app tests bench scripts
echo "== ruff format" && "$BIN/ruff" format --check app tests bench scripts
echo "== mypy" && "$BIN/mypy"
echo "== import contracts" && "$BIN/lint-imports"
echo "== pytest" && "$BIN/python" -m pytest "$@"
