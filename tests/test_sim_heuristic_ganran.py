"""感染's heuristic: targeted situations on a scripted table, a batch of played games, its effect counters."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from banshe.engine.commands import CHANGE_VOTE, CLOSE_PHASE, CLOSE_STAGE, DIRECTOR, VOTE, Command
from banshe.engine.core import apply_in_place
from banshe.engine.events import ACCEPTED
from banshe.engine.model import GameState, Phase
from banshe.engine.view import legal_commands
from banshe.rulesets import new_game
from banshe.rulesets.ganran.effects import ganran_effects
from banshe.rulesets.ganran.state import ext
from banshe.rulesets.ganran.state import seat as ganran_seat
from banshe.scenario import load, play
from banshe.sim.agents import Observation, load_policy
from banshe.sim.env import GameEnv, play_game
from banshe.sim.heuristic import HeuristicAgent
from banshe.sim.runner import game_seed, seat_names
from banshe.sim.stats import EFFECTS

GOLDEN = Path(__file__).resolve().parent / "scenarios" / "ganran"
PLAYERS = ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛", "壬", "癸", "子", "丑"]
# 甲先知 乙女巫 丙守卫 丁长老 戊猎人 己教士 庚爱神 辛穆图 壬该隐 癸子丑村民
ROLES = dict(
    zip(
        PLAYERS,
        ["先知", "女巫", "守卫", "长老", "猎人", "教士", "爱神", "穆图", "该隐", "村民", "村民", "村民"],
        strict=True,
    )
)


# -- a scripted table --------------------------------------------------------------------------
def _env() -> GameEnv:
    env = GameEnv("ganran", PLAYERS, seed=1)
    env.state = new_game("ganran", PLAYERS, ROLES, seed=1)
    return env


def _do(env: GameEnv, actor: str, skill: str, *targets: str) -> None:
    apply_in_place(env.state, Command(actor, skill, tuple(targets)))


def _close(env: GameEnv, skill: str = CLOSE_PHASE) -> None:
    apply_in_place(env.state, Command(DIRECTOR, skill))


def _to_stage(env: GameEnv, stage: int) -> None:
    while env.state.stage < stage:
        _close(env, CLOSE_STAGE)


def _finish_night(env: GameEnv) -> None:
    while env.state.stage < len(env.rs.night_stages) - 1:
        _close(env, CLOSE_STAGE)
    _close(env)


def _agent(env: GameEnv, seat: str, seed: int = 0) -> HeuristicAgent:
    """A fresh agent for `seat` that reads the whole log so far (its own view of it)."""
    env._cursor.pop(seat, None)
    return HeuristicAgent(seat, env.state.chars[seat].role, "ganran", random.Random(seed))


def _ask(agent: HeuristicAgent, env: GameEnv) -> Command | None:
    st = env.state
    seat = agent.seat
    obs = Observation(seat, st.chars[seat].role, st.ruleset, st.phase, st.stage, None, legal_commands(st, seat), env)
    cmd = agent.act(obs)
    assert cmd is None or cmd in obs.legal or cmd.skill in (VOTE, CHANGE_VOTE), cmd
    return cmd


def _table(sheriff: str = "子") -> GameEnv:
    """开局 (庚 loves 己), 第1天 elects `sheriff`, 第1夜 stage 夜晚1 open."""
    env = _env()
    _do(env, "庚", "adore", "己")
    _close(env)
    for voter in ("甲", "乙", "丙"):
        _do(env, voter, VOTE, sheriff)
    _close(env)
    assert env.state.phase.label == "第1夜" and env.state.sheriff == sheriff
    return env


def test_mutu_bites_the_sheriff_then_never_an_ally() -> None:
    env = _table()
    _to_stage(env, 1)  # 夜晚2
    mutu = _agent(env, "辛")
    assert _ask(mutu, env) == Command("辛", "bite", ("子",))
    _do(env, "辛", "bite", "子")
    _finish_night(env)  # 子 is infected; 辛 is told 成功
    assert ganran_seat(env.state.chars["子"]).kind == "wolf"
    # 第2天: no vote of 穆图 goes to his new ally, whatever his dice say
    for seed in range(8):
        cmd = _ask(_agent(env, "辛", seed), env)
        assert cmd is not None and cmd.skill == VOTE and cmd.targets[0] not in ("子", "辛")
    _close(env)
    _to_stage(env, 1)
    for seed in range(8):
        cmd = _ask(_agent(env, "辛", seed), env)
        assert cmd is not None and cmd.skill == "bite" and cmd.targets[0] not in ("子", "辛")


def test_infected_character_plays_for_its_kind() -> None:
    env = _table()
    _to_stage(env, 1)
    _do(env, "辛", "bite", "癸")  # 癸 becomes a 游离 狼人 and learns 辛
    _finish_night(env)
    for seed in range(8):
        cmd = _ask(_agent(env, "癸", seed), env)
        assert cmd is not None and cmd.targets[0] not in ("辛", "癸")
    _close(env)
    _to_stage(env, 2)  # 夜晚3: his one 咬噬 (ready from this night)
    for seed in range(8):
        cmd = _ask(_agent(env, "癸", seed), env)
        assert cmd is not None and cmd.skill == "bite" and cmd.targets[0] not in ("辛", "癸")


def test_seer_votes_for_a_bad_result() -> None:
    env = _table()
    _to_stage(env, 3)  # 夜晚4
    seer = _agent(env, "甲")
    cmd = _ask(seer, env)
    assert cmd == Command("甲", "check", ("子",))  # the sheriff first
    _do(env, "甲", "check", "辛")  # the test's choice: a 狼人
    _finish_night(env)
    for seed in range(4):
        assert _ask(_agent(env, "甲", seed), env) == Command("甲", VOTE, ("辛",))
    _do(env, "甲", VOTE, "辛")
    # 改票 round: already on the bad player, nothing to change
    assert _ask(_agent(env, "甲"), env) is None


def test_infected_seer_bites_the_rival_he_found() -> None:
    env = _table()
    _to_stage(env, 1)
    _do(env, "壬", "suck", "甲")  # the 先知 becomes a 游离 吸血鬼 (infector and king: 壬)
    _to_stage(env, 3)
    _do(env, "甲", "check", "辛")  # 狼人阵营: his rival now
    _finish_night(env)
    cmd = _ask(_agent(env, "甲"), env)
    assert cmd == Command("甲", VOTE, ("辛",))
    _close(env)
    _to_stage(env, 2)
    cmd = _ask(_agent(env, "甲"), env)
    assert cmd == Command("甲", "suck", ("辛",))


def test_guard_covers_the_sheriff_every_night_without_a_repeat() -> None:
    env = _table()
    guard = _agent(env, "丙", seed=3)
    first = _ask(guard, env)
    assert first is not None and first.targets == ("子",) and first.skill in ("shield", "garlic")
    apply_in_place(env.state, first)
    _finish_night(env)
    _close(env)
    second = _ask(guard, env)
    assert second is not None and second.targets == ("子",) and second.skill != first.skill
    # an infected 守卫 blocks only the rival kind, on himself or an ally
    env = _table()
    _to_stage(env, 1)
    _do(env, "辛", "bite", "丙")
    _finish_night(env)
    _close(env)
    cmd = _ask(_agent(env, "丙"), env)
    assert cmd is not None and cmd.skill == "garlic" and cmd.targets[0] in ("丙", "辛")


def test_witch_keeps_the_antidote_and_poisons_the_listed() -> None:
    env = _table()
    _to_stage(env, 1)
    _do(env, "辛", "bite", "癸")
    _to_stage(env, 5)  # 夜晚6: 通灵 named 癸 (infected, not 濒死)
    witch = _agent(env, "乙")
    assert _ask(witch, env) is None
    _finish_night(env)
    cmd = _ask(witch, env)  # 第2天: she votes for the player the 通灵 listed
    assert cmd == Command("乙", VOTE, ("癸",))
    _close(env)
    _to_stage(env, 5)
    assert _ask(witch, env) == Command("乙", "poison", ("癸",))


def test_hunter_shoots_only_when_voted_out() -> None:
    env = _table()
    _finish_night(env)
    hunter = _agent(env, "戊")
    cmd = _ask(hunter, env)
    assert cmd is not None and cmd.skill == VOTE  # nothing known: no 银色子弹
    apply_in_place(env.state, cmd)
    for voter in ("癸", "丑", "庚"):
        _do(env, voter, VOTE, "戊")
    cmd = _ask(hunter, env)
    assert cmd is not None and cmd.skill == "bullet" and cmd.targets[0] in ("癸", "丑", "庚")


def test_priest_crosses_the_leader_after_voting() -> None:
    env = _table()
    _finish_night(env)
    priest = _agent(env, "己")
    first = _ask(priest, env)
    assert first is not None and first.skill == VOTE
    apply_in_place(env.state, first)
    for voter in ("癸", "丑", "甲"):
        _do(env, voter, VOTE, "壬")
    assert _ask(priest, env) == Command("己", "cross", ("壬",))


# -- played games ------------------------------------------------------------------------------
def _accepted(state: GameState) -> list[tuple[str, dict[str, Any]]]:
    return [(e.phase, e.data["command"]) for e in state.log if e.kind == ACCEPTED]


@pytest.mark.parametrize("players", [10, 15, 20])
def test_heuristic_games_end_legally(players: int) -> None:
    factory = load_policy("heuristic")
    winners: Counter[str] = Counter()
    for i in range(7):
        env = play_game("ganran", seat_names(players), game_seed(4, players, i), factory)
        state = env.state
        assert env.finished and state.winner is not None
        assert env.refused == 0, "a heuristic agent posted an illegal command"
        winners[state.winner] += 1
        chain = ext(state).chain
        infector = {e.infected: e.infector for e in chain if e.infected}
        kings = {c.name for c in state.chars.values() if c.role in ("mutu", "cain")}
        witch = next(c.name for c in state.chars.values() if c.role == "witch")
        for phase, cmd in _accepted(state):
            actor, skill = str(cmd["actor"]), str(cmd["skill"])
            targets = [str(t) for t in cmd.get("targets", [])]
            if skill in ("bite", "suck"):
                # never on himself, his infector, or a king of his own kind he was told of
                assert targets[0] != actor and targets[0] != infector.get(actor)
                if actor in infector:
                    own_king = next(
                        (k for k in kings if ganran_seat(state.chars[k]).kind == ganran_seat(state.chars[actor]).kind),
                        None,
                    )
                    assert targets[0] != own_king
                # a king never bites a player he converted on an earlier night
                now = Phase.parse(phase).ordinal
                earlier = {e.infected for e in chain if e.infector == actor and Phase.parse(e.phase).ordinal < now}
                assert targets[0] not in earlier or state.chars[actor].role not in ("mutu", "cain")
            if skill == "antidote":
                assert targets == [witch]
            if skill == "bullet":
                voted = {
                    str(c["actor"])
                    for p, c in _accepted(state)
                    if p == phase and c["skill"] in (VOTE, CHANGE_VOTE) and c["targets"] == [actor]
                }
                assert targets[0] in voted, "a 银色子弹 without suspicion"
    assert sum(winners.values()) == 7


# -- effect counters ---------------------------------------------------------------------------
def _effects(name: str) -> Counter[str]:
    state, _records = play(load(GOLDEN / name))
    counts: Counter[str] = Counter()
    ganran_effects(state, counts)
    return counts


def test_effect_counters() -> None:
    assert EFFECTS["ganran"] is ganran_effects
    # FAQ example: two 咬噬 met the 银盾, two infections, one lifted its 游离 and one did not
    faq = _effects("10_faq_mutu_feedback_example.yaml")
    assert faq["感染\t银盾：挡下咬噬"] == 2
    assert faq["感染\t新感染：转为狼人"] == 2
    assert faq["感染\t被感染者终局：已解除游离（加入阵营）"] == 1
    assert faq["感染\t被感染者终局：仍为游离状态"] == 1
    assert _effects("20_bullet_on_drift_wolf.yaml")["感染\t银色子弹：命中狼人"] == 1
    assert _effects("21_cross_on_non_vampire.yaml")["感染\t十字架：未命中吸血鬼"] == 1
    assert _effects("22_cross_on_drift_vampire.yaml")["感染\t十字架：命中吸血鬼"] == 1
    witch = _effects("24_witch_spirit_antidote.yaml")
    assert witch["感染\t解药：救回濒死角色"] == 1 and witch["感染\t毒药：命中狼人"] == 1
    guard = _effects("23_guard_garlic_and_shield.yaml")
    assert guard["感染\t胡蒜：挡下吸血"] == 1 and guard["感染\t银盾：目标当晚未被咬噬"] == 1
