"""A day of a forum-mode game in a real browser (issue 23): the director sets the game on a real
Discuz! thread, players post on the forum, the desk's tally follows, the director closes, the
公示 appears in the thread. Headless Debian Chromium, a real `banshe serve`, the real forum."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from ..service.e2e_helpers import (  # noqa: F401 (fixtures, skip mark)
    ARTIFACTS,
    Table,
    _submit,
    browser,
    create_game,
    director_login,
    pytestmark,
    server,
)
from .conftest import SHARED
from .test_forum_game_live import ROLES
from .threads import Board


@pytest.fixture
def board(forum: ModuleType) -> Iterator[Board]:
    b = Board(forum, SHARED)
    b.forum.set_clock("now")  # the service runs on the real clock
    yield b
    b.close()


def _reply(board: Board, name: str, tid: int, text: str, quote: int | None = None) -> int:
    pid: int = board.as_(name).reply(tid, text, quote=quote)
    return pid


def test_a_forum_day_in_the_browser(server: str, browser: Any, board: Board) -> None:  # noqa: F811
    d = director_login(browser, server)
    god = create_game(d, "品茗", ROLES, seed=11, auto_publish=True)
    table = Table(browser, server, d, god)  # the players' links, from the god page
    tid: int = board.as_("导演").new_thread("浏览器测试局", "版杀测试局：公示与投票都在本帖。")[0]

    _submit(d, "#forum-desk")
    d.fill("#forum-link input[name=thread_url]", board.url(tid, False))
    d.fill("#forum-link input[name=account]", "导演")
    d.fill("#forum-link input[name=password]", board.forum.passwords["导演"])
    _submit(d, "#save-link")
    assert "已登录论坛" in d.locator("#ok").inner_text()
    assert "导演" in d.locator("#forum-mode").inner_text()
    assert d.locator("#forum-link input[name=password]").input_value() == ""  # never shown again

    table.act("十三号", "recognize", "三号")
    table.close_phase()  # 开局 → 第1天: the settling window ends and the dawn 公示 is published
    d.goto(god + "/forum")
    _submit(d, "#post-0")  # the 第1天 公示 opens the day on the forum
    assert "公示已在论坛2楼发出" in d.locator("#ok").inner_text()

    vote3 = _reply(board, "三号", tid, "投票对象：一号\n投票理由：预言家跳得早")
    _reply(board, "二号", tid, "投票对象：五号\n投票理由：五号发言差")
    _reply(board, "六号", tid, "投票对象：五号\n投票理由：跟票")
    _submit(d, "#read-live")
    assert "有效 → 一号" in d.locator("#floor-3").inner_text()
    assert d.locator("#forum-inputs li").count() == 3

    # the tally follows the thread
    _reply(board, "三号", tid, "改票对象：五号\n改票理由：被说服了", quote=vote3)
    _reply(board, "四号", tid, "投票对象：一号\n投票理由：同上")
    _reply(board, "七号", tid, "投票对象：五号")  # no reason line: refused, corrected by posting again
    _submit(d, "#read-live")
    assert "有效 → 五号" in d.locator("#floor-6").inner_text()
    assert "无效" in d.locator("#floor-8").inner_text()
    assert d.locator("#forum-inputs li").count() == 5
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    d.screenshot(path=str(ARTIFACTS / "forum-game-live.png"), full_page=True)

    _submit(d, "#forum-close button")  # 录入并关门 (director_login accepts its confirmation)
    assert "第1天已关门" in d.locator("#ok").inner_text()
    assert "第1夜" in d.locator("#phase").inner_text()
    table.publish()  # the settling window ends and the day's result is published
    d.goto(god + "/forum")
    _submit(d, "#post-all button")
    assert "公示发到论坛" in d.locator("#ok").inner_text()
    shown = "".join(p.decode("utf-8") for p in board.pages(tid, None, False))
    assert "五号当选警长" in shown and "【第1夜公示】" in shown
    assert d.locator("#post-all").count() == 0  # nothing left to post: never twice
    d.screenshot(path=str(ARTIFACTS / "forum-game-closed.png"), full_page=True)
