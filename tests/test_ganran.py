"""感染 2.0: setup bounds, staged nights, who learns what, and the demo's infection chain."""

from __future__ import annotations

from pathlib import Path

import pytest

from banshe.demo import run_demo
from banshe.engine.commands import CLOSE_STAGE, DIRECTOR, Command, IllegalCommand
from banshe.engine.core import step
from banshe.engine.events import FEEDBACK
from banshe.engine.model import GameState
from banshe.engine.ruleset import Ruleset
from banshe.engine.view import is_legal, legal_commands
from banshe.rulesets import new_game
from banshe.rulesets.ganran import GANRAN
from banshe.rulesets.registry import find_ruleset
from banshe.scenario import load, play

GOLDEN = Path(__file__).resolve().parent / "scenarios" / "ganran"
PLAYERS = ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛", "壬", "癸", "子", "丑"]
ROLES = dict(
    zip(
        PLAYERS,
        ["先知", "女巫", "守卫", "长老", "猎人", "教士", "爱神", "穆图", "该隐", "村民", "村民", "村民"],
        strict=True,
    )
)


def _played(name: str) -> GameState:
    state, _records = play(load(GOLDEN / name))
    return state


def _feedback(state: GameState, player: str, phase: str) -> list[dict[str, object]]:
    return [
        dict(e.data) for e in state.log if e.kind == FEEDBACK and e.phase == phase and e.audience.members == (player,)
    ]


def test_names_and_aliases() -> None:
    for name in ("感染", "感染2.0", "ganran"):
        assert find_ruleset(name) is GANRAN
    assert GANRAN.role_id("丘比特") == GANRAN.role_id("爱神") == "cupid"
    assert [s.id for s in GANRAN.night_stages] == [f"夜晚{i}" for i in range(1, 7)]


@pytest.mark.parametrize("count", [9, 41])
def test_player_count_outside_bounds_is_refused(count: int) -> None:
    with pytest.raises(ValueError, match="感染需要10到40名玩家"):
        new_game("ganran", [f"p{i}" for i in range(count)], seed=1)


@pytest.mark.parametrize("count", [10, 40])
def test_random_deal_has_one_of_each_special(count: int) -> None:
    state = new_game("ganran", [f"p{i}" for i in range(count)], seed=3)
    roles = [c.role for c in state.chars.values()]
    for role in ("seer", "witch", "guard", "elder", "hunter", "priest", "cupid", "mutu", "cain"):
        assert roles.count(role) == 1
    assert roles.count("villager") == count - 9


def test_two_seers_refused() -> None:
    roles = dict(ROLES, 癸="先知")
    with pytest.raises(ValueError, match="恰好一名先知"):
        new_game("ganran", PLAYERS, roles, seed=1)


def _night_one() -> GameState:
    state = new_game("ganran", PLAYERS, ROLES, seed=1)
    state = step(state, Command("庚", "adore", ("己",))).state
    state = step(state, Command(DIRECTOR, "close_phase")).state  # 开局 → 第1天
    state = step(state, Command(DIRECTOR, "close_phase")).state  # 第1天 → 第1夜
    assert state.phase.label == "第1夜"
    return state


def test_stages_are_exposed_and_enforced() -> None:
    state = _night_one()
    # 夜晚3 does not open before 夜晚1/2 close; 穆图's 咬噬 belongs to 夜晚2
    with pytest.raises(IllegalCommand, match="尚未轮到"):
        step(state, Command("甲", "check", ("辛",)))
    assert GANRAN.stage_for(state, Command("辛", "bite", ("癸",))) == 1
    assert GANRAN.stage_for(state, Command("癸", "bite", ("子",))) == 2
    state = step(state, Command(DIRECTOR, CLOSE_STAGE)).state
    state = step(state, Command("辛", "bite", ("癸",))).state
    state = step(state, Command(DIRECTOR, CLOSE_STAGE)).state  # 夜晚2 settles: 癸 is infected now
    assert "游离" in state.char("癸").statuses
    with pytest.raises(IllegalCommand, match="时限已过"):
        step(state, Command("壬", "suck", ("子",)))


