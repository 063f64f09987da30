"""Built-in rulesets, registered by id: pinming (品茗), chenji (沉寂与取酒), ganran (感染).

The registry lives here, above the engine (`banshe.rulesets.registry`); importing this
package registers the built-in rulesets. A ruleset package may also carry its bots
(`bots.py`, `@register` heuristics) and effect counters (`effects.py`, `@register_effects`):
the simulator finds them with `registry.ruleset_module`.
"""

from .chenji import CHENJI
from .ganran import GANRAN
from .pinming import PINMING
from .registry import all_rulesets, find_ruleset, get_ruleset, new_game, register, resolve

register(PINMING)
register(CHENJI)
register(GANRAN)


__all__ = [
    "PINMING",
    "CHENJI",
    "GANRAN",
    "all_rulesets",
    "find_ruleset",
    "get_ruleset",
    "new_game",
    "register",
    "resolve",
]
