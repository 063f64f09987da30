"""The typed game data of a board built on the role library (`GameState.ext`).

Each field belongs to one library role (named beside it); a role module reads and writes only its
own fields through `ext(state)`, and the night's settlement (`flow.settle_night`) reads them all.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from banshe.engine.model import GameState, RulesetState


@dataclass
class BoardState(RulesetState):
    # -- the whole game ---------------------------------------------------------------------
    report: list[str] = field(default_factory=list)  # 公示 of the night/开局, read out the next day
    # 守卫: the night number and target of the latest accepted 守护 (the repeat rule reads it)
    guarded: tuple[int, str] | None = None
    # 白痴: who has used 装傻 (no vote, not votable, no badge)
    feigned: frozenset[str] = frozenset()
    # -- this phase (emptied by `new_phase`) -------------------------------------------------
    check: tuple[str, str] | None = None  # 预言家: (预言家, target)
    kill: str | None = None  # 狼人 (the group): the last submission of 杀人
    save: str | None = None  # 女巫: 救药's target
    poison: str | None = None  # 女巫: 毒药's target
    # answers held until the night settles (`Board.holds_answer`; 感染: a lover 先知's 预言):
    # `feedback`'s (to, skill, target, result, text), in the order they were given
    held: tuple[tuple[str, str, str, str, str], ...] = ()
    # -- 丘比特 (the whole game; keyword-only, so a seed's state that extends this keeps its order)
    # 爱神之箭 once posted: (丘比特, the two targets)
    cupid_arrow: tuple[str, str, str] | None = field(default=None, kw_only=True)
    linked: tuple[str, ...] = field(default=(), kw_only=True)  # the two lovers in seat order (empty: none)
    # the lovers of 情侣阵营 who join no group of their role's (人狼恋: the wolf leaves 狼群)
    ungrouped: frozenset[str] = field(default=frozenset(), kw_only=True)
    # -- not part of the position ------------------------------------------------------------
    # `board.living_less`' memo: (how many outs, the roles' exclusions, the vote's candidates)
    votable_memo: tuple[int, list[Collection[str]], Sequence[str]] = field(
        default=(-1, [], ()), repr=False, compare=False, kw_only=True
    )
    # the character whose out now under way takes no 遗言 (a 替罪羊 with 遗言: false; set only
    # around his `put_out`, so None between steps)
    unheard: str | None = field(default=None, repr=False, compare=False, kw_only=True)

    def clone(self) -> BoardState:
        return BoardState(
            list(self.report),
            self.guarded,
            self.feigned,
            self.check,
            self.kill,
            self.save,
            self.poison,
            self.held,
            cupid_arrow=self.cupid_arrow,
            linked=self.linked,
            ungrouped=self.ungrouped,
        )

    def new_phase(self) -> None:
        self.check = None
        self.kill = None
        self.save = None
        self.poison = None
        self.held = ()

    def reports(self) -> list[str]:
        return self.report


def ext(state: GameState) -> BoardState:
    """The library's data of a board game."""
    data = state.ext
    if not isinstance(data, BoardState):
        raise TypeError(f"not a board game: {type(data).__name__}")
    return data
