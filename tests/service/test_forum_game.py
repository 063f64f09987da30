"""A game played on a forum thread (issue 23), with the forum's network side replaced by a fake
that serves Discuz! pages and takes replies (tests/live/ plays the same against the real forum):
the setting and its password, live re-reading, the day held at its deadline, 潜水 from the
thread, 公示 posted once, the relay list."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from sqlalchemy import select

from banshe.forum.discuz import ForumError, Page, parse_page
from banshe.forum.remote import Reply, plain_text
from banshe.service import forum_desk
from banshe.service.forum_desk import ForumDesk
from banshe.service.forum_models import ForumDay, ForumLink, ForumPublication
from banshe.service.models import LurkFlag

from ..discuz_pages import TID, P, page, vote
from .conftest import Harness, shanghai

THREAD = f"http://bbs.example.com/forum.php?mod=viewthread&tid={TID}"
PASSWORD = "forum-secret-7"


@dataclass
class FakeForum:
    """The thread as the forum holds it (posts), the director's password, what was posted."""

    posts: list[P] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    logins: int = 0
    now: str = "2026-12-2 21:30"

    def open(self, allow_private: bool, limits: object = None) -> FakeSession:
        return FakeSession(self)


class FakeSession:
    def __init__(self, forum: FakeForum) -> None:
        self.forum = forum
        self.username: str | None = None

    def __enter__(self) -> FakeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        pass

    def login(self, url: str, username: str, password: str) -> None:
        if password != PASSWORD:
            raise ForumError(f"论坛登录失败（{username}）：抱歉，您输入的密码有误")
        self.forum.logins += 1
        self.username = username

    def read_thread(self, url: str) -> list[Page]:
        return [parse_page(page(list(self.forum.posts), subject="第1天讨论帖"), url, url)]

    def reply(self, url: str, text: str) -> Reply:
        pages = self.read_thread(url)
        for post in pages[0].posts:
            if post.author == self.username and plain_text(post.body) == plain_text(text):
                return Reply(f"{url}#pid{post.pid}", post.pid, post.floor, existing=True)
        self.forum.replies.append(text)
        self.forum.posts.append(P(self.username or "", self.forum.now, text.replace("\n", "<br />\n")))
        post = parse_page(page(list(self.forum.posts)), url).posts[-1]
        return Reply(f"{url}#pid{post.pid}", post.pid, post.floor)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeForum]:
    forum = FakeForum([P("导演", "2026-12-1 10:00", "版杀第1天讨论帖，请按格式投票。")])
    monkeypatch.setattr(forum_desk, "ForumSession", forum)
    yield forum


def _desk(h: Harness) -> ForumDesk:
    desk: ForumDesk = h.client.app.state.forum_desk  # type: ignore[attr-defined]
    return desk


def _day_one(h: Harness) -> int:
    """A 品茗 game at 第1天 (which closes 2026-12-02 21:00)."""
    h.login()
    game = h.create_pinming()
    assert h.act(h.links(game)["年糕"], "recognize", target="饺子")[0] == 303
    assert h.run_for(3600 + 600) == 2  # 开局 closes; 第1天 once its settling window has run
    return game


def _link(h: Harness, game: int, **fields: str) -> tuple[int, str]:
    data = {"thread_url": THREAD, "account": "导演", "password": PASSWORD, "poll_minutes": "3", **fields}
    return h.director(game, "forum/link", **data)


def _thread(forum: FakeForum) -> None:
    forum.posts[:] = [
        P("导演", "2026-12-1 10:40", "【第1天公示】第1天讨论日开始。今天竞选警长。"),
        P("包子", "2026-12-1 12:00", vote("饺子")),  # 2
        P("烧麦", "2026-12-1 12:10", vote("饺子")),  # 3
        P("锅贴", "2026-12-1 12:20", vote("饺子")),  # 4
        P("月饼", "2026-12-1 12:30", vote("汤圆")),  # 5
        P("春卷", "2026-12-1 12:40", vote("汤圆")),  # 6
        P("馄饨", "2026-12-1 13:00", vote("汤园")),  # 7: a typo, refused
        P("围观群众", "2026-12-1 13:30", "加油"),  # 8
    ]


