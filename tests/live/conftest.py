"""Integration tests against the real Discuz! X3.5 of ../shared/discuz (issue 23).

Opt-in by DISCUZ_URL (scripts/test.sh stands the forum up and exports it; by hand:
`../shared/discuz/up.sh; set -a; . /tmp/banshe-discuz/forum.env; set +a`). Without a forum the
whole folder skips with one clear line. The forum's client (`client.py`) is loaded from
../shared/discuz (or $BANSHE_SHARED/discuz).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("BANSHE_SHARED") or ROOT.parent / "shared")
CLIENT = SHARED / "discuz" / "client.py"


def _load_client() -> ModuleType:
    sys.dont_write_bytecode = True  # the folder is read-only: no __pycache__ there
    spec = importlib.util.spec_from_file_location("discuz_client", CLIENT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if not os.environ.get("DISCUZ_URL") or not CLIENT.is_file():
    pytest.skip(
        "no local Discuz! forum: run ../shared/discuz/up.sh and export DISCUZ_URL (scripts/test.sh does)",
        allow_module_level=True,
    )
discuz = _load_client()
if not discuz.forum_is_up():
    pytest.skip(f"DISCUZ_URL={os.environ['DISCUZ_URL']} does not answer", allow_module_level=True)


@pytest.fixture(scope="session")
def forum() -> Iterator[ModuleType]:
    """The forum's client module; the board's clock goes back to real time afterwards."""
    yield discuz
    discuz.Forum().set_clock("now")


@pytest.fixture(autouse=True)
def _private_hosts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test forum is on 127.0.0.1: the service may read it (an intranet deployment's setting)."""
    monkeypatch.setenv("BANSHE_FORUM_PRIVATE_HOSTS", "1")
