"""Hypothesis properties of 感染 random-legal games: one winner, replay equality, no infection leaks."""

from __future__ import annotations

import contextlib
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from banshe.demo import DEMO_NAMES
from banshe.engine.commands import CLOSE_PHASE, CLOSE_STAGE, DEDUCT, DIRECTOR, PROMPT_TIMEOUT, Command, IllegalCommand
from banshe.engine.core import apply_in_place, replay
from banshe.engine.events import CAMP, CHANCE, FEEDBACK, LOST, OUT, WIN
from banshe.engine.model import NIGHT, GameState
from banshe.engine.view import legal_commands, view
from banshe.rulesets import new_game
from banshe.rulesets.ganran import GANRAN
from banshe.rulesets.ganran.state import ext
from banshe.sim.bots import RandomBot, play_random_game

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
    infected = {n for n, c in state.chars.items() if "infected_by" in c.marks}
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
    """Random legal bots, plus a director who now and then deducts points (罚下 at 12)."""
    state = new_game("ganran", DEMO_NAMES[:count], seed=seed)
    rng = random.Random(seed)
    bots = {n: RandomBot(n, rng) for n in state.order}

    def director(skill: str, *targets: str, amount: int | None = None) -> None:
        with contextlib.suppress(IllegalCommand):
            apply_in_place(state, Command(DIRECTOR, skill, targets, amount=amount))

    def prompts() -> None:
        while state.prompts and not state.over:
            head = state.prompts[0]
            cmd = bots[head.actor].act(state)
            if cmd is not None and cmd.skill == head.skill:
                apply_in_place(state, cmd)
            else:
                director(PROMPT_TIMEOUT)

    for _ in range(300):
        if state.over:
            break
        stages = len(GANRAN.night_stages) if state.phase.kind == NIGHT else 1
        for stage in range(stages):
            for name in rng.sample(list(state.order), len(state.order)):
                if state.over:
                    break
                prompts()
                cmd = bots[name].act(state)
                if cmd is not None:
                    apply_in_place(state, cmd)
                if rng.random() < 0.01:
                    director(DEDUCT, rng.choice(state.order), amount=rng.randint(1, 12))
            if stage < stages - 1 and not state.over:
                director(CLOSE_STAGE)
        if not state.over:
            director(CLOSE_PHASE)
        prompts()
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
