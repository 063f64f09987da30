"""品茗's typed game data (`GameState.ext`): what its skills remember, checked by strict mypy."""

from __future__ import annotations

from dataclasses import dataclass, field

from banshe.engine.model import GameState, Phase, RulesetState


@dataclass
class PinmingState(RulesetState):
    # -- the whole game ---------------------------------------------------------------------
    recognized: str | None = None  # 混血儿 认亲's target (None: not yet)
    report: list[str] = field(default_factory=list)  # 公示 of the night/开局, read out the next day
    knives: int | None = None  # 拍刀环节: the 狼刀数 to submit (None: no 拍刀环节)
    surrender: list[str] = field(default_factory=list)  # who has agreed to 投降, in order
    # -- this phase (emptied by `new_phase`) -------------------------------------------------
    check: tuple[str, str] | None = None  # 预言: (预言家, target)
    kill: str | None = None  # 杀人: the wolves' last submission
    save: str | None = None  # 救药's target
    poison: str | None = None  # 毒药's target
    duel: list[str] = field(default_factory=list)  # who has agreed to 决战, in order
    # -- not part of the position ------------------------------------------------------------
    # `rules.votable`'s memo: (len(outs), the phase) when made, the names
    votable_memo: tuple[int, Phase | None, tuple[str, ...]] = field(default=(-1, None, ()), repr=False, compare=False)
    # the wins' census (`rules._census`): (len(outs) when made, a 神, a 村民, a 狼人 alive)
    census_memo: tuple[int, bool, bool, bool] = field(default=(-1, False, False, False), repr=False, compare=False)

    def clone(self) -> PinmingState:
        return PinmingState(
            self.recognized,
            list(self.report),
            self.knives,
            list(self.surrender),
            self.check,
            self.kill,
            self.save,
            self.poison,
            list(self.duel),
        )

    def new_phase(self) -> None:
        self.check = None
        self.kill = None
        self.save = None
        self.poison = None
        self.duel = []

    def reports(self) -> list[str]:
        # the 公示 queued at night: the next day's opening, or the result if the night ends the game
        return self.report

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
