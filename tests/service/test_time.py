"""Deadlines in real games (fake clock): late nights, the 女巫's half hour, stages that run their
whole time, the weekend, automatic 加速 and the 延时 公示 (issue 12, "Time"; issue 22)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from banshe.demo import DEMO_NAMES
from banshe.service.models import CommandRow, Deadline

from .conftest import PINMING_SEATS, Harness, shanghai


def _create(h: Harness, ruleset: str, seats: str, **fields: str) -> int:
    data = {"csrf": h.csrf, "ruleset": ruleset, "seats": seats, "seed": "11", "auto_publish": "on", **fields}
    r = h.client.post("/d/new", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    return int(r.headers["location"].rsplit("/", 1)[1])


def _pinming(h: Harness, **fields: str) -> int:
    return _create(h, "pinming", "\n".join(f"{n} {r}" for n, r in PINMING_SEATS.items()), **fields)


def _deadline(h: Harness, game: int) -> Deadline:
    with h.service.sessions() as s:
        row = h.service.current_deadline(s, game)
        assert row is not None
        return row


def _night_rows(h: Harness, game: int, night: str) -> list[Deadline]:
    with h.service.sessions() as s:
        rows = s.scalars(
            select(Deadline)
            .where(Deadline.game_id == game, Deadline.key.like(f"{night}|stage|%"))
            .order_by(Deadline.id)
        )
        return list(rows)


def _phase(h: Harness, token: str) -> str:
    view: dict[str, Any] = h.state(token)["view"]  # type: ignore[assignment]
    return str(view["phase"])


def test_a_late_chenji_night_is_shifted_whole(harness: Harness) -> None:
    h = harness
    h.login()
    game = _create(h, "chenji", "\n".join(DEMO_NAMES[:20]))
    token = next(iter(h.links(game).values()))
    h.run_until(shanghai(2026, 12, 1, 11, 10))
    assert _phase(h, token) == "第1天"
    assert _deadline(h, game).due_at == shanghai(2026, 12, 2, 21, 30)
    # the director lengthens the day: it closes at 23:10, after every night stage's clock time
    assert h.director(game, "extend", minutes="100")[0] == 303
    h.clock.now = shanghai(2026, 12, 2, 23, 10)
    shifted = [shanghai(2026, 12, 2, 23, 25) + 15 * 60 * i for i in range(5)]  # 23:25 … 00:25
    god = h.client.get(f"/d/g/{game}").text
    assert "若现在关门，夜晚时限为：守卫行动 12-02 23:25；" in god and "纯真与救赎 12-03 00:25" in god
    h.service.fire_due()
    assert _phase(h, token) == "第1天"  # closed: its settling window runs ten minutes
    h.run_until(shanghai(2026, 12, 2, 23, 20))
    # the night is under way, each stage with its real length (every stage runs its whole time)
    assert _phase(h, token) == "第1夜"
    assert _deadline(h, game).due_at == shifted[0]
    assert [r.due_at for r in _night_rows(h, game, "第1夜")] == shifted
    h.run_until(shifted[-1] - 60)
    assert _phase(h, token) == "第1夜"
    h.run_until(shifted[-1] + 30 * 60)  # the night's settling window: half an hour
    assert _phase(h, token) == "第2天"
    assert [r.due_at for r in _night_rows(h, game, "第1夜")] == shifted


def test_a_night_after_a_day_closed_at_three_in_the_morning(harness: Harness) -> None:
    h = harness
    h.login()
    game = _create(h, "chenji", "\n".join(DEMO_NAMES[:20]))
    token = next(iter(h.links(game).values()))
    h.run_until(shanghai(2026, 12, 1, 11, 10))
    assert h.director(game, "extend", minutes=str(5 * 60 + 30))[0] == 303  # 21:30 → 03:00
    h.run_until(shanghai(2026, 12, 3, 3, 10))
    assert _phase(h, token) == "第1夜"
    shifted = [shanghai(2026, 12, 3, 3, 15) + 15 * 60 * i for i in range(5)]  # 03:15 … 04:15
    assert _deadline(h, game).due_at == shifted[0]
    h.run_until(shifted[-1] + 30 * 60)
    assert _phase(h, token) == "第2天"


def test_the_witch_has_half_an_hour_from_her_feedback(harness: Harness) -> None:
    h = harness
    h.login()
    game = _pinming(h)
    links = h.links(game)
    h.run_until(shanghai(2026, 12, 2, 21, 10))
    assert _phase(h, links["包子"]) == "第1夜"
    assert [r.due_at for r in _night_rows(h, game, "第1夜")] == [
        shanghai(2026, 12, 2, 22, 10),
        shanghai(2026, 12, 2, 22, 10),
        shanghai(2026, 12, 2, 22, 40),
    ]
    # the seer's stage closes early; the wolves' deadline is lengthened to 22:40
    h.clock.now = shanghai(2026, 12, 2, 21, 30)
    assert h.director(game, "command", skill="close_stage")[0] == 303
    assert h.act(links["汤圆"], "kill", target="馄饨")[0] == 303
    assert h.director(game, "extend", minutes="30")[0] == 303
    assert [r.due_at for r in _night_rows(h, game, "第1夜")] == [shanghai(2026, 12, 2, 22, 40)] * 3
    assert h.run_until(shanghai(2026, 12, 2, 22, 40)) == 2  # the wolves' stage: the 女巫 now gets her 通灵
    witch = h.state(links["包子"])
    texts = [e["text"] for e in witch["view"]["events"]]  # type: ignore[index]
    assert any("馄饨" in t for t in texts if "通灵" in t or "指杀" in t)
    assert witch["deadline"]["due"] == shanghai(2026, 12, 2, 23, 10)  # type: ignore[index]
    assert h.run_until(shanghai(2026, 12, 2, 23, 9)) == 0
    assert h.act(links["包子"], "antidote", target="馄饨")[0] == 303


def test_a_stage_runs_its_whole_time_even_when_its_only_actor_is_out(harness: Harness) -> None:
    h = harness
    h.login()
    game = _pinming(h)
    links = h.links(game)
    h.run_until(shanghai(2026, 12, 1, 11, 10))
    # the 女巫 is sent off on day 1 (红牌: settles after the day's vote) — every player knows she
    # is out, not that she was the 女巫: closing her stage at once would tell them
    assert h.director(game, "command", skill="card_red", target="包子")[0] == 303
    h.run_until(shanghai(2026, 12, 2, 21, 10))
    assert _phase(h, links["饺子"]) == "第1夜"
    assert h.run_until(shanghai(2026, 12, 2, 22, 10)) == 2  # the seer's and the wolves' stages
    assert _phase(h, links["饺子"]) == "第1夜"
    witch_stage = _night_rows(h, game, "第1夜")[-1]
    assert witch_stage.key == "第1夜|stage|2" and witch_stage.due_at == shanghai(2026, 12, 2, 22, 40)
    assert witch_stage.fired_at is None
    assert h.run_until(shanghai(2026, 12, 2, 22, 40)) == 1
    with h.service.sessions() as s:
        last = s.scalars(
            select(CommandRow).where(CommandRow.game_id == game, CommandRow.phase == "第1夜").order_by(CommandRow.seq)
        ).all()
    assert [(c.skill, c.source) for c in last][-1] == ("close_phase", "scheduler")
    assert last[-1].created_at == shanghai(2026, 12, 2, 22, 40)


def test_weekend_days_last_a_day_longer(harness: Harness) -> None:
    h = harness
    h.login()
    h.clock.now = shanghai(2026, 12, 4, 10)  # a Friday
    weekend = _pinming(h)
    plain = _pinming(h, weekend_extra_day="0")
    assert h.run_until(shanghai(2026, 12, 4, 11, 10)) == 4
    row = _deadline(h, weekend)
    # 品茗's default (每逢周末时讨论日延长一天): the Saturday close moves to Sunday
    assert row.due_at == shanghai(2026, 12, 6, 21) and row.label == "第1天关门（周末延长一天）"
    assert _deadline(h, plain).due_at == shanghai(2026, 12, 5, 21)
    # the option is shown on the new-game form with the ruleset's default
    form = h.client.get("/d/new?ruleset=pinming").text
    assert 'name="weekend_extra_day"><option value="1" selected>' in form
    assert '<option value="0" selected>否' in h.client.get("/d/new?ruleset=chenji").text


def test_automatic_acceleration_below_the_directors_number(harness: Harness) -> None:
    h = harness
    h.login()
    game = _pinming(h, auto_accelerate_below="14")
    links = h.links(game)
    h.run_until(shanghai(2026, 12, 1, 11, 10))
    assert "导演宣布执行加速" not in str(h.state(links["饺子"])["thread"])  # 14 alive: not below 14
    assert h.director(game, "command", skill="card_red", target="馄饨")[0] == 303
    h.run_until(shanghai(2026, 12, 2, 23, 10))
    assert _phase(h, links["饺子"]) == "第2天"
    thread = h.state(links["饺子"])["thread"]
    assert any(i["kind"] == "announce" and "导演宣布执行加速" in i["text"] for i in thread)  # type: ignore[union-attr]
    with h.service.sessions() as s:
        row = s.scalars(select(CommandRow).where(CommandRow.game_id == game, CommandRow.skill == "accelerate")).one()
    assert (row.phase, row.source) == ("第2天", "scheduler")
    assert h.post(links["饺子"], "投票对象：汤圆\n投票理由：x")[0] == 303
    code, page = h.change(links["饺子"], "改票对象：月饼\n改票理由：x")
    assert code == 400 and "执行加速时不允许改票" in page


def test_a_successful_delay_is_announced_and_kept_in_the_export(harness: Harness) -> None:
    h = harness
    h.login()
    game = _pinming(h)
    links = h.links(game)
    h.run_until(shanghai(2026, 12, 1, 11, 10))
    for name in list(PINMING_SEATS)[:7]:
        r = h.client.post(
            f"/p/{links[name]}/request",
            data={"csrf": h.player_csrf(links[name]), "kind": "delay"},
            follow_redirects=False,
        )
        assert r.status_code == 303
    line = "申请延时成功（7/14）：第1天延长一天，2026-12-03 21:00关门。"
    thread = h.state(links["馄饨"])["thread"]
    wanted = {"kind": "announce", "author": "导演", "text": line, "phase": "第1天", "vote": None}
    assert any({k: i[k] for k in wanted} == wanted for i in thread)  # type: ignore[union-attr, index]
    assert _deadline(h, game).due_at == shanghai(2026, 12, 3, 21)
    assert line in h.client.get(f"/d/g/{game}").text
    # the 公示 is part of the record: an imported copy shows it in the same place
    export = h.client.get(f"/d/g/{game}/export.json").json()
    r = h.client.post("/d/import", data={"csrf": h.csrf, "data": json.dumps(export)}, follow_redirects=False)
    assert r.status_code == 303
    copy = int(r.headers["location"].rsplit("/", 1)[1])
    assert line in h.client.get(f"/d/g/{copy}").text


def test_a_day_interrupted_by_a_prompt_still_closes_on_time(harness: Harness) -> None:
    h = harness
    h.login()
    # seed 23 deals the 猎人 to 花卷 and the 刺客 to 米糕
    game = _create(h, "chenji", "\n".join(DEMO_NAMES[:20]), seed="23")
    links = h.links(game)
    h.run_until(shanghai(2026, 12, 1, 11, 10))
    assert _deadline(h, game).due_at == shanghai(2026, 12, 2, 21, 30)
    # 行刺 by day puts the 猎人 out at once: his 最后一枪 has ten minutes of its own, which only he
    # and the director see; the players' deadline stays the day's 关门
    assert h.act(links["米糕"], "stab", target="花卷")[0] == 303
    row = _deadline(h, game)
    assert (row.skill, row.due_at) == ("close_phase", shanghai(2026, 12, 2, 21, 30))
    with h.service.sessions() as s:
        prompt = h.service.prompt_deadline(s, game)
        assert prompt is not None and prompt.due_at == h.clock.now + 600
    assert h.state(links["饺子"])["deadline"]["label"] == "第1天关门"  # type: ignore[index]
    assert h.state(links["花卷"])["deadline"]["label"] == "花卷的<最后一枪>"  # type: ignore[index]
    assert h.run_for(10 * 60) == 1
    with h.service.sessions() as s:
        assert h.service.prompt_deadline(s, game) is None
    h.run_until(shanghai(2026, 12, 2, 21, 30))
    assert _phase(h, links["饺子"]) == "第1天"  # closed: settling
    h.run_for(10 * 60)
    assert _phase(h, links["饺子"]) == "第1夜"
