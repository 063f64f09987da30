#!/usr/bin/env bash
# The main command (README): set up, then run the director service on an embedded SQLite
# database (./banshe.sqlite3), or on BANSHE_DATABASE_URL when it is set. The first run prints
# the director account's password once. Extra arguments go to `banshe serve` (--host, --port …).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/banshe serve "$@"
