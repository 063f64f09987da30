"""The seed's standard boards: the player counts a ruleset deals for, and a hand-entered table's check."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..engine.ruleset import Ruleset


def check_board(
    rs: Ruleset, names: list[str], roles: dict[str, str] | None, seed: int, options: Mapping[str, Any] | None = None
) -> None:
    """The seed's configuration: a count it deals identities for and, for a hand-entered table,
    the identities it would deal for that count (a different table needs 自定义板子, except for a
    ruleset whose deck is its only board: `check_fixed_deck`)."""
    if rs.deck_is_fixed:
        check_fixed_deck(rs, names, roles)
        return
    counts = board_counts(rs, options)
    if len(names) not in counts:
        raise ValueError(
            f"{rs.name}的标准配置需要{counts_text(counts)}名角色（现有{len(names)}名）；其他人数请勾选“自定义板子”"
        )
    if roles is None:
        return
    wanted = Counter(rs.deal_with(len(names), random.Random(seed), _with_defaults(rs, options)))
    given: Counter[str] = Counter()
    for n in names:
        rid = rs.role_id(roles.get(n, ""))
        if rid is None:
            raise ValueError(f"未知的身份：{roles.get(n)}")
        given[rid] += 1
    if given != wanted:
        more = "、".join(f"{rs.role_name(r)}×{k}" for r, k in (given - wanted).items())
        less = "、".join(f"{rs.role_name(r)}×{k}" for r, k in (wanted - given).items())
        raise ValueError(
            f"手填身份与{rs.name}{len(names)}人的标准配置不符（多出：{more or '无'}；缺少：{less or '无'}）；"
            "如确要使用自定义板子，请勾选“自定义板子”"
        )


def check_fixed_deck(rs: Ruleset, names: list[str], roles: dict[str, str] | None) -> None:
    """A ruleset whose `deck` is its only board (品茗: 14 characters, rulings 2026-12-04): any other
    count or hand-entered table is refused, 自定义板子 or not, with the difference named."""
    wanted = Counter(rs.deck)
    deck = "、".join(rs.role_name(r) + (f"×{k}" if k > 1 else "") for r, k in wanted.items())
    head = f"{rs.name}只能使用种子的配置：{len(rs.deck)}名角色（{deck}），不能使用其他板子"
    given: Counter[str] = Counter()
    for n in names:
        if roles is None:
            continue
        rid = rs.role_id(roles.get(n, ""))
        if rid is None:
            raise ValueError(f"{rs.name}没有身份“{roles.get(n)}”（{n}）")  # the engine's wording
        given[rid] += 1
    if roles is None:
        if len(names) != len(rs.deck):
            raise ValueError(f"{head}；现有{len(names)}名角色")
        return
    if given != wanted:
        more = "、".join(f"{rs.role_name(r)}×{k}" for r, k in (given - wanted).items())
        less = "、".join(f"{rs.role_name(r)}×{k}" for r, k in (wanted - given).items())
        raise ValueError(f"{head}；手填身份多出：{more or '无'}；缺少：{less or '无'}")


_COUNTS: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[int, ...]] = {}


def _with_defaults(rs: Ruleset, options: Mapping[str, Any] | None) -> dict[str, Any]:
    return {**{k: o.default for k, o in rs.options.items()}, **(options or {})}


def board_counts(rs: Ruleset, options: Mapping[str, Any] | None = None) -> tuple[int, ...]:
    """The player counts the ruleset's seed configuration deals for (its `deal` declaration),
    with these options (a board's option may change its deck: `deal_with`)."""
    chosen = _with_defaults(rs, options)
    key = (rs.id, tuple(sorted((k, repr(v)) for k, v in chosen.items())))
    found = _COUNTS.get(key)
    if found is None:
        ok = []
        for n in range(rs.min_players, rs.max_players + 1):
            try:
                dealt = rs.deal_with(n, random.Random(0), chosen)
                rs.validate_roles(dealt)
            except (ValueError, NotImplementedError):
                continue
            if len(dealt) == n:
                ok.append(n)
        found = _COUNTS[key] = tuple(ok)
    return found


def counts_text(counts: tuple[int, ...]) -> str:
    if not counts:
        return "（无标准配置）"
    if len(counts) == 1:
        return str(counts[0])
    if counts == tuple(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}–{counts[-1]}"
    return "、".join(str(c) for c in counts)
