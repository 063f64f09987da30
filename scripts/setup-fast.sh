#!/usr/bin/env bash
# The compiled build (docs/balance-lab.md「编译加速」): .venv-fast holds banshe with the rules core and the
# simulator compiled by mypyc (setup.py lists the modules): the same source, the same results,
# about twice the games per second. Rebuilt from scratch every time, so it never runs stale
# code; .venv (editable, pure Python) stays the development environment.
# Needs a C compiler and the Python headers (both on these machines).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
rm -rf .venv-fast build
"$PY" -m venv .venv-fast
PIP=(.venv-fast/bin/python -m pip install -q --disable-pip-version-check)
"${PIP[@]}" -U pip >/dev/null
"${PIP[@]}" 'mypy>=1.10' setuptools wheel
# `.[report]`: the engine and the CLI, plus matplotlib and Jinja2 for `simulate --report` (and for
# the simulator tests scripts/test.sh runs here); BANSHE_FAST_TARGET='.[report,ray]' adds Ray
BANSHE_COMPILE=1 "${PIP[@]}" --no-build-isolation "${BANSHE_FAST_TARGET:-.[report]}"
rm -rf build
.venv-fast/bin/python -c "import banshe.engine.core as m, sys; sys.exit(0 if m.__file__.endswith('.so') else 'banshe 未被编译')"
echo "编译版已安装：.venv-fast/bin/banshe"
