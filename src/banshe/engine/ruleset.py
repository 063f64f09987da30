"""What a ruleset provides: names as data, night stages as data, skills, and small hook functions."""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, final

from .commands import Command
from .model import CharacterState, GameState, Prompt, RulesetState

Check = Callable[[GameState, Command], None]
Apply = Callable[[GameState, Command], None]
Predicate = Callable[[GameState], Any]
Refusal = Callable[[GameState, Command], bool]
# a prompt skill's answer (`SkillSpec.answer`), run once its `check` has accepted the command
Answer = Callable[[GameState, Prompt, Command], None]
# what an unanswered prompt does when its time runs out (`SkillSpec.on_timeout`)
Lapse = Callable[[GameState, Prompt], None]
# one named step of settlement (`Task`), or what a night stage does once it closes
Settle = Callable[[GameState], None]
# a one-target skill's declared targets (`SkillSpec.candidates`): (state, actor) -> the names
Candidates = Callable[[GameState, str], Sequence[str]]

# Target shapes of a skill.
NO_TARGET = "none"
ONE_TARGET = "one"
MANY_TARGETS = "many"
FREE_TEXT = "text"
YES_NO = "yesno"
AMOUNT = "amount"
SUCCESSOR = "successor"  # one alive character, or 撕警徽
TEAR_BADGE = "撕警徽"


@dataclass(frozen=True, slots=True)
class NightStage:
    """One stage of a night, in the ruleset's order. A stage that does not open with the night
    waits until every earlier stage has closed (the 女巫 needs the kill target first)."""

    id: str
    name: str
    # the skills acting in this stage; a skill may instead name its stage (`SkillSpec.stage`),
    # and the engine adds it here when the ruleset is made
    skills: frozenset[str] = frozenset()
    opens_with_night: bool = True
    deadline: str = ""
    # what flows once the stage closes (预言's result, the 女巫's 通灵); None: nothing. The
    # engine runs it (`Ruleset.on_stage_closed`)
    on_close: Settle | None = None


@dataclass(frozen=True, slots=True)
class Task:
    """One named step of a phase's settlement (`Ruleset.settle`): the agenda holds `(name,)`
    and `run(state)` settles it. `when` (None: always) decides at 关门 whether the step is on
    that phase's agenda (品茗: 竞岗 on 第1天, the vote on the later days)."""

    name: str
    run: Settle
    when: Predicate | None = None


def first_day(state: GameState) -> bool:
    """A `Task.when`: the phase is 第1天 (品茗 and 感染 elect the sheriff then, 竞岗)."""
    return state.phase.number == 1


def later_day(state: GameState) -> bool:
    """A `Task.when`: a day after 第1天 (the ordinary vote)."""
    return state.phase.number != 1


def alive_targets(state: GameState, actor: str) -> Sequence[str]:
    """`SkillSpec.candidates`: any character still in the game, the actor included."""
    return state.living()


def other_alive_targets(state: GameState, actor: str) -> Sequence[str]:
    """`SkillSpec.candidates`: any other character still in the game (…选择一名除自己之外的角色)."""
    return [n for n in state.living() if n != actor]


