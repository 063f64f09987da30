"""Rulesets registered by id; looked up by id, Chinese name or alias.

The engine never looks a ruleset up: a game holds its `Ruleset` by reference
(`GameState.rules`). Adapters (CLI, scenario runner, simulator, service) name a ruleset by
a string and resolve it here.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from banshe.engine import core
from banshe.engine.model import GameState
from banshe.engine.ruleset import Ruleset

_RULESETS: dict[str, Ruleset] = {}
# the boards package (`banshe.boards`), imported on the first look-up: it registers the built-in
# boards and answers for a board file's path (`set_board_finder`)
_BOARDS_LOADED: list[bool] = [False]
_BOARD_FINDER: list[Callable[[str], Ruleset | None]] = []


def _boards() -> None:
    if not _BOARDS_LOADED[0]:
        _BOARDS_LOADED[0] = True
        importlib.import_module("banshe.boards")


def set_board_finder(finder: Callable[[str], Ruleset | None]) -> None:
    """`banshe.boards` answers for the names no registered ruleset has (a board file's path)."""
    _BOARD_FINDER[:] = [finder]


# asked, in order, for an id no registered ruleset has (the service's uploaded boards, kept in its
# database): a `Ruleset`, or None when the id is not theirs
_RESOLVERS: list[Callable[[str], Ruleset | None]] = []


def add_resolver(resolver: Callable[[str], Ruleset | None]) -> None:
    """Ask `resolver` for ids no registered ruleset has; it registers what it finds."""
    _RESOLVERS.append(resolver)


def remove_resolver(resolver: Callable[[str], Ruleset | None]) -> None:
    if resolver in _RESOLVERS:
        _RESOLVERS.remove(resolver)


def _from_resolvers(ruleset_id: str) -> Ruleset | None:
    for resolver in list(_RESOLVERS):
        found = resolver(ruleset_id)
        if found is not None:
            return found
    return None


def register(ruleset: Ruleset) -> Ruleset:
    _RULESETS[ruleset.id] = ruleset
    return ruleset


def registered(ruleset_id: str) -> Ruleset | None:
    """The ruleset registered under this id, or None (no look-up by name, no board loaded)."""
    return _RULESETS.get(ruleset_id)


def unregister(ruleset_id: str) -> None:
    """Forget a registered ruleset (a test's made-up one); an unknown id is ignored."""
    _RULESETS.pop(ruleset_id, None)


def find_ruleset(name: str) -> Ruleset:
    """By id (`pinming`), Chinese name (`品茗`) or alias (`M196`), or a board file's path
    (`banshe.boards`). Raises KeyError (a bad board file: `banshe.boards.BoardError`)."""
    rs = _RULESETS.get(name)
    if rs is not None:
        return rs
    _boards()
    rs = _RULESETS.get(name)
    if rs is not None:
        return rs
    for rs in _RULESETS.values():
        if name == rs.name or name in rs.aliases:
            return rs
    for finder in _BOARD_FINDER:
        found = finder(name)
        if found is not None:
            return found
    found = _from_resolvers(name)
    if found is not None:
        return found
    raise KeyError(name)


def get_ruleset(ruleset_id: str) -> Ruleset:
    """By id only. Raises KeyError."""
    rs = _RULESETS.get(ruleset_id)
    if rs is None:
        _boards()
        rs = _RULESETS.get(ruleset_id) or _from_resolvers(ruleset_id)
    if rs is None:
        raise KeyError(ruleset_id)
    return rs


def resolve(rules: Ruleset | str) -> Ruleset:
    """A `Ruleset` as given, or the registered one a string names (`find_ruleset`)."""
    return rules if isinstance(rules, Ruleset) else find_ruleset(rules)


def all_rulesets() -> list[Ruleset]:
    """Every registered ruleset: the three seeds, then the built-in and installed boards."""
    _boards()
    return list(_RULESETS.values())


def ruleset_module(rules: Ruleset, name: str) -> ModuleType | None:
    """The module `name` (`bots`, `effects`) of the package that declares `rules` (its
    `package`), imported; None when it names none or that package has none. Adapters find a
    ruleset's bots and effect counters here."""
    package = rules.package
    full = f"{package}.{name}"
    if not package or importlib.util.find_spec(full) is None:
        return None
    return importlib.import_module(full)


def new_game(
    rules: Ruleset | str,
    players: Sequence[str],
    roles: dict[str, str] | None = None,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    recorded_deal: dict[str, str] | None = None,
) -> GameState:
    """`banshe.engine.new_game` with the ruleset given by id, Chinese name or alias (`resolve`).
    Raises KeyError for an unknown name, ValueError (Chinese) for an impossible setup."""
    return core.new_game(resolve(rules), players, roles, options, seed, recorded_deal)
