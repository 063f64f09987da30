"""A director who cannot break a game by accident (issue 22): penalties and commands are separate
forms, every irreversible action asks first naming its effect, the last command can be undone
while nothing else happened since, a card tells its player privately, each deadline of the
timetable moves on its own, a game can start at a set time, and the dawn 公示 can publish itself."""

from __future__ import annotations

import re

from sqlalchemy import select

from banshe.service.models import Announcement, CommandRow, Deadline, LurkFlag, PlayerNotice

from .conftest import PINMING_SEATS, Harness, shanghai

CONFIRM = re.compile(r'<form[^>]*action="/d/g/\d+/([\w/-]+)"[^>]*data-confirm="([^"]*)"')


def _day_one(h: Harness, auto_publish: bool = True) -> tuple[int, dict[str, str]]:
    h.login()
    game = h.create_pinming(auto_publish=auto_publish)
    h.run_until(shanghai(2026, 12, 1, 11, 10))
    if not auto_publish:
        assert h.director(game, "dawn", action="publish")[0] == 303
    return game, h.links(game)


def _rows(h: Harness, game: int) -> list[Deadline]:
    with h.service.sessions() as s:
        return list(h.service.timetable(s, game))


def test_penalties_and_commands_are_separate_forms(harness: Harness) -> None:
    h = harness
    game, links = _day_one(h)
    god = h.client.get(f"/d/g/{game}").text
    form = god.split('id="penalty-form"')[1].split("</form>")[0]
    assert '<option value="" selected disabled>请选择判罚</option>' in form
    assert "close_stage" not in form and "close_phase" not in form and "judge_loss" not in form
    # the penalty route takes penalties only, and only with a character named
    code, page = h.director(game, "penalty", skill="close_phase")
    assert code == 400 and "请选择判罚" in page
    code, page = h.director(game, "penalty", skill="card_yellow")
    assert code == 400 and "请选择被判罚的角色" in page
    with h.service.sessions() as s:
        assert not s.scalars(
            select(CommandRow).where(CommandRow.game_id == game, CommandRow.source == "director")
        ).all()
    # a card tells its player privately, with the director's reason
    assert h.director(game, "penalty", skill="card_yellow", target="馄饨", reason="场外交流")[0] == 303
    page = h.client.get(f"/p/{links['馄饨']}").text
    assert "导演：你被导演判罚一张黄牌，理由：场外交流。" in page
    assert "场外交流" not in h.client.get(f"/p/{links['油条']}").text
    assert "馄饨被判罚一张黄牌。" in h.client.get(f"/p/{links['油条']}/thread").text


def test_every_irreversible_action_asks_naming_its_effect(harness: Harness) -> None:
    h = harness
    game, _links = _day_one(h, auto_publish=False)
    assert h.director(game, "penalty", skill="card_blue", target="馄饨")[0] == 303  # a pending 公示
    god = h.client.get(f"/d/g/{game}").text
    confirms = CONFIRM.findall(god)
    by_skill: dict[str, str] = {}
    for m in re.finditer(r'<form[^>]*data-confirm="([^"]*)"[^>]*>(.*?)</form>', god, re.S):
        skill = re.search(r'name="skill" value="(\w+)"', m.group(2))
        if skill:
            by_skill[skill.group(1)] = m.group(1)
    assert "第1天立即结束并结算" in by_skill["close_phase"]
    assert "这个阶段立即结束" in by_skill["close_stage"]
    assert "按未回应处理" in by_skill["prompt_timeout"]
    assert "今日不可改票" in by_skill["accelerate"]
    assert "可能立即结束游戏" in by_skill["judge_loss"]
    assert any(p == "status" and "所有待发布的公示立即发布" in text for p, text in confirms)  # 结束游戏
    assert any(p == "publish" and "发布后玩家立即看到" in text for p, text in confirms)
    assert any(p == "substitute" and "旧链接立即失效" in text for p, text in confirms)
    assert any(p == "undo" and "撤销上一条导演指令" in text for p, text in confirms)
    penalty = re.search(r'<form[^>]*id="penalty-form"[^>]*>', god)
    assert penalty is not None and "判罚公示给所有玩家并私信告知{target}" in penalty.group()
    assert re.search(r'id="flags-issue" data-confirm="判罚所选', god) or "flags-issue" not in god


