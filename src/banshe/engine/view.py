"""What one viewer may see: the single place that decides visibility.

A player sees their own identity, the events addressed to them or to a group they were in
when it was sent, and the public posts; the director (viewer None) sees everything. When
the game is over, the 复盘 reveals every identity to everyone.
"""

from __future__ import annotations

from typing import Any

from .commands import ABSTAIN, CHANGE_VOTE, DIRECTOR_SKILLS, VOTE, Command, IllegalCommand
from .core import _validate
from .model import DAY, GameState
from .registry import get_ruleset


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
        out["me"] = {"name": viewer, "role": rs.role_name(me.role), "alive": me.alive, "charges": dict(me.charges)}
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
    """Every command `actor` may post now (the bots' action mask). Director commands excluded."""
    if state.over or actor not in state.chars:
        return []
    rs = get_ruleset(state.ruleset)
    found: list[Command] = []
    candidates: list[Command] = []
    if state.phase.kind == DAY and not state.settling and state.chars[actor].alive:
        skill = CHANGE_VOTE if actor in state.votes else VOTE
        candidates += [Command(actor, skill, (t,)) for t in [*state.alive_names(), ABSTAIN]]
    for sid, spec in rs.skills.items():
        if sid in DIRECTOR_SKILLS:
            continue
        if spec.prompt:
            if not state.prompts or state.prompts[0].actor != actor or state.prompts[0].skill != sid:
                continue
        elif state.phase.kind not in spec.phases or state.settling:
            continue
        if spec.shape == "yesno":
            candidates += [Command(actor, sid, answer=True), Command(actor, sid, answer=False)]
        elif spec.shape == "text":
            candidates.append(Command(actor, sid, text="……"))
        else:
            first = True
            for targets in rs.legal_targets(state, actor, sid):
                cmd = Command(actor, sid, targets)
                if first:
                    # one probe tells whether the actor may use the skill at all
                    reason = is_legal(state, cmd)
                    first = False
                    if reason is not None and "目标" not in reason and "不能" in reason and actor in reason:
                        break
                    if reason is None:
                        found.append(cmd)
                    continue
                candidates.append(cmd)
    found += [c for c in candidates if is_legal(state, c) is None]
    return found
