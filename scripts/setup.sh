#!/usr/bin/env bash
# Create .venv (if missing) and install banshe with its development tools. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# PyICU (the service's UTS #39 check of seat names) builds against ICU: Debian's libicu-dev and pkg-config
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
if command -v dpkg-query >/dev/null && { ! have_pkg libicu-dev || ! have_pkg pkg-config; }; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "安装 PyICU 所需的 libicu-dev 与 pkg-config …"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libicu-dev pkg-config >/dev/null
  else
    echo "警告：缺少 libicu-dev 或 pkg-config 且无法安装（需要 root）；PyICU 可能无法编译" >&2
  fi
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -U pip >/dev/null
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'
