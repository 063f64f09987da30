"""Legal moves as action sets: one per skill, with its legal candidates (the bots' action mask).

`legal_actions(state, actor)` lists, in the ruleset's declaration order, every skill `actor`
may use now with the candidates the engine would accept: target names (a vote, a one-target
skill), target tuples, or answers (是/否, a text). A `Command` is made only for the option a
bot picks (`ActionSet.command(i)`); `legal_commands` (view.py) is the same list flattened.

The checks that depend on the actor and the skill only (alive, phase, 关门, night stage, the
ruleset's `gate`) are made once per skill; every candidate then goes through the rest of
`validate` (target shape, the skill's `refuses` and `check`), the same calls in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence

from .commands import ABSTAIN, CHANGE_VOTE, DIRECTOR_SKILLS, VOTE, Command, IllegalCommand
from .core import shape_refusal, validate
from .model import DAY, NIGHT, GameState, situation_of
from .ruleset import (
    FREE_TEXT,
    NO_TARGET,
    ONE_TARGET,
    SUCCESSOR,
    YES_NO,
    Ruleset,
    SkillRow,
    SkillRows,
    SkillSpec,
    skill_stage,
)

# what an action set's options are
NAMES = 0  # one target name each (a vote, a one-target skill)
TUPLES = 1  # a target tuple each
ANSWERS = 2  # a yes/no answer each (是/否)
TEXTS = 3  # a text each (遗言: the bots post a placeholder)

_TEXT = "……"  # the bots' placeholder text for a free-text skill
_TEXTS = [_TEXT]  # a free-text skill's one option (never changed)
# how a skill row's options are found (`_skill_rows`; `legal_actions` calls `_OPTIONS_BY_MODE[mode]`)
BY_TARGETS = 0  # the ruleset's `legal_targets`, each checked
ONE_CHECK = 1  # one `check` settles it: no targets, or declared candidates
BY_TEXT = 2  # a free-text skill: the bots' placeholder text
BY_ANSWER = 3  # a yes/no skill: each answer
_NO_TARGETS: list[tuple[str, ...]] = [()]  # the one option of a skill without targets (never changed)
_DAY_OPEN = situation_of(DAY, 0, False)  # `GameState.situation` by day before 关门 (the votes)


class ActionSet:
    """One skill of one actor with its legal options, in the order `legal_commands` lists them.
    `len()` counts the options; `command(i)` makes (or reuses) the command of option `i`."""

    __slots__ = ("actor", "skill", "kind", "options", "table")

    def __init__(
        self,
        actor: str,
        skill: str,
        kind: int,
        options: Sequence[str] | Sequence[tuple[str, ...]] | Sequence[bool],
        table: _Commands | None = None,
    ):
        self.actor = actor
        self.skill = skill
        self.kind = kind
        self.options = options
        self.table = table  # this actor's commands of this skill (`_commands`), once looked up

    def __len__(self) -> int:
        return len(self.options)

    def __repr__(self) -> str:
        return f"ActionSet({self.actor!r}, {self.skill!r}, {self.options!r})"

    @property
    def targets(self) -> list[tuple[str, ...]]:
        """Each option's target tuple (() for an answer or a text)."""
        if self.kind == NAMES:
            return [(t,) for t in self.options]  # type: ignore[misc]
        if self.kind == TUPLES:
            return list(self.options)  # type: ignore[arg-type]
        return [() for _ in self.options]

    def command(self, i: int) -> Command:
        option = self.options[i]
        kind = self.kind
        if kind in (NAMES, TUPLES):
            table = self.table
            if table is None:
                table = self.table = _commands(self.actor, self.skill)
            if kind == TUPLES:
                return table[option]  # type: ignore[index]
            cmd = table.single.get(option)  # type: ignore[arg-type]
            return cmd if cmd is not None else table.one(option)  # type: ignore[arg-type]
        if kind == ANSWERS:
            return _plain(self.actor, self.skill, answer=option)  # type: ignore[arg-type]
        return _plain(self.actor, self.skill, text=option)  # type: ignore[arg-type]

    def offers(self, cmd: Command) -> bool:
        """Whether `cmd` is one of this set's commands (equal to some `command(i)`)."""
        if cmd.skill != self.skill or cmd.actor != self.actor or cmd.amount is not None:
            return False
        kind = self.kind
        if kind in (NAMES, TUPLES):
            if cmd.text is not None or cmd.answer is not None:
                return False
            if kind == TUPLES:
                return cmd.targets in self.options
            return len(cmd.targets) == 1 and cmd.targets[0] in self.options
        if cmd.targets:
            return False
        if kind == ANSWERS:
            return cmd.text is None and cmd.answer is not None and cmd.answer in self.options
        return cmd.answer is None and cmd.text in self.options

    def commands(self) -> list[Command]:
        kind = self.kind
        if kind == NAMES:
            table = _commands(self.actor, self.skill)
            get = table.single.get
            return [get(t) or table.one(t) for t in self.options]  # type: ignore[arg-type]
        return [self.command(i) for i in range(len(self.options))]


