"""Moved below the rulesets: `banshe.agents.heuristic` (re-exported here for compatibility)."""

from ...agents.heuristic import (
    DEFER,
    REGISTRY,
    Decide,
    HeuristicAgent,
    Knowledge,
    classify,
    findall,
    generic_decide,
    intent_of,
    register,
)

__all__ = [
    "DEFER",
    "REGISTRY",
    "Decide",
    "HeuristicAgent",
    "Knowledge",
    "classify",
    "findall",
    "generic_decide",
    "intent_of",
    "register",
]
