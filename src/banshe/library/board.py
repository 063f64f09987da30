"""What a board file compiles to (`banshe.boards.compile_board`) besides the `Ruleset`'s own
fields: `Board`, its roles' parameters and hooks, deck by player count and options, sheriff,
and the board file; and the hook functions the compiled `Ruleset(...)` names, answered from the
`Board` and from the roles' own hooks. Nothing here names a role."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from banshe.engine.core import announce, notice
from banshe.engine.model import NIGHT, GameState
from banshe.engine.publish import day_opening
from banshe.engine.ruleset import (
    MANY_TARGETS,
    SUCCESSOR,
    TEAR_BADGE,
    Dealer,
    Ruleset,
    SeatRefusal,
    Settle,
    Votable,
    VoteWeight,
)

from .role import Block, Excluded, Holds, LibraryRole, OutHook, VotedOutHook
from .state import BoardState, ext

FIRST_DAY_SHERIFF = "今天是小镇传统竞选警长日，投票最高者当选警长，不会有人因投票出局。"


def role_params(*roles: LibraryRole, **given: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A `Board`'s `params` (what the library's roles read, `role.params`) for these roles: each
    role's defaults, then the values `given` by role id. The library's roles and flow read the
    seating ruleset's `board`: `params`, `out_hooks`, `voted_out_hooks` (a compiled board's, or
    the one a seed on the library declares: 品茗)."""
    return {r.id: {**{k: p.default for k, p in r.params.items()}, **given.get(r.id, {})} for r in roles}


@dataclass(frozen=True, eq=False)
class Board:
    """A compiled board's declarations beyond the `Ruleset`'s fields (`Ruleset.board`); the
    library's functions read it as `state.rules.board`."""

    # role id -> its parameters (every parameter of its library role, defaults filled in)
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # role id -> its library role's hooks
    out_hooks: Mapping[str, OutHook] = field(default_factory=dict)
    voted_out_hooks: Mapping[str, VotedOutHook] = field(default_factory=dict)
    # the roles' `at_start` (run as 开局 closes, before the groups form) and `watches_outs` (run
    # on every out, after its own reactions), in the board's order of roles
    start_hooks: tuple[Settle, ...] = ()
    out_watchers: tuple[OutHook, ...] = ()
    # role id -> whether a character's answer tonight waits until the night settles (感染: a
    # lover 先知 hears his 预言 after 夜晚6); none: every answer comes as its stage closes
    holds_answer: Mapping[str, Holds] = field(default_factory=dict)
    # how a role's skill is refused to anyone else (`role.need`): {actor} {role} {skill}
    refusal: str = "{actor}不是{role}，不能{skill}"
    # group id -> the role ids that join it at 开局
    group_roles: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    sheriff_weight: float = 1.5  # 0: the board has no sheriff
    # the deck by player count (the seat count -> role ids); `Ruleset.deck` is the standard one
    decks: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    # option name -> {role id to take out -> role id to put in} when the option is on, and the
    # role ids it adds
    option_swaps: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    option_adds: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    source: str = ""  # the board file it was compiled from (its path, or "内置:<name>")
    text: str = ""  # the board file's text (`banshe boards show`)


def board_of(state: GameState) -> Board:
    board: Board = state.rules.board
    return board


def board_file_text(rs: Ruleset) -> str:
    """The text of the board file `rs` was compiled from ("": a ruleset written as code)."""
    return rs.board.text if isinstance(rs.board, Board) else ""


# -- the deal ------------------------------------------------------------------------------------
def deal_by_count(board: Board, name: str, deck: tuple[str, ...]) -> Dealer:
    """`Ruleset.dealer`: the board's deck for the player count (`deck`, the standard one, for
    any other), with each option that is on swapping and adding its roles."""

    def deal(count: int, rng: random.Random, options: Mapping[str, Any]) -> list[str]:
        dealt = list(board.decks.get(count, deck))
        for option, on in options.items():
            if not on:
                continue
            for old, new in board.option_swaps.get(option, {}).items():
                if old in dealt:
                    dealt[dealt.index(old)] = new
            dealt.extend(board.option_adds.get(option, ()))
        if len(dealt) != count:
            sizes = sorted({len(deck), *board.decks})
            counts = "、".join(str(n) for n in sizes)
            raise ValueError(f"{name}的配置是{counts}人，随机发身份需要相应人数的玩家（现有{count}名）")
        return dealt

    return deal


