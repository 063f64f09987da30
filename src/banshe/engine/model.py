"""Game state: generic characters (camp, lives, statuses, charges, typed per-seat data), phases, prompts."""

from __future__ import annotations

import copy
import random
import re
from dataclasses import dataclass, field
from typing import Any

from .commands import Command
from .events import Event

START = "start"
DAY = "day"
NIGHT = "night"

_PHASE_RE = re.compile(r"^第(\d+)([天夜])$")


class _NotPlain(Exception):
    """The data holds something `_copy_plain` does not copy itself; `copy.deepcopy` does."""


_ATOMS = frozenset({str, int, float, bool, type(None)})


def _copy_plain(x: Any, seen: set[int]) -> Any:
    t = type(x)
    if t in _ATOMS:
        return x
    if t is dict:
        if id(x) in seen:
            raise _NotPlain  # shared: deepcopy keeps the sharing
        seen.add(id(x))
        out = {}
        for k, v in x.items():
            if type(k) not in _ATOMS and not (type(k) is tuple and all(type(e) in _ATOMS for e in k)):
                raise _NotPlain
            out[k] = _copy_plain(v, seen)
        return out
    if t is list:
        if id(x) in seen:
            raise _NotPlain
        seen.add(id(x))
        return [_copy_plain(v, seen) for v in x]
    if t is set:
        if id(x) in seen:
            raise _NotPlain
        seen.add(id(x))
        for e in x:
            if type(e) not in _ATOMS and not (type(e) is tuple and all(type(i) in _ATOMS for i in e)):
                raise _NotPlain
        return set(list(x))  # as deepcopy rebuilds a set (same iteration order)
    if t is tuple:
        items = [_copy_plain(v, seen) for v in x]
        # like deepcopy: a tuple whose items are all kept is kept
        return x if all(a is b for a, b in zip(items, x, strict=True)) else tuple(items)
    raise _NotPlain


def deep_copy(data: Any) -> Any:
    """`copy.deepcopy(data)`, faster for plain data (dicts, lists, sets, tuples of str/int/float/
    bool/None without shared containers), the shape of acts and flags; anything else goes
    to `copy.deepcopy`."""
    try:
        return _copy_plain(data, set())
    except _NotPlain:
        return copy.deepcopy(data)


@dataclass(frozen=True, slots=True)
class Phase:
    """开局, then 第1天, 第1夜, 第2天, … — or, on a night-first board (`Ruleset.night_first`),
    开局, 第1夜, 第1天, 第2夜, … Equal phases have the same kind and number; `night_first` only
    orders them (`ordinal`, `next`)."""

    kind: str
    number: int = 0
    # the order this phase belongs to (`Ruleset.night_first`): not part of equality
    night_first: bool = field(default=False, repr=False, compare=False, hash=False)
    # the label, computed once (every event carries it)
    _label: str = field(init=False, repr=False, compare=False, hash=False)
    # 开局 0, 第1天 1, 第1夜 2, 第2天 3 … — night first: 开局 0, 第1夜 1, 第1天 2, 第2夜 3 …
    # (computed once: the rules compare phases by it)
    ordinal: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        label = "开局" if self.kind == START else f"第{self.number}{'天' if self.kind == DAY else '夜'}"
        object.__setattr__(self, "_label", label)
        first = NIGHT if self.night_first else DAY
        ordinal = 0 if self.kind == START else 2 * self.number - (1 if self.kind == first else 0)
        object.__setattr__(self, "ordinal", ordinal)

    @property
    def label(self) -> str:
        return self._label

    def next(self) -> Phase:
        cache = _NEXT_NIGHT_FIRST if self.night_first else _NEXT_PHASE
        found = cache.get(self)
        if found is None:
            if self.night_first:
                if self.kind == START:
                    found = Phase(NIGHT, 1, True)
                elif self.kind == NIGHT:
                    found = Phase(DAY, self.number, True)
                else:
                    found = Phase(NIGHT, self.number + 1, True)
            elif self.kind == START:
                found = Phase(DAY, 1)
            elif self.kind == DAY:
                found = Phase(NIGHT, self.number)
            else:
                found = Phase(DAY, self.number + 1)
            if len(cache) < 1024:
                cache[self] = found
        return found

    @staticmethod
    def parse(label: str, night_first: bool = False) -> Phase:
        if label in ("开局", "第零晚", "第0夜"):
            return Phase(START, 0, night_first)
        m = _PHASE_RE.match(label)
        if not m or int(m.group(1)) < 1:
            raise ValueError(f"未知的阶段名：{label}")
        return Phase(DAY if m.group(2) == "天" else NIGHT, int(m.group(1)), night_first)

    def __str__(self) -> str:
        return self.label


