"""沉寂与取酒 bots (`rulesets/chenji/bots.py`) and effect counters (`rulesets/chenji/effects.py`).

Key situations are played on a fixed deal: every seat is a heuristic agent, a few seats are
scripted to set the scene, and the seat under test is asked with its own observation.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from banshe.engine.commands import ABSTAIN, CHANGE_VOTE, VOTE, Command
from banshe.engine.events import ACCEPTED, ANNOUNCE
from banshe.engine.model import NIGHT, START, GameState, Phase
from banshe.rulesets import new_game
from banshe.rulesets.chenji.bots import published_claims
from banshe.rulesets.chenji.effects import chenji_effects
from banshe.rulesets.chenji.rules import (
    ANTIDOTE,
    ARROW,
    BITE,
    CONFESS,
    KILL,
    LOVER_GROUP,
    PIPE,
    REJOIN,
    SHIELD,
    SHOOT,
    STAB,
    WOLF_GROUP,
)
from banshe.sim.agents import Observation, load_policy
from banshe.sim.env import GameEnv, play_game
from banshe.sim.heuristic import HeuristicAgent
from banshe.sim.runner import game_seed, seat_names

NAMES = list("甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉")
_ROLE_TEXT = (
    "预言家 女巫 长老 守卫 猎人 白痴 沉寂的先知者 权力魔术师 善良的小公主 诽谤者 "
    "良民 良民 乱民 白狼 头狼 黑狼 狼使 修女 吹笛者 丘比特"
)
ROLES = dict(zip(NAMES, _ROLE_TEXT.split(" "), strict=True))
SEER, WITCH, GUARD, HUNTER, WHITE_WOLF, BLACK_WOLF, CUPID = "甲", "乙", "丁", "戊", "卯", "巳", "酉"
PACK = {"卯", "辰", "巳", "午", "未"}  # 白狼 joins (归群)

Script = Callable[[Observation], Command | None]
Stop = Callable[[Observation], bool]


def _env(seed: int = 1, roles: dict[str, str] | None = None) -> tuple[GameEnv, dict[str, HeuristicAgent]]:
    env = GameEnv("chenji", NAMES, seed)
    env.state = new_game("chenji", NAMES, roles=roles or ROLES, seed=seed)
    rng = random.Random(seed)
    agents = {n: HeuristicAgent(n, env.state.chars[n].role, "chenji", rng) for n in NAMES}
    return env, agents


def _play_until(
    env: GameEnv, agents: dict[str, HeuristicAgent], stop: Stop, scripts: dict[str, Script] | None = None
) -> Observation:
    """Play until `stop(obs)` holds for the seat being asked; that observation is returned."""
    scripts = scripts or {}
    for seat in env.agent_iter():
        obs = env.last()
        if stop(obs):
            return obs
        script = scripts.get(seat)
        if seat == CUPID and obs.phase.kind == START:
            env.step(Command(CUPID, ARROW, ("子", "丑")))  # the two 良民: same camp, no 私奔
        elif script is not None:
            env.step(script(obs))
        else:
            env.step(agents[seat].act(obs))
    raise AssertionError("the situation never arose")


def _at(seat: str, phase: str, skill: str) -> Stop:
    return lambda obs: obs.seat == seat and obs.phase.label == phase and any(c.skill == skill for c in obs.legal)


def _first_night_scripts(agents: dict[str, HeuristicAgent], kill_target: str = "子") -> dict[str, Script]:
    """The 黑狼 kills `kill_target` on 第1夜; the 白狼 holds its bite; everyone else plays."""

    def kill(obs: Observation) -> Command | None:
        if obs.phase.label == "第1夜" and any(c.skill == KILL for c in obs.legal):
            agents[BLACK_WOLF].k.update(obs)
            return Command(BLACK_WOLF, KILL, (kill_target,))
        return agents[BLACK_WOLF].act(obs)

    def white(obs: Observation) -> Command | None:
        if obs.phase.label == "第1夜" and obs.phase.kind == NIGHT:
            agents[WHITE_WOLF].k.update(obs)
            return None
        return agents[WHITE_WOLF].act(obs)

    return {BLACK_WOLF: kill, WHITE_WOLF: white}


def _setup(seed: int = 1, roles: dict[str, str] | None = None) -> tuple[GameEnv, dict[str, HeuristicAgent]]:
    return _env(seed, roles)


# -- key situations ----------------------------------------------------------------------------
def test_white_wolf_rejoins_and_wolves_never_kill_a_mate() -> None:
    for seed in range(1, 5):
        env, agents = _setup(seed)
        obs = _play_until(env, agents, _at(WHITE_WOLF, "开局", REJOIN))
        assert agents[WHITE_WOLF].act(obs) == Command(WHITE_WOLF, REJOIN)
        env.step(Command(WHITE_WOLF, REJOIN))
        seen: set[str] = set()
        while seen != {KILL, BITE}:
            obs = _play_until(
                env, agents, lambda o: _at(BLACK_WOLF, "第1夜", KILL)(o) or _at(WHITE_WOLF, "第1夜", BITE)(o)
            )
            assert set(obs.groups[WOLF_GROUP]) == PACK
            cmd = agents[obs.seat].act(obs)
            assert cmd is not None and cmd in obs.legal and cmd.targets[0] not in PACK
            sheriff = env.state.sheriff
            if cmd.skill == KILL and sheriff is not None and sheriff not in PACK:
                assert cmd.targets == (sheriff,), "the sheriff is the pack's first target"
            seen.add(cmd.skill)
            env.step(cmd)


def test_seer_votes_for_the_wolf_it_found() -> None:
    env, agents = _setup(3)
    scripts = _first_night_scripts(agents)

    def seer(obs: Observation) -> Command | None:
        if obs.phase.label == "第1夜" and any(c.skill == "check" for c in obs.legal):
            agents[SEER].k.update(obs)
            return Command(SEER, "check", (BLACK_WOLF,))
        return agents[SEER].act(obs)

    scripts[SEER] = seer
    obs = _play_until(env, agents, _at(SEER, "第2天", VOTE), scripts)
    cmd = agents[SEER].act(obs)
    # 狼人 (or 免疫 when the 修女's 卫道 covered him): both read as not village
    assert agents[SEER].k.bad == {BLACK_WOLF}
    assert env.state.is_alive(BLACK_WOLF)
    assert cmd == Command(SEER, VOTE, (BLACK_WOLF,))


def test_witch_saves_the_first_night_target_and_guard_shields_the_sheriff() -> None:
    env, agents = _setup(2)
    scripts = _first_night_scripts(agents, "子")
    obs = _play_until(env, agents, _at(GUARD, "第1夜", SHIELD), scripts)
    sheriff = env.state.sheriff
    cmd = agents[GUARD].act(obs)
    assert cmd is not None and cmd.skill == SHIELD and cmd in obs.legal
    if sheriff is not None:
        assert cmd.targets == (sheriff,)
    env.step(cmd)
    obs = _play_until(env, agents, _at(WITCH, "第1夜", ANTIDOTE), scripts)
    assert agents[WITCH].act(obs) == Command(WITCH, ANTIDOTE, ("子",))


def test_guard_never_shields_a_target_twice() -> None:
    env, agents = _setup(4)
    shielded: list[str] = []
    for night in ("第1夜", "第2夜", "第3夜"):
        try:
            obs = _play_until(env, agents, _at(GUARD, night, SHIELD))
        except AssertionError:
            break  # the game ended or the guard went out
        cmd = agents[GUARD].act(obs)
        assert cmd is not None and cmd in obs.legal
        assert cmd.targets[0] not in shielded
        shielded.append(cmd.targets[0])
        env.step(cmd)
    assert shielded


def _detached(
    seat: str, role: str, phase: str, legal: list[Command], prompt: str | None = None, alive: list[str] = NAMES
) -> Observation:
    return Observation(seat, role, "chenji", Phase.parse(phase), 0, prompt, legal, _alive=tuple(alive))


def test_hunter_shoots_a_known_wolf_and_holds_otherwise() -> None:
    agent = HeuristicAgent(HUNTER, "hunter", "chenji", random.Random(1))
    legal = [Command(HUNTER, SHOOT, (t,)) for t in NAMES]
    assert agent.act(_detached(HUNTER, "hunter", "第2夜", legal, SHOOT)) is None
    agent.k.bad.add("辰")
    assert agent.act(_detached(HUNTER, "hunter", "第2夜", legal, SHOOT)) == Command(HUNTER, SHOOT, ("辰",))


def test_assassin_stabs_only_a_player_checked_as_wolf() -> None:
    agent = HeuristicAgent("壬", "assassin", "chenji", random.Random(1))
    legal = [Command("壬", STAB, ("甲",)), *(Command("壬", VOTE, (t,)) for t in NAMES)]
    agent.k.bad.add("申")
    agent.k.checks.append(("申", "吹笛者"))  # not a 狼人: a stab would cost his life
    cmd = agent.act(_detached("壬", "assassin", "第2天", legal))
    assert cmd is not None and cmd.skill == VOTE and cmd.targets == ("申",)
    agent.k.bad.add("辰")
    agent.k.checks.append(("辰", "狼人"))
    assert agent.act(_detached("壬", "assassin", "第2天", legal)) == Command("壬", STAB, ("辰",))


def test_published_claims_are_parsed_by_name() -> None:
    claims = published_claims("1号的遗言：【查验】11号=狼人；2号=村民。")
    assert claims == {"11号": "狼人", "2号": "村民"}
    agent = HeuristicAgent("3号", "assassin", "chenji", random.Random(1))
    agent.k.posts.append("1号的遗言：【查验】11号=狼人；2号=村民。")
    legal = [Command("3号", STAB, ("2号",))]
    alive = seat_names(20)
    agent.k.bad.add("1号")
    assert agent.act(_detached("3号", "assassin", "第2天", legal, alive=alive)) is None  # 1号 is not 11号
    agent.k.posts.append("4号的遗言：【查验】1号=狼人。")
    assert agent.act(_detached("3号", "assassin", "第2天", legal, alive=alive)) == Command("3号", STAB, ("1号",))


def test_a_confession_makes_the_confessor_known_good() -> None:
    agent = HeuristicAgent("子", "citizen", "chenji", random.Random(1))
    agent.k.checked.add("丑")  # 丑 showed 子 his identity (忏悔 feedback, no verdict)
    legal = [Command("子", VOTE, ("丑",)), Command("子", VOTE, (ABSTAIN,))]
    cmd = agent.act(_detached("子", "citizen", "第2天", legal))
    assert "丑" in agent.k.good
    assert cmd == Command("子", VOTE, (ABSTAIN,))


def test_confessor_votes_first_then_confesses_to_the_sheriff() -> None:
    env, agents = _setup(5, {**ROLES, "癸": "忏悔者"})
    obs = _play_until(env, agents, lambda o: o.seat == "癸" and o.phase.label == "第2天")
    first = agents["癸"].act(obs)
    assert first is not None and first.skill == VOTE
    env.step(first)
    obs = _play_until(env, agents, lambda o: o.seat == "癸" and any(c.skill == CHANGE_VOTE for c in o.legal))
    sheriff = env.state.sheriff
    second = agents["癸"].act(obs)
    assert sheriff is not None and sheriff != "癸" and sheriff not in agents["癸"].k.bad
    assert second == Command("癸", CONFESS, (sheriff,))


# -- whole games -------------------------------------------------------------------------------
def _games(count: int, seed: int) -> list[tuple[GameState, int]]:
    factory = load_policy("heuristic")
    out = []
    for i in range(count):
        players = 20 + (i * 7) % 11
        env = play_game("chenji", seat_names(players), game_seed(seed, players, i), factory)
        out.append((env.state, env.refused))
    return out


def test_heuristic_games_end_with_one_winner_and_follow_the_rules() -> None:
    games = _games(20, seed=11)
    used: Counter[str] = Counter()
    for state, refused in games:
        assert refused == 0, "a heuristic agent posted an illegal command"
        assert state.over and state.winner is not None
        pack = set(state.groups.get(WOLF_GROUP, ()))
        pair = set(state.groups.get(LOVER_GROUP, ()))
        shields: list[str] = []
        for e in state.log:
            if e.kind != ACCEPTED:
                continue
            cmd = e.data["command"]
            actor, skill, targets = cmd["actor"], cmd["skill"], cmd.get("targets") or []
            used[skill] += 1
            if actor in pack and skill in (KILL, BITE, VOTE, CHANGE_VOTE, SHOOT, "poison"):
                assert not set(targets) & pack, f"a wolf targeted a mate: {cmd}"
            if actor in pair and skill in (VOTE, CHANGE_VOTE):
                assert not set(targets) & (pair - {actor}), f"a lover voted for the other: {cmd}"
            if skill == SHIELD:
                shields.append(targets[0])
            if skill == PIPE:
                assert targets[0] != actor
            if skill == STAB:  # only a player a published check called 狼人 (a wolf's lover reads 狼人 too)
                claims = [published_claims(x.text) for x in state.log if x.kind == ANNOUNCE]
                assert any(c.get(targets[0]) == "狼人" for c in claims)
        assert len(shields) == len(set(shields)), "守护之盾 on one target twice"
    for skill in (KILL, BITE, SHIELD, PIPE, "check", ANTIDOTE, REJOIN, "guard_faith", "redeem", "slander"):
        assert used[skill] > 0, f"{skill} never used in 20 games"


def test_effect_counters_count_a_blocked_kill_and_a_save() -> None:
    env, agents = _setup(6)
    scripts = _first_night_scripts(agents, "丑")

    def guard(obs: Observation) -> Command | None:
        if obs.phase.label == "第1夜" and any(c.skill == SHIELD for c in obs.legal):
            agents[GUARD].k.update(obs)
            return Command(GUARD, SHIELD, ("丑",))
        return agents[GUARD].act(obs)

    scripts[GUARD] = guard
    _play_until(env, agents, lambda o: o.phase.label == "第2天", scripts)
    effects: Counter[str] = Counter()
    chenji_effects(env.state, effects)
    assert effects["沉寂与取酒\t守护之盾：挡下指杀"] == 1
    assert effects["沉寂与取酒\t守护之盾：守中指杀目标"] == 1
    assert effects["沉寂与取酒\t指杀目标：当晚未出局"] == 1
    assert effects["沉寂与取酒\t杀人：发动"] == 1
    assert effects["沉寂与取酒\t白狼：归群"] == 1
    assert effects["沉寂与取酒\t情侣：同阵营"] == 1
    # the 女巫 was told of the attack and spent her 解药 on it: a save of the 指杀 target
    assert effects["沉寂与取酒\t解药：救指杀目标"] == 1
    assert env.state.is_alive("丑")


def test_effect_counters_on_heuristic_games() -> None:
    effects: Counter[str] = Counter()
    for state, _ in _games(6, seed=12):
        chenji_effects(state, effects)
    assert effects["沉寂与取酒\t杀人：发动"] > 0
    assert effects["沉寂与取酒\t吹笛：发动"] > 0
    shielded = effects["沉寂与取酒\t守护之盾：守中指杀目标"] + effects["沉寂与取酒\t守护之盾：未守中指杀目标"]
    assert shielded > 0


def test_chenji_heuristic_results_do_not_depend_on_hash_seed(tmp_path: Path) -> None:
    # set iteration order (PYTHONHASHSEED) must not reach a decision nor an effect counter
    outs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"h{hash_seed}.json"
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        cmd = [sys.executable, "-m", "banshe", "simulate", "--ruleset", "chenji", "--policy", "heuristic"]
        cmd += ["--games", "4", "--players", "20,27", "--no-progress", "--out", str(out)]
        subprocess.run(cmd, check=True, env=env, capture_output=True, cwd=tmp_path)
        data = json.loads(out.read_text(encoding="utf-8"))
        data.pop("run")
        outs.append(data)
    assert outs[0] == outs[1]
    assert any("沉寂与取酒" in json.dumps(e, ensure_ascii=False) for e in outs[0]["overall"]["effects"])