def test_the_last_director_command_can_be_undone_while_nothing_else_happened(harness: Harness) -> None:
    h = harness
    game, links = _day_one(h)
    assert h.director(game, "penalty", skill="card_red", target="馄饨", reason="误判")[0] == 303
    _g, state = h.service.read(game)
    assert "red_pending" in state.acts
    god = h.client.get(f"/d/g/{game}").text
    assert 'id="undo"' in god and "给 馄饨 红牌" in god
    assert h.director(game, "undo")[0] == 303
    done = h.client.get(f"/d/g/{game}").text
    _g, state = h.service.read(game)
    assert "red_pending" not in state.acts and state.chars["馄饨"].cards is None
    with h.service.sessions() as s:
        assert not s.scalars(select(PlayerNotice).where(PlayerNotice.game_id == game)).all()
        texts = [a.idx for a in s.scalars(select(Announcement).where(Announcement.game_id == game))]
    assert len(texts) == 1  # the card's 公示 is gone with it
    assert "红牌" not in h.client.get(f"/p/{links['馄饨']}").text
    assert 'id="undo-none"' in done
    # what changed is said: the retracted command and its results
    r = h.client.post(
        f"/d/g/{game}/penalty",
        data={"csrf": h.csrf, "at": h.at(game), "skill": "card_blue", "target": "油条"},
        follow_redirects=True,
    )
    assert r.status_code == 200
    r = h.client.post(f"/d/g/{game}/undo", data={"csrf": h.csrf, "at": h.at(game)}, follow_redirects=True)
    assert "已撤销：第1天 导演 给 油条 蓝牌" in r.text and "油条被判罚一张蓝牌。" in r.text
    # once anything else happened, it can no longer be undone
    assert h.director(game, "penalty", skill="card_blue", target="油条")[0] == 303
    assert h.post(links["饺子"], "大家好")[0] == 303
    code, page = h.director(game, "undo")
    assert code == 400 and "之后已有其他变化" in page


def test_an_accidental_close_is_undone_within_its_window(harness: Harness) -> None:
    h = harness
    game, links = _day_one(h)
    assert h.post(links["饺子"], "投票对象：汤圆\n投票理由：x")[0] == 303
    before = [(r.key, r.due_at) for r in _rows(h, game)]
    assert h.director(game, "command", skill="close_phase")[0] == 303
    assert h.state(links["馄饨"])["view"]["settling"]  # type: ignore[index]
    assert h.director(game, "undo")[0] == 303
    view = h.state(links["馄饨"])["view"]
    assert view["phase"] == "第1天" and not view["settling"]  # type: ignore[index]
    assert [(r.key, r.due_at) for r in _rows(h, game)] == before
    with h.service.sessions() as s:
        assert not s.scalars(select(LurkFlag).where(LurkFlag.game_id == game)).all()
    _g, state = h.service.read(game)
    assert state.votes == {"饺子": "汤圆"} and state.phase.label == "第1天"


def test_each_deadline_of_the_timetable_moves_on_its_own(harness: Harness) -> None:
    h = harness
    game, _links = _day_one(h)
    h.run_until(shanghai(2026, 12, 2, 21, 10))  # night 1: 22:10, 22:10, 22:40
    rows = {r.key: r for r in _rows(h, game)}
    witch = rows["第1夜|stage|2"]
    wolves = rows["第1夜|stage|1"]
    god = h.client.get(f"/d/g/{game}").text
    assert 'id="timetable-rows"' in god and "第1夜·女巫行动" in god and f'data-deadline="{witch.id}"' in god
    assert h.director(game, f"deadlines/{witch.id}", minutes="20")[0] == 303
    moved = {r.key: r.due_at for r in _rows(h, game)}
    assert moved["第1夜|stage|2"] == shanghai(2026, 12, 2, 23) and moved["第1夜|stage|1"] == wolves.due_at
    # earlier than the stage before it: refused, naming it
    code, page = h.director(game, f"deadlines/{witch.id}", minutes="-60")
    assert code == 400 and "不能早于前面的第1夜·预言家行动" in page
    # later past the next: the next moves on to stay after it
    assert h.director(game, f"deadlines/{wolves.id}", minutes="60")[0] == 303
    moved = {r.key: r.due_at for r in _rows(h, game)}
    assert moved["第1夜|stage|1"] == shanghai(2026, 12, 2, 23, 10) == moved["第1夜|stage|2"]
    # due now: the scheduler fires it at once
    seer = rows["第1夜|stage|0"]
    assert h.director(game, f"deadlines/{seer.id}", action="now")[0] == 303
    assert h.service.fire_due() == 1
    _g, state = h.service.read(game)
    assert state.stage == 1
    assert h.director(game, "deadlines/999999", minutes="5")[0] == 400


