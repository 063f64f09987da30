"""What one viewer may see: the single place that decides visibility.

A player sees their own identity, the events addressed to them or to a group they were in
when it was sent, and the public posts; the director (viewer None) sees everything. When
the game is over, the 复盘 reveals every identity to everyone.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .commands import ABSTAIN, CHANGE_VOTE, DIRECTOR_SKILLS, VOTE, Command, IllegalCommand
from .core import _check_vote, _shape_refusal, _validate
from .model import DAY, NIGHT, START, GameState
from .registry import get_ruleset
from .ruleset import FREE_TEXT, ONE_TARGET, YES_NO, Ruleset, SkillSpec


def view(state: GameState, viewer: str | None) -> dict[str, Any]:
    rs = get_ruleset(state.ruleset)
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
        out["me"] = {"name": viewer, "role": rs.role_name(me.role), "alive": me.alive}
        out["groups"] = {g: list(m) for g, m in state.groups.items() if viewer in m}
        head = state.prompts[0] if state.prompts and state.prompt_raised else None
        out["prompt"] = rs.skill_name(head.skill) if head and head.actor == viewer else None
        if state.phase.kind == DAY and viewer in state.votes:
            out["my_vote"] = state.votes[viewer]
    else:
        out["prompts"] = [(p.actor, rs.skill_name(p.skill)) for p in state.prompts]
        out["votes"] = dict(state.votes)
    return out


def is_legal(state: GameState, cmd: Command) -> str | None:
    """None when `cmd` would be accepted now, else the reason it would be refused."""
    if state.over:
        return "游戏已经结束"
    try:
        _validate(state, get_ruleset(state.ruleset), cmd)
    except IllegalCommand as exc:
        return exc.reason
    return None


def legal_commands(state: GameState, actor: str) -> list[Command]:
    """Every command `actor` may post now (the bots' action mask). Director commands excluded.

    Candidates come from the ruleset's `legal_targets` (which returns nothing for a skill the
    actor does not hold); each one is then checked exactly as the engine would check it. The
    engine's checks that depend on the actor and the skill only (alive, phase, 关门, night stage)
    are made once per skill: a skill they refuse has no legal candidate."""
    if state.winner is not None:
        return []
    me = state.chars.get(actor)
    if me is None:
        return []
    rs = get_ruleset(state.ruleset)
    kind = state.phase.kind
    settling = state.settling
    alive = me.alive
    found: list[Command] = []
    if kind == DAY and not settling and alive:
        skill = CHANGE_VOTE if actor in state.votes else VOTE
        # one full check with 弃权 settles everything about the voter; targets only need to be votable
        abstain = _command(actor, skill, (ABSTAIN,))
        if _vote_ok(state, rs, abstain):
            can_be_voted = rs.can_be_voted
            found = [_command(actor, skill, (t,)) for t in state.alive_names() if can_be_voted(state, t) is None]
            found.append(abstain)
    head = state.prompts[0] if state.prompts else None
    table = _skill_table(rs)
    stages = table.stages
    night = kind == NIGHT
    for sid, spec, exact in table.by_kind[kind]:
        if spec.prompt:
            if head is None or head.actor != actor or head.skill != sid:
                continue
        else:
            if settling:
                continue
            # _validate's actor/skill checks, made once for all the candidates
            if not alive and not spec.actor_may_be_out:
                continue
            if night:
                stage = stages[sid] if stages is not None else rs.stage_for(state, _command(actor, sid, ()))
                if stage is not None and (
                    stage < state.stage or (stage > state.stage and not rs.night_stages[stage].opens_with_night)
                ):
                    continue
        shape = spec.shape
        if shape == YES_NO:
            candidates = [_command(actor, sid, (), answer=True), _command(actor, sid, (), answer=False)]
        elif shape == FREE_TEXT:
            candidates = [_command(actor, sid, (), text="……")]
        else:
            candidates = [_command(actor, sid, targets) for targets in rs.legal_targets(state, actor, sid)]
            if not candidates:
                continue
        if exact:
            found += [c for c in candidates if is_legal(state, c) is None]
        else:
            found += [c for c in candidates if _candidate_ok(state, rs, spec, c)]
    return found


def _vote_ok(state: GameState, rs: Ruleset, cmd: Command) -> bool:
    """`is_legal(state, cmd) is None` for a vote or 改票 by a seat of the game (`_validate`)."""
    if rs.gate(state, cmd):
        return False
    try:
        _check_vote(state, rs, cmd)
    except IllegalCommand:
        return False
    return True


_SkillRow = tuple[str, SkillSpec, bool]


class _SkillTable(NamedTuple):
    rs: Ruleset
    # per phase kind, in declaration order: prompt skills (any phase) and that phase's skills,
    # each with whether it needs the full `is_legal` (prompt answers, engine skill ids)
    by_kind: dict[str, list[_SkillRow]]
    # each skill's night stage, when the ruleset keeps the default `stage_for`
    stages: dict[str, int | None] | None


_TABLES: dict[int, _SkillTable] = {}


def _skill_table(rs: Ruleset) -> _SkillTable:
    table = _TABLES.get(id(rs))
    if table is None or table.rs is not rs:
        by_kind: dict[str, list[_SkillRow]] = {}
        for kind in (START, DAY, NIGHT):
            by_kind[kind] = [
                (sid, spec, spec.prompt or sid in DIRECTOR_SKILLS or sid in (VOTE, CHANGE_VOTE))
                for sid, spec in rs.skills.items()
                if spec.prompt or kind in spec.phases
            ]
        default_stage = type(rs).stage_for is Ruleset.stage_for
        stages = {sid: rs.stage_of(sid) for sid in rs.skills} if default_stage else None
        table = _TABLES[id(rs)] = _SkillTable(rs, by_kind, stages)
    return table


_COMMANDS: dict[tuple[str, str, tuple[str, ...], str | None, bool | None], Command] = {}


def _command(
    actor: str, skill: str, targets: tuple[str, ...], text: str | None = None, answer: bool | None = None
) -> Command:
    """`Command(actor, skill, targets, text, answer)`, shared: commands are immutable values, and
    the bots ask for the same candidates again and again."""
    key = (actor, skill, targets, text, answer)
    cmd = _COMMANDS.get(key)
    if cmd is None:
        if len(_COMMANDS) >= 100_000:
            _COMMANDS.clear()
        cmd = _COMMANDS[key] = Command(actor, skill, targets, text, answer)
    return cmd


def _candidate_ok(state: GameState, rs: Ruleset, spec: SkillSpec, cmd: Command) -> bool:
    """`is_legal(state, cmd) is None` for an ordinary (non-prompt) skill whose actor/skill checks
    have passed: the rest of `_validate` (gate, target shape, the skill's check) without raising
    where the engine can avoid it."""
    if rs.gate(state, cmd):
        return False
    targets = cmd.targets
    if spec.shape == ONE_TARGET and len(targets) == 1:
        # the common shape, as `_shape_refusal` checks it
        target = state.chars.get(targets[0])
        if target is None or (not target.alive and not spec.targets_may_be_out):
            return False
    elif _shape_refusal(state, spec.name, spec.shape, cmd, spec.targets_may_be_out) is not None:
        return False
    try:
        spec.check(state, cmd)
    except IllegalCommand:
        return False
    return True
