"""Rulesets registered by id; looked up by id, Chinese name or alias."""

from __future__ import annotations

from .ruleset import Ruleset

_RULESETS: dict[str, Ruleset] = {}


def register(ruleset: Ruleset) -> Ruleset:
    _RULESETS[ruleset.id] = ruleset
    return ruleset


def _load_builtin() -> None:
    if not _RULESETS:
        import banshe.rulesets  # noqa: F401  (registers the built-in rulesets)


def find_ruleset(name: str) -> Ruleset:
    """By id (`pinming`), Chinese name (`品茗`) or alias (`M196`). Raises KeyError."""
    _load_builtin()
    rs = _RULESETS.get(name)
    if rs is not None:
        return rs
    for rs in _RULESETS.values():
        if name == rs.name or name in rs.aliases:
            return rs
    raise KeyError(name)


def get_ruleset(ruleset_id: str) -> Ruleset:
    rs = _RULESETS.get(ruleset_id)
    if rs is None:
        _load_builtin()
        rs = _RULESETS[ruleset_id]
    return rs


def all_rulesets() -> list[Ruleset]:
    _load_builtin()
    return list(_RULESETS.values())