def test_the_declarations_carry_stages_settlement_and_the_prompt() -> None:
    # each night skill names its stage; 夜晚3 also lists 咬噬/吸血 (a 狼人's/吸血鬼's, by stage_for)
    assert [sorted(st.skills) for st in GANRAN.night_stages] == [
        ["garlic", "shield"],
        ["bite", "ghost_king", "suck", "wolf_king"],
        ["bite", "suck"],
        ["check"],
        ["kill"],
        ["antidote", "poison"],
    ]
    assert [st.on_close is not None for st in GANRAN.night_stages] == [False, True, True, True, True, True]
    assert {kind: [t.name for t in tasks] for kind, tasks in GANRAN.settle.items()} == {
        "start": ["start"],
        "night": ["night"],
        "day": ["election", "vote"],
    }
    succeed = GANRAN.skills["succeed"]
    assert succeed.answer is not None and succeed.on_timeout is not None
    # nothing is left on the hooks the declarations replace
    for hook in ("on_stage_closed", "settlement", "run_task", "answer_prompt", "check_answer", "prompt_default"):
        assert getattr(type(GANRAN), hook) is getattr(Ruleset, hook), hook


def test_refused_command_changes_nothing() -> None:
    state = _night_one()
    before = state.fingerprint()
    with pytest.raises(IllegalCommand) as exc:
        step(state, Command("戊", "bullet", ("辛",)))
    assert "银色子弹" in exc.value.reason
    assert state.fingerprint() == before


def test_elder_and_dying_wolf_learn_nothing() -> None:
    # FAQ 3/6: 长老、濒死的狼人/吸血鬼不会得知相应技能发动者
    elder = _played("03_faq_elder_first_bite.yaml")
    assert _feedback(elder, "丁", "第1夜") == []
    mutu = _played("04_faq_cain_sucks_mutu.yaml")
    assert _feedback(mutu, "辛", "第1夜") == []


def test_only_mutu_and_cain_learn_success() -> None:
    # FAQ: 穆图、该隐可得知其技能是否使用成功，其他狼人、吸血鬼则不会收到反馈
    state = _played("10_faq_mutu_feedback_example.yaml")
    for player, phase in (("癸", "第2夜"), ("丑", "第3夜")):
        assert all(f["result"] not in ("成功", "失败") for f in _feedback(state, player, phase))


def test_lover_seer_feedback_comes_after_night_six() -> None:
    state = _played("29_lover_seer_late_and_lovers_camp_forms.yaml")
    kinds = [(e.data.get("skill"), e.audience.members) for e in state.log if e.kind == FEEDBACK and e.phase == "第1夜"]
    assert kinds.index(("预言", ("甲",))) > kinds.index(("通灵", ("乙",)))


def test_non_lover_seer_feedback_comes_in_night_four() -> None:
    state = _played("01_faq_seer_sees_drift.yaml")
    kinds = [(e.data.get("skill"), e.audience.members) for e in state.log if e.kind == FEEDBACK and e.phase == "第1夜"]
    assert kinds.index(("预言", ("甲",))) < kinds.index(("通灵", ("乙",)))


def test_demo_prints_thread_and_infection_chain() -> None:
    text = run_demo("感染", seed=2, players=14)
    assert "==== 讨论帖公示 ====" in text
    assert "感染链" in text
    assert "胜利，结束于" in text


def test_special_elder_out_is_not_announced_by_default() -> None:
    # seed 4.长老: 公示“长老出局” belongs to the 村民阵营 case (option 长老出局总是公示 changes it)
    state = _played("36_special_elder_out_no_village_effect.yaml")
    assert not any("长老出局" in e.text for e in state.log if e.kind == "announce")
    assert "special" in state.lost_camps


# -- hidden information (issue 11): what the actor is offered and told ------------------------
def _witch_stage(adored: str = "己") -> GameState:
    """第1夜 at 夜晚6 (the 女巫's stage), 庚 爱慕 `adored`."""
    state = new_game("ganran", PLAYERS, ROLES, seed=1)
    state = step(state, Command("庚", "adore", (adored,))).state
    state = step(state, Command(DIRECTOR, "close_phase")).state
    state = step(state, Command(DIRECTOR, "close_phase")).state
    while state.stage < len(GANRAN.night_stages) - 1:
        state = step(state, Command(DIRECTOR, CLOSE_STAGE)).state
    return state