def test_the_forum_setting_checks_the_login_and_keeps_the_password_secret(harness: Harness, fake: FakeForum) -> None:
    h = harness
    game = _day_one(h)
    code, text = _link(h, game, password="wrong")
    assert code == 400 and "抱歉，您输入的密码有误" in text
    assert _desk(h).link(game) is None
    code, text = _link(h, game, poll_minutes="0")
    assert code == 400 and "读帖间隔" in text
    code, text = _link(h, game, thread_url="ftp://bbs.example.com/x")
    assert code == 400 and "http" in text
    assert _link(h, game)[0] == 303
    link = _desk(h).link(game)
    assert link is not None and link.account == "导演" and PASSWORD not in link.sealed_password
    shown = h.client.get(f"/d/g/{game}/forum").text
    assert 'id="forum-mode"' in shown and "导演" in shown and PASSWORD not in shown
    assert link.sealed_password not in shown
    exported = h.client.get(f"/d/g/{game}/export.json").text
    assert PASSWORD not in exported and link.sealed_password not in exported
    # a blank password keeps the stored one; another account needs its own
    assert _link(h, game, password="", poll_minutes="5")[0] == 303
    assert (_desk(h).link(game) or link).poll_minutes == 5
    code, text = _link(h, game, password="", account="别的账号")
    assert code == 400 and "密码" in text


def test_live_reading_and_the_day_held_at_its_deadline(harness: Harness, fake: FakeForum) -> None:
    h = harness
    game = _day_one(h)
    _thread(fake)
    assert _link(h, game)[0] == 303
    desk = _desk(h)

    # the poller reads the thread when due, and again only after its interval
    assert desk.poll() == 1
    assert desk.poll() == 0
    h.clock.advance(3 * 60)
    fake.posts.append(P("麻花", "2026-12-1 14:00", vote("汤圆")))  # 9
    assert desk.poll() == 1
    with h.service.sessions() as s:
        days = s.scalars(select(ForumDay).where(ForumDay.game_id == game)).all()
        assert [(d.mode, d.phase) for d in days] == [("live", "第1天")]  # one live reading, updated in place
        assert days[0].result["close"] == "2026-12-02 21:00"
    shown = h.client.get(f"/d/g/{game}/forum").text
    assert 'id="floor-9"' in shown and "没有“汤园”这名角色" in shown and 'id="forum-live"' in shown

    # a vote after the deadline; the scheduler holds the day instead of closing it
    fake.posts.append(P("豆花", "2026-12-2 21:00:30", vote("汤圆")))  # 10: late
    h.clock.now = shanghai(2026, 12, 2, 21, 1)
    assert h.service.fire_due() == 1
    _game, state = h.service.read(game)
    assert state.phase.label == "第1天" and not state.settling
    link = desk.link(game)
    assert link is not None and link.held_phase == "第1天"
    assert desk.poll() == 1  # the reading at the deadline
    shown = h.client.get(f"/d/g/{game}/forum").text
    assert 'id="forum-held"' in shown and "关门（21:00）后发帖" in shown
    with h.service.sessions() as s:
        day = s.scalars(select(ForumDay).where(ForumDay.game_id == game)).one()
        assert day.mode == "final"

    # the director reviews: the typo is his to accept, then 录入并关门
    code, _ = h.director(game, f"forum/{day.id}/override", floor="7", verdict="accept", target="汤圆", note="错字")
    assert code == 303
    code, text = h.director(game, f"forum/{day.id}/close")
    assert code == 303, text
    _game, state = h.service.read(game)
    assert state.phase.label == "第1夜" and state.sheriff == "汤圆"  # 饺子 3, 汤圆 4 (月饼 春卷 麻花 馄饨)
    assert (desk.link(game) or link).held_phase is None
    assert desk.poll() == 0  # nights are not read

    # 潜水 comes from the thread's count, never "0帖" for who posted on the forum
    with h.service.sessions() as s:
        reasons: dict[str, str] = {}
        for f in s.scalars(select(LurkFlag).where(LurkFlag.game_id == game)):
            reasons[f.player] = reasons.get(f.player, "") + f.reason + "；"
    assert "（1帖）" in reasons["包子"] and "（0帖）" in reasons["油条"] and "（0帖）" not in reasons["包子"]
    assert "未投票" not in reasons["包子"] and "未投票" in reasons["油条"]
    assert "（0帖）" in reasons["豆花"]  # the late post is no post of the day


def test_auto_close_at_the_deadline(harness: Harness, fake: FakeForum) -> None:
    h = harness
    game = _day_one(h)
    _thread(fake)
    assert _link(h, game, auto_close="on")[0] == 303
    h.clock.now = shanghai(2026, 12, 2, 21, 0)
    assert h.service.fire_due() == 1
    assert _desk(h).poll() == 1
    _game, state = h.service.read(game)
    assert state.phase.label == "第1夜" and state.sheriff == "饺子"  # 饺子 3, 汤圆 2 (the typo refused)