@dataclass(frozen=True, slots=True)
class Role:
    """One identity as data: its id, Chinese name, the camp it starts in, its lives, the skills
    it holds (posted skills, ids of `Ruleset.skills`) and its starting `charges` — the uses of
    its <限定> skills, and a <强制> skill it can lose (女巫's 通灵) as a count of 1. A ruleset
    that declares its roles gets from the engine: `role_names`, `skill_holders()` (a skill ->
    the roles that list it) and each character's starting camp, lives and charges."""

    id: str
    name: str
    camp: str
    lives: int = 1
    skills: tuple[str, ...] = ()
    charges: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class SkillSpec:
    """A skill a character posts. `check` raises IllegalCommand; `apply` changes the state.

    A night skill names its night stage by id in `stage` (or is listed in `NightStage.skills`);
    the engine derives the stage index from either. A prompt skill (`prompt=True`) declares
    `answer(state, prompt, cmd)`, run once `check` has accepted the answer (`check` holds every
    refusal of an answer and changes nothing; the answered prompt is no longer at the head of
    `state.prompts` when `answer` runs), and `on_timeout(state, prompt)`, what happens when it
    is not answered in time (None: nothing). Its `apply` is never run. Only a prompt skill
    whose `check` refuses every answer may leave `answer` out (品茗's 装傻, settled by the
    director).

    A one-target skill may declare its `candidates(state, actor)`: in seating order, exactly the
    targets `check` accepts once it accepts the actor at all (its other refusals do not depend
    on the target), each fitting the shape (in the game, unless `targets_may_be_out`). The
    engine then offers them (the bots' moves, the pages' choices) after one `check`, instead
    of checking every seat; `alive_targets` and `other_alive_targets` are the usual two."""

    id: str
    name: str
    phases: frozenset[str]
    shape: str
    check: Check
    apply: Apply
    prompt: bool = False  # answers a prompt (最后一枪, 殉职 …)
    actor_may_be_out: bool = False
    # only the members of this group may use it (狼群's 杀人): `check` refuses everyone else, so
    # the legal moves skip it for them without asking ("": no such promise)
    members_of: str = ""
    # the skill is open only while this holds (品茗's 拍刀: the 拍刀环节): `check` refuses it
    # otherwise, so the legal moves skip it without asking (None: no such promise)
    open_while: Predicate | None = None
    # only a character out of the game may post it (遗言): `check` refuses every one still in it,
    # so the legal moves skip it for them without asking
    only_out: bool = False
    targets_may_be_out: bool = False
    audience: str = "self"  # who sees that it was posted: self | public | group:<name>
    # a quick test for `legal_commands`: True only where `check` refuses the command (so the
    # bots' mask skips raising an exception for it); False or None: `check` decides
    refuses: Refusal | None = None
    # `check` refuses exactly what `members_of` and `refuses` refuse (品茗's 决战, 投降): the legal
    # moves then skip calling it (False: `check` decides the rest)
    refuses_is_check: bool = False
    # posted after the game has ended (沉寂与取酒's 评奖); refused while the game goes on
    after_game: bool = False
    stage: str = ""  # the id of the night stage it acts in ("": none, or listed by the stage)
    answer: Answer | None = None
    on_timeout: Lapse | None = None
    candidates: Candidates | None = None
    # what the skill is for, for bots that play any board (`INTENTS`: protect, attack, check;
    # "": none declared) — the bots choose by it, never by a skill's or a role's Chinese name
    intent: str = ""
    # once accepted it cannot be taken back (a potion, a shot): the pages ask for confirmation
    irreversible: bool = False
    # the chance a random bot takes it up whenever it is offered (1: as often as any other move);
    # below 1 for a skill that ends the game on the spot (品茗's 决战, 投降), which a random game
    # would otherwise take on its first night (`banshe.sim.agents.SparingAgent`)
    bot_chance: float = 1.0


# `SkillSpec.intent`s
PROTECT = "protect"
ATTACK = "attack"
INVESTIGATE = "check"
INTENTS = (PROTECT, ATTACK, INVESTIGATE)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    name: str
    default: Any
    description: str


@dataclass(frozen=True, slots=True)
class Condition:
    """A named win or loss predicate. A win predicate returns the winning camp or None; a loss
    predicate returns the camps it judges lost."""

    name: str
    test: Predicate


