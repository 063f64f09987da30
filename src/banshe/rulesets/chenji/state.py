"""沉寂与取酒's typed game data (`GameState.ext`): what its skills remember, checked by strict mypy."""

from __future__ import annotations

from dataclasses import dataclass, field

from banshe.engine.model import Character, CharacterState, GameState, RulesetState


@dataclass(frozen=True, slots=True)
class CheckRecord:
    """A 预言/天眼 feedback as given (鞠躬尽瘁 compares it with the 预想)."""

    night: int
    actor: str
    skill: str
    target: str
    result: str


@dataclass(frozen=True, slots=True)
class KillRecord:
    """A 杀人/撕咬 that counted (not voided by 摇落), in arrival order."""

    night: int
    actor: str
    skill: str
    target: str


@dataclass(frozen=True, slots=True)
class Prediction:
    """A 预想: the result a player expects of his 预言/天眼/杀人/撕咬 on `night`."""

    night: int
    actor: str
    skill: str
    target: str
    guess: str


@dataclass(frozen=True, slots=True)
class SlanderState:
    """诽谤者's data (its rules: `slanderer.py`). Immutable: a clone of the game shares it, and a
    change makes a new one."""

    marked: tuple[int, str] | None = None  # the last night's 诽谤: (the day it counts, target)
    hit: str | None = None  # this phase: the vote-out that 诽谤 caused (`ChenjiState.new_phase` forgets it)
    hits: int = 0  # 使非村民阵营角色出局, for the 成就 and the effect counter

    def next_phase(self) -> SlanderState:
        return self if self.hit is None else SlanderState(self.marked, None, self.hits)


@dataclass(frozen=True, slots=True)
class NunState:
    """修女's data (its rules: `nun.py`). Immutable: a clone of the game shares it, and a change
    makes a new one."""

    redeemed: tuple[int, str] | None = None  # the last night's 救赎: (the day it counts, target)
    redeem_blocks: int = 0  # 救赎 格挡投票, for the 成就 and the effect counter
    faith_blocks: int = 0  # 卫道 格挡预言, for the 成就 and the effect counter


@dataclass
class ChenjiStats:
    """The director's counters for the achievements (成就奖励) and the simulator's effect counters."""

    checks: list[CheckRecord] = field(default_factory=list)
    kills: list[KillRecord] = field(default_factory=list)
    piped: list[str] = field(default_factory=list)  # every 吹笛 target (吹笛者存活: 无特权身份)
    killed_villagers: list[str] = field(default_factory=list)  # 夜晚指杀出局 of 村民阵营
    rebels_voted: list[str] = field(default_factory=list)  # 乱民 voted out
    shield_blocks: int = 0  # 守护之盾 格挡指杀
    mute_blocks: int = 0  # 隔音之盾 格挡吹笛
    bloodline_saves: int = 0  # 血统 免于出局
    heartbreak_effective: int = 0  # 断肠 有效发动
    wither_effective: int = 0  # 摇落 有效发动
    elder_hit: bool = False  # 长老 被有效指杀
    antidote_privileged: bool = False  # 解药 on a 特权身份
    pure_privileged: bool = False  # 纯真 for a 特权身份
    poison_wolf: bool = False  # 毒药 on a 狼人 or the 吹笛者
    beheaded: bool = False  # 枭首 triggered

    def clone(self) -> ChenjiStats:
        return ChenjiStats(
            list(self.checks),
            list(self.kills),
            list(self.piped),
            list(self.killed_villagers),
            list(self.rebels_voted),
            self.shield_blocks,
            self.mute_blocks,
            self.bloodline_saves,
            self.heartbreak_effective,
            self.wither_effective,
            self.elder_hit,
            self.antidote_privileged,
            self.pure_privileged,
            self.poison_wolf,
            self.beheaded,
        )


