"""沉寂与取酒's night windows (rulings of 2026-12-04, issue 22), through the HTTP API: every night
skill may be posted from the night's start until its own deadline and settles in deadline order;
the 女巫's stage, which answers the 指杀, opens at 22:15 or once every input before it is in; each
page shows its skills' windows and the god view the night's timetable."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from banshe.service.models import CommandRow, HeldCommand

from .conftest import Harness, shanghai
from .test_e2e_chenji import SEATS, SEED

SEER, SLANDERER, PIPER, KILLER, WHITE_WOLF, WITCH = "甲子", "癸酉", "壬午", "己卯", "丁丑", "乙丑"


def _night_one(h: Harness) -> tuple[int, dict[str, str]]:
    h.login()
    data = {"csrf": h.csrf, "ruleset": "chenji", "seats": "\n".join(f"{n} {r}" for n, r in SEATS.items())}
    r = h.client.post("/d/new", data={**data, "seed": str(SEED), "auto_publish": "on"}, follow_redirects=False)
    assert r.status_code == 303, r.text[-300:]
    game = int(r.headers["location"].rsplit("/", 1)[1])
    h.run_until(shanghai(2026, 12, 2, 21, 40))  # day 1 closes at 21:30; night 1 opens at 21:40
    links = h.links(game)
    assert h.state(links[SEER])["view"]["phase"] == "第1夜"  # type: ignore[index]
    return game, links


def _events(h: Harness, token: str) -> list[str]:
    view: dict[str, Any] = h.state(token)["view"]  # type: ignore[assignment]
    return [str(e["text"]) for e in view["events"]]


def _commands(h: Harness, game: int, skill: str) -> list[tuple[str, list[str]]]:
    with h.service.sessions() as s:
        rows = s.scalars(select(CommandRow).where(CommandRow.game_id == game, CommandRow.skill == skill))
        return [(r.actor, list(r.payload.get("targets") or [])) for r in rows if not r.superseded]


def test_the_seer_posts_at_the_night_s_start_and_is_answered_at_his_stage(harness: Harness) -> None:
    h = harness
    game, links = _night_one(h)
    seer = links[SEER]
    state = h.state(seer)
    assert "预言：21:40 开放，22:15 截止" in state["windows"]  # type: ignore[operator]
    assert "check" in {a["skill"] for a in state["actions"]}  # type: ignore[union-attr]
    assert h.act(seer, "check", target=KILLER)[0] == 303
    assert h.act(seer, "check", target=WHITE_WOLF)[0] == 303  # replaced while it waits
    page = h.client.get(f"/p/{seer}").text
    assert f"你提交了：预言 → {WHITE_WOLF}（预言、天眼、弄权、诽谤、杀人、撕咬开始时生效，之前可替换）" in page
    assert _commands(h, game, "check") == []  # held: the engine has nothing yet
    # the export keeps it, and an imported copy holds it too
    export = h.client.get(f"/d/g/{game}/export.json").json()
    assert [(x["command"]["targets"], x["status"]) for x in export["held_commands"]] == [
        ([KILLER], "replaced"),
        ([WHITE_WOLF], "held"),
    ]
    assert export["clock"]["public_label"] == "第1夜" and not export["clock"]["public_settling"]
    copy = h.service.import_game(h.director_id, export)
    with h.service.sessions() as s:
        kept = s.scalars(select(HeldCommand).where(HeldCommand.game_id == copy.id, HeldCommand.status == "held")).all()
        assert [k.payload["targets"] for k in kept] == [[WHITE_WOLF]]
    god = h.client.get(f"/d/g/{game}").text
    assert "待其阶段开始时生效" in god and 'id="timetable-rows"' in god and "第1夜·守卫行动" in god
    # 22:00: its stage opens, the 预言 is applied (in arrival order); no answer before 22:15
    h.run_until(shanghai(2026, 12, 2, 22))
    assert _commands(h, game, "check") == [(SEER, [WHITE_WOLF])]
    assert not any("你预言了" in t for t in _events(h, seer))
    h.run_until(shanghai(2026, 12, 2, 22, 15))
    assert any(t.startswith(f"你预言了{WHITE_WOLF}") for t in _events(h, seer))
    with h.service.sessions() as s:
        (held,) = s.scalars(select(HeldCommand).where(HeldCommand.game_id == game, HeldCommand.status == "applied"))
        assert held.settled_at == shanghai(2026, 12, 2, 22)


def test_skills_settle_in_deadline_order_not_arrival_order(harness: Harness) -> None:
    """断肠 (22:00) on the 诽谤者 posted after his 诽谤 (22:15): the 断肠 settles first, his 诽谤 has
    no effect, and his page says why once its stage opened."""
    h = harness
    game, links = _night_one(h)
    assert h.act(links[SLANDERER], "slander", target=SEER)[0] == 303
    assert h.act(links[PIPER], "heartbreak", target=SLANDERER)[0] == 303
    h.run_until(shanghai(2026, 12, 2, 21, 45))  # the 守卫's stage closes: 断肠 takes hold
    _g, state = h.service.read(game)
    assert state.chars[SLANDERER].skills_lost
    assert _commands(h, game, "slander") == []
    h.run_until(shanghai(2026, 12, 2, 22))  # his 诽谤's stage opens: refused now
    assert _commands(h, game, "slander") == []
    page = h.client.get(f"/p/{links[SLANDERER]}").text
    assert "你提交的「诽谤 → 甲子」未能生效：" in page and "已失去技能" in page
    assert "未能生效" not in h.client.get(f"/p/{links[SEER]}").text


def test_the_witch_s_stage_opens_once_every_input_it_waits_for_is_in(harness: Harness) -> None:
    h = harness
    game, links = _night_one(h)
    villager = links["甲戌"]
    h.run_until(shanghai(2026, 12, 2, 22))
    assert h.act(links[SEER], "check", target=KILLER)[0] == 303
    assert h.act(links[KILLER], "kill", target="戊辰")[0] == 303
    assert h.act(links[SLANDERER], "slander", target=SEER)[0] == 303
    before = h.state(villager)
    assert "通灵" not in json.dumps(h.state(links[WITCH]), ensure_ascii=False)
    h.clock.advance(60)
    assert h.act(links[WHITE_WOLF], "bite", target="甲戌")[0] == 303  # the last input of 22:15
    _g, state = h.service.read(game)
    assert state.stage == 3  # the 女巫's stage is open
    witch = h.state(links[WITCH])
    assert any("今晚被指杀的角色" in t for t in _events(h, links[WITCH]))
    assert {"antidote", "poison"} <= {a["skill"] for a in witch["actions"]}  # type: ignore[union-attr]
    assert any(t.startswith(f"你预言了{KILLER}") for t in _events(h, links[SEER]))
    # the players' clock has not moved: the same stage, the same deadline
    after = h.state(villager)
    assert after["deadline"] == before["deadline"] and after["deadline"]["due"] == shanghai(2026, 12, 2, 22, 15)  # type: ignore[index]
    assert "解药：22:15 开放（所等待的行动都已提交时提前开放），22:30 截止" in witch["windows"]  # type: ignore[operator]
    rows = {r.key: r.due_at for r in h.service.night_rows_of(game, "第1夜")}
    assert rows["第1夜|stage|3"] == shanghai(2026, 12, 2, 22, 30)  # it keeps its planned deadline
    with h.service.sessions() as s:
        sources = [r.source for r in s.scalars(select(CommandRow).where(CommandRow.game_id == game))]
    assert "inputs" in sources


def test_a_night_closed_early_opens_its_held_stages_first_and_can_be_undone(harness: Harness) -> None:
    h = harness
    game, links = _night_one(h)
    assert h.act(links[SEER], "check", target=KILLER)[0] == 303  # held for 22:15
    assert h.director(game, "command", skill="close_phase")[0] == 303  # the director ends the night now
    assert _commands(h, game, "check") == [(SEER, [KILLER])]  # its stage opened first: applied
    _g, state = h.service.read(game)
    assert state.settling or state.phase.label == "第2天"
    # one undo takes back the close and the stages it opened
    assert h.director(game, "undo")[0] == 303
    _g, state = h.service.read(game)
    assert state.phase.label == "第1夜" and state.stage == 0 and not state.settling
    assert _commands(h, game, "check") == []
    with h.service.sessions() as s:
        (held,) = s.scalars(select(HeldCommand).where(HeldCommand.game_id == game, HeldCommand.status == "held"))
        assert held.payload["targets"] == [KILLER]
