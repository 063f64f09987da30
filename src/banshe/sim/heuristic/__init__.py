"""The `heuristic` policy: a generic policy for any identity plus per-ruleset rules.

Per-ruleset heuristics are a small registry keyed by ruleset id (`base.REGISTRY`): each module
in this package (other than `base`) decorates one `decide(agent, obs)` function with
`@register("<ruleset id>")`; every such module is imported here, and so is a ruleset
package's own `bots.py` (`banshe.rulesets.load_modules`), so adding a ruleset's heuristics is
adding one file. Rulesets without one play the generic policy
(`base.generic_decide`).
"""

import importlib
import pkgutil

from ...rulesets import load_modules
from .base import DEFER, REGISTRY, HeuristicAgent, Knowledge, classify, generic_decide, register

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name != "base":
        importlib.import_module(f"{__name__}.{_info.name}")
load_modules("bots")

__all__ = ["DEFER", "REGISTRY", "HeuristicAgent", "Knowledge", "classify", "generic_decide", "register"]
