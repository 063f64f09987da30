"""What pages show, computed from the engine's `view` (players) or the director's view.

A player's page is built ONLY from `view(state, player)` and `legal_commands(state, player)`,
plus the service's own records (posts, group messages, deadlines, which 公示 are published).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter, OrderedDict
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..engine.commands import (
    ABSTAIN,
    CARD_BLUE,
    CARD_RED,
    CARD_YELLOW,
    CHANGE_VOTE,
    CLOSE_PHASE,
    CLOSE_STAGE,
    DEDUCT,
    DIRECTOR,
    ENGINE_SKILL_NAMES,
    PROMPT_TIMEOUT,
    VOTE,
    Command,
    IllegalCommand,
)
from ..engine.core import GameEnded, apply_in_place, replay
from ..engine.events import ACCEPTED, ANNOUNCE, FEEDBACK, NOTICE
from ..engine.model import DAY, NIGHT, START, GameState
from ..engine.ruleset import MANY_TARGETS, NO_TARGET, ONE_TARGET, SUCCESSOR, TEAR_BADGE, YES_NO, Ruleset
from ..engine.view import is_legal, legal_commands, view
from ..rulesets.thread_policy import ThreadPolicy
from . import bbcode, logtext
from . import schedule as sched
from .games import GameService
from .models import Announcement, CommandRow, Deadline, Game, GroupMessage, LurkFlag, Post, RefusedPost, Seat
from .notices import DIRECTOR_POST_KIND, NOTICE_KIND, NOTICE_WITHHELD, UNPUBLISHED_NOTICES


@dataclass
class ThreadItem:
    at: float
    kind: str  # announce | post | hidden
    author: str
    text: str
    phase: str
    vote: str | None = None
    by_director: bool = False
    bbcode: str = ""
    floor: int = 0  # N楼: every published item, the same for every viewer (pending 公示 have none)
    time: str = ""  # local time, as the forum shows it
    post_id: int = 0
    quote: dict[str, Any] | None = None  # 回复 N楼: {floor, author, text} as this viewer sees it
    director_post: bool = False  # the director's own post (a rule clarification)
    change_reply: bool = False  # the viewer's own accepted vote of today: "改票（回复此楼）"


@dataclass
class Action:
    skill: str
    name: str
    shape: str
    targets: list[str] = field(default_factory=list)
    submitted: str = ""
    hint: str = ""
    slots: list[list[str]] = field(default_factory=list)  # a many-target skill: each place's choices


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


def deadline_info(
    s: Session, svc: GameService, game: Game, v: dict[str, Any], viewer: str | None
) -> dict[str, Any] | None:
    """The current deadline as `viewer` may see it (None: the director, who sees all).

    A prompt's deadline (`烧麦的<最后一枪>`, `<殉职>`, `<指认>`) names who holds a pending prompt,
    which only that player (his `view` carries `prompt`) and the director know before the 公示:
    everyone else sees a neutral label without the prompt's time."""
    return deadline_view(svc.current_deadline(s, game.id), game, v, viewer)


def deadline_view(row: Deadline | None, game: Game, v: dict[str, Any], viewer: str | None) -> dict[str, Any] | None:
    """`deadline_info` for a deadline row already read (the live feed reads it once per change)."""
    if row is None:
        return None
    if row.skill == PROMPT_TIMEOUT and viewer is not None and not v.get("prompt"):
        label = "等待结算" if v.get("settling") else f"{v['phase']}进行中"
        return {"label": label, "due": None, "local": "", "skill": ""}
    tz = sched.zone(game.timezone)
    return {"label": row.label, "due": row.due_at, "local": sched.local_text(row.due_at, tz), "skill": row.skill}


def vote_tallies(state: GameState, events: list[dict[str, Any]]) -> dict[str, str]:
    """票型 of each closed day (who voted whom, the last vote or 改票 of each voter), from the
    public vote events: only for rulesets whose votes are open posts (ThreadPolicy.tally_in_result)."""
    final: dict[str, dict[str, str]] = {}
    for e in events:
        if e["kind"] == ACCEPTED and e["data"]["command"]["skill"] in (VOTE, CHANGE_VOTE):
            cmd = e["data"]["command"]
            final.setdefault(e["phase"], {})[cmd["actor"]] = (cmd.get("targets") or ["弃权"])[0]
    order = {n: i for i, n in enumerate(state.order)}
    out: dict[str, str] = {}
    for phase, votes in final.items():
        if phase == state.phase.label and not state.over:
            continue  # still voting (or settling): the 票型 goes with the result
        lines = [f"{voter}→{votes[voter]}" for voter in sorted(votes, key=lambda n: order.get(n, 0))]
        out[phase] = "票型：" + "，".join(lines) + "。"
    return out


