"""Legal moves as action sets (`engine/actions.py`) and the simulator's unchecked apply.

At every position of random games of every ruleset, for every seat: the action sets hold the
same moves as `legal_commands` (already compared with every candidate through `is_legal`, in
tests/test_fast_paths.py), `ActionSet.offers` recognises exactly those (a seat with nothing to
do, the villagers at night, gets no set at all), and `apply_legal` leaves the very state
`apply_in_place` leaves; the random agent draws the same move from the
action sets as from the flattened list.
"""

from __future__ import annotations

import random

import pytest

from banshe.demo import DEMO_NAMES
from banshe.engine.actions import ActionSet, legal_actions
from banshe.engine.commands import ABSTAIN, VOTE, Command
from banshe.engine.core import apply_in_place, apply_legal
from banshe.engine.model import GameState
from banshe.engine.view import legal_commands
from banshe.rulesets import new_game
from banshe.sim.agents import Observation, RandomAgent
from banshe.sim.env import play_random_game

GAMES = [("pinming", 14), ("chenji", 20), ("ganran", 14)]


def positions(ruleset: str, players: int, seed: int) -> list[GameState]:
    game = play_random_game(ruleset, DEMO_NAMES[:players], seed)
    state = new_game(ruleset, DEMO_NAMES[:players], seed=seed)
    out = [state.clone()]
    for cmd in game.commands:
        apply_in_place(state, cmd)
        out.append(state.clone())
    return out


def flat(actions: list[ActionSet]) -> list[Command]:
    return [a.command(i) for a in actions for i in range(len(a))]


@pytest.mark.parametrize(("ruleset", "players"), GAMES)
def test_action_sets_hold_the_legal_commands(ruleset: str, players: int) -> None:
    empty = 0
    for seed in (3, 4):
        for state in positions(ruleset, players, seed)[::3]:
            for actor in state.order:
                actions = legal_actions(state, actor)
                empty += not actions
                commands = flat(actions)
                assert commands == legal_commands(state, actor)
                assert [c.targets for a in actions for c in [a.command(i) for i in range(len(a))]] == [
                    t for a in actions for t in a.targets
                ]
                assert all(len(a) > 0 and a.actor == actor for a in actions)
                assert len({a.skill for a in actions}) == len(actions)  # one set per skill
                for c in commands:
                    assert sum(a.offers(c) for a in actions) == 1
                # not offered: another actor's command, a vote for nobody, a text where none is asked
                other = Command(actor + "x", VOTE, (ABSTAIN,))
                assert not any(a.offers(other) for a in actions)
                assert not any(a.offers(Command(actor, VOTE, ("nobody",))) for a in actions)
                for a in actions:
                    assert not a.offers(Command(actor, a.skill, ("nobody",), text="x"))
    assert empty > 0  # the villagers at night, at least


@pytest.mark.parametrize(("ruleset", "players"), GAMES)
def test_apply_legal_leaves_what_apply_in_place_leaves(ruleset: str, players: int) -> None:
    rng = random.Random(7)
    tried = 0
    for state in positions(ruleset, players, 5)[::2]:
        for actor in state.order:
            commands = flat(legal_actions(state, actor))
            for cmd in rng.sample(commands, min(2, len(commands))):
                checked, unchecked = state.clone(), state.clone()
                apply_in_place(checked, cmd)
                apply_legal(unchecked, cmd)
                assert unchecked.fingerprint() == checked.fingerprint()
                assert [(e.kind, e.text, e.data) for e in unchecked.log] == [
                    (e.kind, e.text, e.data) for e in checked.log
                ]
                tried += 1
    assert tried > 50


@pytest.mark.parametrize(("ruleset", "players"), GAMES)
def test_random_agent_draws_the_same_from_sets_and_lists(ruleset: str, players: int) -> None:
    for state in positions(ruleset, players, 6)[::4]:
        for actor in state.order:
            actions = legal_actions(state, actor)
            if not actions:
                continue
            commands = flat(actions)
            args = (actor, state.chars[actor].role, state.ruleset, state.phase, state.stage, None)
            by_sets = RandomAgent(actor, "", ruleset, random.Random(actor)).act(Observation(*args, [], actions=actions))
            by_list = RandomAgent(actor, "", ruleset, random.Random(actor)).act(Observation(*args, commands))
            assert by_sets == by_list


def test_inline_draws_are_randoms_own() -> None:
    """The engine's inline `shuffle` (the deal, the simulator's posting order) and the random
    agent's inline `randrange` draw exactly
    what `random.Random.shuffle` / `randrange` draw (so the pinned game streams stay put)."""
    from banshe.engine.core import shuffle

    for seed in range(50):
        for n in range(0, 31):
            seats = [str(i) for i in range(n)]
            theirs, ours = list(seats), list(seats)
            a, b = random.Random(seed), random.Random(seed)
            a.shuffle(theirs)
            shuffle(b, ours)
            assert ours == theirs
            assert a.getstate() == b.getstate()
    state = next(s for s in positions("pinming", 14, 3) if s.phase.kind == "day" and not s.settling)
    seat = next(n for n in state.order if legal_actions(state, n))
    actions = legal_actions(state, seat)
    total = sum(len(a) for a in actions)
    assert total > 5
    obs = Observation(seat, "", "pinming", state.phase, 0, None, [], actions=actions)
    for seed in range(200):
        picked = RandomAgent(seat, "", "pinming", random.Random(seed)).act(obs)
        k = random.Random(seed).randrange(total + 1)
        assert picked == (None if k == total else flat(actions)[k])


def test_only_an_agent_whose_act_is_its_pick_is_asked_by_pick() -> None:
    """The env asks an agent through `pick(actions)` (no Observation) only where its class
    defines `pick` next to the `act` it uses; a subclass that overrides `act` is asked by `act`."""
    from banshe.sim.seat import answers_by_pick

    class Overrides(RandomAgent):
        def act(self, obs: Observation) -> Command | None:
            return None

    class Plain:
        def act(self, obs: Observation) -> Command | None:
            return None

    rng = random.Random(1)
    assert answers_by_pick(RandomAgent("1号", "", "pinming", rng)) is not None
    assert answers_by_pick(Overrides("1号", "", "pinming", rng)) is None
    assert answers_by_pick(Plain()) is None
