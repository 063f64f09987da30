"""What one viewer may see: the single place that decides visibility.

A player sees their own identity, the events addressed to them or to a group they were in
when it was sent, and the public posts; the director (viewer None) sees everything. When
the game is over, the 复盘 reveals every identity to everyone.
"""

from __future__ import annotations

from typing import Any

from .commands import ABSTAIN, CHANGE_VOTE, DIRECTOR_SKILLS, VOTE, Command, IllegalCommand
from .core import check_vote, shape_refusal, validate
from .events import NOTICE, PLAYER
from .model import DAY, NIGHT, GameState
from .ruleset import FREE_TEXT, ONE_TARGET, YES_NO, Ruleset, SkillRow, SkillRows


def view(state: GameState, viewer: str | None) -> dict[str, Any]:
    rs: Ruleset = state.rules
    if viewer is not None and viewer not in state.chars:
        raise KeyError(viewer)
    events = [
        {"kind": e.kind, "phase": e.phase, "text": e.text, "data": dict(e.data)}
        for e in state.log
        if e.visible_to(viewer)
    ]
    seats = []
    for name in state.order:
        c = state.chars[name]
        seat: dict[str, Any] = {"name": name, "alive": c.alive, "sheriff": state.sheriff == name}
        if viewer is None or name == viewer or state.over:
            seat["role"] = rs.role_name(c.role)
        if viewer is None or state.over:
            seat["camp"] = rs.camp_name(c.camp)
            seat["statuses"] = sorted(c.statuses)
            seat["lives"] = c.lives
        seats.append(seat)
    out: dict[str, Any] = {
        "ruleset": rs.name,
        "viewer": viewer,
        "phase": state.phase.label,
        "settling": state.settling,
        "sheriff": state.sheriff,
        "seats": seats,
        "events": events,
        "winner": rs.camp_name(state.winner) if state.winner else None,
        "ended_in": state.ended_in.label if state.ended_in else None,
    }
    if viewer is not None:
        me = state.chars[viewer]
        out["me"] = {
            "name": viewer,
            "role": rs.role_name(me.role),
            "alive": me.alive,
            "charges": dict(me.charges),
            "camp": known_camp(state, rs, viewer),
        }
        out["groups"] = {g: list(m) for g, m in state.groups.items() if viewer in m}
        head = state.prompts[0] if state.prompts and state.prompt_raised else None
        out["prompt"] = rs.skill_name(head.skill) if head and head.actor == viewer else None
        if state.phase.kind == DAY and viewer in state.votes:
            out["my_vote"] = state.votes[viewer]
    else:
        out["prompts"] = [(p.actor, rs.skill_name(p.skill)) for p in state.prompts]
        out["votes"] = dict(state.votes)
    return out


def known_camp(state: GameState, rs: Ruleset, viewer: str) -> str | None:
    """The camp `viewer` was last told (a private NOTICE carrying `camp`): never the engine's
    own `camp`, which may be secret (a lover in 情侣阵营, a 长老 turned 特殊). None: never told."""
    told: str | None = None
    for e in state.log:
        if e.kind == NOTICE and e.audience.kind == PLAYER and e.audience.members == (viewer,) and "camp" in e.data:
            told = str(e.data["camp"])
    if told is None:
        return None
    return rs.camp_name(told) if told in rs.camp_names else told


def is_legal(state: GameState, cmd: Command) -> str | None:
    """None when `cmd` would be accepted now, else the reason it would be refused."""
    if state.over:
        return "游戏已经结束"
    try:
        rs: Ruleset = state.rules
        validate(state, rs, cmd)
    except IllegalCommand as exc:
        return exc.reason
    return None


