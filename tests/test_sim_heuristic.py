"""The heuristic policy plays by its documented rules (checked on the games' own logs)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from banshe.engine.events import ACCEPTED, ANNOUNCE
from banshe.engine.model import GameState, Phase
from banshe.rulesets.pinming.rules import HUNTER, SEER, WITCH, WOLF_GROUP
from banshe.sim.agents import load_policy
from banshe.sim.env import play_game
from banshe.sim.heuristic import REGISTRY
from banshe.sim.runner import game_seed, seat_names

GAMES = 24
_CLAIM = re.compile(r"(\S+?)的遗言：【查验】(.*)")


def _games(count: int = GAMES, seed: int = 21) -> list[tuple[GameState, int]]:
    factory = load_policy("heuristic")
    out = []
    for i in range(count):
        env = play_game("pinming", seat_names(14), game_seed(seed, 14, i), factory)
        assert env.finished
        out.append((env.state, env.refused))
    return out


def _accepted(state: GameState) -> list[tuple[str, dict[str, Any]]]:
    return [(e.phase, e.data["command"]) for e in state.log if e.kind == ACCEPTED]


def _check_common(games: list[tuple[GameState, int]]) -> None:
    for state, refused in games:
        assert refused == 0, "a heuristic agent posted an illegal command"
        pack = set(state.groups.get(WOLF_GROUP, ()))
        for _phase, cmd in _accepted(state):
            targets = cmd.get("targets", [])
            if cmd["actor"] in pack and cmd["skill"] in ("kill", "vote", "change_vote", "shoot", "poison"):
                assert not set(targets) & pack, f"a wolf targeted a mate: {cmd}"


def test_pinming_heuristics_follow_their_rules() -> None:
    games = _games()
    _check_common(games)
    saved_first_night = 0
    published = 0
    for state, _ in games:
        seer = next(c.name for c in state.chars.values() if c.role == SEER)
        witch = next(c.name for c in state.chars.values() if c.role == WITCH)
        accepted = _accepted(state)
        # 预言家: never checks itself nor anyone twice
        checks = [cmd["targets"][0] for _p, cmd in accepted if cmd["skill"] == "check"]
        assert seer not in checks and len(checks) == len(set(checks))
        # 女巫: saves the first night's 狼刀 target (she is told it by 通灵) unless it is herself
        kills = [cmd["targets"][0] for p, cmd in accepted if cmd["skill"] == "kill" and p == "第1夜"]
        saves = [cmd["targets"][0] for p, cmd in accepted if cmd["skill"] == "antidote"]
        if kills and kills[-1] != witch and state.phase.ordinal > Phase.parse("第1夜").ordinal:
            witch_alive_then = all(not (o.player == witch and o.phase.label in ("开局", "第1天")) for o in state.outs)
            if witch_alive_then:
                assert saves and saves[0] == kills[-1]
                saved_first_night += 1
        # the 预言家's 遗言 publishes its checks, and the town then votes on the published wolves
        bad: set[str] = set()
        published_in: Phase | None = None
        for e in state.log:
            if e.kind == ANNOUNCE and (m := _CLAIM.match(e.text)):
                assert m.group(1) == seer
                published += 1
                published_in = Phase.parse(e.phase)
                for item in m.group(2).rstrip("。").split("；"):
                    name, _, result = item.partition("=")
                    if result.startswith("非村民"):
                        bad.add(name)
            elif e.kind == ACCEPTED and e.data["command"]["skill"] == "vote" and bad and published_in is not None:
                phase = Phase.parse(e.phase)
                voter = e.data["command"]["actor"]
                if phase.ordinal <= published_in.ordinal or voter in state.groups.get(WOLF_GROUP, ()):
                    continue
                alive_bad = {b for b in bad if _alive_in(state, b, phase) and not _feigned_before(state, b, phase)}
                if alive_bad and voter != seer:
                    assert e.data["command"]["targets"][0] in alive_bad
    assert saved_first_night > 0 and published > 0


def _alive_in(state: GameState, name: str, phase: Phase) -> bool:
    return all(not (o.player == name and o.phase.ordinal < phase.ordinal) for o in state.outs)


def _feigned_before(state: GameState, name: str, phase: Phase) -> bool:
    return any(
        e.kind == ANNOUNCE and f"{name}是白痴" in e.text and Phase.parse(e.phase).ordinal < phase.ordinal
        for e in state.log
    )


def test_hunter_shoots_only_suspects() -> None:
    for state, _ in _games(16, seed=5):
        hunter = next(c.name for c in state.chars.values() if c.role == HUNTER)
        for phase, cmd in _accepted(state):
            if cmd["skill"] != "shoot":
                continue
            target = cmd["targets"][0]
            voted_him = any(
                e.kind == ACCEPTED
                and e.phase == phase
                and e.data["command"]["actor"] == target
                and e.data["command"]["skill"] in ("vote", "change_vote")
                and e.data["command"]["targets"] == [hunter]
                for e in state.log
            )
            claimed = _published_bad(state, target)
            assert voted_him or claimed, f"{hunter} shot {target} without a reason"


def test_generic_fallback_plays_sensibly(monkeypatch: pytest.MonkeyPatch) -> None:
    # without the 品茗 rules every seat plays the generic policy, which must still be sane
    monkeypatch.delitem(REGISTRY, "pinming")
    games = _games(12, seed=8)
    _check_common(games)
    saves = 0
    for state, _ in games:
        kills = [cmd["targets"][0] for p, cmd in _accepted(state) if cmd["skill"] == "kill" and p == "第1夜"]
        # a protective skill goes to the player the 通灵 list says is attacked tonight
        antidotes = [cmd["targets"][0] for p, cmd in _accepted(state) if cmd["skill"] == "antidote" and p == "第1夜"]
        saves += bool(kills and antidotes == [kills[-1]])
        accepted = _accepted(state)
        # generic: a solo hostile skill (毒药) only ever hits a player its owner knows is bad
        assert all(cmd["skill"] != "poison" or _published_bad(state, cmd["targets"][0]) for _p, cmd in accepted)
        assert not any(cmd["skill"] in ("duel", "surrender") for _p, cmd in accepted)
        assert any(cmd["skill"] == "kill" for _p, cmd in accepted)
        assert state.winner is not None
    assert saves > 0


def _published_bad(state: GameState, name: str) -> bool:
    return any(e.kind == ANNOUNCE and "【查验】" in e.text and f"{name}=非村民" in e.text for e in state.log)
