"""What pages show, computed from the engine's `view` (players) or the director's view.

A player's page is built ONLY from what he has been shown (published.py, seen.py: the engine's
view and legal moves as published — the settling window, the 公示 review, outs not yet
published), plus the service's own records (posts, group messages, deadlines).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
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
    DEDUCT,
    DIRECTOR,
    PROMPT_TIMEOUT,
    VOTE,
    Command,
    IllegalCommand,
)
from ..engine.core import apply_in_place
from ..engine.events import ACCEPTED, ANNOUNCE
from ..engine.model import DAY, NIGHT, GameState
from ..engine.ruleset import YES_NO, Ruleset
from ..engine.view import legal_commands, view
from . import bbcode, logtext
from . import schedule as sched
from .games import GameService
from .models import Announcement, CommandRow, Deadline, Game, GroupMessage, LurkFlag, Post, RefusedPost, Seat
from .notices import DIRECTOR_POST_KIND, NOTICE_KIND, NOTICE_WITHHELD, UNPUBLISHED_NOTICES
from .published import Publication
from .seen import (  # noqa: F401  (Action, command_text, own_command_text: imported from here by tests)
    Action,
    actions_of,
    command_text,
    day_open,
    own_command_text,
    player_context,
    red_pending,
    seen_of,
)
from .store import public_announcements


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


def deadline_info(s: Session, svc: GameService, game: Game, state: GameState) -> dict[str, Any] | None:
    """The director's current deadline: the players' clock's, or a prompt's own while one runs
    (a prompt answered inside a settling window is named with the window's)."""
    row = svc.current_deadline(s, game.id)
    prompt = svc.prompt_deadline(s, game.id)
    if prompt is not None and (row is None or prompt.due_at <= row.due_at):
        row = prompt
    shown = deadline_view(row, game)
    if shown is not None and row is not None and row.skill == "window" and state.prompts and state.prompt_raised:
        head = state.prompts[0]
        shown["label"] += f"（等待{head.actor}的<{svc.ruleset(game).skill_name(head.skill)}>）"
    return shown


def deadline_view(row: Deadline | None, game: Game) -> dict[str, Any] | None:
    if row is None:
        return None
    tz = sched.zone(game.timezone)
    return {"label": row.label, "due": row.due_at, "local": sched.local_text(row.due_at, tz), "skill": row.skill}


def vote_tallies(order: tuple[str, ...], voting: str | None, events: list[dict[str, Any]]) -> dict[str, str]:
    """票型 of each closed day (who voted whom, the last vote or 改票 of each voter), from the
    public vote events: only for rulesets whose votes are open posts (ThreadPolicy.tally_in_result).
    `voting`: the day still voting (its 票型 goes with its result)."""
    final: dict[str, dict[str, str]] = {}
    for e in events:
        if e["kind"] == ACCEPTED and e["data"]["command"]["skill"] in (VOTE, CHANGE_VOTE):
            cmd = e["data"]["command"]
            final.setdefault(e["phase"], {})[cmd["actor"]] = (cmd.get("targets") or ["弃权"])[0]
    seats = {n: i for i, n in enumerate(order)}
    out: dict[str, str] = {}
    for phase, votes in final.items():
        if phase == voting:
            continue
        lines = [f"{voter}→{votes[voter]}" for voter in sorted(votes, key=lambda n: seats.get(n, 0))]
        out[phase] = "票型：" + "，".join(lines) + "。"
    return out


CURRENT_DAY = "\x00current"  # tally_lines: the day still voting is the game's own


def tally_lines(
    rs: Ruleset, state: GameState, events: list[dict[str, Any]], voting: str | None = CURRENT_DAY
) -> dict[int, str]:
    """The 票型 each 公示 carries, by its index among the public 公示 (the Announcement rows'
    idx): a closed day's last one (its result), where the ruleset's votes are open posts
    (ThreadPolicy.tally_in_result). `events`: the votes the viewer sees; `voting`: the day still
    voting (CURRENT_DAY: the game's current day unless it is over)."""
    if not sched.policy_for(rs).tally_in_result:
        return {}
    if voting == CURRENT_DAY:
        voting = None if state.over else state.phase.label
    tallies = vote_tallies(state.order, voting, events)
    announces = public_announcements(state)
    last_of = {e.phase: i for i, e in enumerate(announces)}  # a day's last 公示: its result
    return {last_of[phase]: line for phase, line in tallies.items() if phase in last_of}


def thread_items(
    s: Session,
    svc: GameService,
    game: Game,
    state: GameState,
    events: list[dict[str, Any]],
    director: bool,
    viewer: str | None = None,
    pub: Publication | None = None,
) -> list[ThreadItem]:
    """The 讨论帖: published 公示 and posts, in time order, each with its floor (N楼) and time; a
    reply carries the quoted floor as this viewer sees it. `events`: the viewer's (the votes of
    the 票型); `pub`: what the players have been shown (their day, the half-public votes)."""
    rs = svc.ruleset(game)
    rows = s.scalars(select(Announcement).where(Announcement.game_id == game.id).order_by(Announcement.idx)).all()
    announces = public_announcements(state)
    if pub is not None:
        label, voting_day = pub.label, day_open(pub)
        voting = None if pub.over else pub.label
    else:
        label, voting_day = state.phase.label, state.phase.kind == DAY and not state.settling
        voting = None if state.over else state.phase.label
    tallies = tally_lines(rs, state, events, voting)
    items: list[ThreadItem] = []
    for row in rows:
        if row.idx >= len(announces) or (row.published_at is None and not director):
            continue
        e = announces[row.idx]
        kind = "announce" if row.published_at is not None else "pending"
        text = row.text or e.text  # the director's edit replaces the engine's wording
        if row.idx in tallies:
            text = f"{text}\n{tallies[row.idx]}"
        items.append(ThreadItem(row.published_at or row.created_at, kind, "导演", text, e.phase))
    hide_votes = not director and voting_day and sched.policy_for(rs).vote_visibility == "half_public"
    replies: dict[int, int] = {}
    changed = {
        p.author
        for p in s.scalars(
            select(Post).where(Post.game_id == game.id, Post.phase == label, Post.vote_kind == CHANGE_VOTE)
        )
    }
    own_vote: int | None = None
    for p in s.scalars(select(Post).where(Post.game_id == game.id).order_by(Post.id)):
        if p.vote_kind in UNPUBLISHED_NOTICES and not director:
            continue  # the service's notice waits for the director's review
        if p.reply_to is not None:
            replies[p.id] = p.reply_to
        item = post_item(p, hide_votes, label, viewer)
        if p.vote_kind == VOTE and p.author == viewer and p.phase == label:
            own_vote = len(items)
        items.append(item)
    if own_vote is not None and viewer not in changed and voting_day:
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


def hides_votes(rs: Ruleset, pub: Publication) -> bool:
    """Half-public counting (ThreadPolicy.vote_visibility): today's vote posts are hidden from the
    other players until the day closes."""
    return sched.policy_for(rs).vote_visibility == "half_public" and day_open(pub)


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


def player_page(svc: GameService, seat: Seat) -> dict[str, Any]:
    game, state, pub = svc.read_published(seat.game_id)
    rs = svc.ruleset(game)
    with svc.sessions() as s:
        seen = seen_of(s, svc, game, pub)
        ctx = player_context(rs, game, pub, seen, seat.name)
        v = ctx.v
        items = thread_items(s, svc, game, state, v["events"], director=False, viewer=seat.name, pub=pub)
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
            1 for i in items if i.kind in ("post", "hidden") and i.author == seat.name and i.phase == pub.label
        )
    return {
        "game": game,
        "rs": rs,
        "v": v,
        "me": v["me"],
        "charges": ctx.charges,
        "private": ctx.private,
        "actions": ctx.actions,
        "packs": ctx.packs,
        "deadline": ctx.deadline,
        "windows": ctx.windows,
        "items": items,
        "groups": groups,
        "chats": chats,
        "over": pub.over,
        "can_post": ctx.can_post,
        "is_day": ctx.is_day,
        "my_vote": v.get("my_vote"),
        "post_count": post_count,
        "policy": sched.policy_for(rs),
        "later": ctx.later,
        "vote_choice": ctx.vote_choice,
        "red_pending": ctx.red_pending,
        "context": ctx,
    }