def flatten(actions: Sequence[ActionSet]) -> list[Command]:
    """Every option of `actions` as a command, in order (`legal_commands`)."""
    if len(actions) == 1:
        return actions[0].commands()
    found: list[Command] = []
    for a in actions:
        found += a.commands()
    return found


def legal_actions(state: GameState, actor: str) -> list[ActionSet]:
    """Every skill `actor` may use now, with its legal options (director commands excluded).

    Candidates come from the ruleset's `legal_targets` (which returns nothing for a skill the
    actor does not hold); each one is checked exactly as the engine would check it."""
    if state.winner is not None:
        return []
    # (lookups by subscript inside `try`, which costs nothing until a key is missing: cheaper than
    # `dict.get` on every ask)
    try:
        me = state.chars[actor]
    except KeyError:
        return []
    rs: Ruleset = state.rules
    alive = me.alive
    situation = state.situation
    try:
        # `_skill_rows`, its lookup inline (asked for every seat)
        rows, unprompted = rs.legal_rows[me.role][situation + alive]
    except KeyError:
        kind = state.phase.kind
        rows, unprompted = _skill_rows(rs, kind, state.stage if kind == NIGHT else 0, alive, state.settling, me.role)
    head = state.prompts[0] if state.prompts else None
    if head is None or head.actor != actor:
        rows = unprompted  # no prompt skill can pass: the same rows in the same order without them
    found: list[ActionSet] = []
    if situation == _DAY_OPEN and alive:
        vote = _vote_set(state, rs, actor)
        if vote is not None:
            found.append(vote)
    if not rows:
        return found
    # this actor's command tables (`_commands`, its lookup once; plain dicts: CPython reads a
    # plain dict's items by subscript far faster than a dict subclass's)
    try:
        mine = _BY_ACTOR[actor]
    except KeyError:
        mine = _tables_of(actor)
    groups = state.groups
    for row in rows:
        # `validate`'s actor checks that the row does not settle: the head prompt's skill only,
        # the group's members only (`SkillSpec.members_of`), while `open_while` holds
        spec = row[1]
        if spec.prompt and (head is None or head.skill != row[0]):
            continue  # (`head.actor` is `actor`: `rows` holds prompt skills only then)
        group = row[6]
        if group and actor not in groups.get(group, ()):
            continue
        open_while = spec.open_while
        if open_while is not None and not open_while(state):
            continue
        action = _OPTIONS_BY_MODE[row[5]](state, rs, actor, row, mine)
        if action is not None:
            found.append(action)
    return found


