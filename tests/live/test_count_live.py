"""`banshe forum count` and `banshe forum post` against the real Discuz! (issue 23).

Each thread of threads.py is made on the forum, counted from its address (logged in where the
situation needs it) and from its pages as saved, and both must meet the contract. With
BANSHE_FORUM_FIXTURES=write the saved pages become tests/forum_real/NAME/ (scripts/forum-fixtures.sh).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from banshe.cli import main

from ..forum_expect import compare
from .conftest import SHARED
from .threads import BUILDERS, GAME, HOT_REPLIES, OFF, Board

FIXTURES = Path(__file__).resolve().parents[1] / "forum_real"
WRITE = os.environ.get("BANSHE_FORUM_FIXTURES") == "write"


@pytest.fixture(scope="module")
def board(forum: ModuleType) -> Iterator[Board]:
    """The forum with 支持 and 热门回复 on while these threads are made and read (then as it was)."""
    b = Board(forum, SHARED)
    b.settings(**HOT_REPLIES)
    try:
        yield b
    finally:
        b.settings(**OFF)
        b.close()


def _count(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object], str]:
    code = main(["forum", "count", *args, "--compact"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else {}), captured.err


def _check(expect: dict[str, object], code: int, out: dict[str, object], err: str, where: str) -> None:
    if "error" in expect:
        assert code == 2 and str(expect["error"]) in err, f"{where}: {code} {err}"
        return
    assert code == 0, f"{where}: {err}"
    assert compare(expect, out) == [], where


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_real_thread_is_counted_live_and_from_its_saved_pages(
    name: str, board: Board, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    made = BUILDERS[name](board)
    game = tmp_path / "game.yaml"
    game.write_text(GAME, encoding="utf-8")
    url = board.url(made.tid, made.mobile)
    login = []
    if made.reader is not None:
        monkeypatch.setenv("BANSHE_FORUM_PASSWORD", board.forum.passwords[made.reader])
        login = ["--login", made.reader]
    code, out, err = _count([str(game), url, *made.args, *login], capsys)
    _check(made.live or made.expect, code, out, err, f"{name} live")

    folder = tmp_path / name
    folder.mkdir()
    for n, data in enumerate(board.pages(made.tid, made.reader, made.mobile), start=1):
        (folder / f"page{n}.html").write_bytes(data)
    code, out, err = _count([str(game), str(folder), *made.args], capsys)
    _check(made.expect, code, out, err, f"{name} saved")
    if made.table:
        monkeypatch.setenv("COLUMNS", "200")
        assert main(["forum", "count", str(game), str(folder), *made.args, "--table"]) == 0
        text = capsys.readouterr().out
        assert all(t in text for t in made.table) and "None" not in text

    if WRITE:
        target = FIXTURES / name
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(folder, target)
        (target / "game.yaml").write_text(GAME, encoding="utf-8")
        (target / "args.txt").write_text(shlex.join(made.args) + "\n", encoding="utf-8")
        expect = {**made.expect, **({"table": made.table} if made.table else {})}
        (target / "expect.json").write_text(json.dumps(expect, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        how = f"read as {made.reader or 'a guest'}" + (", phone version" if made.mobile else "")
        (target / "notes.md").write_text(
            f"# {name}\n\nSaved by tests/live/test_count_live.py from the local Discuz! X3.5 "
            f"(thread {made.tid}, {how}).\n\n{made.notes}\n",
            encoding="utf-8",
        )


def test_post_as_the_director_and_a_resend_posts_nothing(
    board: Board, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tid = board.thread("2026-12-03 08:00", "第3天讨论帖", "第3天讨论帖，公示稍后发布。")
    board.post("三号", tid, "三号先来占个楼。", "2026-12-03 08:05:00")
    url = board.url(tid, False)
    text = "[size=6][color=#FF0000][b]【第2天公示】[/b][/color][/size]\n[color=#FF0000]二号被投票出局。[/color]"
    monkeypatch.setenv("BANSHE_FORUM_PASSWORD", board.forum.passwords["导演"])
    board.at("2026-12-03 09:00")
    assert main(["forum", "post", url, "--login", "导演", "--text", text]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["floor"] == 3 and "existing" not in made
    assert f"pid={made['pid']}" in made["url"] and f"ptid={tid}" in made["url"]
    page = board.as_(None).read(tid)
    assert f'id="postmessage_{made["pid"]}"' in page and "二号被投票出局。" in page and 'color="#FF0000"' in page

    assert main(["forum", "post", url, "--login", "导演", "--text", text]) == 0  # a resend
    again = json.loads(capsys.readouterr().out)
    assert again == {**made, "existing": True}
    shown = board.as_(None).read(tid)
    assert board.discuz.page_count(shown) == 1 and shown.count("postmessage_") == 3

    assert main(["forum", "post", url, "--login", "导演", "--text", "短"]) == 2
    assert "论坛拒绝回复" in capsys.readouterr().err  # Discuz!'s own reason (too short)
    monkeypatch.setenv("BANSHE_FORUM_PASSWORD", "wrong-password")
    assert main(["forum", "post", url, "--login", "导演", "--text", text + "再发一次"]) == 2
    assert "密码有误" in capsys.readouterr().err
    missing = board.url(999999, False)
    monkeypatch.setenv("BANSHE_FORUM_PASSWORD", board.forum.passwords["导演"])
    assert main(["forum", "post", missing, "--login", "导演", "--text", text]) == 2
    assert "主题不存在" in capsys.readouterr().err
