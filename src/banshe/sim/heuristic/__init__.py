"""The `heuristic` policy: a generic policy for any identity plus per-ruleset rules.

Per-ruleset heuristics are a small registry keyed by ruleset id (`base.REGISTRY`): a module
here decorates one `decide(agent, obs)` function with `@register("<ruleset id>")`. Rulesets
without one play the generic policy (`base.generic_decide`).
"""

from . import pinming  # noqa: F401  (registers the 品茗 heuristics)
from .base import DEFER, REGISTRY, HeuristicAgent, Knowledge, classify, generic_decide, register

__all__ = ["DEFER", "REGISTRY", "HeuristicAgent", "Knowledge", "classify", "generic_decide", "register"]
