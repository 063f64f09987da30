"""Unit tests of the engine's mechanisms, on 品茗."""

from __future__ import annotations

import pytest

from banshe.engine import Command, IllegalCommand, Phase, replay, step, view
from banshe.engine.commands import CARD_RED, CLOSE_PHASE, DIRECTOR, JUDGE_LOSS
from banshe.engine.commands import Command as Cmd
from banshe.engine.events import CHANCE, FEEDBACK, NOTICE
from banshe.engine.view import is_legal, legal_commands
from banshe.rulesets import new_game
from banshe.rulesets.pinming.state import ext

from .helpers import ROLES, SEATS, close, close_stage, director, pinming, post, timeout, to_day


def test_phase_labels_and_order() -> None:
    p = Phase.parse("开局")
    labels = []
    for _ in range(5):
        labels.append(p.label)
        p = p.next()
    assert labels == ["开局", "第1天", "第1夜", "第2天", "第2夜"]
    assert Phase.parse("第3夜").ordinal > Phase.parse("第3天").ordinal > Phase.parse("第2夜").ordinal
    with pytest.raises(ValueError):
        Phase.parse("第三天")


def test_command_json_round_trip() -> None:
    cmd = Command("甲", "slash", ("乙", "丙"), text="x", answer=True, amount=3)
    assert Command.from_json(cmd.to_json()) == cmd


def test_step_is_pure() -> None:
    state = pinming()
    before = state.fingerprint()
    result = step(state, Command("十三", "recognize", ("五",)))
    assert state.fingerprint() == before
    assert ext(result.state).recognized == "五"
    assert any(e.kind == "accepted" for e in result.events)


@pytest.mark.parametrize(
    ("cmd", "fragment"),
    [
        (Command("十三", "recognize", ("十三",)), "自己"),
        (Command("五", "recognize", ("六",)), "不是混血儿"),
        (Command("一", "check", ("九",)), "开局"),
        (Command("某人", "vote", ("九",)), "不是本局的角色"),
        (Command("一", "vote", ("九",)), "开局"),
        (Command("一", "no_such_skill", ()), "没有技能"),
        (Command("一", CLOSE_PHASE), "只有导演"),
        (Command(DIRECTOR, JUDGE_LOSS, ("不存在阵营",)), "阵营"),
    ],
)
def test_refusals_change_nothing(cmd: Cmd, fragment: str) -> None:
    state = pinming()
    before = state.fingerprint()
    with pytest.raises(IllegalCommand) as info:
        step(state, cmd)
    assert fragment in info.value.reason
    assert state.fingerprint() == before


def test_setup_errors_are_chinese() -> None:
    with pytest.raises(ValueError, match="重复"):
        new_game("pinming", ["甲", "甲"], None)
    with pytest.raises(ValueError, match="没有身份"):
        new_game("pinming", ["甲", "乙"], {"甲": "预言家", "乙": "吸血鬼"})
    with pytest.raises(ValueError, match="14"):
        new_game("pinming", SEATS[:10], None)
    with pytest.raises(ValueError, match="选项"):
        new_game("pinming", SEATS, dict(ROLES), {"不存在": True})


def test_deal_is_seeded_and_standard() -> None:
    a = new_game("品茗", SEATS, None, None, 42)
    b = new_game("M196", SEATS, None, None, 42)
    c = new_game("pinming", SEATS, None, None, 43)
    roles = lambda s: {n: ch.role for n, ch in s.chars.items()}  # noqa: E731
    assert roles(a) == roles(b)
    assert roles(a) != roles(c)
    assert sorted(roles(a).values()) == sorted(
        ["seer", "witch", "hunter", "idiot"] + ["villager"] * 4 + ["wolf"] * 4 + ["halfblood", "yandere"]
    )


def test_random_recognize_default_is_recorded() -> None:
    state = pinming(seed=11)
    close(state)
    target = ext(state).recognized
    assert target != "十三"
    draws = [e for e in state.log if e.kind == CHANCE]
    assert draws and draws[0].data["choice"] == target
    told = [e for e in state.log if e.kind == FEEDBACK and e.audience.members == ("十四",)]
    assert told and told[0].data["target"] == target


def test_witch_loses_spirit_after_antidote() -> None:
    state = pinming()
    to_day(state, 1)
    close(state)  # 第1夜
    post(state, "九", "kill", "五")
    close_stage(state)
    close_stage(state)
    post(state, "二", "antidote", "五")
    close(state)
    assert state.is_alive("五")
    close(state)  # 第2天 -> 第2夜
    post(state, "九", "kill", "六")
    close(state)
    spirit = [e for e in state.log if e.kind == FEEDBACK and e.data["skill"] == "通灵"]
    assert [e.phase for e in spirit] == ["第1夜"]


def test_witch_cannot_act_before_the_kill_stage_closes() -> None:
    state = pinming()
    to_day(state, 1)
    close(state)
    with pytest.raises(IllegalCommand, match="尚未轮到"):
        step(state, Command("二", "poison", ("九",)))
    close_stage(state)
    close_stage(state)
    with pytest.raises(IllegalCommand, match="时限已过"):
        step(state, Command("一", "check", ("九",)))
    post(state, "二", "poison", "九")
    close(state)
    assert not state.is_alive("九")


