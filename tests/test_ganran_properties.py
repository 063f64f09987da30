"""Hypothesis properties of 感染 random-legal games: one winner, replay equality, no infection leaks."""

from __future__ import annotations

import contextlib
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from banshe.demo import DEMO_NAMES
from banshe.engine.commands import DEDUCT, DIRECTOR, Command, IllegalCommand
from banshe.engine.core import apply_in_place, replay
from banshe.engine.events import CAMP, CHANCE, FEEDBACK, LOST, OUT, WIN
from banshe.engine.model import GameState
from banshe.engine.view import legal_commands, view
from banshe.rulesets.ganran.state import ext
from banshe.rulesets.ganran.state import seat as ganran_seat
from banshe.sim.agents import sparing
from banshe.sim.env import GameEnv, play_random_game

GAMES = st.tuples(st.integers(min_value=10, max_value=20), st.integers(min_value=0, max_value=10_000))
INFECTION_SKILLS = ("咬噬", "吸血")


def _game(params: tuple[int, int]) -> GameState:
    count, seed = params
    return play_random_game("ganran", DEMO_NAMES[:count], seed)


@settings(max_examples=15, deadline=None)
@given(GAMES)
def test_every_game_ends_with_exactly_one_winning_camp(params: tuple[int, int]) -> None:
    state = _game(params)
    wins = [e for e in state.log if e.kind == WIN]
    assert len(wins) == 1
    assert state.winner == wins[0].data["camp"]
    assert state.winner in state.camps_in_game
    assert state.winner not in state.lost_camps


@settings(max_examples=15, deadline=None)
@given(GAMES)
def test_replay_equals_state(params: tuple[int, int]) -> None:
    state = _game(params)
    assert replay(state).fingerprint() == state.fingerprint()


def _prefix(state: GameState, k: int) -> GameState:
    """The game as it stood after its first k accepted commands (recorded draws replayed)."""
    cut = state.clone()
    cut.commands = state.commands[:k]
    return replay(cut)


def _check_no_leak(state: GameState) -> None:
    infected = {n for n, c in state.chars.items() if ganran_seat(c).infected_by is not None}
    kings = {c.name for c in state.chars.values() if c.role in ("mutu", "cain")}
    for viewer in state.order:
        seen = view(state, viewer)
        for seat in seen["seats"]:
            if seat["name"] != viewer:
                # no camp, status (游离/濒死) or identity of anyone else while the game runs
                assert "camp" not in seat and "statuses" not in seat and "role" not in seat
        for e in state.log:
            if not e.visible_to(viewer):
                continue
            assert e.kind not in (CAMP, CHANCE, LOST, OUT), e
            assert "[感染]" not in e.text
            if e.kind == FEEDBACK and e.data.get("skill") in INFECTION_SKILLS:
                if isinstance(e.data.get("result"), list):
                    # the infection notice goes to the infected character only
                    assert e.data.get("target") == viewer and viewer in infected
                else:
                    assert viewer in kings  # 成功/失败: only 穆图/该隐
            if e.audience.kind == "public":
                assert "游离" not in e.text


@settings(max_examples=15, deadline=None)
@given(GAMES, st.floats(min_value=0.1, max_value=0.95))
def test_no_view_leaks_an_infection(params: tuple[int, int], where: float) -> None:
    state = _game(params)
    cut = _prefix(state, int(len(state.commands) * where))
    if cut.over:
        return
    _check_no_leak(cut)


def _play_with_penalties(count: int, seed: int) -> GameState:
    """The simulator's random game (`GameEnv` asked seat by seat, the `sparing` policy), plus a director who now and
    then deducts points (罚下 at 12) after a seat's answer."""
    env = GameEnv("ganran", DEMO_NAMES[:count], seed, max_phases=300)
    state = env.state
    rng = random.Random(seed)
    agents = {seat: sparing(seat, role, env.ruleset_id, rng) for seat, role in zip(env.seats, env.roles(), strict=True)}
    for seat in env.agent_iter():
        env.step(agents[seat].act(env.last()))
        if not state.over and rng.random() < 0.01:
            with contextlib.suppress(IllegalCommand):
                apply_in_place(state, Command(DIRECTOR, DEDUCT, (rng.choice(state.order),), amount=rng.randint(1, 12)))
    return state


@settings(max_examples=15, deadline=None)
@given(GAMES)
def test_games_with_penalties_end_with_one_winner_and_replay(params: tuple[int, int]) -> None:
    state = _play_with_penalties(*params)
    assert state.over
    assert len([e for e in state.log if e.kind == WIN]) == 1
    assert state.winner not in state.lost_camps
    assert replay(state).fingerprint() == state.fingerprint()


# skills whose every alive target the skill's text allows (settlement decides what happens)
_ANY_ALIVE = {"bite", "suck", "wolf_king", "ghost_king", "check", "kill", "antidote", "poison"}


@settings(max_examples=15, deadline=None)
@given(GAMES, st.floats(min_value=0.05, max_value=0.95))
def test_offered_targets_reveal_no_hidden_state(params: tuple[int, int], where: float) -> None:
    # issue 11: an action list must not tell the actor who is 濒死, infected, 游离, bitten or a
    # lover — a skill, when offered at all, is offered on every alive character its text allows
    state = _game(params)
    cut = _prefix(state, int(len(state.commands) * where))
    if cut.over:
        return
    alive = set(cut.alive_names())
    for actor in cut.alive_names():
        offered: dict[str, set[str]] = {}
        for cmd in legal_commands(cut, actor):
            if cmd.targets:
                offered.setdefault(cmd.skill, set()).add(cmd.targets[0])
        for skill, targets in offered.items():
            if skill in _ANY_ALIVE:
                assert targets == alive, (actor, skill)
            elif skill in ("bullet", "cross"):
                assert targets == alive - {actor}, (actor, skill)
            elif skill in ("shield", "garlic"):
                last = ext(cut).guard_last.get(skill)
                assert alive - targets <= ({last[1]} if last else set()), (actor, skill)
