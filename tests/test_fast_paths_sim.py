"""The second round of fast paths gives exactly what the plain ones gave.

`Ruleset.skill_holders` lets `legal_commands` skip a skill without asking `legal_targets`: the
promise (an empty `legal_targets` for any other role) is checked at every position of random
games. `GameEnv.new_events` tests audiences inline; the heuristic's remembered `findall` is
the pattern's own. The simulator's games (random and heuristic policies, every ruleset) must
stay those recorded before these fast paths.
"""

from __future__ import annotations

import hashlib
import json
import random
import re

import pytest

from banshe.demo import DEMO_NAMES
from banshe.rulesets.registry import get_ruleset
from banshe.sim.agents import BUILTIN_POLICIES
from banshe.sim.env import GameEnv, play_game
from banshe.sim.heuristic.base import findall
from tests.test_fast_paths import GAMES, positions


@pytest.mark.parametrize(("ruleset", "players"), GAMES)
def test_skill_holders_keep_their_promise(ruleset: str, players: int) -> None:
    rs = get_ruleset(ruleset)
    holders = rs.skill_holders()
    assert holders, "each built-in ruleset declares its one-identity skills"
    skipped = 0
    for seed in range(3):
        for state in positions(ruleset, players, seed):
            for actor in state.order:
                role = state.chars[actor].role
                for skill, owners in holders.items():
                    assert skill in rs.skills
                    if role not in owners:
                        assert rs.legal_targets(state, actor, skill) == []
                        skipped += 1
    assert skipped > 0


def test_new_events_is_the_view_filter() -> None:
    env = GameEnv("pinming", DEMO_NAMES[:14], seed=3)
    cursor: dict[str, int] = {}
    rng_agents = {}
    rng = random.Random(5)
    for seat, role in zip(env.seats, env.roles(), strict=True):
        rng_agents[seat] = BUILTIN_POLICIES["random"](seat, role, env.state.ruleset, rng)
    checked = 0
    for seat in env.agent_iter():
        log = env.state.log
        start = cursor.get(seat, 0)
        cursor[seat] = len(log)
        expected = [e for e in log[start:] if e.audience.includes(seat)]
        assert env.new_events(seat) == expected
        checked += len(expected)
        env.step(rng_agents[seat].act(env.last()))
    assert checked > 0


def test_remembered_findall_is_findall() -> None:
    pattern = re.compile(r"(\S+?)是(\S+?)。")
    for text in ["甲是白痴。乙是预言家。", "没有", "甲是白痴。乙是预言家。", ""]:
        assert findall(pattern, text) == pattern.findall(text)


# sha256 over seeds 0..9 of `play_game` (winner, ended_in, outs, accepted commands, refused),
# recorded before the fast paths of this round
SIM_STREAMS = {
    ("pinming", "random"): "2331b721909f8d6d34b99d8fe90c7c402b15f1f81bc00b84b46a836d2caf7819",
    ("pinming", "heuristic"): "9c7915a92e60f562d860cee26a5bb9f68c20d5952311657384c59d6992a56308",
    ("chenji", "random"): "ea022efaf149727cbe385ceb42aa84276b9c8c5aa8017e829cbd4f14acc5b7ce",
    ("chenji", "heuristic"): "508b3e3344b0fa4a0c627b9b61b0804a4d9c20d52fc1afd1a2d10297aadadd25",
    ("ganran", "random"): "99f675e76f70c1e0aa022287ba4cd5f09b2a096472ee661b688e29ce9b486254",
    ("ganran", "heuristic"): "d1b763b15a20c9504ba18d403e1b26edf761148ea364e9387df23b5f64152182",
}


def sim_stream(ruleset: str, players: int, policy: str) -> str:
    digest = hashlib.sha256()
    for seed in range(10):
        env = play_game(ruleset, DEMO_NAMES[:players], seed, BUILTIN_POLICIES[policy])
        state = env.state
        record = {
            "winner": state.winner,
            "ended_in": state.ended_in.label if state.ended_in else None,
            "outs": [[o.player, o.phase.label, o.cause] for o in state.outs],
            "commands": [c.to_json() for c in state.commands],
            "refused": env.refused,
            "events": len(state.log),
        }
        digest.update(json.dumps(record, ensure_ascii=False, sort_keys=True).encode())
    return digest.hexdigest()


@pytest.mark.parametrize(("ruleset", "players"), GAMES)
@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_simulated_games_are_unchanged(ruleset: str, players: int, policy: str) -> None:
    assert sim_stream(ruleset, players, policy) == SIM_STREAMS[(ruleset, policy)]


@pytest.mark.parametrize(("ruleset", "players"), GAMES)
def test_votable_is_the_can_be_voted_filter(ruleset: str, players: int) -> None:
    rs = get_ruleset(ruleset)
    for seed in range(3):
        for state in positions(ruleset, players, seed):
            expected = [n for n in state.alive_names() if rs.can_be_voted(state, n) is None]
            assert rs.votable(state) == expected
