#!/usr/bin/env bash
# Rewrite tests/forum_real/ (the forum bridge's fixtures) from threads made on a real Discuz! X3.5:
# stands a fresh forum up (../shared/discuz/up.sh, on its own DISCUZ_ROOT and a free port), runs
# tests/live/test_count_live.py with BANSHE_FORUM_FIXTURES=write (each thread is made through the
# forum's forms, counted live and from its saved pages, then saved), and takes the forum down.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${BANSHE_SHARED:-../shared}
DISCUZ_ROOT=$(mktemp -d /tmp/banshe-fixtures-discuz.XXXXXX)
DISCUZ_PORT=$(.venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export DISCUZ_ROOT DISCUZ_PORT
trap '"$SHARED/discuz/down.sh" --wipe >/dev/null 2>&1 || true' EXIT
"$SHARED/discuz/up.sh"
set -a; . "$DISCUZ_ROOT/forum.env"; set +a
BANSHE_FORUM_FIXTURES=write .venv/bin/python -m pytest tests/live/test_count_live.py -q
git status --short tests/forum_real