def _vote_set(state: GameState, rs: Ruleset, actor: str) -> ActionSet | None:
    """The day's vote (or change of vote) of a living `actor` before 关门: `check_vote` with 弃权
    settles everything about the voter (the phase, 关门 and life are known here; a first vote
    cannot be a second one); the targets only need to be votable."""
    if actor in state.votes:
        if actor in state.vote_changed or state.accelerated:
            return None
        skill = CHANGE_VOTE
    else:
        skill = VOTE
    if rs.can_vote(state, actor) is not None:
        return None
    try:
        table = _BY_ACTOR[actor][skill]  # `_commands`, inline (plain dicts: read by subscript)
    except KeyError:
        table = _commands(actor, skill)
    if rs.gate(state, table.single.get(ABSTAIN) or table.one(ABSTAIN)):
        return None
    # one set per voter, skill and `votable` answer (kept by the ruleset while it holds: 品茗 a
    # day), over `[*votable, 弃权]`
    votable = rs.votable(state)
    memo = _VOTE_MEMO  # `_vote_options(votable)`, its memo read inline
    options = memo[1] if memo[0] is votable else _vote_options(votable)
    action = table.memo_set  # `table.action_set(NAMES, options)`, inline (every voter)
    if action is None or table.memo_for is not options:
        action = table.memo_set = ActionSet(actor, skill, NAMES, options, table)
        table.memo_for = options
    return action


def _checked_once(
    state: GameState, rs: Ruleset, actor: str, row: SkillRow, mine: dict[str, _Commands]
) -> ActionSet | None:
    """A skill one `check` settles: no targets, or the declared candidates (`SkillSpec.candidates`:
    the same set whichever of them is checked)."""
    sid, spec, exact, stage_check, shape, _mode, _group = row
    try:
        table = mine[sid]
    except KeyError:
        table = _commands(actor, sid)
    if shape == NO_TARGET:
        declared: Sequence[str] = _NO_TARGETS  # type: ignore[assignment]
        probe = table.bare
    else:
        declared = spec.candidates(state, actor)  # type: ignore[misc]
        if not declared:
            return None
        first = declared[0]
        probe = table.single.get(first) or table.one(first)
    if stage_check and _stage_refuses(state, rs, actor, sid):
        return None
    if exact:
        if not is_legal(state, probe):
            return None
    else:
        refuses = spec.refuses
        if (refuses is not None and refuses(state, probe)) or rs.gate(state, probe):
            return None
        if not spec.refuses_is_check:
            try:
                spec.check(state, probe)
            except IllegalCommand:
                return None
    action = table.memo_set  # `table.action_set(kind, declared)`, inline (the bots' hottest path)
    if action is None or table.memo_for is not declared:
        action = table.memo_set = ActionSet(actor, sid, TUPLES if shape == NO_TARGET else NAMES, declared, table)
        table.memo_for = declared
    return action


def _texted(state: GameState, rs: Ruleset, actor: str, row: SkillRow, mine: dict[str, _Commands]) -> ActionSet | None:
    """A free-text skill (遗言, 预想 …): the bots' placeholder text, checked once; the skill's
    quick refusal first (most seats have no 遗言 to leave)."""
    sid, spec, exact, stage_check, shape, _mode, _group = row
    try:
        table = mine[sid]
    except KeyError:
        table = _commands(actor, sid)
    c = table.texted  # the bots' placeholder text's command, once made
    if c is None:
        c = table.texted = _plain(actor, sid, text=_TEXT)
    if exact:
        if (stage_check and _stage_refuses(state, rs, actor, sid)) or not is_legal(state, c):
            return None
    else:
        # `_passes`, inline (every seat, every ask: 沉寂与取酒 has four such skills)
        refuses = spec.refuses
        if refuses is not None and refuses(state, c):
            return None
        if stage_check and _stage_refuses(state, rs, actor, sid):
            return None
        if rs.gate(state, c) or shape_refusal(state, spec.name, shape, c, spec.targets_may_be_out):
            return None
        try:
            spec.check(state, c)
        except IllegalCommand:
            return None
    return table.action_set(TEXTS, _TEXTS)