def test_each_announcement_is_posted_once(harness: Harness, fake: FakeForum) -> None:
    h = harness
    game = _day_one(h)
    assert _link(h, game)[0] == 303
    shown = h.client.get(f"/d/g/{game}/forum").text
    assert 'id="post-0"' in shown  # the published 第1天 公示
    assert h.director(game, "forum/post", idx="0")[0] == 303
    assert len(fake.replies) == 1 and "【第1天公示】" in fake.replies[0] and "[color=#FF0000]" in fake.replies[0]
    code, text = h.director(game, "forum/post", idx="0")
    assert code == 400 and "已经发到论坛" in text
    assert len(fake.replies) == 1
    shown = h.client.get(f"/d/g/{game}/forum").text
    assert 'id="ann-0-forum"' in shown and 'id="post-0"' not in shown

    # a post whose answer was lost: the retry finds it on the forum and posts nothing
    h.close(game)  # the day's result is published once its settling window has run
    with h.service.sessions() as s:
        pending = [a for a in forum_desk.public_announcements(h.service.read(game)[1])]
        assert len(pending) > 1
        s.add(ForumPublication(game_id=game, idx=1, status="failed", error="超时", created_at=h.service.clock()))
        s.commit()
    desk = _desk(h)
    _idx, phase, text_ = next(a for a in desk._publishable(game) if a[0] == 1)
    fake.posts.append(P("导演", fake.now, forum_desk.forum_bbcode("pinming", phase, text_).replace("\n", "<br />")))
    before = len(fake.replies)
    assert "没有重发" in desk.post_announcement(game, 1)
    assert len(fake.replies) == before
    code, text = h.director(game, "forum/post", idx="9999")
    assert code == 400 and "还没有发布" in text
    assert h.director(game, "forum/post", idx="all")[0] == 303
    with h.service.sessions() as s:
        rows = s.scalars(select(ForumPublication).where(ForumPublication.game_id == game)).all()
        assert {r.status for r in rows} == {"posted"} and len(rows) == len(desk._publishable(game))


def test_the_relay_list_and_a_game_without_a_forum(harness: Harness, fake: FakeForum) -> None:
    h = harness
    game = _day_one(h)
    shown = h.client.get(f"/d/g/{game}/forum").text
    assert 'id="forum-relay"' not in shown and 'id="forum-link"' in shown
    assert _link(h, game)[0] == 303
    shown = h.client.get(f"/d/g/{game}/forum").text
    assert 'id="forum-relay"' in shown and "你的身份是预言家" in shown and "认亲结束，你的阵营是" in shown
    assert 'data-copy="#relay-1-1"' in shown
    relay: list[dict[str, Any]] = ForumDesk.relay(h.service.read(game)[1])
    assert [p["player"] for p in relay][:2] == ["饺子", "包子"]
    assert relay[0]["phases"][0]["message"].startswith("【")
    # unlinking forgets the password
    assert h.director(game, "forum/link", unlink="1")[0] == 303
    with h.service.sessions() as s:
        assert s.scalars(select(ForumLink)).all() == []


def test_a_read_by_address_reports_one_text_for_every_failure(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    texts = set()
    for url in ("http://127.0.0.1:9/forum.php?mod=viewthread&tid=1", "http://no-such-host.invalid/forum.php?tid=1"):
        code, text = h.director(game, "forum/read", url=url)
        assert code == 400
        texts.add(text.split('id="error">')[1].split("<")[0])
    assert len(texts) == 1 and "内网" in next(iter(texts))
    json.dumps(sorted(texts))


def test_the_desks_own_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """The desk's forum calls wait in a pool of their own: beyond SLOTS + QUEUE they are refused,
    and the service's own worker threads stay free meanwhile."""
    from banshe.service import forum_desk

    monkeypatch.setattr(forum_desk, "SLOTS", 2)
    monkeypatch.setattr(forum_desk, "QUEUE", 3)
    desk = forum_desk.ForumDesk(None, "k")  # type: ignore[arg-type]
    release = threading.Event()
    outcomes: list[str] = []

    async def main() -> None:
        async def call() -> None:
            try:
                await desk.run(release.wait, 10)
                outcomes.append("done")
            except forum_desk.Busy:
                outcomes.append("busy")

        async with anyio.create_task_group() as tg:
            for _ in range(5):
                tg.start_soon(call)
            await anyio.sleep(0.3)
            assert outcomes == ["busy", "busy"]  # 3 admitted (2 running, 1 waiting), 2 refused
            # the default pool (the service's pages) still runs at once
            assert await anyio.to_thread.run_sync(lambda: "page") == "page"
            release.set()

    anyio.run(main)
    assert sorted(outcomes) == ["busy", "busy", "done", "done", "done"]
