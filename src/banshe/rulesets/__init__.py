"""Built-in rulesets, registered by id: pinming (品茗), chenji (沉寂与取酒)."""

from banshe.engine.registry import register

from .chenji import CHENJI
from .pinming import PINMING

register(PINMING)
register(CHENJI)

__all__ = ["PINMING", "CHENJI"]
