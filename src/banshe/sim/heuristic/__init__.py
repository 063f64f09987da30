"""The `heuristic` policy: a generic policy for any identity plus per-ruleset rules.

Per-ruleset heuristics are a small registry keyed by ruleset id (`base.REGISTRY`): each module
in this package (other than `base`), or a ruleset package's own `bots` module (沉寂与取酒, 感染;
`registry.ruleset_module`),
decorates one `decide(agent, obs)` function with `@register("<ruleset id>")`; every such
module is imported here, so adding a ruleset's heuristics is adding one file. Rulesets without
one play the generic policy (`base.generic_decide`).
"""

import importlib
import pkgutil

from ...rulesets.registry import all_rulesets, ruleset_module
from .base import DEFER, REGISTRY, HeuristicAgent, Knowledge, classify, generic_decide, register

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name != "base":
        importlib.import_module(f"{__name__}.{_info.name}")
for _rs in all_rulesets():
    ruleset_module(_rs, "bots")

__all__ = ["DEFER", "REGISTRY", "HeuristicAgent", "Knowledge", "classify", "generic_decide", "register"]