# The hooks a ruleset names (`Ruleset`'s hook fields): functions of the game state, the ruleset
# read from `state.rules` where one needs it
Gate = Callable[[GameState, Command], str | None]
Dealer = Callable[[int, random.Random, Mapping[str, Any]], list[str]]
RolesCheck = Callable[[Sequence[str]], None]
PhaseHook = Callable[[GameState], None]
OutTrigger = Callable[[GameState, str, str], None]
CampHook = Callable[[GameState, str], None]
SeatRefusal = Callable[[GameState, str], str | None]
Votable = Callable[[GameState], Sequence[str]]
VoteWeight = Callable[[GameState, str], float]
SeatHook = Callable[[GameState, str], None]
Deduct = Callable[[GameState, str, int], None]
Review = Callable[[GameState, Mapping[str, Any] | None], list[str]]
PostRefusal = Callable[[GameState, str, str], str | None]
Targets = Callable[[GameState, str, str], list[tuple[str, ...]]]
ReviewText = Callable[[GameState], list[str]]
IdentityText = Callable[[GameState, str], str]
StageFor = Callable[[GameState, Command], int | None]


# -- the engine's default hooks (what a ruleset that names none gets) ---------------------------
def no_gate(state: GameState, cmd: Command) -> str | None:
    """`Ruleset.gate`: no reason to refuse every command for now."""
    return None


def no_roles_check(roles: Sequence[str]) -> None:
    """`Ruleset.validate_roles`: every dealt set of identities is possible."""


def standard_setup(state: GameState) -> None:
    """`Ruleset.setup` for declared `roles` (camps, lives and charges are already given): every
    camp of `camp_names` is in the game, and each character is told its identity
    (`identity_text`). Without declared roles: nothing."""
    rs: Ruleset = state.rules
    if not rs.roles:
        return
    from .core import notice

    state.camps_in_game = list(rs.camp_names)
    for c in state.chars.values():
        notice(state, c.name, rs.identity_text(state, c.name), role=rs.role_name(c.role), camp=c.camp)


def nothing(state: GameState) -> None:
    """`Ruleset.on_phase_start`: no 公示, no resets."""


def no_out_trigger(state: GameState, name: str, cause: str) -> None:
    """`Ruleset.announce_out`, `Ruleset.on_out`: an out announces and triggers nothing more."""


def no_camp_hook(state: GameState, camp: str) -> None:
    """`Ruleset.on_camp_lost`: nothing follows a camp's loss."""


def no_refusal(state: GameState, name: str) -> str | None:
    """`Ruleset.can_vote`, `Ruleset.can_be_voted`: every alive seat may vote and be voted."""
    return None


def votable_seats(state: GameState) -> Sequence[str]:
    """`Ruleset.votable`: the alive seats, in seating order, that `can_be_voted` accepts."""
    can_be_voted = state.rules.can_be_voted
    return [c.name for c in state.chars.values() if c.alive and can_be_voted(state, c.name) is None]


def one_vote(state: GameState, voter: str) -> float:
    """`Ruleset.vote_weight`: every vote counts once."""
    return 1.0


def no_seat_hook(state: GameState, name: str) -> None:
    """`Ruleset.red_card`: a 红牌 that comes due changes nothing more."""


def no_deductions(state: GameState, name: str, points: int) -> None:
    """`Ruleset.on_deduct`: the ruleset has no 扣分."""
    from .commands import IllegalCommand

    raise IllegalCommand("本规则没有扣分制度")


def no_review(state: GameState, after: Mapping[str, Any] | None) -> list[str]:
    """`Ruleset.review`: no extra 复盘 lines."""
    return []


def no_post_refusal(state: GameState, author: str, text: str) -> str | None:
    """`Ruleset.check_post`: any thread post is speech."""
    return None


def alive_target_tuples(state: GameState, actor: str, skill: str) -> list[tuple[str, ...]]:
    """`Ruleset.legal_targets`: each alive character as a one-target tuple."""
    return [(n,) for n in state.alive_names()]


def no_review_text(state: GameState) -> list[str]:
    """`Ruleset.review_text`: no extra lines."""
    return []


