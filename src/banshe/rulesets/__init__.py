"""Built-in rulesets, registered by id: pinming (品茗), ganran (感染)."""

from banshe.engine.registry import register

from .ganran import GANRAN
from .pinming import PINMING

register(PINMING)
register(GANRAN)

__all__ = ["PINMING", "GANRAN"]
