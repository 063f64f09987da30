"""One seat's question: the `Observation` a seat is asked with, the ruleset bots' pruning of
its moves, and the random policy's draw (compiled in the fast build, with the env that asks
them; `banshe.sim.agents` holds the policy interface, `RandomAgent` and the registry)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..engine.actions import NAMES, ActionSet
from ..engine.commands import Command
from ..engine.events import Event
from ..engine.model import GameState, Phase
from ..engine.ruleset import Ruleset
from ..rulesets.registry import ruleset_module

if TYPE_CHECKING:
    from .env import GameEnv


class Observation:
    """What one seat may know when asked to act. Never the full state.

    - `seat`, `role` (the seat's own identity id), `ruleset` (id), `phase`, `stage`;
    - `prompt`: the skill id of a prompt this seat must answer now (最后一枪, 殉职…), else None;
      while a prompt is pending, `legal` holds only that skill's answers;
    - `legal`: the legal commands (for skills with many targets, a sample of legal target tuples);
    - `actions`: the same moves as action sets (`engine.actions.ActionSet`: one per skill, with its
      options, in the order of `legal`); `act` may pick `actions[j].command(i)`. In a game where
      every agent sets `uses_actions = True` (the random policy), `legal` is left empty and only
      `actions` is filled (no command is made for the options not chosen);
    - `alive`: the seats still in the game, `sheriff`: the badge holder (both public);
    - `groups`: the groups (狼群…) this seat belongs to, with their members.

    `alive`, `sheriff`, `groups`, `view()` and `new_events()` are computed when asked (the
    random policy asks for none of them), so read them inside `act`, not later.
    """

    # a plain class with its own `__init__` rather than a dataclass: the compiled build runs a
    # dataclass's generated `__init__` as interpreted code, and one is made for every seat asked
    __slots__ = ("seat", "role", "ruleset", "phase", "stage", "prompt", "legal", "_env", "_alive", "actions")

    def __init__(
        self,
        seat: str,
        role: str,
        ruleset: str,
        phase: Phase,
        stage: int,
        prompt: str | None,
        legal: list[Command],
        _env: GameEnv | None = None,
        _alive: tuple[str, ...] | None = None,
        actions: Sequence[ActionSet] = (),
    ) -> None:
        self.seat = seat
        self.role = role
        self.ruleset = ruleset
        self.phase = phase
        self.stage = stage
        self.prompt = prompt
        self.legal = legal
        self._env = _env
        self._alive = _alive
        self.actions = actions

    def __repr__(self) -> str:
        return (
            f"Observation(seat={self.seat!r}, role={self.role!r}, ruleset={self.ruleset!r}, phase={self.phase!r}, "
            f"stage={self.stage!r}, prompt={self.prompt!r}, legal={self.legal!r}, actions={self.actions!r})"
        )

    def with_legal(self, legal: list[Command]) -> Observation:
        """The same question with other legal commands (a bot's pruned list)."""
        return Observation(
            self.seat,
            self.role,
            self.ruleset,
            self.phase,
            self.stage,
            self.prompt,
            legal,
            self._env,
            self._alive,
            self.actions,
        )

    @property
    def alive(self) -> tuple[str, ...]:
        if self._alive is None:
            self._alive = tuple(self._env.state.alive_names()) if self._env is not None else ()
        return self._alive

    @property
    def sheriff(self) -> str | None:
        return self._env.state.sheriff if self._env is not None else None

    @property
    def groups(self) -> dict[str, tuple[str, ...]]:
        if self._env is None:
            return {}
        seat = self.seat
        return {g: m for g, m in self._env.state.groups.items() if seat in m}

    def view(self) -> dict[str, Any]:
        """This seat's view: exactly the engine's `view(state, seat)`."""
        if self._env is None:
            raise RuntimeError("observation is detached from its game")
        return self._env.observe(self.seat)

    def new_events(self) -> list[Event]:
        """The events visible to this seat (the same filter as `view`) since its last call."""
        if self._env is None:
            return []
        return self._env.new_events(self.seat)


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
