"""What one viewer may see: the single place that decides visibility.

A player sees their own identity, the events addressed to them or to a group they were in
when it was sent, and the public posts; the director (viewer None) sees everything. When
the game is over, the 复盘 reveals every identity to everyone.
"""

from __future__ import annotations

from typing import Any

from .commands import ABSTAIN, CHANGE_VOTE, DIRECTOR_SKILLS, VOTE, Command, IllegalCommand
from .core import _shape_refusal, _validate
from .model import DAY, NIGHT, START, GameState
from .registry import get_ruleset
from .ruleset import Ruleset, SkillSpec


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
    if state.winner is not None or actor not in state.chars:
        return []
    rs = get_ruleset(state.ruleset)
    me = state.chars[actor]
    kind = state.phase.kind
    settling = state.settling
    found: list[Command] = []
    if kind == DAY and not settling and me.alive:
        skill = CHANGE_VOTE if actor in state.votes else VOTE
        # one full check with 弃权 settles everything about the voter; targets only need to be votable
        if is_legal(state, Command(actor, skill, (ABSTAIN,))) is None:
            can_be_voted = rs.can_be_voted
            found += [_command(actor, skill, (t,)) for t in state.alive_names() if can_be_voted(state, t) is None]
            found.append(_command(actor, skill, (ABSTAIN,)))
    head = state.prompts[0] if state.prompts else None
    by_kind, stages = _skill_table(rs)
    night = kind == NIGHT
    alive = me.alive
    for sid, spec, exact in by_kind[kind]:
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
                stage = stages[sid] if stages is not None else rs.stage_for(state, Command(actor, sid))
                if stage is not None and (
                    stage < state.stage or (stage > state.stage and not rs.night_stages[stage].opens_with_night)
                ):
                    continue
        candidates = _candidates(state, rs, actor, spec)
        if not candidates:
            continue
        if exact:
            found += [c for c in candidates if is_legal(state, c) is None]
        else:
            found += [c for c in candidates if _candidate_ok(state, rs, spec, c)]
    return found
    by_kind, stages = _skill_table(rs)
    night = kind == NIGHT
    alive = me.alive
    for sid, spec, exact in by_kind.get(kind, ()):
        # _validate's actor/skill checks, made once for all the candidates
        if not alive and not spec.actor_may_be_out:
            continue
        if night:
            stage = stages[sid] if stages is not None else rs.stage_for(state, Command(actor, sid))
            if stage is not None and (
                stage < state.stage or (stage > state.stage and not rs.night_stages[stage].opens_with_night)
            ):
                continue
        candidates = _candidates(state, rs, actor, spec)
        if not candidates:
            continue
        if exact:
            found += [c for c in candidates if is_legal(state, c) is None]
        else:
            found += [c for c in candidates if _candidate_ok(state, rs, spec, c)]
    return found


_SkillRow = tuple[str, SkillSpec, bool]
_TABLES: dict[int, tuple[Ruleset, dict[str, list[_SkillRow]], dict[str, int | None] | None]] = {}


def _skill_table(rs: Ruleset) -> tuple[dict[str, list[_SkillRow]], dict[str, int | None] | None]:
    """Per phase kind, the skills `legal_commands` tries, in declaration order: prompt skills
    (any phase) and the skills of that phase, each with whether it needs the full `is_legal`;
    and the night stage of each skill when the ruleset keeps the default `stage_for`."""
    cached = _TABLES.get(id(rs))
    if cached is None or cached[0] is not rs:
        by_kind: dict[str, list[_SkillRow]] = {}
        for kind in (START, DAY, NIGHT):
            by_kind[kind] = [
                (sid, spec, spec.prompt or sid in DIRECTOR_SKILLS or sid in (VOTE, CHANGE_VOTE))
                for sid, spec in rs.skills.items()
                if spec.prompt or kind in spec.phases
            ]
        default_stage = type(rs).stage_for is Ruleset.stage_for
        stages = {sid: rs.stage_of(sid) for sid in rs.skills} if default_stage else None
        cached = (rs, by_kind, stages)
        _TABLES[id(rs)] = cached
    return cached[1], cached[2]


def _candidates(state: GameState, rs: Ruleset, actor: str, spec: SkillSpec) -> list[Command]:
    sid = spec.id
    if spec.shape == "yesno":
        return [Command(actor, sid, answer=True), Command(actor, sid, answer=False)]
    if spec.shape == "text":
        return [Command(actor, sid, text="……")]
    return [_command(actor, sid, targets) for targets in rs.legal_targets(state, actor, sid)]


_COMMANDS: dict[tuple[str, str, tuple[str, ...]], Command] = {}


def _command(actor: str, skill: str, targets: tuple[str, ...]) -> Command:
    """`Command(actor, skill, targets)`, shared: commands are immutable values, and the bots ask
    for the same candidates again and again."""
    key = (actor, skill, targets)
    cmd = _COMMANDS.get(key)
    if cmd is None:
        if len(_COMMANDS) >= 100_000:
            _COMMANDS.clear()
        cmd = _COMMANDS[key] = Command(actor, skill, targets)
    return cmd


def _candidate_ok(state: GameState, rs: Ruleset, spec: SkillSpec, cmd: Command) -> bool:
    """`is_legal(state, cmd) is None` for an ordinary (non-prompt) skill whose actor/skill checks
    have passed: the rest of `_validate` (gate, target shape, the skill's check) without raising
    where the engine can avoid it."""
    if rs.gate(state, cmd):
        return False
    if _shape_refusal(state, spec.name, spec.shape, cmd, spec.targets_may_be_out) is not None:
        return False
    try:
        spec.check(state, cmd)
    except IllegalCommand:
        return False
    return True