def _answered(state: GameState, rs: Ruleset, actor: str, row: SkillRow, mine: dict[str, _Commands]) -> ActionSet | None:
    """A yes/no skill: each answer checked."""
    sid, spec, exact, stage_check, _shape, _mode, _group = row
    if stage_check and _stage_refuses(state, rs, actor, sid):
        return None
    answers = []
    for answer in (True, False):
        c = _plain(actor, sid, answer=answer)
        if is_legal(state, c) if exact else _passes(state, spec, c):
            answers.append(answer)
    return ActionSet(actor, sid, ANSWERS, answers) if answers else None


def _targeted(state: GameState, rs: Ruleset, actor: str, row: SkillRow, mine: dict[str, _Commands]) -> ActionSet | None:
    """A skill with targets and no declared candidates: each of the ruleset's `legal_targets`
    goes through the rest of `validate` (target shape, the skill's refuses and check), without
    raising where it can be avoided. All of them are pure, so the order may differ: the
    ruleset's gate, which refuses a skill whatever its targets (`Ruleset.gate`), is asked once; a
    lone candidate's quick refusal (遗言) comes first."""
    sid, spec, exact, stage_check, shape, _mode, _group = row
    targets = rs.legal_targets(state, actor, sid)
    if not targets:
        return None
    if stage_check and _stage_refuses(state, rs, actor, sid):
        return None
    commands = _commands(actor, sid)
    if exact:
        picked = [t for t in targets if is_legal(state, commands[t])]
        return _target_set(actor, sid, picked) if picked else None
    refuses = spec.refuses
    first = commands[targets[0]]
    if refuses is not None and len(targets) == 1 and refuses(state, first):
        return None
    if rs.gate(state, first):
        return None
    if shape == ONE_TARGET:
        names = _one_targets(state, spec, targets, commands)
        return ActionSet(actor, sid, NAMES, names) if names else None
    picked = []
    check = spec.check
    may_be_out = spec.targets_may_be_out
    for t in targets:
        c = commands[t]
        if shape_refusal(state, spec.name, shape, c, may_be_out) is not None:
            continue
        if refuses is not None and refuses(state, c):
            continue
        try:
            check(state, c)
        except IllegalCommand:
            continue
        picked.append(t)
    return _target_set(actor, sid, picked) if picked else None


def _one_targets(
    state: GameState, spec: SkillSpec, targets: Sequence[tuple[str, ...]], commands: _Commands
) -> list[str]:
    """A one-target skill's accepted targets, by name (a tuple of another length fails the shape)."""
    chars = state.chars
    refuses = spec.refuses
    check = spec.check
    may_be_out = spec.targets_may_be_out
    single = commands.single
    names: list[str] = []
    for t in targets:
        if len(t) != 1:
            continue
        name = t[0]
        target = chars.get(name)
        if target is None or (not target.alive and not may_be_out):
            continue
        c = single.get(name) or commands.one(name)
        if refuses is not None and refuses(state, c):
            continue
        try:
            check(state, c)
        except IllegalCommand:
            continue
        names.append(name)
    return names


def _passes(state: GameState, spec: SkillSpec, c: Command) -> bool:
    """`validate`'s candidate checks after the actor/skill ones (all pure): the quick refusal
    first (遗言: most seats have none), then gate, shape and the skill's check."""
    refuses = spec.refuses
    if refuses is not None and refuses(state, c):
        return False
    if state.rules.gate(state, c):
        return False
    if shape_refusal(state, spec.name, spec.shape, c, spec.targets_may_be_out) is not None:
        return False
    try:
        spec.check(state, c)
    except IllegalCommand:
        return False
    return True


def _stage_refuses(state: GameState, rs: Ruleset, actor: str, skill: str) -> bool:
    """A declared `stage_for` (not the default `skill_stage`) puts the skill outside tonight's
    open stages (asked once the skill has candidates; both are pure)."""
    stage = rs.stage_for(state, _commands(actor, skill).bare)
    return stage is not None and (
        stage < state.stage or (stage > state.stage and not rs.night_stages[stage].opens_with_night)
    )


