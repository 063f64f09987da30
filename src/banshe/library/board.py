"""`BoardRuleset`: the `Ruleset` a board file compiles to (`banshe.boards.compile_board`).

It holds the board's declaration (roles from the library with their parameters, deck by player
count and options, sheriff, 遗言, night stages, wins) and answers the engine's hooks from it and
from the roles' own hooks; nothing here names a role."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from banshe.engine.core import announce, notice
from banshe.engine.model import NIGHT, GameState
from banshe.engine.publish import day_opening
from banshe.engine.ruleset import SUCCESSOR, TEAR_BADGE, Ruleset

from . import flow
from .role import Block, Excluded, LibraryRole, OutHook, VotedOutHook
from .state import ext

FIRST_DAY_SHERIFF = "今天是小镇传统竞选警长日，投票最高者当选警长，不会有人因投票出局。"


def role_params(*roles: LibraryRole, **given: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A ruleset's `params` (what the library's roles read, `role.params`) for these roles: each
    role's defaults, then the values `given` by role id. The library's roles and flow read three
    tables from the ruleset that seats them: `params`, `out_hooks`, `voted_out_hooks` (a board's
    `BoardRuleset` fields; a seed on the library, 品茗, declares them on its class)."""
    return {r.id: {**{k: p.default for k, p in r.params.items()}, **given.get(r.id, {})} for r in roles}


@dataclass(eq=False)
class BoardRuleset(Ruleset):
    # role id -> its parameters (every parameter of its library role, defaults filled in)
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # role id -> its library role's hooks
    out_hooks: Mapping[str, OutHook] = field(default_factory=dict)
    voted_out_hooks: Mapping[str, VotedOutHook] = field(default_factory=dict)
    vote_blocks: tuple[Block, ...] = ()
    voted_blocks: tuple[Block, ...] = ()
    # the roles' `unvotable`: together, exactly whom `voted_blocks` refuse (`votable`, asked per voter)
    unvotable: tuple[Excluded, ...] = ()
    # group id -> the role ids that join it at 开局
    group_roles: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    sheriff_weight: float = 1.5  # 0: the board has no sheriff
    # the deck by player count (the seat count -> role ids); `deck` is the standard one
    decks: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    # option name -> {role id to take out -> role id to put in} when the option is on, and the
    # role ids it adds
    option_swaps: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    option_adds: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    source: str = ""  # the board file it was compiled from (its path, or "内置:<name>")
    text: str = ""  # the board file's text (`banshe boards show`)

    # -- the deal ------------------------------------------------------------------------------
    def deal(self, count: int, rng: random.Random) -> list[str]:
        return self.deal_with(count, rng, {k: o.default for k, o in self.options.items()})

    def deal_with(self, count: int, rng: random.Random, options: Mapping[str, Any]) -> list[str]:
        deck = list(self.decks.get(count, self.deck))
        for name, on in options.items():
            if not on:
                continue
            for old, new in self.option_swaps.get(name, {}).items():
                if old in deck:
                    deck[deck.index(old)] = new
            deck.extend(self.option_adds.get(name, ()))
        if len(deck) != count:
            sizes = sorted({len(self.deck), *self.decks})
            counts = "、".join(str(n) for n in sizes)
            raise ValueError(f"{self.name}的配置是{counts}人，随机发身份需要相应人数的玩家（现有{count}名）")
        return deck

    # -- setup and phases ----------------------------------------------------------------------
    def setup(self, state: GameState) -> None:
        state.camps_in_game = list(self.camp_names)
        for c in state.chars.values():
            name = self.role_name(c.role)
            notice(state, c.name, f"你的身份是{name}。", role=name, camp=c.camp)

    def on_phase_start(self, state: GameState) -> None:
        if state.phase.kind == NIGHT:
            announce(state, f"{state.phase.label}开始，请有夜间技能的角色在时限内行动。")
            return
        first_day = FIRST_DAY_SHERIFF if self.sheriff_weight else "今天是第一个讨论日。"
        opening = day_opening(state, first_day, reports=ext(state).report, sheriff=bool(self.sheriff_weight))
        announce(state, opening)

    def on_out(self, state: GameState, name: str, cause: str) -> None:
        flow.on_out(state, name, cause)

    # -- votes -----------------------------------------------------------------------------------
    def can_vote(self, state: GameState, voter: str) -> str | None:
        for block in self.vote_blocks:
            reason = block(state, voter)
            if reason is not None:
                return reason
        return None

    def can_be_voted(self, state: GameState, target: str) -> str | None:
        for block in self.voted_blocks:
            reason = block(state, target)
            if reason is not None:
                return reason
        return None

    def votable(self, state: GameState) -> Sequence[str]:
        # the alive seats less those the roles exclude at once (the same list as `can_be_voted` per seat)
        living = state.living()
        if not self.unvotable:
            return living
        excluded: set[str] = set()
        for find in self.unvotable:
            excluded.update(find(state))
        return [n for n in living if n not in excluded] if excluded else living

    def vote_weight(self, state: GameState, voter: str) -> float:
        # 带队<强制> — 警长投出的票计为 sheriff_weight 票
        return self.sheriff_weight if self.sheriff_weight and voter == state.sheriff else 1.0

    def red_card(self, state: GameState, name: str) -> None:
        flow.red_card(state, name)

    def legal_targets(self, state: GameState, actor: str, skill: str) -> list[tuple[str, ...]]:
        spec = self.skills.get(skill)
        if spec is None:
            return []
        alive = state.alive_names()
        if spec.shape == SUCCESSOR:
            return [*((n,) for n in alive), (TEAR_BADGE,)]
        return [(n,) for n in alive]