def director_page(svc: GameService, game_id: int) -> dict[str, Any]:
    game, state, pub = svc.read_published(game_id)
    rs = svc.ruleset(game)
    v = view(state, None)
    with svc.sessions() as s:
        items = thread_items(s, svc, game, state, v["events"], director=True)
        deadline = deadline_info(s, svc, game, state)
        clock = _clock(s, svc, game, state, pub)
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
    if pub.open and state.phase.kind == DAY and not state.settling and game.status == "running":
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
        **clock,
        "confirm": _confirmations(rs, state, pub, preview, waiting, pending_items),
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
        "counts": _counts(items, pub.label),
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


@dataclass
class TimetableRow:
    id: int
    label: str
    local: str
    due: float
    kind: str  # what the row does, in words
    passed: bool
    private: bool  # a prompt's own deadline: only its player and the director see it


ROW_KINDS = {
    "begin": "开局时间",
    "close_phase": "关门结算",
    "close_stage": "阶段结束",
    "window": "结算窗口结束（回应超时，结果公布）",
    "dawn": "自动发布黎明公示",
    "prompt_timeout": "回应时限（仅该玩家可见）",
}


def _clock(s: Session, svc: GameService, game: Game, state: GameState, pub: Publication) -> dict[str, Any]:
    """The god view's clock: what the players see, the timetable (each deadline can be moved),
    the night's held skills, what 撤销 would undo, a pending dawn and a past outage."""
    tz = sched.zone(game.timezone)
    rows: list[TimetableRow] = []
    shown: list[Deadline] = []
    if state.phase.kind == NIGHT and not state.over:
        shown = [r for r in svc.night_rows(s, game.id, state.phase.label) if r.fired_at is not None]
    for r in [*shown, *svc.timetable(s, game.id)]:
        rows.append(
            TimetableRow(
                r.id,
                r.label,
                sched.local_text(r.due_at, tz),
                r.due_at,
                ROW_KINDS.get(r.skill, r.skill),
                r.fired_at is not None,
                r.skill == PROMPT_TIMEOUT,
            )
        )
    undo_row, undo_why = svc.undo_target(s, game)
    undo = ""
    if undo_row is not None:
        undo = logtext.command_sentence(
            svc.ruleset(game),
            undo_row.phase,
            dict(undo_row.payload),
            logtext.Row(undo_row.source, undo_row.note, undo_row.stage, undo_row.created_at),
        )
    held = [
        (h.actor, command_text(svc.ruleset(game), h.payload), h.status, h.reason or "")
        for h in svc.held_of(s, game.id, state.phase.label)
    ]
    dawn = svc._awaiting_dawn(game, state) and not state.over
    window = next((r for r in svc.timetable(s, game.id) if r.skill == "window"), None)
    return {
        "pub": pub,
        "public_phase": pub.label + ("（结算中）" if pub.settling else ""),
        "timetable": rows,
        "undo": undo,
        "undo_why": undo_why,
        "held": held,
        "awaiting_dawn": dawn,
        "dawn_label": state.phase.label if dawn else "",
        "window": window,
        "start_at": sched.local_text(game.start_at, tz) if game.start_at is not None else "",
        "outage": str((game.settings or {}).get("outage") or ""),
    }


