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
    # the checks and the other tests; that test waits for it, or reuses the bundle cached
    # for these inputs. Its log: build/bundle.log. Job control gives the build a process
    # group of its own, so its priority can be lowered for the timed tests at the end.
    mkdir -p build
    set -m
    "$BIN/python" packaging/build.py --print-path </dev/null >build/bundle.log 2>&1 &
    BUNDLE_PID=$!
    set +m
    # The trap must not change the exit status: under `set -e` a kill that finds no process
    # (the build already ended) would otherwise turn a passing run into exit code 1.
    stop_bundle() {
        local status=$?
        kill -- "-$BUNDLE_PID" 2>/dev/null || true
        exit "$status"
    }
    trap stop_bundle EXIT
fi
echo "== ruff" && "$BIN/ruff" check app tests bench scripts
echo "== ruff format" && "$BIN/ruff" format --check app tests bench scripts
echo "== mypy" && "$BIN/mypy"
echo "== import contracts" && "$BIN/lint-imports"
if [[ $# -gt 0 ]]; then
    echo "== pytest" && exec "$BIN/python" -m pytest "$@"
fi
# Every test but the timed ones on all cores, one test file per process (a file's tests
# share its fixtures). Then the tests that assert a wall-clock bound (a window stall under
# 50 ms, a pipe read under 50 ms, the bundle starting within 10 s), alone, with the bundle
# build (if it still runs) at the lowest priority: they lost to it twice in one run when it
# ran at normal priority.
STATUS=0
echo "== pytest (all cores)"
"$BIN/python" -m pytest -n auto --dist loadfile -m "not timing" || STATUS=$?
renice -n 19 -g "$BUNDLE_PID" >/dev/null 2>&1 || true
echo "== pytest (timed tests)"
"$BIN/python" -m pytest -m timing || STATUS=$?
exit "$STATUS"
