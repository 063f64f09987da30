"""`banshe forum count` on pages of the real Discuz! X3.5 (tests/forum_real/, saved by the live
tests: `scripts/forum-fixtures.sh` makes the threads again and rewrites them, never by hand)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from banshe.cli import main

from .forum_expect import compare

FIXTURES = Path(__file__).resolve().parent / "forum_real"
FOLDERS = sorted(p for p in FIXTURES.iterdir() if (p / "expect.json").is_file())


def test_every_fix_has_its_fixture() -> None:
    assert [p.name for p in FOLDERS] == [
        "01_hot_and_stuck",
        "02_banned_guest",
        "03_banned_moderator",
        "04_hidden_guest",
        "05_hidden_director",
        "06_phone_quote",
        "07_seconds",
        "08_no_permission",
        "09_phone_recent",
        "10_phone_old",
        "11_jammer_sheriff_out",
    ]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_saved_real_pages(folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    expect = json.loads((folder / "expect.json").read_text(encoding="utf-8"))
    args = [str(folder / "game.yaml"), str(folder), *shlex.split((folder / "args.txt").read_text(encoding="utf-8"))]
    code = main(["forum", "count", *args, "--compact"])
    out, err = capsys.readouterr()
    if "error" in expect:
        assert code == 2 and expect["error"] in err and out == ""
        assert len(err.strip().splitlines()) == 1  # one Chinese line
        return
    assert code == 0, err
    assert compare(expect, json.loads(out)) == []
    if expect.get("table"):
        monkeypatch.setenv("COLUMNS", "200")
        assert main(["forum", "count", *args, "--table"]) == 0
        text = capsys.readouterr().out
        assert all(t in text for t in expect["table"]) and "None" not in text
