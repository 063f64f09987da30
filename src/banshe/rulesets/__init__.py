"""Built-in rulesets, registered by id: pinming (品茗), chenji (沉寂与取酒), ganran (感染)."""

from banshe.engine.registry import register

from .chenji import CHENJI
from .ganran import GANRAN
from .pinming import PINMING

register(PINMING)
register(CHENJI)
register(GANRAN)

__all__ = ["PINMING", "CHENJI", "GANRAN"]
