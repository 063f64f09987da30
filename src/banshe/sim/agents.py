"""The agent interface (PettingZoo AEC style) and the policy registry.

The simulator asks one agent at a time. It hands the agent an `Observation`: that seat's
own identity, its legal inputs (the engine's `legal_commands`), and access to that seat's
view only (`Observation.view()` is the engine's `view(state, seat)`; `new_events()` is the
tail of the same visible event stream since the agent last looked). The agent answers with
one of its legal commands, or `None` to pass (abstain, let a deadline or prompt time out).

A *policy* is a factory that makes one agent per seat per game::

    factory(seat: str, role: str, ruleset: str, rng: random.Random) -> Agent

so any class whose constructor takes those four arguments and that has
`act(self, obs) -> Command | None` is a policy. External policies are loaded from the
command line as `package.module:Name` or `path/to/file.py:Name` (see `load_policy`).
`Observation` and the `Agent` protocol live below the rulesets in `banshe.agents` (re-exported
here); the random policy's draw lives in `banshe.sim.seat` (compiled with the env).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from ..agents.observation import Observation
from ..agents.protocol import Agent, AgentFactory
from ..engine.actions import ActionSet
from ..engine.commands import Command
from ..engine.ruleset import Ruleset
from ..rulesets.registry import get_ruleset
from .seat import Prune, bot_prune, draw_uniform

__all__ = [
    "BUILTIN_POLICIES",
    "Agent",
    "AgentFactory",
    "Observation",
    "Prune",
    "RandomAgent",
    "SparingAgent",
    "bot_prune",
    "bot_rare",
    "load_policy",
]


class RandomAgent:
    """Uniform over the legal inputs plus passing: it abstains as often as the rules allow
    (passing is always allowed: a deadline closes the stage, an unanswered prompt times out)."""

    __slots__ = ("seat", "rng")
    uses_actions: ClassVar[bool] = True  # reads `obs.actions` only

    def __init__(self, seat: str, role: str, ruleset: str, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng

    def act(self, obs: Observation) -> Command | None:
        if obs.actions:
            return draw_uniform(self.rng, obs.actions)
        legal = obs.legal
        if not legal:
            return None
        k = self.rng.randrange(len(legal) + 1)
        return None if k == len(legal) else legal[k]

    def pick(self, actions: Sequence[ActionSet]) -> Command | None:
        """`act` on an observation with these action sets: the env asks this agent so, without
        making an Observation (`seat.answers_by_pick`)."""
        return draw_uniform(self.rng, actions)


def bot_rare(rules: Ruleset) -> dict[str, float]:
    """The skills a random bot takes up only now and then (`SkillSpec.bot_chance` below 1), each
    with the chance it takes it whenever offered (品茗: 决战 and 投降, which end the game on the
    spot); {} when the ruleset declares none."""
    return {sid: spec.bot_chance for sid, spec in rules.skills.items() if spec.bot_chance < 1.0}


class SparingAgent(RandomAgent):
    """`RandomAgent`, except that a skill its ruleset declares rare (`bot_rare`) is among its
    choices only with the declared chance each time it is offered: the policy `banshe demo`
    plays and the property tests draw (`env.play_random_game`), so that a random 品茗 game is
    not ended by a 投降 on its first night. Made by `sparing`, which hands a ruleset that declares
    no rare skill the plain `RandomAgent` (the very same game as the `random` policy)."""

    __slots__ = ("rare",)

    def __init__(self, seat: str, role: str, ruleset: str, rng: random.Random, rare: dict[str, float]) -> None:
        super().__init__(seat, role, ruleset, rng)
        self.rare = rare

    def act(self, obs: Observation) -> Command | None:
        if obs.actions:
            return self.pick(obs.actions)
        rare = self.rare
        legal = [c for c in obs.legal if c.skill not in rare or self.rng.random() < rare[c.skill]]
        k = self.rng.randrange(len(legal) + 1)
        return None if k == len(legal) else legal[k]

    def pick(self, actions: Sequence[ActionSet]) -> Command | None:
        rare = self.rare
        rng = self.rng
        kept = [a for a in actions if a.skill not in rare or rng.random() < rare[a.skill]]
        return draw_uniform(rng, kept) if kept else None


def sparing(seat: str, role: str, ruleset: str, rng: random.Random) -> Agent:
    """The `sparing` policy: `SparingAgent` where the ruleset declares rare skills, else `RandomAgent`."""
    rare = bot_rare(get_ruleset(ruleset))
    if rare:
        return SparingAgent(seat, role, ruleset, rng, rare)
    return RandomAgent(seat, role, ruleset, rng)


def _heuristic_factory(seat: str, role: str, ruleset: str, rng: random.Random) -> Agent:
    from .heuristic import HeuristicAgent

    return HeuristicAgent(seat, role, ruleset, rng)


BUILTIN_POLICIES: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "sparing": sparing,
    "heuristic": _heuristic_factory,
}


def load_policy(spec: str) -> AgentFactory:
    """`random`, `heuristic`, `package.module:Name` or `path/to/file.py:Name`.

    `Name` is a class or a callable with the factory signature
    `(seat, role, ruleset, rng) -> Agent`. Raises ValueError (Chinese) when it cannot be loaded.
    """
    if spec in BUILTIN_POLICIES:
        return BUILTIN_POLICIES[spec]
    if ":" not in spec:
        raise ValueError(f"未知的策略“{spec}”：可用 random、sparing、heuristic，或 模块:名称 / 文件.py:名称")
    module_part, _, attr = spec.rpartition(":")
    try:
        if module_part.endswith(".py"):
            path = Path(module_part).resolve()
            mod_name = "banshe_external_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
            module = sys.modules.get(mod_name)
            if module is None:
                loader_spec = importlib.util.spec_from_file_location(mod_name, path)
                if loader_spec is None or loader_spec.loader is None:
                    raise ImportError(str(path))
                module = importlib.util.module_from_spec(loader_spec)
                sys.modules[mod_name] = module
                loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_part)
        factory = getattr(module, attr)
    except (ImportError, AttributeError, OSError) as exc:
        raise ValueError(f"无法加载策略“{spec}”：{exc}") from exc
    if not callable(factory):
        raise ValueError(f"策略“{spec}”不是可调用对象")
    return factory  # type: ignore[no-any-return]