def test_prompt_waits_and_default_applies() -> None:
    state = pinming()
    to_day(state, 2)
    post(state, "一", "vote", "三")
    close(state)
    assert state.prompts and state.prompts[0].skill == "shoot"
    prompted = [e for e in state.log if e.kind == NOTICE and e.data.get("prompt") == "shoot"]
    assert prompted and prompted[-1].audience.members == ("三",)
    assert state.phase.label == "第2天"
    timeout(state)
    assert state.phase.label == "第2夜"
    assert [o.player for o in state.outs] == ["三"]


def test_red_card_sheriff_gets_random_successor() -> None:
    state = pinming(seed=3)
    to_day(state, 1)
    post(state, "一", "vote", "五")
    close(state)
    assert state.sheriff == "五"
    director(state, CARD_RED, "五")
    assert not state.is_alive("五")
    assert state.sheriff is not None and state.sheriff != "五" and state.is_alive(state.sheriff)
    assert any(e.kind == CHANCE and e.data["purpose"] == "罚下警长的继任者" for e in state.log)


def test_last_words_go_to_the_first_four_outs_not_to_red_cards() -> None:
    state = pinming()
    to_day(state, 1)
    close(state)
    director(state, CARD_RED, "十三")
    for victim in ["五", "六", "七"]:
        post(state, "九", "kill", victim)
        close(state)
        close(state)
    to_day(state, 5)
    post(state, "一", "vote", "十")
    close(state)
    rights = [n for n, c in state.chars.items() if c.last_words]
    assert rights == ["五", "六", "七", "十"]
    # each was told in the phase of its out: {skill 遗言, target null, result null}
    told = [(e.phase, e.audience.members[0]) for e in state.log if e.kind == FEEDBACK and e.data["skill"] == "遗言"]
    assert told == [("第1夜", "五"), ("第2夜", "六"), ("第3夜", "七"), ("第5天", "十")]
    post(state, "十", "last_words", text="我是好人")
    with pytest.raises(IllegalCommand, match="遗言"):
        step(state, Command("十三", "last_words", text="我也要说"))
    with pytest.raises(IllegalCommand, match="遗言"):
        step(state, Command("十", "last_words", text="再说一次"))
    # 在次日讨论日开始前…未提交遗言，视为放弃遗言: 五 went out on 第1夜
    with pytest.raises(IllegalCommand, match="时限已过"):
        step(state, Command("五", "last_words", text="太晚了"))


def test_views_hide_what_the_rules_hide() -> None:
    state = pinming()
    post(state, "十三", "recognize", "五")
    to_day(state, 1)
    close(state)
    post(state, "一", "check", "九")
    post(state, "九", "kill", "五")
    close(state)
    seer = view(state, "一")
    villager = view(state, "六")
    wolf = view(state, "十")
    director_view = view(state, None)
    assert [s.get("role") for s in villager["seats"] if s["name"] != "六"] == [None] * 13
    assert villager["me"]["role"] == "村民"
    assert any(e["kind"] == "feedback" and e["data"]["skill"] == "预言" for e in seer["events"])
    assert not any(e["kind"] == "feedback" for e in villager["events"])
    assert any("狼群成员" in e["text"] for e in wolf["events"])
    assert not any("狼群成员" in e["text"] for e in villager["events"])
    assert not any(e["kind"] == "accepted" and e["data"]["command"]["skill"] == "kill" for e in villager["events"])
    assert all("role" in s for s in director_view["seats"])
    with pytest.raises(KeyError):
        view(state, "不存在")


def test_everyone_sees_everything_after_the_game() -> None:
    state = pinming()
    to_day(state, 2)
    director(state, JUDGE_LOSS, "狼人阵营")
    assert state.winner == "village"
    assert all("role" in s for s in view(state, "六")["seats"])


def test_legal_commands_match_is_legal() -> None:
    state = pinming()
    to_day(state, 1)
    close(state)
    seer_cmds = legal_commands(state, "一")
    assert {c.skill for c in seer_cmds} == {"check"}
    assert len(seer_cmds) == 14
    assert legal_commands(state, "五") == []
    wolf_cmds = legal_commands(state, "九")
    assert {c.skill for c in wolf_cmds} == {"kill", "duel", "surrender"}
    for cmd in seer_cmds + wolf_cmds:
        assert is_legal(state, cmd) is None
    state2 = pinming()
    to_day(state2, 2)
    votes = legal_commands(state2, "一")
    assert len(votes) == 15  # 14 alive and 弃权


def test_replay_rebuilds_the_same_state() -> None:
    state = new_game("pinming", SEATS, None, None, 9)
    close(state)
    to_day(state, 2)
    post(state, state.order[0], "vote", state.order[1])
    close(state)
    while state.prompts:
        timeout(state)
    rebuilt = replay(state)
    assert rebuilt.fingerprint() == state.fingerprint()
