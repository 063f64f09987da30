"""A player's page as published (issue 22): his view, actions, deadline, private items and the
night's windows per skill, computed only from what he has been shown (published.py) and the
service's own records of him. The page, state.json and the live feed's digest all read
`player_context`, so none of them can show more than another.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import BindParameter, Integer, String, bindparam, select
from sqlalchemy.orm import Session

from ..engine.commands import ABSTAIN, CHANGE_VOTE, ENGINE_SKILL_NAMES, PROMPT_TIMEOUT, VOTE, Command, IllegalCommand
from ..engine.core import GameEnded, close_stage, replay
from ..engine.events import ACCEPTED, FEEDBACK, NOTICE
from ..engine.model import DAY, NIGHT, START, GameState, Phase
from ..engine.ruleset import MANY_TARGETS, NO_TARGET, ONE_TARGET, SUCCESSOR, TEAR_BADGE, Ruleset
from ..engine.view import is_legal, legal_commands
from ..rulesets.thread_policy import ThreadPolicy
from . import schedule as sched
from .models import Deadline, Game, HeldCommand, PlayerNotice, Post
from .published import Publication, VoidVotes, player_view, revived

HELD_STATUSES = ("held", "void", "refused")


@dataclass
class Action:
    skill: str
    name: str
    shape: str
    targets: list[str] = field(default_factory=list)
    submitted: str = ""
    hint: str = ""
    slots: list[list[str]] = field(default_factory=list)  # a many-target skill: each place's choices
    # the skill declares it cannot be taken back (`SkillSpec.irreversible`: 决战, 拍刀, a potion,
    # a shot …): the page asks for confirmation first
    irreversible: bool = False
    window: str = ""  # "22:00 开放，22:15 截止" (night windows)


def command_text(rs: Ruleset, cmd: dict[str, Any]) -> str:
    """A command with its actor, as the log lists it: "饺子：预言 包子"."""
    targets = "、".join(cmd.get("targets", []))
    extra = cmd.get("text") or ("" if cmd.get("answer") is None else ("是" if cmd["answer"] else "否"))
    if cmd.get("amount") is not None:
        extra = f"{cmd['amount']}分"
    return f"{cmd['actor']}：{rs.skill_name(cmd['skill'])} {targets}{extra}".rstrip()


def own_command_text(rs: Ruleset, cmd: dict[str, Any]) -> str:
    """One's own submission as his page says it, without his own name: "预言 → 包子", "投票 → 弃权",
    "装傻：是", "遗言：……"."""
    skill = str(cmd["skill"])
    name = {VOTE: "投票", CHANGE_VOTE: "改票"}.get(skill) or rs.skill_name(skill)
    targets = "、".join(cmd.get("targets") or [])
    if skill in (VOTE, CHANGE_VOTE):
        return f"{name} → {targets or ABSTAIN}"
    if cmd.get("amount") is not None:
        return f"{name}：{cmd['amount']}分"
    if cmd.get("answer") is not None:
        return f"{name}：{'是' if cmd['answer'] else '否'}"
    if cmd.get("text"):
        return f"{name}：{cmd['text']}"
    return f"{name} → {targets}" if targets else name


@dataclass
class Seen:
    """The service's records a game's players may be shown, read once per page or live step."""

    void_votes: VoidVotes
    void_posts: list[Post]
    held: list[HeldCommand]  # this phase's held, void and refused submissions
    notices: list[PlayerNotice]
    deadline: Deadline | None  # the players' current deadline
    prompt_deadline: Deadline | None  # a prompt's own, in the middle of a phase
    night: list[Deadline]  # the night's stage rows (the players' night, or the coming one's plan)
    timetable: list[Deadline] = field(default_factory=list)  # every deadline still to come, in order


# built once (issue 26: every live step runs them); parameters by name
_GAME: BindParameter[int] = bindparam("game_id", type_=Integer)
_PHASE: BindParameter[str] = bindparam("phase", type_=String)
_VOTE_POSTS = select(Post).where(Post.game_id == _GAME, Post.vote_kind.in_((VOTE, CHANGE_VOTE))).order_by(Post.id)
_HELD_NOW = (
    select(HeldCommand)
    .where(HeldCommand.game_id == _GAME, HeldCommand.phase == _PHASE, HeldCommand.status.in_(HELD_STATUSES))
    .order_by(HeldCommand.id)
)
_VOID_BEFORE = select(HeldCommand).where(
    HeldCommand.game_id == _GAME, HeldCommand.phase != _PHASE, HeldCommand.status.in_(("void", "refused"))
)
_NOTICES = select(PlayerNotice).where(PlayerNotice.game_id == _GAME).order_by(PlayerNotice.id)


def seen_of(s: Session, svc: Any, game: Game, pub: Publication) -> Seen:
    at = {"game_id": game.id}
    posts = list(s.scalars(_VOTE_POSTS, at))
    void_votes: VoidVotes = {}
    for p in posts:
        void_votes.setdefault((p.phase, p.author), []).append(p.vote_target if p.void else None)
    now = {"game_id": game.id, "phase": pub.state.phase.label}
    held = list(s.scalars(_HELD_NOW, now))
    held += list(s.scalars(_VOID_BEFORE, now))
    notices = list(s.scalars(_NOTICES, at))
    night: list[Deadline] = []
    if Phase.parse(pub.label).kind == NIGHT and not pub.over:
        night = svc.night_rows(s, game.id, pub.label)
    # the players' current deadline (Store.current_deadline) and a prompt's own (prompt_deadline):
    # the first to come of each kind, from one reading of the timetable
    timetable = svc.timetable(s, game.id)
    return Seen(
        void_votes=void_votes,
        void_posts=[p for p in posts if p.void],
        held=held,
        notices=notices,
        deadline=next((r for r in timetable if r.skill != PROMPT_TIMEOUT), None),
        prompt_deadline=next((r for r in timetable if r.skill == PROMPT_TIMEOUT), None),
        night=night,
        timetable=timetable,
    )


def day_open(pub: Publication) -> bool:
    return pub.open and Phase.parse(pub.label).kind == DAY


def _held_events(pub: Publication, seen: Seen, viewer: str) -> list[dict[str, Any]]:
    """His and his groups' held and void submissions, as the engine would list them once taken."""
    rs: Ruleset = pub.state.rules
    out: list[dict[str, Any]] = []
    for h in seen.held:
        if h.status not in ("held", "void") or h.phase != pub.state.phase.label:
            continue
        if h.status == "void" and pub.out_known_any(h.payload.get("targets") or [], viewer):
            continue  # the reason is told instead
        spec = rs.skills.get(h.skill)
        audience = spec.audience if spec is not None else "self"
        group = audience[6:] if audience.startswith("group:") else ""
        members = pub.shown.groups.get(group, ()) if group else ()
        if h.actor == viewer or audience == "public" or (group and h.actor in members and viewer in members):
            out.append({"kind": ACCEPTED, "phase": h.phase, "text": "", "data": {"command": dict(h.payload)}})
    return out


