"""Every route, and the refusals: sessions, CSRF, forged links, pauses, substitutes, approvals."""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from banshe import cli
from banshe.engine import replay
from banshe.rulesets import thread_policy
from banshe.rulesets.registry import find_ruleset
from banshe.service import auth
from banshe.service import schedule as sched
from banshe.service.app import Settings, create_app
from banshe.service.models import CommandRow, Game, Post

from .conftest import PINMING_SEATS, FakeClock, Harness, make_harness, shanghai


def _to_day_one(h: Harness, game: int) -> None:
    """开局 closes at 11:00; its settling window ends at 11:10 and day 1 opens (published at once)."""
    assert h.run_until(shanghai(2026, 12, 1, 11, 10)) == 2


def test_director_pages_need_a_session(harness: Harness) -> None:
    h = harness
    r = h.client.get("/d", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/login")
    assert h.client.get("/login").status_code == 200
    r = h.client.post("/d/new", data={"ruleset": "pinming", "seats": "甲\n乙"}, follow_redirects=False)
    assert r.status_code == 401
    h.login()
    login_csrf = h.client.cookies["banshe_login"]
    r = h.client.post("/login", data={"username": "导演甲", "password": "wrong-password", "csrf": login_csrf})
    assert r.status_code == 401 and "用户名或密码错误" in r.text
    r = h.client.post("/login", data={"username": "导演甲", "password": "correct-horse", "csrf": "forged"})
    assert r.status_code == 403
    # a form without the session's CSRF token changes nothing
    seats = "\n".join(f"{n} {r}" for n, r in PINMING_SEATS.items())
    r = h.client.post("/d/new", data={"ruleset": "pinming", "seats": seats, "csrf": "forged"}, follow_redirects=False)
    assert r.status_code == 403 and "CSRF" in r.text
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(Game.id))) == 0
    assert h.client.get("/d/new?ruleset=品茗").status_code == 200
    game = h.create_pinming()
    assert h.client.get(f"/d/g/{game}").status_code == 200
    assert "banshe-game" in h.client.get(f"/d/g/{game}/export.json").text
    assert h.client.get(f"/d/g/{game}/review").status_code == 200
    # another director sees nothing of it
    other = make_harness(h.url, h.clock)
    with other.client:
        other.login("导演乙", "another-password")
        assert other.client.get(f"/d/g/{game}").status_code == 404
        assert other.director(game, "command", skill="close_phase")[0] == 404
        assert other.client.get(f"/d/g/{game}/export.json").status_code == 404
    other.client.app.state.engine.dispose()  # type: ignore[attr-defined]
    # logging out ends the session
    assert h.client.post("/logout", data={"csrf": h.csrf}, follow_redirects=False).status_code == 303
    assert h.client.get("/d", follow_redirects=False).status_code == 303


def test_bad_game_setups_are_refused_in_chinese(harness: Harness) -> None:
    h = harness
    h.login()
    cases = [
        ("甲 预言家\n乙", "要么所有座位都写明身份"),
        ("甲 预言家\n乙 法师", "没有身份“法师”"),
        ("甲\n甲", "玩家名字重复"),
        ("甲\n乙\n丙", "品茗只能使用种子的配置：14名角色"),  # 品茗's deck is its only board (rulings 2026-12-04)
    ]
    for seats, reason in cases:
        r = h.client.post("/d/new", data={"csrf": h.csrf, "ruleset": "pinming", "seats": seats})
        assert r.status_code == 400 and reason in r.text, reason
    lines = "\n".join(PINMING_SEATS)
    r = h.client.post("/d/new", data={"csrf": h.csrf, "ruleset": "pinming", "seats": lines, "day_end": "25:00"})
    assert r.status_code == 400 and "HH:MM" in r.text
    r = h.client.post("/d/new", data={"csrf": h.csrf, "ruleset": "pinming", "seats": lines, "timezone": "火星/基地"})
    assert r.status_code == 400 and "未知的时区" in r.text
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(Game.id))) == 0
    # identities dealt by the seeded RNG: 14 names and no identities
    r = h.client.post(
        "/d/new", data={"csrf": h.csrf, "ruleset": "pinming", "seats": lines, "seed": "3"}, follow_redirects=False
    )
    assert r.status_code == 303


