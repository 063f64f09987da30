"""The director's pages (issue 12): the god view's log in words, penalties with reasons, bulk
潜水, one 替补 per character, the links to send, the 复盘, export→import order, pause, the
new-game form's board check, Chinese field errors and the 公示 tools."""

from __future__ import annotations

import contextlib
import re
from typing import Any

from sqlalchemy import select

from banshe.engine import Command
from banshe.engine.commands import CLOSE_PHASE, DIRECTOR
from banshe.rulesets.pinming.state import ext
from banshe.service.errors import ServiceError
from banshe.service.models import CommandRow, LurkFlag
from banshe.service.views import director_page

from .conftest import PINMING_SEATS, Harness

REPR = re.compile(r"\{'|'command'|\[\{")


def _close(h: Harness, game: int, dawn: bool = True) -> None:
    """关门 now; the settling window runs out (every prompt takes its default, as the scheduler
    would answer it); with `dawn`, a day waiting for its dawn 公示 begins (it is published)."""
    h.service.director_command(game, Command(DIRECTOR, CLOSE_PHASE))
    with h.service.sessions() as s:
        row = h.service.current_deadline(s, game)
        assert row is not None and row.skill == "window"
    h.run_until(row.due_at)
    if dawn:
        _dawn(h, game)


def _dawn(h: Harness, game: int) -> None:
    """The dawn 公示 of a day waiting for it is published (the day begins)."""
    with contextlib.suppress(ServiceError):  # no dawn waiting
        h.service.publish_dawn(game)


def _vote(h: Harness, game: int, links: dict[str, str], target: str, skip: str = "") -> None:
    for name in h.service.read(game)[1].alive_names():
        if name != skip:
            assert h.post(links[name], f"投票对象：{target}\n投票理由：测试")[0] == 303


def _day_one(h: Harness, game: int, links: dict[str, str]) -> None:
    """开局 closed; 第1天's votes (the 警长 election: 饺子) posted, the day still open."""
    h.service.submit(game, Command("年糕", "recognize", ("饺子",)))
    _close(h, game)
    _vote(h, game, links, "饺子")


def _day_two(h: Harness, game: int, links: dict[str, str]) -> None:
    """Up to 第2天 (an uneventful first night), its votes not yet cast."""
    _day_one(h, game, links)
    _close(h, game)
    _close(h, game)


def _thread(h: Harness, game: int) -> list[tuple[str, str, str, str]]:
    return [(i.kind, i.author, i.text, i.phase) for i in director_page(h.service, game)["items"]]