# `Phase.next`, made once per phase (phases are immutable values), one table per order
_NEXT_PHASE: dict[Phase, Phase] = {}
_NEXT_NIGHT_FIRST: dict[Phase, Phase] = {}


class CharacterState:
    """A ruleset's own typed data of one character (`Character.ext`): what its skills remember of
    that seat (沉寂与取酒's 装傻, 感染's infection …), typed so strict mypy checks it. A ruleset
    names its subclass in `Ruleset.character_type`; `new_game` makes one per seat. The engine
    copies it with `clone` and compares it by `fingerprint` (a dataclass's repr: every field)."""

    def clone(self) -> CharacterState:
        """An independent copy: no list, dict or set shared with `self`."""
        return CharacterState()

    def fingerprint(self) -> str:
        return repr(self)


class Cards:
    """A character's penalty cards as the engine counts them after merging (3 蓝 → 1 黄, 3 黄 →
    1 红), and how many 红牌 have been settled (each 红牌 is one 罚下)."""

    __slots__ = ("blue", "yellow", "red", "reds_settled")

    def __init__(self, blue: int = 0, yellow: int = 0, red: int = 0, reds_settled: int = 0) -> None:
        self.blue = blue
        self.yellow = yellow
        self.red = red
        self.reds_settled = reds_settled

    def _fields(self) -> tuple[int, int, int, int]:
        return (self.blue, self.yellow, self.red, self.reds_settled)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Cards):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Cards(blue={self.blue}, yellow={self.yellow}, red={self.red}, reds_settled={self.reds_settled})"

    def clone(self) -> Cards:
        return Cards(self.blue, self.yellow, self.red, self.reds_settled)


# `Character.last_words`: the 遗言 right
NO_RIGHT, RIGHT_OPEN, RIGHT_USED = "", "open", "used"


class Character:
    """One seat's character: the engine's own per-seat state, typed (life, statuses, charges, the
    遗言 right, penalty cards), and the ruleset's (`ext`, a `CharacterState`). A plain class with
    its own `__init__` rather than a dataclass: the compiled build runs a dataclass's generated
    `__init__` as interpreted code (one per seat per game, and per clone)."""

    __slots__ = (
        "name",
        "seat",
        "role",
        "camp",
        "alive",
        "lives",
        "statuses",
        "charges",
        "skills_lost",
        "last_words",
        "last_words_phase",
        "cards",
        "ext",
    )

    def __init__(
        self,
        name: str,
        seat: int,
        role: str,
        camp: str,
        alive: bool = True,
        lives: int = 1,
        statuses: set[str] | None = None,
        charges: dict[str, int] | None = None,
        skills_lost: bool = False,
        last_words: str = NO_RIGHT,
        last_words_phase: int = 0,
        cards: Cards | None = None,
        ext: CharacterState | None = None,
    ) -> None:
        self.name = name
        self.seat = seat
        self.role = role
        self.camp = camp
        self.alive = alive
        self.lives = lives
        self.statuses: set[str] = set() if statuses is None else statuses
        self.charges: dict[str, int] = {} if charges is None else charges
        self.skills_lost = skills_lost
        self.last_words = last_words  # the 遗言 right: NO_RIGHT, RIGHT_OPEN or RIGHT_USED
        self.last_words_phase = last_words_phase  # the phase (ordinal) it was granted in
        self.cards = cards  # None: no card yet
        self.ext = ext  # the ruleset's data of this seat (`Ruleset.character_type`), or None

    def _fields(self) -> tuple[Any, ...]:
        return (
            self.name,
            self.seat,
            self.role,
            self.camp,
            self.alive,
            self.lives,
            self.statuses,
            self.charges,
            self.skills_lost,
            self.last_words,
            self.last_words_phase,
            self.cards,
            self.ext.fingerprint() if self.ext is not None else None,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Character):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it was

    def __repr__(self) -> str:
        return (
            f"Character(name={self.name!r}, seat={self.seat!r}, role={self.role!r}, camp={self.camp!r}, "
            f"alive={self.alive!r}, lives={self.lives!r}, statuses={self.statuses!r}, charges={self.charges!r}, "
            f"skills_lost={self.skills_lost!r}, last_words={self.last_words!r}, "
            f"last_words_phase={self.last_words_phase!r}, cards={self.cards!r}, ext={self.ext!r})"
        )

    def has_charge(self, skill: str) -> bool:
        return self.charges.get(skill, 0) > 0

    def spend(self, skill: str) -> None:
        self.charges[skill] = self.charges.get(skill, 0) - 1

    def clone(self) -> Character:
        return Character(
            self.name,
            self.seat,
            self.role,
            self.camp,
            self.alive,
            self.lives,
            set(self.statuses),
            dict(self.charges),
            self.skills_lost,
            self.last_words,
            self.last_words_phase,
            self.cards.clone() if self.cards is not None else None,
            self.ext.clone() if self.ext is not None else None,
        )


