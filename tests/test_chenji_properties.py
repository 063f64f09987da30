"""Properties of 沉寂与取酒 under random legal play (Hypothesis, small example counts)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from banshe.demo import DEMO_NAMES
from banshe.engine import replay
from banshe.engine.events import WIN
from banshe.sim.env import play_random_game

SEEDS = st.integers(min_value=0, max_value=10**6)
SIZES = st.sampled_from([20, 25, 30])


@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, players=SIZES)
def test_random_games_end_with_exactly_one_winner(seed: int, players: int) -> None:
    state = play_random_game("chenji", DEMO_NAMES[:players], seed)
    assert state.winner is not None and state.ended_in is not None
    assert [e.data["camp"] for e in state.log if e.kind == WIN] == [state.winner]
    assert state.winner in state.camps_in_game and state.winner not in state.lost_camps


@settings(max_examples=10, deadline=None)
@given(seed=SEEDS, players=SIZES)
def test_replay_equals_state(seed: int, players: int) -> None:
    state = play_random_game("chenji", DEMO_NAMES[:players], seed)
    assert replay(state).fingerprint() == state.fingerprint()
