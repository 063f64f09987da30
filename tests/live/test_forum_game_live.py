"""A service game played on the real Discuz! (issue 23): the director's account reads the thread
live, the day is held at its deadline and closed with the thread's count, the 公示 go to the
thread once; a hidden-reply thread is read logged in."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from types import ModuleType

import pytest
from sqlalchemy import select

from banshe.service.forum_desk import ForumDesk
from banshe.service.forum_models import ForumDay

from ..service.conftest import FakeClock, Harness, make_harness, shanghai
from .conftest import SHARED
from .threads import Board

ROLES = {
    "一号": "预言家",
    "二号": "狼人",
    "三号": "村民",
    "四号": "女巫",
    "五号": "狼人",
    "六号": "村民",
    "七号": "猎人",
    "八号": "狼人",
    "九号": "白痴",
    "十号": "村民",
    "十一号": "狼人",
    "十二号": "村民",
    "十三号": "混血儿",
    "十四号": "病娇",
}


@pytest.fixture
def board(forum: ModuleType) -> Iterator[Board]:
    b = Board(forum, SHARED)
    yield b
    b.close()


@pytest.fixture
def h(tmp_path: object) -> Iterator[Harness]:
    harness = make_harness(f"sqlite:///{tmp_path}/live.sqlite3", FakeClock(shanghai(2026, 12, 8, 10)))
    with harness.client:
        yield harness
    harness.client.app.state.engine.dispose()  # type: ignore[attr-defined]


def _game(h: Harness, board: Board, **extra: str) -> tuple[int, int, ForumDesk]:
    """A 品茗 game whose seats are the forum's accounts, played on a new thread by 导演."""
    h.login()
    game = h.create_pinming(seats=ROLES)
    tid = board.thread("2026-12-08 10:00", "测试局讨论帖", "版杀测试局：公示与投票都在本帖。", **extra)
    fields = {"thread_url": board.url(tid, False), "account": "导演", "password": board.forum.passwords["导演"]}
    code, text = h.director(game, "forum/link", poll_minutes="3", **fields)
    assert code == 303, text
    assert h.act(h.links(game)["十三号"], "recognize", target="三号")[0] == 303
    # 开局 closes at 11:00; 第1天 (closes 2026-12-09 21:00) once its settling window has run and
    # the dawn 公示 is published (auto_publish)
    assert h.run_until(shanghai(2026, 12, 8, 11, 10)) == 2
    assert h.service.read(game)[1].phase.label == "第1天"
    return game, tid, h.client.app.state.forum_desk  # type: ignore[attr-defined]


def test_a_forum_day_read_live_held_at_its_deadline_and_its_gongshi_posted(
    h: Harness, board: Board, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # httpx and httpcore log every request: never the password
    game, tid, desk = _game(h, board)
    board.at("2026-12-08 11:05")
    assert h.director(game, "forum/post", idx="0")[0] == 303  # the 第1天 公示 opens the day on the forum
    v3 = board.post("三号", tid, "投票对象：一号\n投票理由：预言家跳得早", "2026-12-08 11:10:00")
    board.post("四号", tid, "投票对象：一号\n投票理由：同上", "2026-12-08 11:10:00")
    board.post("二号", tid, "投票对象：五号\n投票理由：五号发言差", "2026-12-08 11:20:00")
    board.post("六号", tid, "投票对象：五号\n投票理由：跟票", "2026-12-08 11:30:00")
    board.post("三号", tid, "改票对象：五号\n改票理由：被说服了", "2026-12-08 12:00:00", quote=v3)
    board.post("七号", tid, "投票对象：二号\n投票理由：手机投票", "2026-12-08 12:10:00", mobile=True)

    day = desk.read_live(game)
    assert [v["input"] for v in desk.effective(day) if v["accepted"]] == [
        ["三号", "投票", "一号"],
        ["四号", "投票", "一号"],
        ["二号", "投票", "五号"],
        ["六号", "投票", "五号"],
        ["三号", "改票", "五号"],
        ["七号", "投票", "二号"],
    ]
    board.post("八号", tid, "投票对象：五号\n投票理由：第四票", "2026-12-09 20:59:00")
    board.post("九号", tid, "投票对象：一号\n投票理由：晚了", "2026-12-09 21:00:30")
    h.clock.now = shanghai(2026, 12, 9, 21, 1)
    assert h.service.fire_due() == 1
    assert h.service.read(game)[1].phase.label == "第1天"  # held for the count
    assert desk.poll() == 1
    with h.service.sessions() as s:
        final = s.scalars(select(ForumDay).where(ForumDay.game_id == game)).one()
    assert final.mode == "final" and final.result["close"] == "2026-12-09 21:00"
    refused = {p["floor"]: p["refused"] for p in final.result["posts"] if p["refused"]}
    assert list(refused.values()) == ["关门（21:00）后发帖，投票无效"]
    code, text = h.director(game, f"forum/{final.id}/close")
    assert code == 303, text
    state = h.service.read(game)[1]
    assert state.phase.label == "第1夜" and state.sheriff == "五号"  # 五号 4 (二 六 三 八), 一号 1
    h.settle(game)  # the day's result is published once its settling window has run

    code, text = h.director(game, "forum/post", idx="all")
    assert code == 303, text
    shown = _thread_text(board, tid)
    assert "五号当选警长" in shown and shown.count("【第1天公示】") == 2 and "【第1夜公示】" in shown
    posts_before = shown.count("postmessage_")
    assert h.director(game, "forum/post", idx="all")[0] == 400  # nothing left to post
    code, text = h.director(game, "forum/post", idx="1")
    assert code == 400 and "已经发到论坛" in text
    assert _thread_text(board, tid).count("postmessage_") == posts_before
    password = board.forum.passwords["导演"]
    assert caplog.records and not any(password in r.getMessage() for r in caplog.records)
    assert password not in h.client.get(f"/d/g/{game}/forum").text
    assert password not in h.client.get(f"/d/g/{game}/export.json").text


def _thread_text(board: Board, tid: int) -> str:
    return "".join(p.decode("utf-8") for p in board.pages(tid, None, False))


def test_a_hidden_reply_thread_is_read_as_its_director(h: Harness, board: Board) -> None:
    game, tid, desk = _game(h, board, hiddenreplies="1")
    board.at("2026-12-08 11:05")
    assert h.director(game, "forum/post", idx="0")[0] == 303
    board.post("三号", tid, "投票对象：一号\n投票理由：半公开投票", "2026-12-08 11:10:00")
    board.post("五号", tid, "投票对象：三号\n投票理由：半公开投票", "2026-12-08 11:20:00")
    day = desk.read_live(game)
    assert [v["input"] for v in desk.effective(day)] == [["三号", "投票", "一号"], ["五号", "投票", "三号"]]
    # the same address read without the account (by hand, as a guest) is refused with Discuz!'s words
    code, text = h.director(game, "forum/read", url=board.url(tid, False) + "&page=1")
    error = text.split('id="error">')[1].split("</div>")[0]
    assert code == 400 and "此帖仅作者可见" in error, error