# -- setup and phases --------------------------------------------------------------------------------
def tell_identities(state: GameState) -> None:
    """`Ruleset.setup`: every declared camp is in the game; each character is told its identity."""
    rs: Ruleset = state.rules
    state.camps_in_game = list(rs.camp_names)
    for c in state.chars.values():
        name = rs.role_name(c.role)
        notice(state, c.name, f"你的身份是{name}。", role=name, camp=c.camp)


def open_phase(state: GameState) -> None:
    """`Ruleset.on_phase_start`: the night's call, or the day's opening (竞岗 on 第1天 with a sheriff)."""
    if state.phase.kind == NIGHT:
        announce(state, f"{state.phase.label}开始，请有夜间技能的角色在时限内行动。")
        return
    sheriff = bool(board_of(state).sheriff_weight)
    first_day = FIRST_DAY_SHERIFF if sheriff else "今天是第一个讨论日。"
    announce(state, day_opening(state, first_day, reports=ext(state).report, sheriff=sheriff))


# -- votes ---------------------------------------------------------------------------------------------
def first_refusal(blocks: tuple[Block, ...]) -> SeatRefusal:
    """`Ruleset.can_vote` / `can_be_voted`: the first reason the roles' blocks give (None: none)."""

    def refusal(state: GameState, name: str) -> str | None:
        for block in blocks:
            reason = block(state, name)
            if reason is not None:
                return reason
        return None

    return refusal


def living_less(unvotable: tuple[Excluded, ...]) -> Votable:
    """`Ruleset.votable`: the alive seats less those the roles exclude at once (the same list as
    `can_be_voted` seat by seat; the roles' `unvotable` refuse exactly whom their blocks do).

    Asked for every voter: the answer is kept (`BoardState.votable_memo`) while no one has gone
    out (the living seats change only with an out, as `GameState.living`'s) and every role's
    exclusion is the same, so a day's voters share one list (and the bots one action set per
    voter)."""
    if not unvotable:
        return _living
    if len(unvotable) == 1:
        (find,) = unvotable

        def votable_less_one(state: GameState) -> Sequence[str]:
            excluded = find(state)
            data: BoardState = state.ext  # type: ignore[assignment]  # unchecked: asked for every voter
            memo = data.votable_memo
            outs = len(state.outs)
            if memo[0] == outs and memo[1] and (memo[1][0] is excluded or memo[1][0] == excluded):
                return memo[2]
            living = state.living()
            names = tuple([n for n in living if n not in excluded]) if excluded else living
            data.votable_memo = (outs, [excluded], names)
            return names

        return votable_less_one

    def votable(state: GameState) -> Sequence[str]:
        excluded = [find(state) for find in unvotable]
        data: BoardState = state.ext  # type: ignore[assignment]  # unchecked: asked for every voter
        memo = data.votable_memo
        outs = len(state.outs)
        if memo[0] == outs and memo[1] == excluded:
            return memo[2]
        out: set[str] = set().union(*excluded)
        living = state.living()
        names = tuple([n for n in living if n not in out]) if out else living
        data.votable_memo = (outs, excluded, names)
        return names

    return votable


def _living(state: GameState) -> Sequence[str]:
    return state.living()


def sheriff_counts(weight: float) -> VoteWeight:
    """`Ruleset.vote_weight`: 带队<强制> — 警长投出的票计为 `weight` 票 (0: no sheriff, every vote 1)."""

    def vote_weight(state: GameState, voter: str) -> float:
        return weight if weight and voter == state.sheriff else 1.0

    return vote_weight


def alive_or_badge(state: GameState, actor: str, skill: str) -> list[tuple[str, ...]]:
    """`Ruleset.legal_targets`: each alive character, and 撕警徽 for a successor skill; for a
    many-target skill (丘比特's 爱神之箭: two characters) each pair of alive characters, in seat
    order."""
    spec = state.rules.skills.get(skill)
    if spec is None:
        return []
    alive = state.alive_names()
    if spec.shape == SUCCESSOR:
        return [*((n,) for n in alive), (TEAR_BADGE,)]
    if spec.shape == MANY_TARGETS:
        return list(combinations(alive, 2))
    return [(n,) for n in alive]