@dataclass(frozen=True, slots=True)
class Prompt:
    """A reactive question to one character (最后一枪, 殉职, 装傻, 指认), answered with `skill`."""

    actor: str
    skill: str
    reason: str = ""
    data: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        for k, v in self.data:
            if k == key:
                return v
        return default


@dataclass
class RulesetState:
    """A ruleset's own typed game data (`GameState.ext`), typed so strict mypy checks it. A
    ruleset names its subclass (a dataclass) in `Ruleset.state_type`; `new_game` makes one per
    game. The engine copies it with `clone` (every `step`), compares it by `fingerprint` (a
    dataclass's repr: every field) and calls `new_phase` when a phase begins, where it empties
    `acts`. This base holds nothing (a ruleset still on the untyped `acts`/`flags`)."""

    def clone(self) -> RulesetState:
        """An independent copy: no list, dict or set shared with `self`."""
        return RulesetState()

    def new_phase(self) -> None:
        """Forget what belongs to the phase that ended (this phase's submissions)."""

    def fingerprint(self) -> str:
        return repr(self)

    def reports(self) -> list[str] | None:
        """The ruleset's typed queue of notices for the next day's opening, which `day_opening`
        and `night_close` read and empty; None: they use `flags[Ruleset.report_key]`."""
        return None


def situation_of(kind: str, stage: int, settling: bool) -> int:
    """The legal moves' table key less the life bit (`actions.legal_actions`): night stage × 16,
    + 8 at night or 4 by day (开局 0), + 2 once the phase has closed (关门)."""
    return stage * 16 + (8 if kind == NIGHT else 4 if kind == DAY else 0) + (2 if settling else 0)


@dataclass(slots=True)
class Out:
    player: str
    phase: Phase
    cause: str


