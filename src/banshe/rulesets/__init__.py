"""Built-in rulesets, registered by id: pinming (品茗), chenji (沉寂与取酒), ganran (感染).

The registry lives here, above the engine (`banshe.rulesets.registry`); importing this
package registers the built-in rulesets. A ruleset package may also carry its bots
(`bots.py`, `@register` heuristics) and effect counters (`effects.py`, `@register_effects`):
the simulator imports them with `load_modules`.
"""

import importlib
import importlib.util
import pkgutil
from types import ModuleType

from .chenji import CHENJI
from .ganran import GANRAN
from .pinming import PINMING
from .registry import all_rulesets, find_ruleset, get_ruleset, new_game, register, resolve

register(PINMING)
register(CHENJI)
register(GANRAN)


def load_modules(name: str) -> list[ModuleType]:
    """Import module `name` (`bots`, `effects`) of every built-in ruleset package that has one."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        full = f"{__name__}.{info.name}.{name}"
        if info.ispkg and importlib.util.find_spec(full) is not None:
            found.append(importlib.import_module(full))
    return found


__all__ = [
    "PINMING",
    "CHENJI",
    "GANRAN",
    "all_rulesets",
    "find_ruleset",
    "get_ruleset",
    "load_modules",
    "new_game",
    "register",
    "resolve",
]
