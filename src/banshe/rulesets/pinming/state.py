"""品茗's typed game data (`GameState.ext`): what its skills remember, checked by strict mypy.

The library's data (`BoardState`: 公示, 预言, 杀人, 救药, 毒药, 装傻) is shared with the library's
roles and flow, which 品茗 seats; this adds what only 品茗's own skills remember."""

from __future__ import annotations

from dataclasses import dataclass, field

from banshe.engine.model import GameState
from banshe.library.state import BoardState


@dataclass
class PinmingState(BoardState):
    # -- the whole game ---------------------------------------------------------------------
    recognized: str | None = None  # 混血儿 认亲's target (None: not yet)
    knives: int | None = None  # 拍刀环节: the 狼刀数 to submit (None: no 拍刀环节)
    surrender: list[str] = field(default_factory=list)  # who has agreed to 投降, in order
    # -- this phase (emptied by `new_phase`) -------------------------------------------------
    duel: list[str] = field(default_factory=list)  # who has agreed to 决战, in order
    # -- not part of the position ------------------------------------------------------------
    # the wins' census (`rules._census`): (len(outs) when made, a 神, a 村民, a 狼人 alive)
    census_memo: tuple[int, bool, bool, bool] = field(default=(-1, False, False, False), repr=False, compare=False)

    def clone(self) -> PinmingState:
        return PinmingState(
            list(self.report),
            self.guarded,
            self.feigned,
            self.check,
            self.kill,
            self.save,
            self.poison,
            self.held,
            self.recognized,
            self.knives,
            list(self.surrender),
            list(self.duel),
            cupid_arrow=self.cupid_arrow,
            linked=self.linked,
            ungrouped=self.ungrouped,
        )

    def new_phase(self) -> None:
        super().new_phase()
        self.duel = []

    @property
    def showdown(self) -> bool:
        """The 拍刀环节 has begun (决战 agreed by the whole wolf group)."""
        return self.knives is not None


def ext(state: GameState) -> PinmingState:
    """The 品茗 data of a 品茗 game."""
    data = state.ext
    if not isinstance(data, PinmingState):
        raise TypeError(f"not a 品茗 game: {type(data).__name__}")
    return data
