"""One seat's question: the ruleset bots' pruning of its moves and the random policy's draw
(compiled in the fast build, with the env that asks them). The `Observation` a seat is asked
with lives below the rulesets, in `banshe.agents` (re-exported here); `banshe.sim.agents` holds
`RandomAgent` and the policy registry."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from ..agents.observation import Observation
from ..engine.actions import NAMES, ActionSet
from ..engine.commands import Command
from ..engine.model import GameState
from ..engine.ruleset import Ruleset
from ..rulesets.registry import ruleset_module

__all__ = ["Observation", "Prune", "answers_by_pick", "bot_prune", "draw_uniform"]


# (state, seat, its legal commands) -> the ones a bot considers
Prune = Callable[[GameState, str, list[ActionSet]], list[ActionSet]]
_PRUNES: dict[str, Prune | None] = {}


def bot_prune(rules: Ruleset) -> Prune | None:
    """The ruleset's `bots.prune`: what every bot leaves out of its legal moves (action sets; 沉寂与取酒:
    死节 but 1% of the time, 行刺 10% on one seat), or None. The env's observations and the
    random bots use it; the engine's `legal_commands` (the service's pages) is every legal move."""
    if rules.id not in _PRUNES:
        found = getattr(ruleset_module(rules, "bots"), "prune", None)
        _PRUNES[rules.id] = found
    return _PRUNES[rules.id]


def draw_uniform(rng: random.Random, actions: Sequence[ActionSet]) -> Command | None:
    """The random policy's answer: uniform over every option of `actions` plus passing, the
    same draw as over the flattened `legal` (one `randrange` over all options + pass)."""
    single = len(actions) == 1
    if single:
        total = len(actions[0].options)
    else:
        total = 0
        for a in actions:
            total += len(a.options)
    # `rng.randrange(total + 1)`, inline: random's own draw (`_randbelow`), the same number
    bits = _BIT_LENGTHS[total] if total < _SMALL else (total + 1).bit_length()
    k = rng.getrandbits(bits)
    while k > total:
        k = rng.getrandbits(bits)
    if k == total:
        return None
    a = actions[0]
    if not single:
        for a in actions:
            n = len(a.options)
            if k < n:
                break
            k -= n
    if a.kind == NAMES:
        # `a.command(k)`, inline where the command is made already (nearly always)
        table = a.table
        if table is not None:
            try:
                return table.single[a.options[k]]  # type: ignore[index]
            except KeyError:
                pass
    return a.command(k)


_SMALL = 256
_BIT_LENGTHS = tuple((total + 1).bit_length() for total in range(_SMALL))  # `draw_uniform`'s bits by total


def answers_by_pick(agent: object) -> Callable[[Sequence[ActionSet]], Command | None] | None:
    """The agent's `pick(actions)` when the env may ask it without an Observation: its class
    defines `pick` next to the very `act` it uses (a subclass that overrides `act` is asked
    through `act`). `pick` answers None or one of the sets' own `command(i)`, which the env
    applies as offered, without looking it up."""
    klass = type(agent)
    by_pick = _BY_PICK.get(klass)
    if by_pick is None:
        by_pick = _BY_PICK[klass] = _class_answers_by_pick(klass)
    return getattr(agent, "pick", None) if by_pick else None


def _class_answers_by_pick(klass: type) -> bool:
    """`answers_by_pick` for every agent of `klass` (decided once per class)."""
    if getattr(klass, "pick", None) is None:
        return False
    for base in klass.__mro__:
        if "pick" in vars(base):
            own = vars(base).get("act")
            return own is not None and getattr(klass, "act", None) is own
    return False


_BY_PICK: dict[type, bool] = {}  # `_class_answers_by_pick` by class (classes are few and kept)
