"""A declared win stops everything still queued (宣布阵营获得胜利会立即终止一切结算; shared rulings):
after the `win` event a game's log holds no further out, badge change, random draw, prompt or
遗言 right, whatever path ended it (vote, night, day skill, 罚下, 拍刀). Random legal games of
all three rulesets, with the director's 红牌 (品茗, 沉寂与取酒) or 扣分 (感染) thrown in."""

from __future__ import annotations

import contextlib
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from banshe.demo import DEMO_NAMES
from banshe.engine.commands import CARD_RED, DEDUCT, DIRECTOR, Command, IllegalCommand
from banshe.engine.core import apply_in_place
from banshe.engine.events import CHANCE, FEEDBACK, NOTICE, OUT, SHERIFF, WIN
from banshe.engine.model import GameState
from banshe.sim.agents import sparing
from banshe.sim.env import GameEnv, play_random_game

SEEDS = st.integers(min_value=0, max_value=10**6)
GAMES = st.sampled_from([("pinming", 14), ("chenji", 20), ("chenji", 25), ("ganran", 12)])


def _director(state: GameState, cmd: Command) -> None:
    with contextlib.suppress(IllegalCommand):
        apply_in_place(state, cmd)


def _penalty(state: GameState, rng: random.Random) -> None:
    """Now and then the director puts someone out by a penalty, the sheriff most often."""
    if state.over or rng.random() > 0.03:
        return
    alive = state.alive_names()
    name = state.sheriff if state.sheriff and rng.random() < 0.5 else rng.choice(alive)
    if state.ruleset == "ganran":
        _director(state, Command(DIRECTOR, DEDUCT, targets=(name,), amount=12))
    else:
        _director(state, Command(DIRECTOR, CARD_RED, targets=(name,)))


def _play_with_penalties(ruleset: str, players: int, seed: int) -> GameState:
    """The simulator's random game (`GameEnv` asked seat by seat, the `sparing` policy), with the director's
    penalties thrown in after a seat's answer."""
    env = GameEnv(ruleset, DEMO_NAMES[:players], seed)
    rng = random.Random(seed)
    agents = {seat: sparing(seat, role, env.ruleset_id, rng) for seat, role in zip(env.seats, env.roles(), strict=True)}
    for seat in env.agent_iter():
        env.step(agents[seat].act(env.last()))
        _penalty(env.state, rng)
    return env.state


def _nothing_after_the_win(state: GameState) -> None:
    assert state.over
    wins = [i for i, e in enumerate(state.log) if e.kind == WIN]
    assert len(wins) == 1
    after = state.log[wins[0] + 1 :]
    assert [e for e in after if e.kind in (OUT, SHERIFF, CHANCE)] == []
    assert [e for e in after if e.kind == NOTICE and "prompt" in e.data] == []
    assert [e for e in after if e.kind == FEEDBACK and e.data.get("skill") == "遗言"] == []
    assert not state.prompts and not state.agenda
    if state.ruleset == "pinming":
        _pinming_win_at_its_out(state, wins[0])


_TRIGGERED = (OUT, SHERIFF, CHANCE)


def _pinming_win_at_its_out(state: GameState, win_at: int) -> None:
    """品茗's win conditions depend only on who is alive, so the out at which one first holds is
    known from the log: nothing it would trigger (殉职, a random successor, 最后一枪, 遗言) may come
    between it and the win."""
    from banshe.rulesets.pinming.rules import _village_wins, _wolves_win

    probe = state.clone()
    for c in probe.chars.values():
        c.alive = True
    for i, e in enumerate(state.log[:win_at]):
        if e.kind != OUT:
            continue
        probe.chars[e.data["player"]].alive = False
        if _wolves_win(probe) or _village_wins(probe):
            between = state.log[i + 1 : win_at]
            assert [x for x in between if x.kind in _TRIGGERED] == []
            assert [x for x in between if x.kind == NOTICE and "prompt" in x.data] == []
            assert [x for x in between if x.kind == FEEDBACK and x.data.get("skill") == "遗言"] == []
            return


@settings(max_examples=30, deadline=None)
@given(game=GAMES, seed=SEEDS)
def test_random_games_stop_at_the_win(game: tuple[str, int], seed: int) -> None:
    ruleset, players = game
    _nothing_after_the_win(play_random_game(ruleset, list(DEMO_NAMES[:players]), seed))


@settings(max_examples=30, deadline=None)
@given(game=GAMES, seed=SEEDS)
def test_games_with_penalties_stop_at_the_win(game: tuple[str, int], seed: int) -> None:
    ruleset, players = game
    _nothing_after_the_win(_play_with_penalties(ruleset, players, seed))