def _target_set(actor: str, skill: str, targets: list[tuple[str, ...]]) -> ActionSet:
    for t in targets:
        if len(t) != 1:
            return ActionSet(actor, skill, TUPLES, targets)
    return ActionSet(actor, skill, NAMES, [t[0] for t in targets])


def is_legal(state: GameState, cmd: Command) -> bool:
    """Whether `validate` accepts `cmd` now (a game going on)."""
    try:
        validate(state, state.rules, cmd)
    except IllegalCommand:
        return False
    return True


def _skill_rows(rs: Ruleset, kind: str, stage: int, alive: bool, settling: bool, role: str) -> SkillRows:
    """The skills `legal_actions` tries, in declaration order: prompt skills (any phase, any
    actor; checked against the head prompt) and the skills that pass `validate`'s actor/skill
    checks (phase, alive, 关门, night stage — by `stage_of` where the ruleset keeps the default
    `stage_for`, else flagged for a `stage_for` call), less the skills whose `legal_targets`
    is empty for the actor's role (`Ruleset.skill_holders`). Built once per situation and kept
    on the ruleset; returned twice: all of them, and only the non-prompt ones (for an actor
    without a prompt)."""
    by_role = rs.legal_rows.get(role)
    if by_role is None:
        by_role = rs.legal_rows[role] = {}
    # the situation as one small int (a tuple key costs a hash of five items on every ask;
    # `legal_actions` computes the same key inline)
    key = situation_of(kind, stage, settling) + alive
    both = by_role.get(key)
    if both is None:
        default_stage = rs.stage_for is skill_stage
        holders = rs.skill_holders()
        rows: list[SkillRow] = []
        for sid, spec in rs.skills.items():
            owners = holders.get(sid)
            if owners is not None and role not in owners and spec.shape not in (YES_NO, FREE_TEXT):
                continue  # `legal_targets` offers this role nothing
            exact = spec.prompt or sid in DIRECTOR_SKILLS or sid in (VOTE, CHANGE_VOTE)
            stage_check = False
            if spec.after_game:
                continue  # refused while the game goes on; legal_actions is empty once it is over
            if not spec.prompt:
                if kind not in spec.phases or settling or (not spec.actor_may_be_out if not alive else spec.only_out):
                    continue
                if kind == NIGHT:
                    if not default_stage:
                        stage_check = True
                    else:
                        at = rs.stage_of(sid)
                        if at is not None and (at < stage or (at > stage and not rs.night_stages[at].opens_with_night)):
                            continue
            shape = spec.shape
            # one check settles a skill without targets, and one with declared candidates (a
            # prompt's through the whole `validate`: `exact`)
            one_check = (not exact and shape == NO_TARGET) or (
                spec.candidates is not None
                and (shape == ONE_TARGET or (shape == SUCCESSOR and spec.prompt))
                and (spec.prompt or not exact)
            )
            mode = ONE_CHECK if one_check else _MODE_OF_SHAPE.get(shape, BY_TARGETS)
            # a prompt skill settled by one check is offered to the head prompt's actor whatever
            # his group (`validate` checks it whole: `exact`)
            group = "" if one_check and exact else spec.members_of
            rows.append((sid, spec, exact, stage_check, shape, mode, group))
        unprompted = [row for row in rows if not row[1].prompt]
        both = by_role[key] = (rows, unprompted)
    return both


_MODE_OF_SHAPE = {FREE_TEXT: BY_TEXT, YES_NO: BY_ANSWER}