def role_and_camp_text(state: GameState, name: str) -> str:
    """`Ruleset.identity_text`: 你的身份是<identity>（<camp>）。"""
    rs: Ruleset = state.rules
    c = state.char(name)
    return f"你的身份是{rs.role_name(c.role)}（{rs.camp_name(c.camp)}）。"


def skill_stage(state: GameState, cmd: Command) -> int | None:
    """`Ruleset.stage_for`: the command's skill's night stage (`Ruleset.stage_of`)."""
    return state.rules.stage_of(cmd.skill)  # type: ignore[no-any-return]  # `state.rules` is typed Any


# a row of `legal_commands`' table: (skill id, spec, needs the full `is_legal`, needs the
# `stage_for` check, target shape, how its options are found (`actions.BY_TARGETS`, `ONE_CHECK` …), its
# `members_of`); the rows for all skills, and for the non-prompt ones
SkillRow = tuple[str, SkillSpec, bool, bool, str, int, str]
SkillRows = tuple[list[SkillRow], list[SkillRow]]


@final  # a ruleset is one `Ruleset(...)`: its hooks are declared fields, never overrides
@dataclass
class Ruleset:
    """A ruleset: one `Ruleset(...)` made from a declaration (roles, skills, night stages,
    settlement steps, win and loss conditions …) and the hook functions it names for what is
    not data (`gate`, `setup`, `on_out` …: each a declared field, the engine's default where
    the ruleset names none); a ruleset package registers one instance. Nothing subclasses it:
    the methods read the declarations for the engine."""

    id: str = ""
    name: str = ""
    aliases: tuple[str, ...] = ()
    # the identities as data (`Role`); a ruleset that declares them leaves `role_names` to the
    # engine. A ruleset without them names its roles in `role_names` and gives the starting
    # camps and charges in its `setup` (its `skill_holders` is then {}).
    roles: tuple[Role, ...] = ()
    role_names: Mapping[str, str] = field(default_factory=dict)
    camp_names: Mapping[str, str] = field(default_factory=dict)
    status_names: Mapping[str, str] = field(default_factory=dict)
    skill_aliases: Mapping[str, str] = field(default_factory=dict)
    night_stages: tuple[NightStage, ...] = ()
    # a phase's settlement as named steps, by phase kind (开局/第N天/第N夜's `Phase.kind`); the
    # engine reads it (`settlement`, `run_task`). A kind without steps settles nothing.
    settle: Mapping[str, tuple[Task, ...]] = field(default_factory=dict)
    # the standard deal (role ids, one per seat) where the ruleset names no `dealer`
    deck: tuple[str, ...] = ()
    # the `deck` is the ruleset's only board (品茗: 14 characters): the director service refuses a
    # game with another deck, 自定义板子 included; the engine still seats a smaller cast (scenarios)
    deck_is_fixed: bool = False
    options: Mapping[str, OptionSpec] = field(default_factory=dict)
    skills: Mapping[str, SkillSpec] = field(default_factory=dict)
    min_players: int = 1
    max_players: int = 99
    last_words: int = 0
    # the phase after 开局: False 第1天 (then 第1夜, 第2天 …), True 第1夜 (then 第1天, 第2夜 …)
    night_first: bool = False
    loss_conditions: Sequence[Condition] = ()
    win_conditions: Sequence[Condition] = ()
    # False (the shared rulings): an out is judged before its triggers run, so a win it makes
    # stops them. True: the out and what `on_out` does at once are one change for the check
    # (感染: 情侣的出局与其引起的殉情为一次变化)
    out_and_triggers_one_change: bool = False
    # where the ruleset queues a night's notices for the next day's opening (`day_opening`)
    report_key: str = "report"
    # other names of identities (沉寂与取酒's 爱神 for 丘比特), read by `role_id`
    role_aliases: Mapping[str, str] = field(default_factory=dict)
    # camps that are a display name only and never win (感染's 无阵营): left out of `playing_camps`
    display_only_camps: frozenset[str] = frozenset()
    # skills a character may come to hold whatever its identity (感染's 咬噬/吸血, by infection):
    # `skill_holders` promises no holders for them
    skills_held_by_anyone: frozenset[str] = frozenset()
    # the package that declares the ruleset, where its `bots` and `effects` modules are found
    # (`registry.ruleset_module`); "": none
    package: str = ""
    # what a board declares beyond these fields (`banshe.library.board.Board`: its roles'
    # parameters and hooks …), read by the functions it names as `state.rules.board`; None for
    # a ruleset written as code
    board: Any = None

    # -- the hooks: the functions the ruleset names for what is not data; one it leaves out is
    # the engine's default named here. The engine calls each as `rs.<hook>(...)`; a function
    # that needs its ruleset reads `state.rules` (or closes over what it needs).

    # A reason to refuse every command for now (拍刀环节 closes the thread), or None.
    gate: Gate = no_gate
    # The identities to deal for a game with these options, `(count, rng, options)` (the engine
    # shuffles them); None: the declared `deck` (`deal_with`).
    dealer: Dealer | None = None
    # Raise ValueError (Chinese) when a dealt set of identities is impossible.
    validate_roles: RolesCheck = no_roles_check
    # Give characters their camps, lives and charges; form groups; send identities.
    setup: PhaseHook = standard_setup
    # Day-start 公示 and per-phase resets.
    on_phase_start: PhaseHook = nothing
    # An out's own announcements (沉寂与取酒's 死士出局！): part of the out, not settlement after
    # it — made before win/loss is judged, so also when the out wins the game.
    announce_out: OutTrigger = no_out_trigger
    # Triggers of an out: 殉情, prompts (最后一枪, 殉职), 遗言 rights.
    on_out: OutTrigger = no_out_trigger
    # A camp has just been judged lost (before the win conditions are checked).
    on_camp_lost: CampHook = no_camp_hook
    # A reason a seat may not vote, or may not be voted, now (None: it may).
    can_vote: SeatRefusal = no_refusal
    can_be_voted: SeatRefusal = no_refusal
    # The alive seats, in seating order, that `can_be_voted` accepts (the bots' vote targets;
    # read, never changed): a ruleset may name one that computes the same answer faster.
    votable: Votable = votable_seats
    vote_weight: VoteWeight = one_vote
    # A 红牌 that has come due (罚下).
    red_card: SeatHook = no_seat_hook
    # A director's 扣分 `(state, name, points)`.
    on_deduct: Deduct = no_deductions
    # Extra 复盘 lines for a finished game (an achievement or coin table …). Its second argument
    # holds what happens after the game ends (a scenario's `review` block: 评奖 votes …) or None.
    review: Review = no_review
    # A reason to refuse a thread post `(state, author, text)` (沉寂与取酒's 癫狂 speech rule), or None.
    check_post: PostRefusal = no_post_refusal
    # Candidate target tuples for a bot to try; each is still checked by the engine.
    legal_targets: Targets = alive_target_tuples
    # Extra lines for the 复盘 (demo, director's review), e.g. 感染's infection chain.
    review_text: ReviewText = no_review_text
    identity_text: IdentityText = role_and_camp_text
    # The night stage a command belongs to (感染: 穆图's 咬噬 settles before a 狼人's). It
    # depends on the actor and the skill only, never on the targets (`legal_commands` asks it
    # once per skill).
    stage_for: StageFor = skill_stage

    # the ruleset's typed game data (`GameState.ext`), made once per game by `new_game`
    state_type: type[RulesetState] = RulesetState
    # its typed data of each seat (`Character.ext`: one made per seat by `new_game`; None: none)
    character_type: type[CharacterState] | None = None
    # tables the engine derives from the declaration, once per ruleset (not part of it)
    # (every derived table has a default_factory: a compiled dataclass sets no plain default
    # of an init=False field)
    stage_table_for: tuple[NightStage, ...] = field(default_factory=tuple, init=False, repr=False, compare=False)
    stage_table: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    # `legal_actions`' rows: the actor's role -> its situation (phase kind, night stage, life, 关门)
    legal_rows: dict[str, dict[int, SkillRows]] = field(default_factory=dict, init=False, repr=False, compare=False)
    role_table: dict[str, Role] = field(default_factory=dict, init=False, repr=False, compare=False)
    holders_table: dict[str, frozenset[str]] = field(default_factory=dict, init=False, repr=False, compare=False)
    task_table: dict[str, Settle] = field(default_factory=dict, init=False, repr=False, compare=False)
    promise_table: dict[str, frozenset[str]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._derive_stages()
        self._derive_tasks()
        if not self.roles:
            return
        self.role_table = {r.id: r for r in self.roles}
        if len(self.role_table) != len(self.roles):
            raise ValueError(f"{self.name}: duplicate role ids")
        if not self.role_names:
            self.role_names = {r.id: r.name for r in self.roles}
        for r in self.roles:
            for sid in r.skills:
                if sid not in self.skills:
                    raise ValueError(f"{self.name}: role {r.id} holds an undeclared skill {sid}")
        # a skill -> the roles that list it, in the order skills are declared
        self.holders_table = {
            sid: frozenset(r.id for r in self.roles if sid in r.skills)
            for sid in self.skills
            if any(sid in r.skills for r in self.roles)
        }
        self.promise_table = {
            sid: roles for sid, roles in self.holders_table.items() if sid not in self.skills_held_by_anyone
        }

    def _derive_stages(self) -> None:
        """Add each skill that names its `stage` to that stage's `skills`."""
        ids = [st.id for st in self.night_stages]
        for sid, spec in self.skills.items():
            if spec.stage and spec.stage not in ids:
                raise ValueError(f"{self.name}: skill {sid} names an undeclared night stage {spec.stage}")
        if any(spec.stage for spec in self.skills.values()):
            self.night_stages = tuple(
                replace(st, skills=st.skills | {sid for sid, spec in self.skills.items() if spec.stage == st.id})
                for st in self.night_stages
            )

    def _derive_tasks(self) -> None:
        """A task name -> its function, over every phase kind's `settle` steps."""
        table: dict[str, Settle] = {}
        for tasks in self.settle.values():
            for task in tasks:
                if task.name == "advance":
                    raise ValueError(f"{self.name}: the settlement step name 'advance' is the engine's")
                known = table.setdefault(task.name, task.run)
                if known is not task.run:
                    raise ValueError(f"{self.name}: two settlement steps named {task.name}")
        self.task_table = table

    # -- names ------------------------------------------------------------------------------
    def role_name(self, role: str) -> str:
        return self.role_names.get(role, role)

    def camp_name(self, camp: str) -> str:
        return self.camp_names.get(camp, camp)

    def playing_camps(self) -> list[str]:
        """The camps that can win (reports list these): `camp_names` less `display_only_camps`."""
        return [camp for camp in self.camp_names if camp not in self.display_only_camps]

    def role_id(self, name: str) -> str | None:
        alias = self.role_aliases.get(name)
        if alias:
            return alias
        if name in self.role_names:
            return name
        for rid, zh in self.role_names.items():
            if zh == name:
                return rid
        return None

    def camp_id(self, name: str) -> str | None:
        if name in self.camp_names:
            return name
        for cid, zh in self.camp_names.items():
            if zh == name:
                return cid
        return None

    def skill_name(self, skill: str) -> str:
        from .commands import ENGINE_SKILL_NAMES

        spec = self.skills.get(skill)
        if spec:
            return spec.name
        return ENGINE_SKILL_NAMES.get(skill, skill)

    def stage_of(self, skill: str) -> int | None:
        """The first night stage that lists `skill` (indexed once per `night_stages` tuple)."""
        stages = self.night_stages
        if self.stage_table_for is not stages:
            index: dict[str, int] = {}
            for i, stage in enumerate(stages):
                for sid in stage.skills:
                    index.setdefault(sid, i)
            self.stage_table = index
            self.stage_table_for = stages
        return self.stage_table.get(skill)

    # -- the declarations, read for the engine ---------------------------------------------
    def on_stage_closed(self, state: GameState, stage: int) -> None:
        """What flows once night stage `stage` closes (通灵 …): the stage's declared `on_close`."""
        close = self.night_stages[stage].on_close
        if close is not None:
            close(state)

    def settlement(self, state: GameState) -> list[tuple[Any, ...]]:
        """The tasks that settle the current phase once it is closed, in order: the declared
        `settle` steps of the phase's kind whose `when` holds, as `(name,)`."""
        return [(t.name,) for t in self.settle.get(state.phase.kind, ()) if t.when is None or t.when(state)]

    def run_task(self, state: GameState, task: tuple[Any, ...]) -> None:
        """Settle one agenda task: the declared `settle` step of that name."""
        run = self.task_table.get(task[0])
        if run is None:
            raise NotImplementedError(task[0])
        run(state)

    def answer_prompt(self, state: GameState, prompt: Prompt, cmd: Command) -> None:
        """Check and apply the answer to `prompt` (raise IllegalCommand to refuse it): the
        skill's declared `check`, then its `answer` (`apply_legal`; `validate` checks the answer
        itself and applies it with `answer` alone)."""
        spec = self.skills.get(prompt.skill)
        if spec is None or spec.answer is None:
            raise NotImplementedError(prompt.skill)
        spec.check(state, cmd)
        spec.answer(state, prompt, cmd)

    def check_answer(self, state: GameState, prompt: Prompt, cmd: Command) -> None:
        """Raise IllegalCommand when `cmd` may not answer `prompt`, changing nothing: the
        skill's declared `check`, which holds every refusal of an answer."""
        self.skills[prompt.skill].check(state, cmd)

    def prompt_default(self, state: GameState, prompt: Prompt) -> None:
        """What happens when `prompt` is not answered in time: the skill's declared `on_timeout`
        (none: nothing)."""
        spec = self.skills.get(prompt.skill)
        if spec is not None and spec.on_timeout is not None:
            spec.on_timeout(state, prompt)

    # -- the deal and the identities -------------------------------------------------------
    def deal(self, count: int, rng: random.Random) -> list[str]:
        """The identities to deal with the options' defaults (`deal_with`)."""
        return self.deal_with(count, rng, {k: o.default for k, o in self.options.items()})

    def deal_with(self, count: int, rng: random.Random, options: Mapping[str, Any]) -> list[str]:
        """The identities to deal for a game with these options (the engine shuffles them): the
        declared `dealer`'s, or else the declared `deck`."""
        if self.dealer is not None:
            return self.dealer(count, rng, options)
        if not self.deck:
            raise NotImplementedError
        if count != len(self.deck):
            n = len(self.deck)
            raise ValueError(f"{self.name}的标准配置是{n}人，随机发身份需要恰好{n}名玩家")
        return list(self.deck)

    def skill_holders(self) -> Mapping[str, Collection[str]]:
        """Skill id -> the identities (role ids) `legal_targets` may offer it to: for an actor
        whose current role is not listed, `legal_targets(state, actor, skill)` is always empty,
        so `legal_commands` skips the skill without asking. A skill not listed: no such promise.
        Derived from the declared `roles` (every skill some role lists, less
        `skills_held_by_anyone`); {} without them."""
        return self.promise_table

    def starting_role(self, role: str) -> Role | None:
        """The declared `Role` of an identity (None: the ruleset declares no roles)."""
        return self.role_table.get(role)
