#!/usr/bin/env bash
# Install Lantern, import the sample manuals (once; re-runs skip them by hash) and open
# the window. Pass --library DIR to use another library folder.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True
.venv/bin/python -m app import manuals/ "$@"
if [[ "$(uname -s)" == "Linux" && -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
    echo "No display: opening the window on a virtual screen (Xvfb)." >&2
    exec xvfb-run -a .venv/bin/python -m app open "$@"
fi
exec .venv/bin/python -m app open "$@"
