"""The question one seat is asked: `Observation` (compiled in the fast build, with the env that
makes one for every seat asked). It sits below the rulesets: the rulesets' bots read it, the
simulator's env (`banshe.sim.env.GameEnv`, an `Asker`) makes it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..engine.actions import ActionSet
from ..engine.commands import Command
from ..engine.events import Event
from ..engine.model import GameState, Phase


class Asker(Protocol):
    """What an observation reads its game through (`banshe.sim.env.GameEnv`): the live state and
    one seat's view and new events."""

    @property
    def state(self) -> GameState: ...

    def observe(self, seat: str) -> dict[str, Any]: ...

    def new_events(self, seat: str) -> list[Event]: ...


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
        _env: Asker | None = None,
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
