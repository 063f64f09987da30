#!/usr/bin/env bash
# The test command (README): set up, lint, type-check, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check src tests benchmarks
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