def legal_commands(state: GameState, actor: str, offered: bool = False) -> list[Command]:
    """Every command `actor` may post now (the bots' action mask). Director commands excluded.
    `offered`: the candidates a player's page offers (`Ruleset.offered_targets`), not the bots'.

    Candidates come from the ruleset's `legal_targets` (which returns nothing for a skill the
    actor does not hold); each one is then checked exactly as the engine would check it. The
    engine's checks that depend on the actor and the skill only (alive, phase, 关门, night stage)
    are made once per skill: a skill they refuse has no legal candidate."""
    if state.winner is not None:
        return []
    me = state.chars.get(actor)
    if me is None:
        return []
    rs: Ruleset = state.rules
    kind = state.phase.kind
    settling = state.settling
    alive = me.alive
    found: list[Command] = []
    if kind == DAY and not settling and alive:
        skill = CHANGE_VOTE if actor in state.votes else VOTE
        # one full check with 弃权 settles everything about the voter; targets only need to be votable
        commands = _commands(actor, skill)
        abstain = commands[(ABSTAIN,)]
        if _vote_ok(state, rs, abstain):
            # each votable seat's command, remembered by name
            get = commands.single.get
            found = [get(t) or commands.one(t) for t in rs.votable(state)]
            found.append(abstain)
    head = state.prompts[0] if state.prompts else None
    night = kind == NIGHT
    rows, unprompted = _skill_rows(rs, kind, state.stage if night else 0, alive, settling, me.role)
    if head is None or head.actor != actor:
        rows = unprompted  # no prompt skill can pass: the same rows in the same order without them
    for sid, spec, exact, stage_check, shape in rows:
        if spec.prompt and (head is None or head.actor != actor or head.skill != sid):
            continue
        if shape == YES_NO:
            candidates = [_plain(actor, sid, answer=True), _plain(actor, sid, answer=False)]
        elif shape == FREE_TEXT:
            candidates = [_plain(actor, sid, text="……")]
        else:
            targets = (rs.offered_targets if offered else rs.legal_targets)(state, actor, sid)
            if not targets:
                continue
            commands = _commands(actor, sid)
            candidates = [commands[t] for t in targets]
        if stage_check:
            # an overridden stage_for, asked once the skill has candidates (both are pure)
            stage = rs.stage_for(state, _commands(actor, sid)[()])
            if stage is not None and (
                stage < state.stage or (stage > state.stage and not rs.night_stages[stage].opens_with_night)
            ):
                continue
        if exact:
            found += [c for c in candidates if is_legal(state, c) is None]
            continue
        # the rest of `validate` for each candidate (gate, target shape, the skill's check),
        # without raising where it can be avoided; the same calls in the same order
        gate = rs.gate
        refuses = spec.refuses
        check = spec.check
        one = shape == ONE_TARGET
        may_be_out = spec.targets_may_be_out
        chars = state.chars
        for c in candidates:
            if gate(state, c):
                continue
            picked = c.targets
            if one and len(picked) == 1:
                target = chars.get(picked[0])
                if target is None or (not target.alive and not may_be_out):
                    continue
            elif shape_refusal(state, spec.name, shape, c, may_be_out) is not None:
                continue
            if refuses is not None and refuses(state, c):
                continue
            try:
                check(state, c)
            except IllegalCommand:
                continue
            found.append(c)
    return found


def _vote_ok(state: GameState, rs: Ruleset, cmd: Command) -> bool:
    """`is_legal(state, cmd) is None` for a vote or 改票 by a seat of the game (`validate`)."""
    if rs.gate(state, cmd):
        return False
    try:
        check_vote(state, rs, cmd)
    except IllegalCommand:
        return False
    return True


def _skill_rows(rs: Ruleset, kind: str, stage: int, alive: bool, settling: bool, role: str) -> SkillRows:
    """The skills `legal_commands` tries, in declaration order: prompt skills (any phase, any
    actor; checked against the head prompt) and the skills that pass `validate`'s actor/skill
    checks (phase, alive, 关门, night stage — by `stage_of` where the ruleset keeps the default
    `stage_for`, else flagged for a `stage_for` call), less the skills whose `legal_targets`
    is empty for the actor's role (`Ruleset.skill_holders`). Built once per situation and kept
    on the ruleset; returned twice: all of them, and only the non-prompt ones (for an actor
    without a prompt)."""
    cached = rs.legal_rows
    key = (kind, stage, alive, settling, role)
    both = cached.get(key)
    if both is None:
        default_stage = type(rs).stage_for is Ruleset.stage_for
        holders = rs.skill_holders()
        rows: list[SkillRow] = []
        for sid, spec in rs.skills.items():
            owners = holders.get(sid)
            if owners is not None and role not in owners and spec.shape not in (YES_NO, FREE_TEXT):
                continue  # `legal_targets` offers this role nothing
            exact = spec.prompt or sid in DIRECTOR_SKILLS or sid in (VOTE, CHANGE_VOTE)
            stage_check = False
            if spec.after_game:
                continue  # refused while the game goes on; legal_commands is empty once it is over
            if not spec.prompt:
                if kind not in spec.phases or settling or (not alive and not spec.actor_may_be_out):
                    continue
                if kind == NIGHT:
                    if not default_stage:
                        stage_check = True
                    else:
                        at = rs.stage_of(sid)
                        if at is not None and (at < stage or (at > stage and not rs.night_stages[at].opens_with_night)):
                            continue
            rows.append((sid, spec, exact, stage_check, spec.shape))
        both = cached[key] = (rows, [row for row in rows if not row[1].prompt])
    return both


class _Commands(dict[tuple[str, ...], Command]):
    """One actor's commands of one skill by targets, made on first use (commands are immutable
    values, and the bots ask for the same candidates again and again)."""

    def __init__(self, actor: str, skill: str) -> None:
        super().__init__()
        self.actor = actor
        self.skill = skill
        self.single: dict[str, Command] = {}  # the one-target commands by their target

    def __missing__(self, targets: tuple[str, ...]) -> Command:
        if len(self) >= 256:
            self.clear()
            self.single.clear()
        cmd = self[targets] = Command(self.actor, self.skill, targets)
        return cmd

    def one(self, target: str) -> Command:
        """`self[(target,)]`, remembered by name too."""
        cmd = self[(target,)]
        self.single[target] = cmd
        return cmd


_BY_ACTOR: dict[str, dict[str, _Commands]] = {}  # actor -> skill -> its commands


def _commands(actor: str, skill: str) -> _Commands:
    by_skill = _BY_ACTOR.get(actor)
    if by_skill is None:
        if len(_BY_ACTOR) >= 1024:
            _BY_ACTOR.clear()
        by_skill = _BY_ACTOR[actor] = {}
    table = by_skill.get(skill)
    if table is None:
        table = by_skill[skill] = _Commands(actor, skill)
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
