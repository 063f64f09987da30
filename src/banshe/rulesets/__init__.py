"""Built-in rulesets, registered by id: pinming (品茗)."""

from banshe.engine.registry import register

from .pinming import PINMING

register(PINMING)

__all__ = ["PINMING"]
