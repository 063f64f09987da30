#!/usr/bin/env bash
# Create .venv (if missing) and install banshe with its development tools. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -U pip >/dev/null
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'