def test_the_god_log_is_chinese_sentences_naming_who_acted(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    assert h.act(links["年糕"], "recognize", target="饺子")[0] == 303
    # the 开局 deadline: the scheduler closes it; day 1 opens when its settling window has run
    assert h.run_for(3600 + 600) == 2
    code, _ = h.director(game, "command", skill="card_yellow", target="烧麦", reason="发言中透露私密信息")
    assert code == 303
    page = h.client.get(f"/d/g/{game}").text
    assert "开局 年糕 发动〈认亲〉→ 饺子（玩家提交）" in page
    assert "时限到：开局 关门结算（调度器）" in page
    assert "第1天 导演 给 烧麦 黄牌：发言中透露私密信息" in page
    assert "烧麦被判罚一张黄牌" in page
    assert not REPR.search(page.split('id="log"')[1]), "the log must not show Python reprs"
    # the page is organised: a small nav with anchors, the current phase and what waits first
    for anchor in ("#now", "#roles", "#submissions", "#votes", "#announcements", "#penalties", "#log"):
        assert f'href="{anchor}"' in page
    assert page.index('id="now"') < page.index('id="roles"') < page.index('id="log"')
    assert "尚未提交：饺子（未投票）" in page
    # the 复盘 shows the same sentences
    review = h.client.get(f"/d/g/{game}/review").text
    assert "开局 年糕 发动〈认亲〉→ 饺子（玩家提交）" in review


def test_penalties_carry_a_reason_and_each_character_shows_its_cards(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    for reason in ("刷屏", "场外", "辱骂"):
        assert h.director(game, "command", skill="card_blue", target="馄饨", reason=reason)[0] == 303
    assert h.director(game, "command", skill="card_blue", target="油条", reason="迟到")[0] == 303
    page = h.client.get(f"/d/g/{game}").text
    row = re.search(r'data-seat="馄饨".*?</tr>', page, re.S)
    assert row is not None and "蓝0 黄1 红0" in row.group(0)  # three 蓝 make one 黄
    row = re.search(r'data-seat="油条".*?</tr>', page, re.S)
    assert row is not None and "蓝1 黄0 红0" in row.group(0)
    assert "开局 蓝牌：场外" in page
    export = h.client.get(f"/d/g/{game}/export.json").json()
    notes = [c["note"] for c in export["commands"] if c["command"]["skill"] == "card_blue"]
    assert notes == ["刷屏", "场外", "辱骂", "迟到"]
    with h.service.sessions() as s:
        stored = s.scalars(select(CommandRow.note).where(CommandRow.game_id == game)).all()
    assert "迟到" in stored


def test_lurk_flags_in_bulk_and_the_feigned_idiot_is_not_flagged_for_not_voting(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    _day_two(h, game, links)
    _vote(h, game, links, "锅贴")  # the 白痴 is voted out and 装傻
    _close(h, game)
    state = h.service.read(game)[1]
    assert "锅贴" in ext(state).feigned and state.is_alive("锅贴")
    _close(h, game)  # the night
    # 第3天: everyone but the 白痴 (who may not vote) votes; the day runs its length (潜水 is
    # judged only then: the days closed early above left no flags)
    _vote(h, game, links, "汤圆", skip="锅贴")
    with h.service.sessions() as s:
        assert not s.scalars(select(LurkFlag).where(LurkFlag.game_id == game)).all()
        due = h.service.current_deadline(s, game)
        assert due is not None
        h.clock.now = due.due_at
    _close(h, game)
    with h.service.sessions() as s:
        flags = s.scalars(select(LurkFlag).where(LurkFlag.game_id == game, LurkFlag.phase == "第3天")).all()
    assert flags
    assert not [f for f in flags if f.player == "锅贴" and "未投票" in f.reason]
    # bulk: tick several, one submit
    chosen = [f for f in flags if f.status == "pending"][:3]
    data = {"flag": [str(f.id) for f in chosen], "action": "issue"}
    code, _ = h.director(game, "flags", **data)  # type: ignore[arg-type]
    assert code == 303
    with h.service.sessions() as s:
        statuses = {f.id: f.status for f in s.scalars(select(LurkFlag).where(LurkFlag.game_id == game))}
        notes = s.scalars(select(CommandRow.note).where(CommandRow.game_id == game, CommandRow.skill == "card_yellow"))
        assert all(n and n.startswith("潜水：") for n in notes)
    assert all(statuses[f.id] == "issued" for f in chosen)
    code, page = h.director(game, "flags", flag=str(chosen[0].id), action="dismiss")
    assert code == 400 and "已经处理过了" in page
    code, page = h.director(game, "flags", action="dismiss")
    assert code == 400 and "请勾选" in page


def test_one_substitute_per_character_recorded_with_its_name_through_export_and_import(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    assert h.director(game, "substitute", player="馄饨", person="小王")[0] == 303
    code, page = h.director(game, "substitute", player="馄饨", person="小李")
    assert code == 400 and "每名角色仅限更换一次替补" in page
    god = h.client.get(f"/d/g/{game}").text
    assert "导演 为 馄饨 换上替补：小王" in god
    export = h.client.get(f"/d/g/{game}/export.json").json()
    assert [(x["name"], x["person"], x["active"]) for x in export["seats"] if x["name"] == "馄饨"] == [
        ("馄饨", None, False),
        ("馄饨", "小王", True),
    ]
    imported = h.service.import_game(h.director_id, export)
    again = h.client.get(f"/d/g/{imported.id}/export.json").json()
    assert [(x["name"], x["person"]) for x in again["seats"] if x["name"] == "馄饨"] == [
        ("馄饨", None),
        ("馄饨", "小王"),
    ]
    assert "换上替补：小王" in h.client.get(f"/d/g/{imported.id}/review").text


def test_every_private_link_can_be_copied_with_its_name(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    page = h.client.get(f"/d/g/{game}").text
    box = re.search(r'<textarea id="link-lines"[^>]*>(.*?)</textarea>', page, re.S)
    assert box is not None
    lines = box.group(1).strip().splitlines()
    links = h.links(game)
    assert lines == [f"{n}：http://testserver/p/{links[n]}" for n in PINMING_SEATS]
    assert 'data-copy="#link-lines"' in page


def test_the_review_has_a_timeline_the_votes_identities_and_a_way_back(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    _day_two(h, game, links)
    _vote(h, game, links, "饺子")
    _close(h, game)
    page = h.client.get(f"/d/g/{game}/review").text
    assert f'href="/d/g/{game}"' in page and "返回导演页面" in page
    for phase in ("开局", "第1天", "第1夜", "第2天"):
        assert f'<h3 class="inline-heading">{phase}</h3>' in page
    assert "饺子出局（" in page  # the out with its cause
    votes = page.split('id="day-votes"')[1]
    assert "<h3>第1天</h3>" in votes and "<h3>第2天</h3>" in votes and "包子 → 饺子" in votes
    assert "预言家" in page and "村民阵营" in page


def test_export_then_import_gives_the_same_thread_in_the_same_order(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming(auto_publish=False)
    links = h.links(game)
    h.service.submit(game, Command("年糕", "recognize", ("饺子",)))
    _close(h, game, dawn=False)
    assert h.post(links["包子"], "开局结束了吗")[0] == 303  # before the day: posted in 开局
    h.clock.advance(60)
    assert h.director(game, "publish", upto="0")[0] == 303  # the dawn 公示: day 1 begins
    h.clock.advance(60)
    _vote(h, game, links, "饺子")
    h.clock.advance(60)
    assert h.post(links["包子"], "第一天的总结")[0] == 303
    h.clock.advance(60)
    _close(h, game, dawn=False)
    assert h.director(game, "publish", upto="1000")[0] == 303
    h.clock.advance(60)
    assert h.post(links["包子"], "天亮了")[0] == 303
    h.clock.advance(3600)  # the import happens later
    before = _thread(h, game)
    assert [k for k, *_ in before].count("announce") >= 2
    export = h.client.get(f"/d/g/{game}/export.json").json()
    imported = h.service.import_game(h.director_id, export)
    assert _thread(h, imported.id) == before


def test_pause_does_not_tell_alive_players_they_are_out(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    assert h.director(game, "status", action="pause")[0] == 303
    page = h.client.get(f"/p/{links['饺子']}/thread").text
    assert "已出局" not in page
    assert "游戏已暂停" in page


def test_the_new_game_form_states_each_rulesets_counts_and_checks_the_board(harness: Harness) -> None:
    h = harness
    h.login()
    for ruleset, counts in (("品茗", "14"), ("沉寂与取酒", "20–30"), ("感染", "10–40")):
        page = h.client.get(f"/d/new?ruleset={ruleset}").text
        assert f"{ruleset}的标准配置为{counts}人" in page
    seats = dict(PINMING_SEATS)
    seats["米糕"] = "狼人"  # five wolves, no 病娇: not the seed's 14-seat board
    lines = "\n".join(f"{n} {r}" for n, r in seats.items())
    form = {"csrf": h.csrf, "ruleset": "pinming", "seats": lines}
    # 品茗's deck is its only board (rulings 2026-12-04): refused with the difference, 自定义板子 or not
    for custom in ({}, {"custom_board": "on"}):
        r = h.client.post("/d/new", data={**form, **custom})
        assert r.status_code == 400 and "品茗只能使用种子的配置：14名角色" in r.text
        assert "多出：狼人×1；缺少：病娇×1" in r.text
    wolves = "\n".join(f"{n} 狼人" for n in PINMING_SEATS)  # 14 狼人
    r = h.client.post("/d/new", data={**form, "seats": wolves, "custom_board": "on"})
    assert r.status_code == 400 and "多出：狼人×10" in r.text
    small = "\n".join(f"{n} {r}" for n, r in list(PINMING_SEATS.items())[:6])
    r = h.client.post("/d/new", data={**form, "seats": small, "custom_board": "on"})
    assert r.status_code == 400 and "品茗只能使用种子的配置" in r.text and "缺少：" in r.text
    r = h.client.post("/d/new", data={**form, "seats": "\n".join(list(PINMING_SEATS)[:13])})
    assert r.status_code == 400 and "现有13名角色" in r.text
    page = h.client.get("/d/new?ruleset=品茗").text
    assert "品茗只能使用种子的配置（14名角色），不接受自定义板子" in page
    # another ruleset's 自定义板子: a hand-dealt table the seed would not deal for that count
    from .test_e2e_chenji import SEATS

    lines = "\n".join(f"{n} {r}" for n, r in SEATS.items())
    form = {"csrf": h.csrf, "ruleset": "chenji", "seats": lines, "seed": "1"}
    r = h.client.post("/d/new", data=form)
    assert r.status_code == 400 and "手填身份与沉寂与取酒20人的标准配置不符" in r.text
    r = h.client.post("/d/new", data={**form, "custom_board": "on"}, follow_redirects=False)
    assert r.status_code == 303
    game = int(r.headers["location"].rsplit("/", 1)[1])
    assert 'id="custom-board"' in h.client.get(f"/d/g/{game}").text
    assert h.client.get(f"/d/g/{game}/export.json").json()["settings"] == {"custom_board": True}


def test_no_python_exception_text_in_messages(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("command", {"skill": "deduct", "target": "馄饨", "amount": "abc"}, "“分值”必须是整数"),
        ("extend", {"minutes": "半小时"}, "“延长分钟数”必须是整数"),
        ("publish", {"upto": "x"}, "“公示序号”必须是整数"),
        ("flags", {"flag": "NaN", "action": "issue"}, "“潜水记录”必须是整数"),
    ]
    for path, fields, reason in cases:
        code, page = h.director(game, path, **fields)
        assert code == 400 and reason in page, (path, page[-400:])
        assert "invalid literal" not in page and "Traceback" not in page
    lines = "\n".join(f"{n} {r}" for n, r in PINMING_SEATS.items())
    r = h.client.post("/d/new", data={"csrf": h.csrf, "ruleset": "pinming", "seats": lines, "seed": "七"})
    assert r.status_code == 400 and "“随机种子”必须是整数" in r.text and "invalid literal" not in r.text
    r = h.client.post("/d/import", data={"csrf": h.csrf, "data": "{not json"})
    assert r.status_code == 400 and "不是合法的 JSON（第1行" in r.text and "Expecting" not in r.text
    r = h.client.post("/d/import", data={"csrf": h.csrf, "data": '{"format": "banshe-game", "ruleset": "品茗"}'})
    assert r.status_code == 400 and "缺少字段" in r.text and "“players”" in r.text


def test_announcements_can_be_edited_withheld_and_copied_as_one_post(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming(auto_publish=False)
    links = h.links(game)
    h.service.submit(game, Command("年糕", "recognize", ("饺子",)))
    _close(h, game, dawn=False)
    pending = director_page(h.service, game)["pending"]
    assert len(pending) == 1
    original = pending[0]["text"]
    assert h.director(game, "announcements/0", action="edit", text="开局结束，第1天讨论开始。")[0] == 303
    assert "引擎原文：" in h.client.get(f"/d/g/{game}").text
    assert h.director(game, "publish", upto="0")[0] == 303  # the dawn 公示, as edited
    _vote(h, game, links, "饺子")
    _close(h, game, dawn=False)
    later = [p["idx"] for p in director_page(h.service, game)["pending"]]
    assert later[0] == 1 and len(later) >= 2
    assert h.director(game, f"announcements/{later[1]}", action="withhold")[0] == 303
    assert h.director(game, "publish", upto=str(later[-1]))[0] == 303
    villager = h.state(links["豆花"])
    shown = [i["text"] for i in villager["thread"] if i["kind"] == "announce"]  # type: ignore[union-attr]
    assert "开局结束，第1天讨论开始。" in shown and original not in shown
    held = director_page(h.service, game)["pending"]
    assert [p["idx"] for p in held] == [later[1]] and held[0]["withheld"]
    assert held[0]["text"] not in shown
    code, page = h.director(game, f"announcements/{later[1]}", action="edit", text="")
    assert code == 303
    assert h.director(game, f"announcements/{later[1]}", action="publish")[0] == 303
    code, page = h.director(game, f"announcements/{later[1]}", action="withhold")
    assert code == 400 and "已经发布" in page
    # the export keeps both wordings
    export = h.client.get(f"/d/g/{game}/export.json").json()
    first = export["announcements"][0]
    assert first["text"] == "开局结束，第1天讨论开始。" and first["original"] == original
    # one BBCode post per phase with every published 公示 of it
    god = h.client.get(f"/d/g/{game}").text
    assert "复制本日公示（BBCode）" in god
    codes = re.findall(r'<textarea id="day-bbcode-\d+" class="day-bbcode"[^>]*>(.*?)</textarea>', god, re.S)
    day1 = [c for c in codes if "【第1天公示】" in c]
    # in the director's reserved style (the forum desk's), with the 票型 that the thread shows
    assert day1 and day1[0].count("[color=#FF0000]") >= 3 and "票型：饺子→饺子" in day1[0]
    assert day1[0].startswith("[size=6][color=#FF0000][b]【第1天公示】")
