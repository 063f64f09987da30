"""One game driver (issue 27): `banshe demo` and `play_random_game` play the simulator's game
(`play_game`, `sparing` policy); a skill is rare for the random bots only where its `SkillSpec`
declares it (`bot_chance`), never by a skill id the driver knows."""

from __future__ import annotations

import importlib.util
import random

import pytest

from banshe.demo import DEMO_NAMES, run_demo
from banshe.engine.events import ANNOUNCE
from banshe.rulesets.registry import get_ruleset
from banshe.sim.agents import BUILTIN_POLICIES, RandomAgent, SparingAgent, bot_rare, sparing
from banshe.sim.env import play_game, play_random_game


def test_there_is_no_second_driver() -> None:
    assert importlib.util.find_spec("banshe.sim.bots") is None


@pytest.mark.parametrize(("ruleset", "players"), [("pinming", 14), ("chenji", 20), ("ganran", 14)])
def test_play_random_game_is_the_simulators_game(ruleset: str, players: int) -> None:
    for seed in (0, 5):
        mine = play_random_game(ruleset, DEMO_NAMES[:players], seed)
        sim = play_game(ruleset, DEMO_NAMES[:players], seed, BUILTIN_POLICIES["sparing"]).state
        assert mine.fingerprint() == sim.fingerprint()


@pytest.mark.parametrize(("ruleset", "players"), [("chenji", 20), ("ganran", 14)])
def test_without_declared_rare_skills_sparing_is_random(ruleset: str, players: int) -> None:
    assert bot_rare(get_ruleset(ruleset)) == {}
    for seed in (1, 2):
        sparing_game = play_game(ruleset, DEMO_NAMES[:players], seed, sparing).state
        random_game = play_game(ruleset, DEMO_NAMES[:players], seed, RandomAgent).state
        assert sparing_game.fingerprint() == random_game.fingerprint()


def test_pinming_declares_its_rare_skills() -> None:
    rs = get_ruleset("pinming")
    rare = bot_rare(rs)
    assert rare and set(rare) <= set(rs.skills)  # declared skills of the ruleset, with a chance each
    assert all(0 < p < 1 for p in rare.values())
    assert isinstance(sparing("甲", "wolf", "pinming", random.Random(0)), SparingAgent)


def test_declared_rare_skills_stay_rare() -> None:
    """品茗's 决战 and 投降 end the game on the spot: posted as often as any move they end most
    random games (the `random` policy), posted only now and then most games are played out."""
    rare = set(bot_rare(get_ruleset("pinming")))

    def ended_by_a_rare_skill(policy: str, seed: int) -> bool:
        state = play_game("pinming", DEMO_NAMES[:14], seed, BUILTIN_POLICIES[policy]).state
        players = [c for c in state.commands if c.actor in state.chars]
        return bool(players) and players[-1].skill in rare

    seeds = range(20)
    assert sum(ended_by_a_rare_skill("random", s) for s in seeds) >= 10
    assert sum(ended_by_a_rare_skill("sparing", s) for s in seeds) <= 4


def test_demo_prints_the_simulators_game() -> None:
    text = run_demo("品茗", seed=4)
    state = play_game("pinming", DEMO_NAMES[:14], 4, BUILTIN_POLICIES["sparing"]).state
    posts = [e.text for e in state.log if e.kind == ANNOUNCE]
    assert posts and all(p in text for p in posts)
    assert text.startswith("【品茗】演示对局（seed=4，14人）")
