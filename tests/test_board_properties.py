"""Hypothesis properties over every registered board (the registry's listing, so a board added
anywhere — built in, by entry point — is covered): random legal games end with one winner,
replay rebuilds them, no player's view shows hidden identities or the director's records, and
the legal moves' fast path gives what checking every candidate gives."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from banshe.demo import DEMO_NAMES
from banshe.engine.core import replay
from banshe.engine.events import ACCEPTED, WIN
from banshe.engine.model import GameState
from banshe.engine.ruleset import votable_seats
from banshe.engine.view import legal_commands, view
from banshe.rulesets.registry import all_rulesets, get_ruleset
from banshe.sim.env import play_random_game
from banshe.sim.runner import default_player_count

from .test_fast_paths import positions, reference_legal_commands

BOARDS = [rs.id for rs in all_rulesets()]
SEEDS = st.integers(min_value=0, max_value=1_000_000)


def _players(board: str) -> list[str]:
    return DEMO_NAMES[: default_player_count(board)]


def _game(board: str, seed: int) -> GameState:
    return play_random_game(board, _players(board), seed)


def test_the_standard_boards_are_registered() -> None:
    assert {"pinming", "chenji", "ganran", "yunvliebai", "yunvlieshou", "langwangshouwei"} <= set(BOARDS)


@pytest.mark.parametrize("board", BOARDS)
@settings(max_examples=6, deadline=None)
@given(seed=SEEDS)
def test_random_games_end_with_exactly_one_winner(board: str, seed: int) -> None:
    state = _game(board, seed)
    rs = get_ruleset(board)
    assert len([e for e in state.log if e.kind == WIN]) == 1
    assert state.winner in rs.camp_names
    assert state.winner not in state.lost_camps
    assert state.ended_in is not None


@pytest.mark.parametrize("board", BOARDS)
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS)
def test_replay_equals_state(board: str, seed: int) -> None:
    state = _game(board, seed)
    assert replay(state).fingerprint() == state.fingerprint()


def _prefix(state: GameState, k: int) -> GameState:
    cut = state.clone()
    cut.commands = state.commands[:k]
    return replay(cut)


@pytest.mark.parametrize("board", BOARDS)
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS, where=st.floats(min_value=0.0, max_value=0.999))
def test_no_view_shows_hidden_identities(board: str, seed: int, where: float) -> None:
    final = _game(board, seed)
    state = _prefix(final, int(len(final.commands) * where))
    if state.over:
        return
    for viewer in state.order:
        seen = view(state, viewer)
        for seat in seen["seats"]:
            if seat["name"] != viewer:
                assert "role" not in seat and "camp" not in seat
        for event in seen["events"]:
            # the director's own kinds (outs with causes, draws, camps, losses) never reach a player
            assert event["kind"] not in ("out", "chance", "camp", "lost")
            if event["kind"] == ACCEPTED:
                cmd = event["data"]["command"]
                assert cmd["actor"] != "导演" or cmd["skill"] in ("card_blue", "card_yellow", "card_red", "accelerate")


@pytest.mark.parametrize("board", BOARDS)
@settings(max_examples=2, deadline=None)
@given(seed=SEEDS)
def test_legal_commands_equal_the_reference(board: str, seed: int) -> None:
    rs = get_ruleset(board)
    for state in positions(board, len(_players(board)), seed):
        # a board's quick list of vote candidates is the default's, seat by seat
        assert list(rs.votable(state)) == list(votable_seats(state))
        for actor in state.order:
            assert legal_commands(state, actor) == reference_legal_commands(state, actor)
