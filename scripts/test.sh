#!/usr/bin/env bash
# The test command (README): set up, lint, type-check, run every test.
# The end-to-end tests drive Debian's chromium with Playwright (never `playwright install`);
# they need the chromium package and a CJK font, installed here when missing (CI runs as root).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
if command -v dpkg-query >/dev/null && { ! have_pkg chromium || ! have_pkg fonts-wqy-microhei; }; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "安装端到端测试所需的 chromium 与 fonts-wqy-microhei …"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null
  else
    echo "警告：缺少 chromium 或 fonts-wqy-microhei，且无法安装（需要 root）；端到端测试将跳过" >&2
  fi
fi
# The service is tested behind nginx with docs/deploy.md's settings (tests/service/test_abuse_load.py):
# Debian's nginx, installed without starting it (a policy-rc.d that denies, when none is there).
if command -v dpkg-query >/dev/null && ! have_pkg nginx && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "安装 nginx（只为测试，不启动服务）…"
  made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && made_policy=1
  fi
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null || \
    echo "警告：nginx 安装失败；nginx 测试将跳过" >&2
  if [ "$made_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
fi
# The Ray backend is tested on a real local Ray instance: the `ray` extra adds 13-29 s and about
# 250 MB to a fresh install (measured 2026-11-30). BANSHE_SKIP_RAY=1 leaves it out (its test skips).
if [ "${BANSHE_SKIP_RAY:-0}" != "1" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev,ray]'
fi
# The compiled build (scripts/setup-fast.sh, about 75 s) is tested too: tests/test_compiled.py
# compares its games and transcripts with the pure engine's, and the engine, ruleset, scenario
# and simulator tests run again on it. BANSHE_SKIP_COMPILED=1 leaves it out.
if [ "${BANSHE_SKIP_COMPILED:-0}" != "1" ]; then
  bash scripts/setup-fast.sh
  .venv-fast/bin/python -m pip install -q --disable-pip-version-check 'pytest>=8' 'hypothesis>=6.100'
fi
.venv/bin/ruff check src tests benchmarks setup.py
.venv/bin/mypy
# The forum bridge's integration tests (tests/live) run against a real Discuz! X3.5 that
# ../shared/discuz/up.sh stands up (PHP, MariaDB, libfaketime: apt-get on a fresh machine, as
# root) on its own DISCUZ_ROOT and a free port, taken down afterwards. Where it cannot start,
# tests/live skips with one line saying so. BANSHE_SKIP_FORUM=1 leaves it out.
DISCUZ=${BANSHE_SHARED:-../shared}/discuz
FORUM_ROOT=""
stop_forum() {
  if [ -n "$FORUM_ROOT" ]; then
    DISCUZ_ROOT=$FORUM_ROOT "$DISCUZ/down.sh" --wipe >/dev/null 2>&1 || true
    [ -z "${DISCUZ_URL:-}" ] || rm -f "$FORUM_ROOT.log"  # kept only when the forum did not start
    FORUM_ROOT=""
  fi
}
trap stop_forum EXIT
if [ "${BANSHE_SKIP_FORUM:-0}" != "1" ] && [ -x "$DISCUZ/up.sh" ]; then
  FORUM_ROOT=$(mktemp -d /tmp/banshe-test-discuz.XXXXXX)
  FORUM_PORT=$(.venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  forum_started=$(date +%s)
  if DISCUZ_ROOT=$FORUM_ROOT DISCUZ_PORT=$FORUM_PORT "$DISCUZ/up.sh" >"$FORUM_ROOT.log" 2>&1; then
    set -a; . "$FORUM_ROOT/forum.env"; set +a
    echo "Discuz! 论坛已启动：$DISCUZ_URL（用时 $(( $(date +%s) - forum_started )) 秒；日志 $FORUM_ROOT.log）"
  else
    echo "警告：无法启动 Discuz! 论坛（见 $FORUM_ROOT.log），tests/live 将跳过" >&2
    tail -5 "$FORUM_ROOT.log" >&2 || true
  fi
fi
.venv/bin/python -m pytest "$@"
stop_forum
if [ "${BANSHE_SKIP_COMPILED:-0}" != "1" ]; then
  echo "编译版：再次运行引擎、规则、场景与模拟测试 …"
  .venv-fast/bin/python -m pytest tests --ignore=tests/service --ignore=tests/live --ignore=tests/test_compiled.py \
    --deselect tests/test_sim_ray.py
fi