def tally_lines(rs: Ruleset, state: GameState, events: list[dict[str, Any]]) -> dict[int, str]:
    """The 票型 each 公示 carries, by its index among the public 公示: a closed day's last one
    (its result), where the ruleset's votes are open posts (ThreadPolicy.tally_in_result)."""
    if not sched.policy_for(rs).tally_in_result:
        return {}
    tallies = vote_tallies(state, events)
    announces = [e for e in events if e["kind"] == ANNOUNCE]
    last_of = {e["phase"]: i for i, e in enumerate(announces)}  # a day's last 公示: its result
    return {last_of[phase]: line for phase, line in tallies.items() if phase in last_of}


def thread_items(
    s: Session,
    svc: GameService,
    game: Game,
    state: GameState,
    events: list[dict[str, Any]],
    director: bool,
    viewer: str | None = None,
) -> list[ThreadItem]:
    """The 讨论帖: published 公示 (from the viewer's events) and posts, in time order, each with
    its floor (N楼) and time; a reply carries the quoted floor as this viewer sees it."""
    rs = svc.ruleset(game)
    rows = s.scalars(select(Announcement).where(Announcement.game_id == game.id).order_by(Announcement.idx)).all()
    announces = [e for e in events if e["kind"] == ANNOUNCE]
    tallies = tally_lines(rs, state, events)
    items: list[ThreadItem] = []
    for row in rows:
        if row.idx >= len(announces) or (row.published_at is None and not director):
            continue
        e = announces[row.idx]
        kind = "announce" if row.published_at is not None else "pending"
        text = row.text or e["text"]  # the director's edit replaces the engine's wording
        if row.idx in tallies:
            text = f"{text}\n{tallies[row.idx]}"
        items.append(ThreadItem(row.published_at or row.created_at, kind, "导演", text, e["phase"]))
    hide_votes = hides_votes(rs, state, director)
    replies: dict[int, int] = {}
    changed = {
        p.author
        for p in s.scalars(
            select(Post).where(
                Post.game_id == game.id, Post.phase == state.phase.label, Post.vote_kind == CHANGE_VOTE
            )
        )
    }
    own_vote: int | None = None
    for p in s.scalars(select(Post).where(Post.game_id == game.id).order_by(Post.id)):
        if p.vote_kind in UNPUBLISHED_NOTICES and not director:
            continue  # the service's notice waits for the director's review
        if p.reply_to is not None:
            replies[p.id] = p.reply_to
        item = post_item(p, hide_votes, state.phase.label, viewer)
        if p.vote_kind == VOTE and p.author == viewer and p.phase == state.phase.label:
            own_vote = len(items)
        items.append(item)
    if own_vote is not None and viewer not in changed and state.phase.kind == DAY and not state.settling:
        items[own_vote].change_reply = True
    items.sort(key=lambda i: i.at)
    tz = sched.zone(game.timezone)
    floor = 0
    by_post: dict[int, ThreadItem] = {}
    for item in items:
        item.time = sched.local_text(item.at, tz)
        if item.kind != "pending":
            floor += 1
            item.floor = floor
        if item.post_id:
            by_post[item.post_id] = item
    for pid, target in replies.items():
        quoted, reply = by_post.get(target), by_post.get(pid)
        if quoted is not None and reply is not None:
            reply.quote = quote_of(quoted)
    for item in items:
        if item.kind in ("announce", "pending"):
            item.bbcode = bbcode.announcement(rs, item.phase, item.text)
    return items


# the thread by page (the forum's habit): a fixed number of floors a page, the last page first
PAGE_SIZE = 20


def day_tab(phase: str) -> str:
    """The 第N天 tab a phase's floors are listed under: 第N天 and the night after it (第N夜, whose
    公示 and posts come before 第N+1天); 开局 is its own tab."""
    if phase.startswith("第") and phase.endswith("夜"):
        return phase[:-1] + "天"
    return phase