def _offered(state: GameState, actor: str, skill: str) -> set[str]:
    return {c.targets[0] for c in legal_commands(state, actor) if c.skill == skill}


def test_poison_does_not_show_the_witch_who_dies_of_love() -> None:
    # 毒药 settles when 夜晚6 closes: before that the witch's options still include the poisoned
    # character's lover, so they do not reveal who the lover is (the old code dropped 庚 at once)
    state = _witch_stage()
    state = step(state, Command("乙", "poison", ("己",))).state
    assert state.is_alive("庚") and state.is_alive("己")
    # only her own poisoned target is left out: she knows it is out (rulings 2026-12-04)
    assert _offered(state, "乙", "antidote") == set(state.alive_names()) - {"己"}
    assert is_legal(state, Command("乙", "antidote", ("庚",))) is None
    state = step(state, Command("乙", "antidote", ("庚",))).state
    state = step(state, Command(DIRECTOR, "close_phase")).state
    assert [(o.player, o.cause) for o in state.outs] == [("己", "毒药"), ("庚", "殉情")]
    assert not state.char("乙").has_charge("antidote")  # spent with no effect


def test_poisoning_the_elder_does_not_take_the_witch_s_other_potion_at_once() -> None:
    # the 村民阵营 长老's out (失去其技能) is read at settlement, not shown by refusing her 解药
    state = _witch_stage()
    state = step(state, Command("乙", "poison", ("丁",))).state
    assert not state.char("乙").skills_lost
    # only her own poisoned target is left out: she knows it is out (rulings 2026-12-04)
    assert _offered(state, "乙", "antidote") == set(state.alive_names()) - {"丁"}
    state = step(state, Command("乙", "antidote", ("癸",))).state
    state = step(state, Command(DIRECTOR, "close_phase")).state
    assert [(o.player, o.cause) for o in state.outs] == [("丁", "毒药")]
    assert state.char("乙").skills_lost


def test_antidote_is_offered_on_everyone_dying_or_not() -> None:
    state = _witch_stage()
    assert _offered(state, "乙", "antidote") == set(state.alive_names())


def test_witch_poisoning_herself_spends_the_later_antidote() -> None:
    state = _witch_stage()
    state = step(state, Command("乙", "poison", ("乙",))).state
    state = step(state, Command("乙", "antidote", ("癸",))).state  # accepted: she is alive until 夜晚6 settles
    state = step(state, Command(DIRECTOR, "close_phase")).state
    assert [(o.player, o.cause) for o in state.outs] == [("乙", "毒药")]


def test_no_spirit_after_the_antidote_night() -> None:
    state = _played("48_spirit_on_antidote_night_and_idle_antidote.yaml")
    assert [f["result"] for f in _feedback(state, "乙", "第1夜") if f["skill"] == "通灵"] == [["癸"]]
    assert [f for f in _feedback(state, "乙", "第2夜") if f["skill"] == "通灵"] == []


def test_penalised_sheriff_raises_no_succession_and_the_badge_leaves() -> None:
    state = _played("45_penalty_sheriff_badge_leaves.yaml")
    changes = [(e.phase, e.data["player"]) for e in state.log if e.kind == "sheriff"]
    assert changes == [("第1天", "癸"), ("第2天", None)]
    assert state.sheriff is None
    assert not any(e.kind == "chance" and e.data.get("purpose") == "警长继任者" for e in state.log)


def test_seer_is_the_library_role_refused_in_the_seed_words() -> None:
    # 先知 is the library's 预言家 (renamed); a refusal keeps 感染's wording
    assert GANRAN.skills["check"].intent == "check" and GANRAN.role_name("seer") == "先知"
    state = _night_one()
    for _ in range(3):  # 夜晚1-3 close: 夜晚4, the 先知's stage, is open
        state = step(state, Command(DIRECTOR, CLOSE_STAGE)).state
    with pytest.raises(IllegalCommand) as exc:
        step(state, Command("乙", "check", ("丙",)))
    assert exc.value.reason == "乙不是先知，不能发动<预言>"
