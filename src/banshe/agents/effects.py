"""The per-ruleset effect counters' registry (what a skill achieved), keyed by ruleset id.

A ruleset package keeps its own extractor in its `effects` module and registers it with
`@register_effects("<ruleset id>")`; each reads the finished game's log and final characters
and never changes them. The simulator's `banshe.sim.stats.Stats.add_game` runs them
(`banshe.sim.effects` imports every ruleset's `effects` module)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ..engine.model import GameState

EffectExtractor = Callable[[GameState, Counter[str]], None]
EFFECTS: dict[str, EffectExtractor] = {}


def register_effects(ruleset_id: str) -> Callable[[EffectExtractor], EffectExtractor]:
    def deco(fn: EffectExtractor) -> EffectExtractor:
        EFFECTS[ruleset_id] = fn
        return fn

    return deco