def test_a_link_shows_only_what_the_rules_give_its_player(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    assert h.client.get("/p/not-a-real-token").status_code == 404
    assert h.client.get("/p/not-a-real-token/state.json").status_code == 404
    r = h.client.get("/no/such/page")
    assert r.status_code == 404 and "页面不存在" in r.text
    h.login("导演丙", "password-3")
    r = h.client.get("/d/g/abc")
    assert r.status_code == 400 and "请求参数有误" in r.text
    villager = h.state(links["馄饨"])["view"]
    seats = {s["name"]: s for s in villager["seats"]}  # type: ignore[index]
    assert seats["馄饨"]["role"] == "村民"
    assert all("role" not in s and "camp" not in s for n, s in seats.items() if n != "馄饨")
    page = h.client.get(f"/p/{links['馄饨']}").text
    assert "狼群" not in page and "汤圆 狼人" not in page
    # another character's name in the form is ignored: the link decides who acts
    code, _ = h.act(links["年糕"], "recognize", target="饺子", actor="米糕")
    assert code == 303
    with h.service.sessions() as s:
        row = s.scalars(select(CommandRow).where(CommandRow.game_id == game)).one()
    assert row.actor == "年糕"
    # a skill the character does not have is refused with the engine's reason
    code, page = h.act(links["馄饨"], "recognize", target="饺子")
    assert code == 400 and "不是混血儿" in page
    code, page = h.act(links["馄饨"], "no-such-skill")
    assert code == 400 and "未知的技能" in page
    # one player's CSRF token does not work on another's link
    r = h.client.post(
        f"/p/{links['馄饨']}/post", data={"csrf": h.player_csrf(links["汤圆"]), "text": "你好"}, follow_redirects=False
    )
    assert r.status_code == 403
    # the 复盘 waits for the end of the game
    assert h.client.get(f"/p/{links['馄饨']}/review").status_code == 403
    _to_day_one(h, game)
    wolf = h.state(links["汤圆"])["view"]
    assert wolf["groups"] == {"wolves": ["汤圆", "月饼", "春卷", "麻花"]}  # type: ignore[index]
    assert "狼群" in h.client.get(f"/p/{links['汤圆']}").text
    assert "狼群" not in h.client.get(f"/p/{links['馄饨']}").text
    assert h.state(links["馄饨"])["view"]["groups"] == {}  # type: ignore[index]


def test_announcements_wait_for_the_directors_approval(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming(auto_publish=False)
    links = h.links(game)
    _to_day_one(h, game)
    thread = h.state(links["馄饨"])["thread"]
    assert not any(i["kind"] == "announce" for i in thread)  # type: ignore[union-attr]
    god = h.client.get(f"/d/g/{game}").text
    assert "待发布的公示" in god and "[b]【第1天公示】[/b]" in god
    code, _ = h.director(game, "publish", upto="0")
    assert code == 303
    thread = h.state(links["馄饨"])["thread"]
    assert any(i["kind"] == "announce" and "第1天讨论日开始" in i["text"] for i in thread)  # type: ignore[union-attr]
    assert h.director(game, "publish", upto="0")[0] == 400
    # a published 公示 can still be copied as BBCode from the god view
    assert "复制为 Discuz! BBCode" in h.client.get(f"/d/g/{game}").text


def test_director_controls(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    _to_day_one(h, game)
    # cards, a refused deduction (品茗 has no points), an unknown command
    assert h.director(game, "command", skill="card_blue", target="馄饨")[0] == 303
    assert "馄饨被判罚一张蓝牌。" in json.dumps(h.state(links["饺子"]), ensure_ascii=False)
    code, page = h.director(game, "command", skill="deduct", target="馄饨", amount="2")
    assert code == 400 and "没有扣分制度" in page
    assert h.director(game, "command", skill="drop_table")[0] == 400
    # 代投
    assert h.director(game, "proxy-vote", player="豆花", target="饺子")[0] == 303
    with h.service.sessions() as s:
        post = s.scalars(select(Post).where(Post.game_id == game)).one()
    assert post.by_director and post.vote_target == "饺子" and post.author == "豆花"
    # extend the deadline
    with h.service.sessions() as s:
        before = h.service.current_deadline(s, game)
        assert before is not None
    assert h.director(game, "extend", minutes="90")[0] == 303
    with h.service.sessions() as s:
        after = h.service.current_deadline(s, game)
        assert after is not None and after.due_at == before.due_at + 5400
    assert h.director(game, "extend", minutes="abc")[0] == 400
    # pause: everything waits, and the deadline moves with the pause
    assert h.director(game, "status", action="pause")[0] == 303
    code, page = h.post(links["馄饨"], "你好")
    assert code == 400 and "游戏已暂停" in page
    h.clock.now = after.due_at + 3600
    assert h.service.fire_due() == 0
    assert h.director(game, "status", action="pause")[0] == 400
    assert h.director(game, "status", action="resume")[0] == 303
    with h.service.sessions() as s:
        resumed = h.service.current_deadline(s, game)
        assert resumed is not None
    assert resumed.due_at > h.clock.now
    # 替补: a new link for the character, the old one stops working, the history stays
    old = links["馄饨"]
    assert h.director(game, "substitute", player="馄饨", person="新来的")[0] == 303
    assert h.director(game, "substitute", player="无名氏")[0] == 400
    new = h.links(game)["馄饨"]
    assert new != old
    assert h.client.get(f"/p/{old}").status_code == 404
    assert "馄饨被判罚一张蓝牌。" in json.dumps(h.state(new), ensure_ascii=False)
    assert h.post(new, "替补报到")[0] == 303
    # close the phase now (the players see the night once the settling window has run), then end the game
    assert h.director(game, "command", skill="close_phase")[0] == 303
    assert h.state(new)["view"]["phase"] == "第1天" and h.state(new)["view"]["settling"]  # type: ignore[index]
    h.run_for(10 * 60)
    assert h.state(new)["view"]["phase"] == "第1夜"  # type: ignore[index]
    assert h.director(game, "status", action="end")[0] == 303
    code, page = h.post(new, "还在吗")
    assert code == 400 and "游戏已经结束" in page
    assert h.client.get(f"/p/{new}/review").status_code == 200


def test_requests_to_accelerate(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    _to_day_one(h, game)
    names = list(PINMING_SEATS)
    for name in names[:2]:
        assert h.post(links[name], "投票对象：饺子\n投票理由：x")[0] == 303
    for i, name in enumerate(names[:7]):
        r = h.client.post(
            f"/p/{links[name]}/request",
            data={"csrf": h.player_csrf(links[name]), "kind": "accelerate"},
            follow_redirects=False,
        )
        assert r.status_code == 303
        if i == 0:
            again = h.client.post(
                f"/p/{links[name]}/request", data={"csrf": h.player_csrf(links[name]), "kind": "accelerate"}
            )
            assert again.status_code == 400 and "已经申请过" in again.text
    assert "导演宣布执行加速" in json.dumps(h.state(links["馄饨"]), ensure_ascii=False)
    code, page = h.change(links[names[0]], "改票对象：包子\n改票理由：x")
    assert code == 400 and "执行加速时不允许改票" in page
    # 延时: half the alive characters ask, the day is no longer accelerated and lasts a day longer
    with h.service.sessions() as s:
        close = h.service.current_deadline(s, game)
        assert close is not None
        due = close.due_at
    for name in names[7:]:
        r = h.client.post(
            f"/p/{links[name]}/request",
            data={"csrf": h.player_csrf(links[name]), "kind": "delay"},
            follow_redirects=False,
        )
        assert r.status_code == 303
    assert "延时成功，不再执行加速。" in json.dumps(h.state(links["馄饨"]), ensure_ascii=False)
    with h.service.sessions() as s:
        close = h.service.current_deadline(s, game)
        assert close is not None and close.due_at == due + 24 * 3600
    assert h.change(links[names[0]], "改票对象：包子\n改票理由：x")[0] == 303
    # requests are refused in the last three hours of the day (品茗)
    h.clock.now = due + 24 * 3600 - 2 * 3600
    r = h.client.post(f"/p/{links['馄饨']}/request", data={"csrf": h.player_csrf(links["馄饨"]), "kind": "delay"})
    assert r.status_code == 400 and "申请延时已截止" in r.text


def test_two_services_on_one_database_see_each_others_commands(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    _to_day_one(h, game)
    second = make_harness(h.url, h.clock)
    with second.client:
        assert h.post(links["饺子"], "投票对象：包子\n投票理由：x")[0] == 303
        assert second.post(links["包子"], "投票对象：饺子\n投票理由：x")[0] == 303
        assert h.change(links["饺子"], "改票对象：烧麦\n改票理由：x")[0] == 303
        code, page = second.change(links["饺子"], "改票对象：包子\n改票理由：x")
        assert code == 400 and "改票只允许进行一次" in page
        _g, one = h.service.read(game)
        _g, two = second.service.read(game)
        assert one.fingerprint() == two.fingerprint()
        assert one.votes == {"饺子": "烧麦", "包子": "饺子"}
    second.client.app.state.engine.dispose()  # type: ignore[attr-defined]


def test_concurrent_submissions_never_interleave(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    _to_day_one(h, game)
    csrf = {n: h.player_csrf(t) for n, t in links.items()}
    results: list[int] = []
    lock = threading.Lock()

    def vote(name: str) -> None:
        for i in range(3):
            text = "投票对象：饺子\n投票理由：一起" if i == 0 else f"第{i}帖"
            r = h.client.post(f"/p/{links[name]}/post", data={"csrf": csrf[name], "text": text}, follow_redirects=False)
            with lock:
                results.append(r.status_code)

    threads = [threading.Thread(target=vote, args=(n,)) for n in links]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(303) == 42
    with h.service.sessions() as s:
        seqs = list(s.scalars(select(CommandRow.seq).where(CommandRow.game_id == game).order_by(CommandRow.seq)))
        posts = s.scalar(select(func.count(Post.id)).where(Post.game_id == game))
    assert seqs == list(range(1, len(seqs) + 1))
    assert posts == 42
    _game, state = h.service.read(game)
    assert len(state.votes) == 14
    assert replay(state).fingerprint() == state.fingerprint()


def test_restart_rebuilds_the_same_state_and_fires_missed_deadlines_in_order(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    _to_day_one(h, game)
    for name in ["饺子", "包子", "烧麦"]:
        assert h.post(links[name], "投票对象：饺子\n投票理由：x")[0] == 303
    _game, before = h.service.read(game)
    # a new process on the same database: nothing cached, the state replays from the stored commands
    clock = FakeClock(shanghai(2026, 12, 3, 9))  # the service was down over day 1's close and night 1
    fresh = make_harness(h.url, clock)
    with fresh.client:
        _game, after = fresh.service.read(game)
        assert after.fingerprint() == before.fingerprint()
        # the first missed deadline fires (as of its time); the next one (the settling window) is
        # overdue too, so the game pauses there and the director is told — no night plays out
        # with no one able to act (issue 22)
        fired = fresh.service.fire_due()
        assert fired == 1
        game_row, state = fresh.service.read(game)
        assert state.phase.label == "第1夜" and state.sheriff == "饺子"  # day 1 settled
        assert game_row.status == "paused" and game_row.paused_at == shanghai(2026, 12, 2, 21)
        assert fresh.service.fire_due() == 0
        god = h.client.get(f"/d/g/{game}").text  # the director's page (the same database)
        assert 'id="outage"' in god and "已暂停" in god
        assert "游戏已暂停" in fresh.client.get(f"/p/{links['馄饨']}").text
        with fresh.service.sessions() as s:
            rows = list(
                s.scalars(select(CommandRow).where(CommandRow.game_id == game, CommandRow.source == "scheduler"))
            )
        assert [r.skill for r in rows[-1:]] == ["close_phase"]
        # the director resumes: the window runs its ten minutes from now, then the night's stages
        fresh.service.set_status(game, "resume")
        with fresh.service.sessions() as s:
            window = fresh.service.current_deadline(s, game)
            assert window is not None and window.skill == "window" and window.due_at == clock.now + 600
        assert fresh.run_for(600) == 1
        assert fresh.state(links["馄饨"])["view"]["phase"] == "第1夜"  # type: ignore[index]
    fresh.client.app.state.engine.dispose()  # type: ignore[attr-defined]


def test_live_updates_stream(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    r = h.client.get(f"/p/{links['馄饨']}/events")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert "event: version" in r.text
    assert h.client.get(f"/d/g/{game}/events").status_code == 200
    assert h.client.get("/p/forged/events").status_code == 404


def test_import_refuses_bad_files_and_changes_nothing(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    export = h.client.get(f"/d/g/{game}/export.json").json()
    r = h.client.post("/d/import", data={"csrf": h.csrf, "data": "{不是json"})
    assert r.status_code == 400 and "不是合法的 JSON" in r.text
    r = h.client.post("/d/import", data={"csrf": h.csrf, "data": json.dumps({"format": "other"})})
    assert r.status_code == 400 and "不是 banshe 导出的对局文件" in r.text
    export["commands"].append(
        {"seq": 99, "command": {"actor": "馄饨", "skill": "check", "targets": ["饺子"]}, "superseded": False}
    )
    r = h.client.post("/d/import", data={"csrf": h.csrf, "data": json.dumps(export)})
    assert r.status_code == 400 and "第1条指令被拒绝" in r.text
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(Game.id))) == 1


def test_half_public_counting_hides_votes_until_the_day_closes(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    half = dataclasses.replace(sched.policy_for(find_ruleset("品茗")), vote_visibility=thread_policy.HALF_PUBLIC)
    monkeypatch.setitem(thread_policy._DECLARED, "pinming", half)
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    _to_day_one(h, game)
    assert h.post(links["包子"], "投票对象：饺子\n投票理由：x")[0] == 303
    other = h.state(links["馄饨"])
    dumped = json.dumps(other, ensure_ascii=False)
    assert "投票对象：饺子" not in dumped and '"targets": ["饺子"]' not in dumped
    assert any(i["kind"] == "hidden" and i["author"] == "包子" for i in other["thread"])  # type: ignore[union-attr]
    own = h.state(links["包子"])  # the author sees his own vote post (to reply to it with a 改票)
    assert not any(i["kind"] == "hidden" for i in own["thread"])  # type: ignore[union-attr]
    assert any(i["vote"] == "投票 → 饺子" and i["author"] == "包子" for i in own["thread"])  # type: ignore[union-attr]
    assert "投票对象：饺子" in h.client.get(f"/d/g/{game}").text  # the director sees everything
    assert h.director(game, "command", skill="close_phase")[0] == 303
    after = h.state(links["馄饨"])
    assert any(i["vote"] == "投票 → 饺子" for i in after["thread"])  # type: ignore[union-attr]


def test_an_unanswered_prompt_times_out_by_the_scheduler(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    _to_day_one(h, game)
    # day 1 closes (no votes: no sheriff) at 21:00; the night opens at 21:10 after its settling
    # window and passes with no actions (stages 22:10, 22:10, 22:40; its window to 23:10)
    assert h.run_until(shanghai(2026, 12, 2, 23, 10)) == 6
    assert h.state(links["烧麦"])["view"]["phase"] == "第2天"  # type: ignore[index]
    for name in ["饺子", "包子", "锅贴"]:
        assert h.post(links[name], "投票对象：烧麦\n投票理由：像狼")[0] == 303
    assert h.run_until(shanghai(2026, 12, 3, 21)) == 1
    hunter = h.state(links["烧麦"])
    assert hunter["view"]["prompt"] == "最后一枪"  # type: ignore[index]
    assert "shoot" in {a["skill"] for a in hunter["actions"]}  # type: ignore[union-attr]
    # his time is the settling window's: ten minutes (品茗: 关门十分钟内)
    assert hunter["deadline"]["skill"] == "prompt_timeout"  # type: ignore[index]
    assert hunter["deadline"]["due"] == shanghai(2026, 12, 3, 21, 10)  # type: ignore[index]
    assert "最后一枪" in h.client.get(f"/d/g/{game}").text
    h.clock.advance(9 * 60)
    assert h.service.fire_due() == 0
    # the window ends: the scheduler answers for the hunter, the night opens
    assert h.run_for(60) == 1
    after = h.state(links["烧麦"])
    assert after["view"]["phase"] == "第2夜"  # type: ignore[index]
    assert [a["skill"] for a in after["actions"]] == ["last_words"]  # type: ignore[union-attr]
    with h.service.sessions() as s:
        rows = s.scalars(select(CommandRow).where(CommandRow.game_id == game).order_by(CommandRow.seq.desc())).all()
    assert (rows[0].skill, rows[0].source) == ("close_phase", "scheduler")  # 关门 while a prompt waits: it lapses
    assert rows[0].created_at == shanghai(2026, 12, 3, 21, 10)


def test_admin_command_line(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    assert cli.main(["admin", "create", "--username", "甲", "--password", "short", "--database-url", db]) == 2
    assert cli.main(["admin", "create", "--username", "甲", "--password", "long-enough", "--database-url", db]) == 0
    assert cli.main(["admin", "create", "--username", "甲", "--password", "long-enough", "--database-url", db]) == 2
    assert cli.main(["admin", "password", "--username", "甲", "--password", "another-one", "--database-url", db]) == 0
    app = create_app(Settings(database_url=db, start_scheduler=False))
    with app.state.service.sessions() as s:
        assert auth.login(s, "甲", "another-one") is not None
        assert auth.login(s, "甲", "long-enough") is None
    app.state.engine.dispose()


def test_the_service_fires_missed_deadlines_when_it_starts(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    clock = FakeClock(shanghai(2026, 12, 1, 12))  # an hour past the 开局 deadline
    app = create_app(Settings(database_url=h.url, start_scheduler=True, scheduler_interval=3600), clock=clock)
    with TestClient(app):
        pass  # start-up (the lifespan) runs the scheduler's first tick
    app.state.engine.dispose()
    _game, state = h.service.read(game)
    assert state.phase.label == "第1天"