class _Commands(dict[tuple[str, ...], Command]):
    """One actor's commands of one skill by targets, made on first use (commands are immutable
    values, and the bots ask for the same candidates again and again). The hot reads go through
    `single` and `bare`, plain attributes: a dict subclass's own subscript is slow in CPython."""

    # slots, not an instance dict: CPython specialises attribute reads of a dict subclass's
    # slots, not of its `__dict__` (read on every ask)
    __slots__ = ("actor", "skill", "single", "bare", "texted", "memo_for", "memo_set")

    def __init__(self, actor: str, skill: str) -> None:
        super().__init__()
        self.actor = actor
        self.skill = skill
        self.single: dict[str, Command] = {}  # the one-target commands by their target
        self.bare = Command(actor, skill)  # the command without targets (`self[()]`)
        self.texted: Command | None = None  # the one with the bots' placeholder text (`_plain`)
        # the last action set made over `memo_for` (`action_set`), kept while that object is
        self.memo_for: object = None
        self.memo_set: ActionSet | None = None

    def action_set(self, kind: int, options: Sequence[str] | Sequence[tuple[str, ...]]) -> ActionSet:
        """These commands' action set over `options`: the same object while `options` is the
        same object. Options are read, never changed, so a skill whose candidates are kept (the
        memoised `living()`) gets one set per change instead of one per ask."""
        found = self.memo_set
        if found is None or self.memo_for is not options:
            found = self.memo_set = ActionSet(self.actor, self.skill, kind, options, self)
            self.memo_for = options
        return found

    def __missing__(self, targets: tuple[str, ...]) -> Command:
        if len(self) >= 256:
            self.clear()
            self.single.clear()
        cmd = self[targets] = self.bare if not targets else Command(self.actor, self.skill, targets)
        return cmd

    def one(self, target: str) -> Command:
        """`self[(target,)]`, remembered by name too."""
        cmd = self.single.get(target)
        if cmd is None:
            cmd = self.single[target] = self[(target,)]
        return cmd


# every actor's command tables: actor -> skill -> its commands (`_commands`), made on first use
_BY_ACTOR: dict[str, dict[str, _Commands]] = {}


def _tables_of(actor: str) -> dict[str, _Commands]:
    """`actor`'s command tables, made on first use (at most 1024 actors are kept)."""
    tables = _BY_ACTOR.get(actor)
    if tables is None:
        if len(_BY_ACTOR) >= 1024:
            _BY_ACTOR.clear()
        tables = _BY_ACTOR[actor] = {}
    return tables


# the vote's options: (the ruleset's `votable` answer, it and 弃权), one tuple so a reader in
# another thread never sees half of it
_VOTE_MEMO: tuple[object, list[str]] = (None, [])


def _vote_options(votable: Sequence[str]) -> list[str]:
    """`[*votable, 弃权]`: one list per `votable` content (so a voter's action set is the same
    object whenever the same seats may be voted, game after game: every first day), looked up
    once while `votable` is the same object (品茗 keeps it a day)."""
    global _VOTE_MEMO
    memo = _VOTE_MEMO
    if memo[0] is not votable:
        key = tuple(votable)
        options = _VOTE_LISTS.get(key)
        if options is None:
            if len(_VOTE_LISTS) >= 4096:
                _VOTE_LISTS.clear()
            options = _VOTE_LISTS[key] = [*votable, ABSTAIN]
        memo = _VOTE_MEMO = (votable, options)
    return memo[1]


_VOTE_LISTS: dict[tuple[str, ...], list[str]] = {}  # `_vote_options`' lists by content (never changed)


def _commands(actor: str, skill: str) -> _Commands:
    """`actor`'s commands of `skill` (`_BY_ACTOR[actor][skill]`), made on first use."""
    tables = _tables_of(actor)
    table = tables.get(skill)
    if table is None:
        table = tables[skill] = _Commands(actor, skill)
    return table


_OTHER: dict[tuple[str, str, str | None, bool | None], Command] = {}


def _plain(actor: str, skill: str, text: str | None = None, answer: bool | None = None) -> Command:
    """A shared target-less command with a text or a yes/no answer."""
    key = (actor, skill, text, answer)
    cmd = _OTHER.get(key)
    if cmd is None:
        if len(_OTHER) >= 10_000:
            _OTHER.clear()
        cmd = _OTHER[key] = Command(actor, skill, (), text, answer)
    return cmd


# `legal_actions`' finder of a row's options, by the row's mode
_OPTIONS_BY_MODE = (_targeted, _checked_once, _texted, _answered)
