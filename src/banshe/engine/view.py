"""What one viewer may see: the single place that decides visibility.

A player sees their own identity, the events addressed to them or to a group they were in
when it was sent, and the public posts; the director (viewer None) sees everything. When
the game is over, the 复盘 reveals every identity to everyone.
"""

from __future__ import annotations

from typing import Any

from .actions import flatten, legal_actions
from .commands import Command, IllegalCommand
from .core import validate
from .events import NOTICE, PLAYER
from .model import DAY, GameState
from .ruleset import Ruleset


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


def legal_commands(state: GameState, actor: str) -> list[Command]:
    """Every command `actor` may post now (the bots' action mask), director commands excluded:
    `legal_actions` flattened, in the same order."""
    return flatten(legal_actions(state, actor))