def _private(
    rs: Ruleset, pub: Publication, seen: Seen, viewer: str, events: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """His private items: feedback, notices and his own submissions (the engine's, held and void),
    what did not take effect and why, and the director's notices to him."""
    items = [
        dict(e)
        for e in events
        if e["kind"] in (FEEDBACK, NOTICE) or (e["kind"] == ACCEPTED and e["data"]["command"]["actor"] == viewer)
    ]
    for e in items:
        if e["kind"] == ACCEPTED:
            e["text"] = "你提交了：" + own_command_text(rs, e["data"]["command"])
    held = [h for h in seen.held if h.actor == viewer]
    waiting = {_key(h.payload): h for h in held if h.status == "held"}
    for e in items:
        h = waiting.get(_key(e["data"].get("command") or {})) if e["kind"] == ACCEPTED else None
        if h is not None and e["phase"] == h.phase:
            stage = rs.night_stages[h.stage].name if 0 <= h.stage < len(rs.night_stages) else ""
            e["text"] += f"（{stage}开始时生效，之前可替换）"
    for h in held:
        what = own_command_text(rs, h.payload)
        targets = h.payload.get("targets") or []
        if h.status == "refused":
            text = f"你提交的「{what}」未能生效：{h.reason}"
            items.append({"kind": "void", "phase": h.phase, "text": text, "data": {}})
        elif h.status == "void" and pub.out_known_any(targets, viewer):
            text = f"你提交的「{what}」无效：{h.reason}"
            items.append({"kind": "void", "phase": h.phase, "text": text, "data": {}})
    for p in seen.void_posts:
        if (
            p.author == viewer
            and p.vote_target
            and (pub.out_known(p.vote_target, viewer) or pub.out_known(p.author, None))
        ):
            verb = "改票" if p.vote_kind == CHANGE_VOTE else "投票"
            items.append(
                {
                    "kind": "void",
                    "phase": p.phase,
                    "text": f"你在{p.phase}的{verb}（{p.vote_target}）无效：{p.void}",
                    "data": {},
                }
            )
    for n in seen.notices:
        if n.player == viewer:
            items.append({"kind": "director", "phase": n.phase, "text": f"导演：{n.text}", "data": {}})
    items.sort(key=lambda e: _ordinal(str(e["phase"]), rs.night_first))  # stable: each phase's items after its events
    return items


def _key(cmd: dict[str, Any]) -> str:
    return repr(sorted(cmd.items()))


def _ordinal(label: str, night_first: bool) -> int:
    try:
        return Phase.parse(label, night_first).ordinal
    except ValueError:
        return 0


def probe_at(pub: Publication, actor: str, stage: int) -> GameState:
    """What `actor` may be checked against for a skill of a later night stage: the game as he may
    know it, the earlier stages closed (a probe: their results are never shown)."""
    key = (actor if actor in pub.hidden_outs else None, stage)
    known = pub.probes.get(key)
    if known is not None:
        return known
    probe = revived(pub, actor).clone()
    rs: Ruleset = probe.rules
    while probe.stage < stage and probe.stage < len(rs.night_stages) - 1:
        close_stage(probe, rs)
    pub.probes[key] = probe
    return probe


def _legal(rs: Ruleset, pub: Publication, viewer: str) -> list[Command]:
    """What `viewer` may post now, as he may know the game: nothing outside an open phase but
    his prompt's answer; the outs not yet published undone; the night windows' later stages."""
    head = pub.state.prompts[0] if pub.state.prompts and pub.state.prompt_raised else None
    prompt = [c for c in legal_commands(pub.state, viewer) if head is not None and c.skill == head.skill]
    if head is None or head.actor != viewer:
        prompt = []
    if not pub.open:
        return prompt
    probe = revived(pub, viewer)
    found = [c for c in legal_commands(probe, viewer) if c.skill not in (VOTE, CHANGE_VOTE)]
    if probe.phase.kind == NIGHT and not probe.settling:
        windows = sched.policy_for(rs).night_windows
        for i, stage in enumerate(rs.night_stages):
            if i <= probe.stage or stage.id not in windows:
                continue
            later = probe_at(pub, viewer, i)
            found += [c for c in legal_commands(later, viewer) if rs.stage_for(later, c) == i]
    known = {(c.skill, c.targets, c.text, c.answer) for c in found}
    return found + [c for c in prompt if (c.skill, c.targets, c.text, c.answer) not in known]


def actions_of(
    rs: Ruleset,
    state: GameState,
    me: str,
    events: list[dict[str, Any]],
    legal: list[Command] | None = None,
    label: str | None = None,
    known: Callable[[GameState], GameState] | None = None,
) -> list[Action]:
    """The skills `me` may post now, each with the targets the engine would accept (its legal
    commands: a role's declared candidates, checked by the engine), never matched by name.
    `legal`: his legal commands if not the engine's on `state` (a player's, as published);
    `label`: the phase his submissions are of; `known`: the game as he may know it, made from a
    replay (a replacement's choices: the outs not yet published undone)."""
    if legal is None:
        legal = legal_commands(state, me)
    legal = [c for c in legal if c.skill not in (VOTE, CHANGE_VOTE)]
    label = state.phase.label if label is None else label
    by_skill: dict[str, list[Command]] = {}
    for c in legal:
        by_skill.setdefault(c.skill, []).append(c)
    probes: dict[str, GameState] = {}  # the state a skill's choices were found in
    submitted: dict[str, str] = {}
    for e in events:
        if e["kind"] == ACCEPTED and e["phase"] == label:
            cmd = e["data"]["command"]
            if cmd["actor"] == me and cmd["skill"] not in (VOTE, CHANGE_VOTE):
                submitted[cmd["skill"]] = own_command_text(rs, cmd)
    # a night / 开局 submission can be replaced until its stage closes: its choices are what the
    # engine would accept had it not been posted (the game replayed without it)
    if not state.settling and state.phase.kind in (NIGHT, START):
        for skill in submitted:
            spec = rs.skills.get(skill)
            stage = rs.stage_of(skill)
            if spec is None or spec.prompt or skill in by_skill:
                continue
            if state.phase.kind == NIGHT and (stage is None or stage < state.stage):
                continue
            probes[skill], by_skill[skill] = _legal_without(state, me, skill, known)
    out: list[Action] = []
    for skill, cmds in by_skill.items():
        spec = rs.skills.get(skill)
        if spec is None or not cmds:
            continue
        targets: list[str] = []
        slots: list[list[str]] = []
        hint = ""
        if spec.shape == MANY_TARGETS:
            slots = _slots(probes.get(skill, state), cmds)
            hint = f"按顺序选择{len(slots)}个目标" if slots else ""
        elif spec.shape in (ONE_TARGET, SUCCESSOR):
            seen = {c.targets[0] for c in cmds if c.targets}
            targets = [t for t in state.order if t in seen]
            if spec.shape == SUCCESSOR and TEAR_BADGE in seen:
                targets.append(TEAR_BADGE)
        stage = rs.stage_of(skill)
        if state.phase.kind == NIGHT and stage is not None:
            hint = (hint + " " if hint else "") + f"（{rs.night_stages[stage].name}）"
        out.append(
            Action(skill, spec.name, spec.shape, targets, submitted.get(skill, ""), hint, slots, spec.irreversible)
        )
    return out


_WITHOUT: OrderedDict[tuple[Any, ...], tuple[GameState, list[Command]]] = OrderedDict()
_WITHOUT_LOCK = threading.Lock()
WITHOUT_KEEP = 32  # replays kept (each page view and live step of a night would replay again)


def _legal_without(
    state: GameState, me: str, skill: str, known: Callable[[GameState], GameState] | None = None
) -> tuple[GameState, list[Command]]:
    """`me`'s legal commands of `skill` in the game replayed without his last submission of it
    (what a replacement may choose), and that replayed game; none when the replay fails. The
    replay (5–10 ms) is kept for the same game and commands."""
    idx = max((i for i, c in enumerate(state.commands) if c.actor == me and c.skill == skill), default=None)
    if idx is None:
        return state, []
    rest = tuple(state.commands[:idx] + state.commands[idx + 1 :])
    setup = repr((sorted(state.options.items()), sorted(state.flags.get("dealt_roles", {}).items())))
    key = (state.ruleset, state.seed, state.order, setup, me, skill, rest, known is None)
    with _WITHOUT_LOCK:
        found = _WITHOUT.get(key)
    if found is not None:
        return found
    probe = state.clone()
    probe.commands = list(rest)
    try:
        rebuilt = replay(probe)
    except (IllegalCommand, GameEnded, KeyError, ValueError):
        return state, []
    if known is not None:
        rebuilt = known(rebuilt)
    result = rebuilt, [c for c in legal_commands(rebuilt, me) if c.skill == skill]
    with _WITHOUT_LOCK:
        _WITHOUT[key] = result
        while len(_WITHOUT) > WITHOUT_KEEP:
            _WITHOUT.popitem(last=False)
    return result


def _slots(state: GameState, cmds: list[Command]) -> list[list[str]]:
    """A many-target skill's pickers (爱神之箭's pair, 拍刀's knives): as many as its legal commands
    name targets, each offering the characters the engine accepts in that place (every name tried
    in a legal command's place, one check each)."""
    sample = cmds[0]
    count = len(sample.targets)
    if not count or any(len(c.targets) != count for c in cmds):
        return []
    slots: list[list[str]] = []
    for place in range(count):
        names: list[str] = []
        for name in state.order:
            if any(c.targets[place] == name for c in cmds):
                names.append(name)
                continue
            others = list(sample.targets)
            if name in others:  # swapped into this place
                others[others.index(name)] = others[place]
            others[place] = name
            if is_legal(state, Command(sample.actor, sample.skill, tuple(others))) is None:
                names.append(name)
        slots.append(names)
    return slots


def pack_status(rs: Ruleset, label: str, events: list[dict[str, Any]], members: list[str]) -> dict[str, Any]:
    """What a group's members see of the group's own submissions (their events only): the
    pack's current target (the last one-target group submission of this phase, e.g. 杀人) and
    who posted a no-target group skill (决战 this phase, 投降 any time), from `view` alone."""
    target: str | None = None
    declared: list[str] = []
    for e in events:
        if e["kind"] != ACCEPTED:
            continue
        cmd = e["data"]["command"]
        spec = rs.skills.get(cmd["skill"])
        if spec is None or not spec.audience.startswith("group:") or cmd["actor"] not in members:
            continue
        targets = cmd.get("targets") or []
        if spec.shape == ONE_TARGET and e["phase"] == label and targets:
            target = f"{spec.name}：{targets[0]}（{cmd['actor']}提交）"
        elif spec.shape == NO_TARGET:
            now = "本阶段" if e["phase"] == label else e["phase"]
            declared.append(f"{cmd['actor']}已{spec.name}（{now}）")
        elif spec.shape == MANY_TARGETS and e["phase"] == label:
            declared.append(f"{cmd['actor']}已{spec.name}：{'、'.join(targets)}")
    return {"target": target, "declared": declared}


def public_stage(seen: Seen) -> int | None:
    """The night stage the players' clock is in: the first stage row still to come."""
    waiting = [int(r.key.rsplit("|", 1)[1]) for r in seen.night if r.fired_at is None and not r.cancelled]
    return min(waiting) if waiting else None


def player_deadline(
    game: Game, pub: Publication, seen: Seen, v: dict[str, Any], actions: list[Action] | None = None
) -> dict[str, Any] | None:
    """The deadline the player sees: his prompt's while he holds one (his own time, or the
    settling window's), else the players' clock's — at night, a player whose every skill acts in
    a later stage that took skills from the night's start (the wolves') sees his own stage's."""
    tz = sched.zone(game.timezone)

    def shown(label: str, due: float | None, skill: str) -> dict[str, Any]:
        return {"label": label, "due": due, "local": sched.local_text(due, tz) if due else "", "skill": skill}

    if pub.over:
        return None
    if v.get("prompt"):
        row = seen.prompt_deadline if seen.prompt_deadline is not None and not pub.settling else seen.deadline
        return shown(f"{v['viewer']}的<{v['prompt']}>", row.due_at if row else None, "prompt_timeout")
    if not pub.begun:
        return shown("开局时间（游戏尚未开始）", pub.since, "begin")
    row = seen.deadline
    if pub.settling and not pub.held:
        # the dawn 公示 waits for the director (or his automatic publish time)
        return shown("等待导演发布公示", row.due_at if row is not None and row.skill == "dawn" else None, "dawn")
    if row is None:
        return None
    now = public_stage(seen)
    if actions and now is not None and row.skill in ("close_stage", "close_phase"):
        rs: Ruleset = pub.state.rules
        windows = sched.policy_for(rs).night_windows
        stages = {x for x in (rs.stage_of(a.skill) for a in actions) if x is not None}  # 决战/投降: any time
        mine = min(stages) if stages else None
        early = mine is not None and (rs.night_stages[mine].opens_with_night or rs.night_stages[mine].id in windows)
        if mine is not None and mine > now and early:
            own = next((r for r in seen.night if r.key.endswith(f"|stage|{mine}")), None)
            if own is not None and own.due_at >= row.due_at:
                return shown(own.label, own.due_at, own.skill)
    return shown(row.label, row.due_at, row.skill)


def vote_choice(pub: Publication, me: str, policy: ThreadPolicy) -> dict[str, Any] | None:
    """The vote picker: 投票 or 改票 and the targets the engine accepts from `me` now, as he may
    know the game (an out not yet published is still a target; 弃权 last); None when he may not
    vote. The post it makes is the forum format."""
    if not day_open(pub):
        return None
    probe = revived(pub, me)
    cmds = [c for c in legal_commands(probe, me) if c.skill in (VOTE, CHANGE_VOTE)]
    if not cmds:
        return None
    skill = cmds[0].skill
    seen = {c.targets[0] for c in cmds if c.targets}
    targets = [n for n in probe.order if n in seen] + ([ABSTAIN] if ABSTAIN in seen else [])
    change = skill == CHANGE_VOTE
    return {
        "skill": skill,
        "word": "改票" if change else "投票",
        "targets": targets,
        "reply": change and policy.change_vote_reply,
    }


def later_tonight(rs: Ruleset, pub: Publication, seen: Seen, me: str, actions: list[Action]) -> list[str]:
    """The night skills `me` holds (his identity's declared skills, his group's) whose stage comes
    later tonight on the players' clock ("〈杀人〉在〈狼人行动〉阶段")."""
    now = public_stage(seen)
    state = pub.shown
    if now is None or not pub.open or not state.is_alive(me):
        return []
    c = state.chars[me]
    role = rs.role_table.get(c.role)
    offered = {a.skill for a in actions}
    out: list[str] = []
    for sid, spec in rs.skills.items():
        stage = rs.stage_of(sid)
        if stage is None or stage <= now or sid in offered or spec.prompt or c.charges.get(sid, 1) <= 0:
            continue
        held = (role is not None and sid in role.skills) or (
            bool(spec.members_of) and me in state.groups.get(spec.members_of, ())
        )
        if held:
            out.append(f"〈{spec.name}〉在〈{rs.night_stages[stage].name}〉阶段")
    return out


def red_pending(state: GameState) -> list[str]:
    """Who holds a 红牌 given by day, 罚下 once the day's vote is settled (engine: settle_red_cards)."""
    return list(state.acts.get("red_pending", ()))


def skill_windows(
    rs: Ruleset, game: Game, pub: Publication, seen: Seen, viewer: str, actions: list[Action]
) -> list[str]:
    """The night's windows of his skills: "预言：21:40 开放，22:15 截止" (from the night's
    timetable: a skill may be posted from the night's start, or — a skill that waits for the
    earlier stages — from the earlier deadline)."""
    if not seen.night or pub.over:
        return []
    tz = sched.zone(game.timezone)
    me = pub.shown.chars[viewer]
    holders = rs.skill_holders()
    windows = sched.policy_for(rs).night_windows
    skills: list[str] = []
    for sid, spec in rs.skills.items():
        if spec.prompt or rs.stage_of(sid) is None or me.skills_lost:
            continue
        mine = me.role in holders.get(sid, ()) or (
            spec.members_of and viewer in pub.shown.groups.get(spec.members_of, ())
        )
        if mine or any(a.skill == sid for a in actions) or any(h.skill == sid and h.actor == viewer for h in seen.held):
            skills.append(sid)
    if not me.alive:
        return []
    rows = {int(r.key.rsplit("|", 1)[1]): r for r in seen.night}
    out: list[str] = []
    for sid in skills:
        i = rs.stage_of(sid)
        if i is None or i not in rows:
            continue
        stage = rs.night_stages[i]
        waits = i > 0 and not stage.opens_with_night and stage.id not in windows
        opens = rows[i - 1].due_at if waits and i - 1 in rows else pub.since
        note = "（所等待的行动都已提交时提前开放）" if waits and windows else ""
        hh = sched.local_text(opens, tz)[11:]
        close = sched.local_text(rows[i].due_at, tz)[11:]
        out.append(f"{rs.skill_name(sid)}：{hh} 开放{note}，{close} 截止")
    return out


@dataclass
class PlayerContext:
    v: dict[str, Any]
    actions: list[Action]
    deadline: dict[str, Any] | None
    private: list[dict[str, Any]]
    charges: dict[str, int]
    packs: dict[str, dict[str, Any]]
    windows: list[str]
    can_post: bool
    is_day: bool
    vote_choice: dict[str, Any] | None
    later: list[str]
    red_pending: bool

    def digest_parts(self) -> dict[str, Any]:
        return {
            "v": self.v,
            "actions": [asdict(a) for a in self.actions],
            "deadline": self.deadline,
            "private": self.private,
            "packs": self.packs,
            "windows": self.windows,
            "vote_choice": self.vote_choice,
            "later": self.later,
            "flags": [self.can_post, self.is_day, self.red_pending],
        }


def player_context(rs: Ruleset, game: Game, pub: Publication, seen: Seen, viewer: str) -> PlayerContext:
    v = player_view(pub, rs, viewer, seen.void_votes)
    if sched.policy_for(rs).vote_visibility == "half_public" and day_open(pub):
        # half-public counting: the day's votes stay hidden until it closes
        v["events"] = [
            e
            for e in v["events"]
            if not (
                e["kind"] == ACCEPTED
                and e["phase"] == pub.label
                and e["data"]["command"]["skill"] in (VOTE, CHANGE_VOTE)
                and e["data"]["command"]["actor"] != viewer
            )
        ]
    v["events"] = v["events"] + _held_events(pub, seen, viewer)
    v["events"].sort(key=lambda e: _ordinal(str(e["phase"]), rs.night_first))
    actions = actions_of(
        rs,
        revived(pub, viewer) if pub.open else pub.shown,
        viewer,
        v["events"],
        legal=_legal(rs, pub, viewer),
        label=pub.label,
        known=lambda rebuilt: revived(pub, viewer, rebuilt),
    )
    if not pub.open:
        actions = [a for a in actions if (spec := rs.skills.get(a.skill)) is not None and spec.prompt]
    groups = v.get("groups", {})
    charges = {
        rs.skill_name(k): n for k, n in v["me"].get("charges", {}).items() if k in rs.skills or k in ENGINE_SKILL_NAMES
    }
    return PlayerContext(
        v=v,
        actions=actions,
        deadline=player_deadline(game, pub, seen, v, actions),
        private=_private(rs, pub, seen, viewer, v["events"]),
        charges=charges,
        packs={g: pack_status(rs, pub.label, v["events"], list(m)) for g, m in groups.items()},
        windows=skill_windows(rs, game, pub, seen, viewer, actions),
        can_post=v["me"]["alive"] and not pub.over and game.status == "running",
        is_day=day_open(pub),
        vote_choice=vote_choice(pub, viewer, sched.policy_for(rs)) if v["me"]["alive"] else None,
        later=later_tonight(rs, pub, seen, viewer, actions),
        red_pending=viewer in red_pending(pub.shown),
    )
