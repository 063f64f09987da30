"""Hypothesis properties of random-legal 品茗 games: one winner, replay equality, no leaks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from banshe.demo import DEMO_NAMES
from banshe.engine.core import replay
from banshe.engine.events import ACCEPTED, FEEDBACK, NOTICE, WIN
from banshe.engine.model import GameState
from banshe.engine.view import view
from banshe.sim.env import play_random_game

SEEDS = st.integers(min_value=0, max_value=1_000_000)
NAMES = DEMO_NAMES[:14]
# which identity may receive each private feedback (预言 → 预言家, 通灵 → 女巫, 认亲 → 病娇/混血儿)
FEEDBACK_OWNERS = {"预言": {"seer"}, "通灵": {"witch"}, "认亲": {"yandere", "halfblood"}}


def _game(seed: int) -> GameState:
    return play_random_game("pinming", NAMES, seed)


@settings(max_examples=25, deadline=None)
@given(SEEDS)
def test_every_game_ends_with_exactly_one_winner(seed: int) -> None:
    state = _game(seed)
    wins = [e for e in state.log if e.kind == WIN]
    assert len(wins) == 1
    assert state.winner in ("village", "wolf")
    assert state.winner not in state.lost_camps
    assert state.ended_in is not None


@settings(max_examples=20, deadline=None)
@given(SEEDS)
def test_replay_equals_state(seed: int) -> None:
    state = _game(seed)
    assert replay(state).fingerprint() == state.fingerprint()


def _prefix(state: GameState, k: int) -> GameState:
    cut = state.clone()
    cut.commands = state.commands[:k]
    return replay(cut)


@settings(max_examples=20, deadline=None)
@given(SEEDS, st.floats(min_value=0.0, max_value=0.999))
def test_no_view_leaks_hidden_information(seed: int, where: float) -> None:
    final = _game(seed)
    state = _prefix(final, int(len(final.commands) * where))
    if state.over:
        return
    wolves = set(state.groups.get("wolves", ()))
    for viewer in state.order:
        seen = view(state, viewer)
        me = state.chars[viewer]
        # nobody else's identity or camp
        for seat in seen["seats"]:
            if seat["name"] != viewer:
                assert "role" not in seat and "camp" not in seat
        for event in seen["events"]:
            data = event["data"]
            if event["kind"] == FEEDBACK and data["skill"] == "遗言":
                assert not me.alive  # the right to 遗言 reaches only a character who is out
            elif event["kind"] == FEEDBACK:
                assert me.role in FEEDBACK_OWNERS[data["skill"]]
            if event["kind"] == NOTICE and "members" in data:
                assert viewer in wolves  # the 狼群 roster only reaches the 狼群
            if event["kind"] == ACCEPTED:
                cmd = data["command"]
                if cmd["skill"] not in ("vote", "change_vote"):
                    assert cmd["actor"] == viewer or (viewer in wolves and cmd["actor"] in wolves)
        # the director's private kinds never reach a player
        assert not any(e["kind"] in ("out", "chance", "camp", "lost") for e in seen["events"])
