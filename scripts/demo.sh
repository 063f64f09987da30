#!/usr/bin/env bash
# The main job (README): set up, then play a demo 品茗 game and print the thread and the 复盘.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/banshe demo --ruleset 品茗 --seed "${SEED:-1}" "$@"