@dataclass
class ChenjiState(RulesetState):
    # -- the whole game ---------------------------------------------------------------------
    lovers: list[str] = field(default_factory=list)  # 爱神之箭's pair (empty until 开局 settles)
    cupid: str | None = None  # the 丘比特 who shot it (复仇)
    killer: str | None = None  # who holds 杀人 (黑狼, then its heir); None: 失传 or 遗志
    lovers_kill: bool = False  # 遗志: the lovers hold 杀人
    scapegoat: str | None = None  # who holds 冤死 (替罪羊, then a 良民 heir)
    next_day: list[str] = field(default_factory=list)  # FAQ 4 notices for the next day's opening
    targeted: dict[str, list[str]] = field(default_factory=dict)  # skill -> its targets (整局只能一次)
    bitten_pairs: list[int] = field(default_factory=list)  # 撕咬: the pairs of nights used
    slander: SlanderState = SlanderState()  # 诽谤者 (`slanderer.py`; its `hit` belongs to this phase)
    nun: NunState = NunState()  # 修女 (`nun.py`)
    award_votes: dict[str, str] = field(default_factory=dict)  # 评奖: voter -> nominee
    predictions: list[Prediction] = field(default_factory=list)  # 预想, in order
    sheets: dict[str, dict[str, str]] = field(default_factory=dict)  # 身份表: author -> {角色: 身份}
    stats: ChenjiStats = field(default_factory=ChenjiStats)
    # -- this phase (emptied by `new_phase`) -------------------------------------------------
    arrow: tuple[str, ...] | None = None  # 爱神之箭's two targets
    rejoin: str | None = None  # the 白狼 who chose 归群
    tonight: dict[str, tuple[str, str]] = field(default_factory=dict)  # skill -> (actor, target)
    used: list[tuple[str, str]] = field(default_factory=list)  # (skill, actor) posted tonight
    order: list[tuple[str, str, str]] = field(default_factory=list)  # (skill, actor, target) by arrival

    def clone(self) -> ChenjiState:
        return ChenjiState(
            list(self.lovers),
            self.cupid,
            self.killer,
            self.lovers_kill,
            self.scapegoat,
            list(self.next_day),
            {k: list(v) for k, v in self.targeted.items()},
            list(self.bitten_pairs),
            self.slander,  # immutable: shared
            self.nun,  # immutable: shared
            dict(self.award_votes),
            list(self.predictions),
            {k: dict(v) for k, v in self.sheets.items()},
            self.stats.clone(),
            self.arrow,
            self.rejoin,
            dict(self.tonight),
            list(self.used),
            list(self.order),
        )

    def new_phase(self) -> None:
        self.arrow = None
        self.rejoin = None
        self.tonight = {}
        self.used = []
        self.order = []
        self.slander = self.slander.next_phase()

    def reports(self) -> list[str]:
        return self.next_day


def ext(state: GameState) -> ChenjiState:
    """The 沉寂与取酒 data of a 沉寂与取酒 game."""
    data = state.ext
    if not isinstance(data, ChenjiState):
        raise TypeError(f"not a 沉寂与取酒 game: {type(data).__name__}")
    return data


@dataclass(slots=True)
class ChenjiSeat(CharacterState):
    """What 沉寂与取酒 remembers of one character (`Character.ext`)."""

    dying_cause: str | None = None  # 濒死: the cause he goes out by when the night settles
    feigned: bool = False  # 装傻 used: no vote (失去技能后立即出局)
    feign_count: int = 0  # 装傻 used this many times (成就：装傻)
    deducted: int = 0  # points deducted (扣分; 6 or more: no achievement points)

    def clone(self) -> ChenjiSeat:
        return ChenjiSeat(self.dying_cause, self.feigned, self.feign_count, self.deducted)


def seat(c: Character) -> ChenjiSeat:
    """沉寂与取酒's data of one character (made by `new_game`: `Ruleset.character_type`)."""
    data: ChenjiSeat = c.ext  # type: ignore[assignment]  # unchecked: asked for every voter
    return data
