"""The `heuristic` policy: a generic policy for any identity plus per-ruleset rules.

The agent itself lives below the rulesets, in `banshe.agents.heuristic`; this package is the
simulator's side of it. Per-ruleset heuristics are a small registry keyed by ruleset id
(`banshe.agents.heuristic.REGISTRY`): a ruleset package's own `bots` module (品茗, 沉寂与取酒,
感染; `registry.ruleset_module`), or a module in this package, decorates one
`decide(agent, obs)` function with `@register("<ruleset id>")`; every such module is imported
here. Rulesets without one play the
generic policy (`generic_decide`). `HeuristicAgent(seat, role, ruleset, rng)` is the policy
factory: it looks the ruleset up by id and hands it to the agent.
"""

from __future__ import annotations

import importlib
import pkgutil
import random

from ...agents import heuristic as _base
from ...agents.heuristic import DEFER, REGISTRY, Knowledge, classify, generic_decide, register
from ...rulesets.registry import all_rulesets, get_ruleset, ruleset_module

# a module of this package (other than the compatibility `base`) may register one too
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name != "base":
        importlib.import_module(f"{__name__}.{_info.name}")
for _rs in all_rulesets():
    ruleset_module(_rs, "bots")


def HeuristicAgent(seat: str, role: str, ruleset: str, rng: random.Random) -> _base.HeuristicAgent:  # noqa: N802
    """The `heuristic` policy's agent for one seat (the policy factory's signature): a
    `banshe.agents.heuristic.HeuristicAgent` handed its ruleset, looked up by id."""
    return _base.HeuristicAgent(seat, role, ruleset, rng, get_ruleset(ruleset))


__all__ = ["DEFER", "REGISTRY", "HeuristicAgent", "Knowledge", "classify", "generic_decide", "register"]