@dataclass(slots=True)
class GameState:
    """The whole state of one game. `log` is every event so far; `commands` every accepted input.
    `rules` is the game's `Ruleset`, held by reference (the engine never looks one up by name).
    It is typed `Any` here only because `ruleset.py` imports this module and a compiled (mypyc)
    dataclass needs the classes of its fields when it is created: read it as
    `rs: Ruleset = state.rules`."""

    rules: Any
    seed: int
    options: dict[str, Any]
    order: tuple[str, ...]
    chars: dict[str, Character]
    phase: Phase = Phase(START)
    stage: int = 0
    settling: bool = False
    agenda: list[tuple[Any, ...]] = field(default_factory=list)
    prompts: list[Prompt] = field(default_factory=list)
    prompt_raised: bool = False
    sheriff: str | None = None
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)
    camps_in_game: list[str] = field(default_factory=list)
    lost_camps: list[str] = field(default_factory=list)
    winner: str | None = None
    ended_in: Phase | None = None
    outs: list[Out] = field(default_factory=list)
    # the day's votes: voter -> target (or 弃权); who used 改票; the posting trail for 竞岗
    votes: dict[str, str] = field(default_factory=dict)
    vote_changed: set[str] = field(default_factory=set)
    vote_trail: list[tuple[str, str | None, str]] = field(default_factory=list)
    accelerated: bool = False
    # this phase's submitted skills (ruleset-defined keys), and game-long ruleset data
    acts: dict[str, Any] = field(default_factory=dict)
    flags: dict[str, Any] = field(default_factory=dict)
    # the ruleset's typed data (`Ruleset.state_type`); rulesets move off acts/flags into it
    ext: RulesetState = field(default_factory=RulesetState)
    rng: random.Random = field(default_factory=random.Random)
    forced_draws: list[Any] = field(default_factory=list)
    log: list[Event] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    # `living()`'s memo: (len(outs) when made, the names); not part of the position (an out is
    # the only way a character leaves the game: `put_out` appends to `outs` as it does)
    living_memo: tuple[int, tuple[str, ...]] = field(default=(-1, ()), repr=False, compare=False)
    # phase kind, night stage and 关门 as one small int (`situation_of`), kept by the engine
    # wherever they change (`situate`): the legal moves' table key, read on every ask
    situation: int = field(default=0, repr=False, compare=False)
    # `winner is not None`, kept by the engine where the winner is declared (`declare_win`): read
    # by the bots' scheduler before every seat it asks (a plain read, not a property call)
    over: bool = field(default=False, repr=False, compare=False)

    # -- queries -------------------------------------------------------------------------
    @property
    def ruleset(self) -> str:
        """The ruleset's id (what reports, exports and the registry use)."""
        return str(self.rules.id)

    def char(self, name: str) -> Character:
        return self.chars[name]

    def alive(self) -> list[Character]:
        return [c for c in self.chars.values() if c.alive]

    def alive_names(self) -> list[str]:
        return [c.name for c in self.chars.values() if c.alive]

    def living(self) -> tuple[str, ...]:
        """`alive_names()` as a tuple, made once per out (the bots' and pages' candidates)."""
        memo = self.living_memo
        if memo[0] == len(self.outs):
            return memo[1]
        names = tuple(c.name for c in self.chars.values() if c.alive)
        self.living_memo = (len(self.outs), names)
        return names

    def with_role(self, role: str) -> list[Character]:
        return [c for c in self.chars.values() if c.role == role]

    def is_alive(self, name: str) -> bool:
        c = self.chars.get(name)
        return c is not None and c.alive

    def situate(self) -> None:
        """Recompute `situation` after the phase, the night stage or 关门 changed."""
        kind = self.phase.kind
        self.situation = situation_of(kind, self.stage if kind == NIGHT else 0, self.settling)

    def clone(self) -> GameState:
        rng = random.Random.__new__(random.Random)  # no seeding from os.urandom: setstate sets it all
        rng.setstate(self.rng.getstate())
        return GameState(
            rules=self.rules,
            seed=self.seed,
            options=dict(self.options),
            order=self.order,
            chars={k: c.clone() for k, c in self.chars.items()},
            phase=self.phase,
            stage=self.stage,
            settling=self.settling,
            agenda=list(self.agenda),
            prompts=list(self.prompts),
            prompt_raised=self.prompt_raised,
            sheriff=self.sheriff,
            groups=dict(self.groups),
            camps_in_game=list(self.camps_in_game),
            lost_camps=list(self.lost_camps),
            winner=self.winner,
            ended_in=self.ended_in,
            outs=[Out(o.player, o.phase, o.cause) for o in self.outs],
            votes=dict(self.votes),
            vote_changed=set(self.vote_changed),
            vote_trail=list(self.vote_trail),
            accelerated=self.accelerated,
            acts=deep_copy(self.acts),
            flags=deep_copy(self.flags),
            ext=self.ext.clone(),
            rng=rng,
            forced_draws=list(self.forced_draws),
            log=list(self.log),
            commands=list(self.commands),
            situation=self.situation,
            over=self.over,
        )

    def fingerprint(self) -> dict[str, Any]:
        """Everything that defines the game's position (for replay equality)."""
        return {
            "phase": self.phase.label,
            "stage": self.stage,
            "settling": self.settling,
            "agenda": list(self.agenda),
            "prompts": list(self.prompts),
            "sheriff": self.sheriff,
            "groups": dict(self.groups),
            "camps_in_game": list(self.camps_in_game),
            "lost_camps": list(self.lost_camps),
            "winner": self.winner,
            "ended_in": self.ended_in.label if self.ended_in else None,
            "outs": [(o.player, o.phase.label, o.cause) for o in self.outs],
            "votes": dict(self.votes),
            "vote_changed": sorted(self.vote_changed),
            "accelerated": self.accelerated,
            "acts": repr(self.acts),
            "flags": repr(self.flags),
            "ext": self.ext.fingerprint(),
            "chars": {
                n: (
                    c.role,
                    c.camp,
                    c.alive,
                    c.lives,
                    sorted(c.statuses),
                    sorted(c.charges.items()),
                    c.skills_lost,
                    c.last_words,
                    c.last_words_phase,
                    repr(c.cards),
                    c.ext.fingerprint() if c.ext is not None else None,
                )
                for n, c in self.chars.items()
            },
            "log": [(e.kind, e.phase, e.audience, dict(e.data), e.text) for e in self.log],
        }