def test_a_game_scheduled_to_start_later(harness: Harness) -> None:
    h = harness
    h.login()
    seats = "\n".join(f"{n} {r}" for n, r in PINMING_SEATS.items())
    data = {"csrf": h.csrf, "ruleset": "pinming", "seats": seats, "seed": "7", "start_at": "2026-12-01 20:00"}
    r = h.client.post("/d/new", data={**data, "auto_publish": "on"}, follow_redirects=False)
    assert r.status_code == 303, r.text[-300:]
    game = int(r.headers["location"].rsplit("/", 1)[1])
    links = h.links(game)
    god = h.client.get(f"/d/g/{game}").text
    assert "游戏将于 2026-12-01 20:00 开始" in god and 'class="player-link' in god  # the links go out now
    page = h.client.get(f"/p/{links['年糕']}").text
    assert "开局时间（游戏尚未开始）" in page
    code, page = h.act(links["年糕"], "recognize", target="饺子")
    assert code == 400 and "游戏尚未开始（2026-12-01 20:00开始）" in page
    assert h.run_until(shanghai(2026, 12, 1, 19, 59)) == 0
    assert h.run_until(shanghai(2026, 12, 1, 20)) == 1
    assert h.act(links["年糕"], "recognize", target="饺子")[0] == 303
    (row,) = [r for r in _rows(h, game) if r.key == "开局|close"]
    assert row.due_at == shanghai(2026, 12, 1, 21)  # 开局 runs its hour from the start


def test_the_dawn_follows_its_announcement(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming(auto_publish=False)
    links = h.links(game)
    h.run_until(shanghai(2026, 12, 1, 11, 10))
    view = h.state(links["馄饨"])
    assert view["view"]["phase"] == "开局" and view["deadline"]["label"] == "等待导演发布公示"  # type: ignore[index]
    code, page = h.post(links["饺子"], "投票对象：汤圆\n投票理由：x")
    assert code == 400 and "开局已关门，不能投票" in page
    # the director publishes later: the day (its clock, votes, 潜水 counting) starts then
    h.clock.now = shanghai(2026, 12, 1, 13)
    assert h.post(links["饺子"], "等天亮")[0] == 303  # posted before the day: not a 第1天 post
    assert h.director(game, "dawn", action="publish")[0] == 303
    assert h.state(links["馄饨"])["view"]["phase"] == "第1天"  # type: ignore[index]
    (close,) = [r for r in _rows(h, game) if r.key == "第1天|close"]
    assert close.due_at == shanghai(2026, 12, 2, 21)
    # an automatic publish time for the next dawn
    h.run_until(shanghai(2026, 12, 2, 23, 10))  # day 1 closes, night 1 passes, its window ends
    assert h.state(links["馄饨"])["view"]["phase"] == "第1夜"  # type: ignore[index]
    assert h.director(game, "dawn", action="schedule", when="2026-12-03 09:00")[0] == 303
    assert h.state(links["馄饨"])["deadline"]["due"] == shanghai(2026, 12, 3, 9)  # type: ignore[index]
    assert h.run_until(shanghai(2026, 12, 3, 9)) == 1
    assert h.state(links["馄饨"])["view"]["phase"] == "第2天"  # type: ignore[index]
    assert any("第2天讨论日开始" in str(i["text"]) for i in h.state(links["馄饨"])["thread"])  # type: ignore[union-attr]


def test_a_schedule_can_publish_every_dawn_by_itself(harness: Harness) -> None:
    h = harness
    h.login()
    seats = "\n".join(f"{n} {r}" for n, r in PINMING_SEATS.items())
    data = {"csrf": h.csrf, "ruleset": "pinming", "seats": seats, "seed": "7", "dawn_publish": "08:30"}
    r = h.client.post("/d/new", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text[-300:]
    game = int(r.headers["location"].rsplit("/", 1)[1])
    links = h.links(game)
    h.run_until(shanghai(2026, 12, 2, 8, 29))
    assert h.state(links["馄饨"])["view"]["phase"] == "开局"  # type: ignore[index]
    h.run_until(shanghai(2026, 12, 2, 8, 30))
    assert h.state(links["馄饨"])["view"]["phase"] == "第1天"  # type: ignore[index]
    r = h.client.post("/d/new", data={**data, "dawn_publish": "25:00"})
    assert r.status_code == 400 and "黎明公示自动发布时间" in r.text
