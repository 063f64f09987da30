"""Random-legal bots and a whole-game driver (used by the demo, the benchmark and the property tests).

The driver is the scheduler's stand-in: it closes night stages and phases, and lets an
unanswered prompt time out, as deadlines would.
"""

from __future__ import annotations

import contextlib
import random

from ..engine.actions import flatten, legal_actions
from ..engine.commands import (
    CHANGE_VOTE,
    CLOSE_PHASE,
    CLOSE_STAGE,
    DIRECTOR,
    PROMPT_TIMEOUT,
    VOTE,
    Command,
    IllegalCommand,
)
from ..engine.core import apply_in_place, next_close
from ..engine.model import DAY, NIGHT, GameState
from ..engine.ruleset import Ruleset
from ..engine.view import legal_commands
from ..rulesets.registry import new_game
from .agents import bot_prune

# skills a random bot posts only rarely (they end games at once)
_RARE = {"duel": 0.02, "surrender": 0.004, "slash": 1.0}


class RandomBot:
    """Picks uniformly among its legal commands; skips a turn now and then."""

    def __init__(self, name: str, rng: random.Random, activity: float = 0.85) -> None:
        self.name = name
        self.rng = rng
        self.activity = activity

    def act(self, state: GameState) -> Command | None:
        prune = bot_prune(state.rules)
        if prune is None:
            options = legal_commands(state, self.name)
        else:
            options = flatten(prune(state, self.name, legal_actions(state, self.name)))
        if not options:
            return None
        options = [c for c in options if c.skill not in _RARE or self.rng.random() < _RARE[c.skill]]
        votes = [c for c in options if c.skill == VOTE]
        if votes:
            return self.rng.choice(votes) if self.rng.random() < self.activity else None
        options = [c for c in options if c.skill != CHANGE_VOTE or self.rng.random() < 0.1]
        if not options or self.rng.random() > self.activity:
            return None
        return self.rng.choice(options)


def play_random_game(ruleset: str, players: list[str], seed: int, max_phases: int = 200) -> GameState:
    """Deal with `seed` and play to the end with random legal bots."""
    state = new_game(ruleset, players, seed=seed)
    rs: Ruleset = state.rules
    rng = random.Random(seed * 7919 + 17)
    bots = {n: RandomBot(n, rng) for n in players}
    phases = 0
    while not state.over and phases < max_phases:
        phases += 1
        kind = state.phase.kind
        stages = len(rs.night_stages) if kind == NIGHT else 1
        for stage in range(stages):
            order = list(players)
            rng.shuffle(order)
            for name in order:
                if state.over:
                    break
                _answer_prompts(state, bots)
                cmd = bots[name].act(state)
                if cmd is not None:
                    apply_in_place(state, cmd)
            if kind == NIGHT and stage < stages - 1 and not state.over and state.phase.kind == NIGHT:
                _director(state, CLOSE_STAGE)
        if kind == DAY and not state.over:
            # a second pass lets a few voters change their vote
            for name in players:
                if state.over:
                    break
                cmd = bots[name].act(state)
                if cmd is not None and cmd.skill == CHANGE_VOTE:
                    apply_in_place(state, cmd)
        if not state.over:
            _director(state, CLOSE_PHASE)
        _answer_prompts(state, bots)
    if not state.over:
        raise RuntimeError(f"game with seed {seed} did not end in {max_phases} phases")
    return state


def _director(state: GameState, skill: str) -> None:
    """The scheduler's deadline; refused when the rules have already moved on (拍刀环节)."""
    with contextlib.suppress(IllegalCommand):
        apply_in_place(state, Command(DIRECTOR, skill))


def _answer_prompts(state: GameState, bots: dict[str, RandomBot]) -> None:
    while next_close(state) == PROMPT_TIMEOUT:
        head = state.prompts[0]
        cmd = bots[head.actor].act(state)
        if cmd is not None and cmd.skill == head.skill:
            apply_in_place(state, cmd)
        else:
            apply_in_place(state, Command(DIRECTOR, PROMPT_TIMEOUT))
