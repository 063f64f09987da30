"""The agent interface: one seat's player, asked with an `Observation`, and the policy factory
that makes one agent per seat per game (see `banshe.sim.agents` for the built-in policies and
`load_policy`)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from ..engine.commands import Command
from .observation import Observation


@runtime_checkable
class Agent(Protocol):
    """One seat's player. Return one of `obs.legal`, or None to pass."""

    def act(self, obs: Observation) -> Command | None: ...


AgentFactory = Callable[[str, str, str, random.Random], Agent]
