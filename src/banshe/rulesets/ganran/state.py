"""感染's typed game data (`GameState.ext`) and per-seat data (`Character.ext`, `GanranSeat`):
what its skills remember, checked by strict mypy.

The library's data (`BoardState`: 公示, 预言 and the answers held till the night settles) is shared
with the library's roles, which 感染 seats (its 先知 is the library's 预言家); this adds what only
感染's own skills remember."""

from __future__ import annotations

from dataclasses import dataclass, field

from banshe.engine.model import Character, CharacterState, GameState
from banshe.library.state import BoardState


@dataclass(frozen=True, slots=True)
class Link:
    """One line of the infection chain (the 复盘, director only); an infection names its three
    parties (`infection`: 狼人 or 吸血鬼's kind id), every other line only its text."""

    phase: str
    text: str
    infector: str = ""
    infected: str = ""
    infection: str = ""


@dataclass
class GanranState(BoardState):
    # -- the whole game ---------------------------------------------------------------------
    started: bool = False  # 开局 has settled (camps are counted from then on)
    adored: tuple[str, str] | None = None  # 爱慕: (爱神, target)
    lovers: tuple[str, ...] = ()  # the lovers in seat order (empty: none)
    lovers_camp: bool = False  # 私奔 has formed 情侣阵营 (for good)
    chain: list[Link] = field(default_factory=list)  # the infection chain
    guard_last: dict[str, tuple[int, str]] = field(default_factory=dict)  # 银盾/胡蒜 -> (night, target)
    forced_hunter: tuple[int, str] | None = None  # 银色子弹 missed: (day, 猎人) forced out that day
    # -- this phase (emptied by `new_phase`) -------------------------------------------------
    guard: dict[str, str] = field(default_factory=dict)  # 银盾/胡蒜 -> tonight's target
    kings_acted: list[str] = field(default_factory=list)  # 穆图/该隐 who have used tonight's skill
    kings: list[tuple[str, str, str]] = field(default_factory=list)  # 夜晚2: (actor, skill, target)
    infections: list[tuple[str, str, str]] = field(default_factory=list)  # 夜晚3: (actor, skill, target)
    targets: list[str] = field(default_factory=list)  # 通灵's list, in settlement order
    dying: list[tuple[str, str]] = field(default_factory=list)  # (name, cause), as they became 濒死
    elder_kill: tuple[str, str] | None = None  # 杀人: (长老, target)
    potions: list[tuple[str, str, str]] = field(default_factory=list)  # 解药/毒药: (skill, 女巫, target)

    def clone(self) -> GanranState:
        return GanranState(
            list(self.report),
            self.guarded,
            self.feigned,
            self.check,
            self.kill,
            self.save,
            self.poison,
            self.held,
            self.started,
            self.adored,
            self.lovers,
            self.lovers_camp,
            list(self.chain),
            dict(self.guard_last),
            self.forced_hunter,
            dict(self.guard),
            list(self.kings_acted),
            list(self.kings),
            list(self.infections),
            list(self.targets),
            list(self.dying),
            self.elder_kill,
            list(self.potions),
            cupid_arrow=self.cupid_arrow,
            linked=self.linked,
            ungrouped=self.ungrouped,
        )

    def new_phase(self) -> None:
        super().new_phase()
        self.guard = {}
        self.kings_acted = []
        self.kings = []
        self.infections = []
        self.targets = []
        self.dying = []
        self.elder_kill = None
        self.potions = []


def ext(state: GameState) -> GanranState:
    """The 感染 data of a 感染 game."""
    data = state.ext
    if not isinstance(data, GanranState):
        raise TypeError(f"not a 感染 game: {type(data).__name__}")
    return data


@dataclass
class GanranSeat(CharacterState):
    """What 感染 remembers of one seat (`Ruleset.character_type`; `new_game` makes one per seat)."""

    # 狼人 or 吸血鬼 (rules.WOLF_KIND / VAMP_KIND): 穆图/该隐 by identity, others by infection; None: neither
    kind: str | None = None
    # 咬噬/吸血 made it 游离状态的狼人（吸血鬼）: who infected it (None: never infected) and in which phase
    infected_by: str | None = None
    infected_at: str = ""
    # rulings: the night from which an infected character uses its new skill (the night after
    # infection), also its 夜晚3 priority class (按照成为狼人或吸血鬼时间顺序); 0: never infected
    ready: int = 0
    # 【血疑】 长老 has been the effective target of 咬噬 / 吸血 (先后成为两者的有效目标后归为特殊阵营)
    bitten: bool = False
    sucked: bool = False
    special: bool = False  # 长老 of 特殊阵营
    kill_from: int = 0  # 【杀人】<觉醒技>: the night from which 特殊阵营的长老 may use it (0: not awake)
    points: int = 0  # 扣分 so far (累计扣满12分者将予以罚下)

    def clone(self) -> GanranSeat:
        return GanranSeat(
            self.kind,
            self.infected_by,
            self.infected_at,
            self.ready,
            self.bitten,
            self.sucked,
            self.special,
            self.kill_from,
            self.points,
        )


def seat(c: Character) -> GanranSeat:
    """The 感染 data of a character of a 感染 game."""
    data = c.ext
    if not isinstance(data, GanranSeat):
        raise TypeError(f"not a 感染 character: {type(data).__name__}")
    return data