def _confirmations(
    rs: Ruleset,
    state: GameState,
    pub: Publication,
    preview: list[str],
    waiting: list[str],
    pending: list[dict[str, Any]],
) -> dict[str, str]:
    """What each irreversible director action does, for its confirmation (the page asks first)."""
    label = state.phase.label
    at_night = state.phase.kind == NIGHT and state.stage < len(rs.night_stages)
    stage = rs.night_stages[state.stage].name if at_night else ""
    settle = "；".join(preview[:4]) or "无"
    late = "、".join(waiting[:6]) or "无"
    head = state.prompts[0] if state.prompts else None
    prompt = f"{head.actor}的<{rs.skill_name(head.skill)}>" if head is not None else "当前回应"
    undoable = "（在没有其他变化之前可以“撤销上一条导演指令”）"
    count = len([p for p in pending if not p["withheld"]])
    return {
        "close_stage": f"关闭{label}·{stage}：这个阶段立即结束，尚未提交的技能视为放弃（尚未提交：{late}）。{undoable}",
        "close_phase": f"立即关门：{label}立即结束并结算（{settle}）；玩家在结算窗口结束后看到结果。{undoable}",
        "prompt_timeout": f"判定{prompt}超时：按未回应处理（默认结果）。{undoable}",
        "accelerate": f"对{label}执行加速：今日不可改票，公示立即生成。{undoable}",
        "delay": f"取消{label}的加速（延时）。{undoable}",
        "judge_loss": "判定所选阵营{target}负：可能立即结束游戏，游戏结束后不能撤销。",
        "card": "判罚{target}：{skill}（扣分时的分值：{amount}；理由：{reason}）。"
        "判罚公示给所有玩家并私信告知{target}；红牌即罚下（白天在投票结算后出局）。" + undoable,
        "end": "结束游戏：所有待发布的公示立即发布，复盘对玩家公开，不能恢复。",
        "publish": f"发布公示：发布后玩家立即看到，不能撤回（待发布{count}条）。",
        "dawn": f"发布黎明公示并开始{state.phase.label}：计时、投票与潜水统计从现在开始，不能撤回。",
        "window": "立即结束结算窗口：仍在等待的回应按超时处理，结算结果立即公布。"
        "提前结束会让玩家从时间上推断是否有人在回应技能，请只在确有必要时使用。",
        "undo": "撤销上一条导演指令：它造成的一切（公示、出局、阶段变化）都会撤回，并告诉你改变了什么。",
        "substitute": "为{player}换上替补：旧链接立即失效，不能撤回。",
        "flags": "判罚所选的潜水记录：每条都给出建议的牌并公示。",
        "start": "立即开始：开局行动的计时从现在开始。",
        "public": pub.label,
    }


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
        cards = c.cards
        out[name] = {
            "blue": cards.blue if cards else 0,
            "yellow": cards.yellow if cards else 0,
            "red": cards.red if cards else 0,
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
        **ctx["context"].digest_parts(),
        "items": [vars(i) for i in ctx["items"]],  # the same fields as asdict, without its deep copy
        "chats": {g: [(m.author, m.phase, m.text) for m in rows] for g, rows in ctx["chats"].items()},
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
        for a in actions_of(rs, state, name, []):
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