@dataclass
class ThreadPage:
    """One page of the thread as a viewer asked for it (`day`: one 第N天 tab, "" for all)."""

    items: list[ThreadItem]
    page: int
    pages: int
    day: str
    days: list[str]
    newest: bool  # the thread's newest page: floors posted meanwhile are appended to it live
    total: int

    @property
    def numbers(self) -> list[int | None]:
        """The page links to show: the first, the last and two either side of this one (None: a gap)."""
        wanted = sorted({1, self.pages, *range(max(1, self.page - 2), min(self.pages, self.page + 2) + 1)})
        out: list[int | None] = []
        for n in wanted:
            if out and n - (out[-1] or 0) > 1:
                out.append(None)
            out.append(n)
        return out


def thread_page(items: list[ThreadItem], page: int | None = None, day: str = "", current: str = "") -> ThreadPage:
    """Page `page` (None: the last one; with a `day`, its first) of the thread or of one day's tab.
    `current`: the game's phase now (its tab's last page also takes live floors)."""
    days = list(dict.fromkeys(day_tab(i.phase) for i in items))
    if day and day not in days:
        day = ""
    chosen = [i for i in items if day_tab(i.phase) == day] if day else items
    pages = max(1, -(-len(chosen) // PAGE_SIZE))
    if page is None:
        page = 1 if day else pages
    page = min(max(1, page), pages)
    newest = page == pages and (not day or day == day_tab(current))
    start = (page - 1) * PAGE_SIZE
    return ThreadPage(chosen[start : start + PAGE_SIZE], page, pages, day, days, newest, len(chosen))


def page_of_floor(items: list[ThreadItem], floor: int) -> int | None:
    """The page (of the whole thread) that holds floor `floor`."""
    for i, item in enumerate(items):
        if item.floor == floor:
            return i // PAGE_SIZE + 1
    return None


def quote_of(quoted: ThreadItem) -> dict[str, Any]:
    """回复 N楼: the quoted floor as the viewer sees it (its first 120 characters)."""
    text = quoted.text if len(quoted.text) <= 120 else quoted.text[:120] + "……"
    return {"floor": quoted.floor, "author": quoted.author, "text": text}


def hides_votes(rs: Ruleset, state: GameState, director: bool = False) -> bool:
    """Half-public counting (ThreadPolicy.vote_visibility): today's vote posts are hidden from the
    other players until the day closes."""
    return (
        not director
        and sched.policy_for(rs).vote_visibility == "half_public"
        and state.phase.kind == DAY
        and not state.settling
    )


def post_item(p: Post, hide_votes: bool, label: str, viewer: str | None) -> ThreadItem:
    """One post of the 讨论帖 as `viewer` sees it (no floor, time or quote yet: `thread_items`
    and the live feed number them)."""
    if p.vote_kind == NOTICE_KIND:  # the service's own 公示 (替补, a day lengthened by 延时)
        return ThreadItem(p.created_at, "announce", p.author, p.text, p.phase, post_id=p.id)
    if p.vote_kind in UNPUBLISHED_NOTICES:  # the director's view of one waiting for his review
        return ThreadItem(p.created_at, "pending", p.author, p.text, p.phase, post_id=p.id)
    if p.vote_kind == DIRECTOR_POST_KIND:
        return ThreadItem(p.created_at, "post", p.author, p.text, p.phase, None, True, post_id=p.id, director_post=True)
    if hide_votes and p.vote_kind and p.phase == label and p.author != viewer:
        return ThreadItem(p.created_at, "hidden", p.author, "（投票帖，关门后公开）", p.phase, post_id=p.id)
    vote = None
    if p.vote_kind:
        vote = f"{'改票' if p.vote_kind == CHANGE_VOTE else '投票'} → {p.vote_target}"
    return ThreadItem(p.created_at, "post", p.author, p.text, p.phase, vote, p.by_director, post_id=p.id)


def _actions(rs: Ruleset, state: GameState, me: str, events: list[dict[str, Any]]) -> list[Action]:
    """The skills `me` may post now, each with the targets the engine would accept (its legal
    commands: a role's declared candidates, checked by the engine), never matched by name."""
    legal = [c for c in legal_commands(state, me) if c.skill not in (VOTE, CHANGE_VOTE)]
    by_skill: dict[str, list[Command]] = {}
    for c in legal:
        by_skill.setdefault(c.skill, []).append(c)
    probes: dict[str, GameState] = {}  # the state a skill's choices were found in
    submitted: dict[str, str] = {}
    for e in events:
        if e["kind"] == ACCEPTED and e["phase"] == state.phase.label:
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
            probes[skill], by_skill[skill] = _legal_without(state, me, skill)
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
        out.append(Action(skill, spec.name, spec.shape, targets, submitted.get(skill, ""), hint, slots))
    return out


_WITHOUT: OrderedDict[tuple[Any, ...], tuple[GameState, list[Command]]] = OrderedDict()
_WITHOUT_LOCK = threading.Lock()
WITHOUT_KEEP = 32  # replays kept (each page view and live step of a night would replay again)


def _legal_without(state: GameState, me: str, skill: str) -> tuple[GameState, list[Command]]:
    """`me`'s legal commands of `skill` in the game replayed without his last submission of it
    (what a replacement may choose), and that replayed game; none when the replay fails. The
    replay (5–10 ms) is kept for the same game and commands."""
    idx = max((i for i, c in enumerate(state.commands) if c.actor == me and c.skill == skill), default=None)
    if idx is None:
        return state, []
    rest = tuple(state.commands[:idx] + state.commands[idx + 1 :])
    setup = repr((sorted(state.options.items()), sorted(state.flags.get("dealt_roles", {}).items())))
    key = (state.ruleset, state.seed, state.order, setup, me, skill, rest)
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


# irreversible actions ask for confirmation on the page (issue 12): 决战, 投降, 行刺, 死节, 拍刀
IRREVERSIBLE = frozenset({"决战", "投降", "行刺", "死节", "拍刀"})


def pack_status(rs: Ruleset, state: GameState, events: list[dict[str, Any]], members: list[str]) -> dict[str, Any]:
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
        if spec.shape == ONE_TARGET and e["phase"] == state.phase.label and targets:
            target = f"{spec.name}：{targets[0]}（{cmd['actor']}提交）"
        elif spec.shape == NO_TARGET:
            now = "本阶段" if e["phase"] == state.phase.label else e["phase"]
            declared.append(f"{cmd['actor']}已{spec.name}（{now}）")
        elif spec.shape == MANY_TARGETS and e["phase"] == state.phase.label:
            declared.append(f"{cmd['actor']}已{spec.name}：{'、'.join(targets)}")
    return {"target": target, "declared": declared}


def player_page(svc: GameService, seat: Seat) -> dict[str, Any]:
    game, state = svc.read(seat.game_id)
    rs = svc.ruleset(game)
    v = view(state, seat.name)
    if sched.policy_for(rs).vote_visibility == "half_public" and state.phase.kind == DAY and not state.settling:
        # half-public counting: the day's votes stay hidden until it closes
        v["events"] = [
            e
            for e in v["events"]
            if not (
                e["kind"] == ACCEPTED
                and e["phase"] == state.phase.label
                and e["data"]["command"]["skill"] in (VOTE, CHANGE_VOTE)
                and e["data"]["command"]["actor"] != seat.name
            )
        ]
    with svc.sessions() as s:
        items = thread_items(s, svc, game, state, v["events"], director=False, viewer=seat.name)
        deadline = deadline_info(s, svc, game, v, seat.name)
        groups = v.get("groups", {})
        chats: dict[str, list[GroupMessage]] = {}
        for g in groups:
            chats[g] = list(
                s.scalars(
                    select(GroupMessage)
                    .where(GroupMessage.game_id == game.id, GroupMessage.group_name == g)
                    .order_by(GroupMessage.id)
                )
            )
        post_count = sum(
            1 for i in items if i.kind in ("post", "hidden") and i.author == seat.name and i.phase == state.phase.label
        )
    private = [
        e
        for e in v["events"]
        if e["kind"] in (FEEDBACK, NOTICE) or (e["kind"] == ACCEPTED and e["data"]["command"]["actor"] == seat.name)
    ]
    for e in private:
        if e["kind"] == ACCEPTED:
            e["text"] = "你提交了：" + own_command_text(rs, e["data"]["command"])
    charges = {
        rs.skill_name(k): n for k, n in v["me"].get("charges", {}).items() if k in rs.skills or k in ENGINE_SKILL_NAMES
    }
    policy = sched.policy_for(rs)
    actions = _actions(rs, state, seat.name, v["events"])
    deadline = own_stage_deadline(rs, game, state, actions, deadline)
    return {
        "game": game,
        "rs": rs,
        "v": v,
        "me": v["me"],
        "charges": charges,
        "private": private,
        "actions": actions,
        "later": later_tonight(rs, state, seat.name, actions),
        "packs": {g: pack_status(rs, state, v["events"], list(m)) for g, m in groups.items()},
        "irreversible": IRREVERSIBLE,
        "deadline": deadline,
        "items": items,
        "groups": groups,
        "chats": chats,
        "over": state.over or game.status == "ended",
        "can_post": state.is_alive(seat.name) and not state.over and game.status == "running",
        "is_day": state.phase.kind == DAY and not state.settling,
        "my_vote": v.get("my_vote"),
        "post_count": post_count,
        "policy": policy,
        "vote_choice": vote_choice(state, seat.name, policy),
        "red_pending": seat.name in red_pending(state),
    }


def vote_choice(state: GameState, me: str, policy: ThreadPolicy) -> dict[str, Any] | None:
    """The vote picker: 投票 or 改票 and the targets the engine accepts from `me` now (its legal
    commands, 弃权 last); None when he may not vote. The post it makes is the forum format."""
    cmds = [c for c in legal_commands(state, me) if c.skill in (VOTE, CHANGE_VOTE)]
    if not cmds:
        return None
    skill = cmds[0].skill
    seen = {c.targets[0] for c in cmds if c.targets}
    targets = [n for n in state.order if n in seen] + ([ABSTAIN] if ABSTAIN in seen else [])
    change = skill == CHANGE_VOTE
    return {
        "skill": skill,
        "word": "改票" if change else "投票",
        "targets": targets,
        "reply": change and policy.change_vote_reply,
    }


def own_stage_deadline(
    rs: Ruleset, game: Game, state: GameState, actions: list[Action], deadline: dict[str, Any] | None
) -> dict[str, Any] | None:
    """At night the running deadline is the first open stage's (预言家行动); a player whose every
    skill tonight acts in a later stage that opened with the night (the wolves') is shown his own
    stage's planned deadline instead (never earlier than the running one, which it follows)."""
    if deadline is None or deadline.get("skill") != CLOSE_STAGE or state.phase.kind != NIGHT or state.settling:
        return deadline
    stages = {x for x in (rs.stage_of(a.skill) for a in actions) if x is not None}  # 决战/投降: any time
    if not stages or state.stage in stages:
        return deadline
    mine = min(stages)
    if not rs.night_stages[mine].opens_with_night or mine < state.stage:
        return deadline
    tz = sched.zone(game.timezone)
    due = sched.stage_due(game.phase_started_at, game.phase_started_at, mine, game.schedule, rs, tz)
    due = max(due, float(deadline["due"] or 0))
    label = f"{state.phase.label}·{rs.night_stages[mine].name}"
    return {"label": label, "due": due, "local": sched.local_text(due, tz), "skill": CLOSE_STAGE}


def later_tonight(rs: Ruleset, state: GameState, me: str, actions: list[Action]) -> list[str]:
    """The night skills `me` holds (his identity's declared skills, his group's) whose stage comes
    later tonight: the current stage's deadline is not his ("〈杀人〉在〈狼人行动〉阶段")."""
    if state.phase.kind != NIGHT or state.settling or not state.is_alive(me):
        return []
    c = state.chars[me]
    role = rs.role_table.get(c.role)
    now = {a.skill for a in actions}
    out: list[str] = []
    for sid, spec in rs.skills.items():
        stage = rs.stage_of(sid)
        if stage is None or stage <= state.stage or sid in now or spec.prompt or c.charges.get(sid, 1) <= 0:
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


def director_page(svc: GameService, game_id: int) -> dict[str, Any]:
    game, state = svc.read(game_id)
    rs = svc.ruleset(game)
    v = view(state, None)
    with svc.sessions() as s:
        items = thread_items(s, svc, game, state, v["events"], director=True)
        deadline = deadline_info(s, svc, game, v, None)
        seats = list(s.scalars(select(Seat).where(Seat.game_id == game.id).order_by(Seat.id)))
        flags = list(s.scalars(select(LurkFlag).where(LurkFlag.game_id == game.id).order_by(LurkFlag.id)))
        refused = list(s.scalars(select(RefusedPost).where(RefusedPost.game_id == game.id).order_by(RefusedPost.id)))
        rows = s.scalars(select(Announcement).where(Announcement.game_id == game.id).order_by(Announcement.idx)).all()
        waiting_notices = list(
            s.scalars(
                select(Post).where(Post.game_id == game.id, Post.vote_kind.in_(UNPUBLISHED_NOTICES)).order_by(Post.id)
            )
        )
        commands = s.scalars(
            select(CommandRow)
            .where(CommandRow.game_id == game.id, CommandRow.superseded.is_(False))
            .order_by(CommandRow.seq)
        ).all()
        log_rows = [logtext.Row(c.source, c.note, c.stage, c.created_at) for c in commands]
        notes = [(c.skill, c.payload, c.note, c.phase) for c in commands if c.skill in PENALTY_SKILLS]
        chats: dict[str, list[GroupMessage]] = {}
        for m in s.scalars(select(GroupMessage).where(GroupMessage.game_id == game.id).order_by(GroupMessage.id)):
            chats.setdefault(m.group_name, []).append(m)
    announces = [e for e in v["events"] if e["kind"] == ANNOUNCE]
    tallies = tally_lines(rs, state, v["events"])
    pending_items: list[dict[str, Any]] = []
    for r in rows:
        if r.idx >= len(announces) or r.published_at is not None:
            continue
        phase = announces[r.idx]["phase"]
        original = announces[r.idx]["text"]
        text = r.text or original
        # the preview is the 公示 as it will be posted: the day's result with its 票型
        shown = f"{text}\n{tallies[r.idx]}" if r.idx in tallies else text
        pending_items.append(
            {
                "kind": "announce",
                "key": r.idx,
                "idx": r.idx,
                "phase": phase,
                "text": text,
                "shown": shown,
                "original": original,
                "edited": r.text is not None,
                "withheld": r.withheld,
                "bbcode": bbcode.announcement(rs, phase, shown),
                "at": r.created_at,
            }
        )
    for p in waiting_notices:  # the service's own notices (替补, 延时) wait for review too
        pending_items.append(
            {
                "kind": "notice",
                "key": p.id,
                "phase": p.phase,
                "text": p.text,
                "shown": p.text,
                "original": p.text,
                "edited": False,
                "withheld": p.vote_kind == NOTICE_WITHHELD,
                "bbcode": bbcode.announcement(rs, p.phase, p.text),
                "at": p.created_at,
            }
        )
    pending_items.sort(key=lambda x: x["at"])
    day_posts: dict[str, list[str]] = {}
    for item in items:
        if item.kind == "announce":
            day_posts.setdefault(item.phase, []).append(item.text)
    day_codes = [(phase, bbcode.day(rs, phase, texts)) for phase, texts in day_posts.items()]
    day_codes.reverse()  # the latest first
    # who played each character: a 替补 is the second link row of its character
    people: dict[str, list[Seat]] = {}
    for seat in seats:
        people.setdefault(seat.name, []).append(seat)
    extra = [
        logtext.substitute_line(_phase_at(log_rows, state, x.created_at), x.name, x.person, x.created_at)
        for rows_ in people.values()
        for x in rows_[1:]
    ]
    log_lines = logtext.log_lines(rs, state.log, log_rows, extra)
    review_lines = logtext.log_lines(rs, state.log, log_rows, extra, include_announce=True)
    phase_actions = [x.text for x in log_lines if x.kind == ACCEPTED and x.phase == state.phase.label]
    preview: list[str] = []
    preview_error = ""
    if not state.over:
        probe = state.clone()
        try:
            preview = [e.text for e in apply_in_place(probe, Command(DIRECTOR, CLOSE_PHASE)) if e.text]
        except IllegalCommand as exc:
            preview_error = exc.reason
    links = {seat.name: seat.token for seat in seats if seat.active}
    penalties = _penalties(state, notes)
    waiting = _missing(rs, state, v["events"]) if not state.over and not state.settling else []
    night_plan: list[tuple[str, str]] = []
    if state.phase.kind == DAY and not state.settling and not state.over and game.status == "running":
        # the night's deadlines if the day closed now (a late close shifts the whole night)
        tz = sched.zone(game.timezone)
        plan = sched.night_preview(rs, game.schedule, svc.clock(), tz)
        night_plan = [(name, sched.local_text(due, tz)[5:]) for name, due in plan]
    outs = {o.player: f"{o.phase.label}·{o.cause}" for o in state.outs}
    reds = red_pending(state)
    for seat_view in v["seats"]:
        seat_view["status_text"] = seat_status(rs, seat_view, outs, reds)
    over = state.over or game.status == "ended"
    proxy = proxy_choices(state) if not over else {}
    return {
        "game": game,
        "rs": rs,
        "v": v,
        "state": state,
        "items": items,
        "deadline": deadline,
        "seats": seats,
        "links": links,
        "flags": flags,
        "refused": refused,
        "pending_flags": [f for f in flags if f.status == "pending"],
        "pending": pending_items,
        "phase_actions": phase_actions,
        "preview": preview,
        "preview_error": preview_error,
        "night_plan": night_plan,
        "log": log_lines,
        "timeline": _timeline(review_lines),
        "day_votes": _day_votes(v["events"]),
        "day_codes": day_codes,
        "penalties": penalties,
        "people": {n: [x.person for x in rows_] for n, rows_ in people.items()},
        "substituted": {n for n, rows_ in people.items() if len(rows_) > 1},
        "waiting": waiting,
        "custom_board": bool((game.settings or {}).get("custom_board")),
        "outs": outs,
        "counts": _counts(items, state.phase.label),
        "over": over,
        "settling": v["settling"] and not over,
        "at": svc.position(state),
        "chats": chats,
        "proxy": proxy,
        "proxy_targets": _by_target(proxy, state),
    }


def _by_target(proxy: dict[str, list[str]], state: GameState) -> list[tuple[str, list[str]]]:
    """代投's target list: each target once, with the voters who may vote for it."""
    voters: dict[str, list[str]] = {}
    for voter, targets in proxy.items():
        for t in targets:
            voters.setdefault(t, []).append(voter)
    order = [*state.order, ABSTAIN]
    return [(t, voters[t]) for t in order if t in voters]


def seat_status(rs: Ruleset, seat: dict[str, Any], outs: dict[str, str], reds: list[str]) -> str:
    """A seat's state in words for the director: 存活 / 出局（阶段·原因）, its statuses by their
    declared names (癫狂, 濒死 …; never the engine's ids), and a 红牌 waiting for the day's vote."""
    name = seat["name"]
    if not seat["alive"]:
        text = f"出局（{outs[name]}）" if name in outs else "出局"
    elif name in reds:
        text = "存活 · 红牌（本日投票结算后罚下）"
    else:
        text = "存活"
    statuses = [rs.status_names.get(x, x) for x in seat.get("statuses", [])]
    return text + (" · " + "、".join(statuses) if statuses else "")


def proxy_choices(state: GameState) -> dict[str, list[str]]:
    """代投: each character who may vote now and the targets the engine accepts from him (弃权 last)."""
    out: dict[str, list[str]] = {}
    for name in state.order:
        seen = {c.targets[0] for c in legal_commands(state, name) if c.skill in (VOTE, CHANGE_VOTE) and c.targets}
        if seen:
            out[name] = [n for n in state.order if n in seen] + ([ABSTAIN] if ABSTAIN in seen else [])
    return out


PENALTY_SKILLS = frozenset({CARD_BLUE, CARD_YELLOW, CARD_RED, DEDUCT})


def _phase_at(rows: list[logtext.Row], state: GameState, at: float) -> str:
    """The phase a service record (替补) happened in: the game's phase after the commands stored
    before it (the phase in which the next command was accepted, or the current one)."""
    accepted = [e.phase for e in state.log if e.kind == ACCEPTED]
    k = sum(1 for row in rows if row.at <= at)
    return accepted[k] if k < len(accepted) else state.phase.label


def _penalties(state: GameState, notes: list[tuple[str, dict[str, Any], str | None, str]]) -> dict[str, dict[str, Any]]:
    """Each character's cards (蓝/黄/红 as the engine counts them after merging), points deducted
    and the director's reasons."""
    out: dict[str, dict[str, Any]] = {}
    for name, c in state.chars.items():
        cards = c.marks.get("cards") or {}
        out[name] = {
            "blue": int(cards.get("blue", 0)),
            "yellow": int(cards.get("yellow", 0)),
            "red": int(cards.get("red", 0)),
            "points": 0,
            "reasons": [],
        }
    names = {CARD_BLUE: "蓝牌", CARD_YELLOW: "黄牌", CARD_RED: "红牌", DEDUCT: "扣分"}
    for skill, payload, note, phase in notes:
        target = (payload.get("targets") or [""])[0]
        if target not in out:
            continue
        if skill == DEDUCT:
            out[target]["points"] += int(payload.get("amount") or 0)
        label = names[skill] + (f"{payload.get('amount')}分" if skill == DEDUCT else "")
        out[target]["reasons"].append(f"{phase} {label}：{note or '未写理由'}")
    return out


def _missing(rs: Ruleset, state: GameState, events: list[dict[str, Any]]) -> list[str]:
    """Who can still act this phase and has not (the director's "still waiting for")."""
    if state.phase.kind == DAY:
        return [f"{n}（未投票）" for n in state.alive_names() if n not in state.votes and rs.can_vote(state, n) is None]
    done = {
        (e["data"]["command"]["actor"], e["data"]["command"]["skill"])
        for e in events
        if e["kind"] == ACCEPTED and e["phase"] == state.phase.label
    }
    out: list[str] = []
    for n in state.alive_names():
        skills = []
        for c in legal_commands(state, n):
            if c.skill in (VOTE, CHANGE_VOTE) or (n, c.skill) in done or rs.skill_name(c.skill) in skills:
                continue
            spec = rs.skills.get(c.skill)
            if spec is None or spec.prompt:
                continue
            skills.append(rs.skill_name(c.skill))
        if skills:
            out.append(f"{n}（可发动：{'、'.join(skills)}）")
    return out


def _timeline(lines: list[logtext.LogLine]) -> list[tuple[str, list[logtext.LogLine]]]:
    """The 复盘's timeline: the log grouped by phase, in order."""
    out: list[tuple[str, list[logtext.LogLine]]] = []
    for line in lines:
        if not out or out[-1][0] != line.phase:
            out.append((line.phase, []))
        out[-1][1].append(line)
    return out


def _day_votes(events: list[dict[str, Any]]) -> list[tuple[str, list[tuple[str, str]], str]]:
    """Each day's final votes (a 改票 replaces the voter's earlier vote), voters in voting order,
    and the day's tally (votes per target, most first; one a voter, before any weighting)."""
    days: dict[str, dict[str, str]] = {}
    for e in events:
        if e["kind"] != ACCEPTED:
            continue
        cmd = e["data"]["command"]
        if cmd["skill"] in (VOTE, CHANGE_VOTE):
            target = (cmd.get("targets") or ["弃权"])[0]
            days.setdefault(e["phase"], {})[cmd["actor"]] = target
    out = []
    for phase, votes in days.items():
        tally = "、".join(f"{target} {n}票" for target, n in Counter(votes.values()).most_common())
        out.append((phase, list(votes.items()), tally))
    return out


def _counts(items: list[ThreadItem], phase: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for i in items:
        if i.kind == "post" and i.phase == phase and not i.by_director:
            counts[i.author] = counts.get(i.author, 0) + 1
    return counts


def viewer_version(ctx: dict[str, Any]) -> str:
    """A digest of everything a player's pages show him (from `player_page`): what his pages and
    live stream carry as their version, so it changes only when what HE can see changes (a
    per-game counter bumped by hidden actions would let a villager count the wolves' messages)."""
    seen = {
        "v": ctx["v"],
        "actions": [asdict(a) for a in ctx["actions"]],
        "deadline": ctx["deadline"],
        "items": [asdict(i) for i in ctx["items"]],
        "chats": {g: [(m.author, m.phase, m.text) for m in rows] for g, rows in ctx["chats"].items()},
        "packs": ctx["packs"],
        "status": ctx["game"].status,
        "flags": [ctx["over"], ctx["can_post"], ctx["is_day"], ctx["post_count"]],
    }
    raw = json.dumps(seen, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(raw.encode()).hexdigest()[:20]


def desk_choices(state: GameState) -> dict[str, Any]:
    """The forum desk's 代投 pickers (an action a player sent the director privately): who may
    act now, the skills each may use and, place by place, the targets the engine accepts for
    each (player, skill) — from the legal commands, never from a role's name. Option lists carry
    the keys they belong to (JSON in `data-for`: a player, or "player skill")."""
    rs: Ruleset = state.rules
    players: list[str] = []
    skills: dict[str, tuple[str, list[str]]] = {}
    slots: list[dict[str, list[str]]] = []
    for name in state.order:
        for a in _actions(rs, state, name, []):
            places = a.slots or ([a.targets] if a.targets else [])
            if a.shape == YES_NO:
                places = [["是", "否"]]
            if name not in players:
                players.append(name)
            skills.setdefault(a.skill, (a.name, []))[1].append(name)
            for i, choices in enumerate(places):
                while len(slots) <= i:
                    slots.append({})
                for choice in choices:
                    slots[i].setdefault(choice, []).append(f"{name} {a.skill}")
    return {
        "players": players,
        "skills": [(sid, label, who) for sid, (label, who) in skills.items()],
        "slots": [list(place.items()) for place in slots],
    }
