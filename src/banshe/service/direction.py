"""The director's running of a game: his commands, 潜水 flags (recorded when a day closes), 替补,
and pause / resume / end."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..engine.commands import CARD_BLUE, CARD_RED, CARD_YELLOW, CLOSE_PHASE, DEDUCT, DIRECTOR, Command
from ..engine.events import Event
from ..engine.model import GameState
from ..engine.ruleset import Ruleset
from . import logtext, pgsync
from . import schedule as sched
from .errors import NotFound, ServiceError
from .forum_models import forum_day_counts
from .models import (
    Announcement,
    CommandRow,
    DayRecord,
    Deadline,
    Game,
    GroupMessage,
    HeldCommand,
    LurkFlag,
    PlayerNotice,
    PlayerRequest,
    Post,
    Seat,
)
from .notices import notice, publish_notices
from .store import HEAD, MAX_NOTE, Store

CARD_TEXT = {CARD_BLUE: "蓝牌", CARD_YELLOW: "黄牌", CARD_RED: "红牌", DEDUCT: "扣分"}
# the game's own fields a director command may change (restored by 撤销)
GAME_FIELDS = (
    "status",
    "paused_at",
    "phase_label",
    "phase_started_at",
    "public_label",
    "public_settling",
    "public_since",
    "held_log",
    "closed_at",
    "start_at",
    "dawn_at",
)


class Direction(Store):
    """What the director does to a running game besides posting (thread.py) and 延长 (deadlines.py)."""

    def _record_day(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        label = state.phase.label
        if s.scalar(select(DayRecord).where(DayRecord.game_id == game.id, DayRecord.phase == label)) is not None:
            return
        counts = {n: 0 for n in state.order}
        forum = forum_day_counts(s, game.id, label)  # a game played on a forum thread: its count
        if forum is not None:
            counts.update({n: c for n, c in forum[0].items() if n in counts})
        else:
            for author, n in s.execute(
                select(Post.author, func.count(Post.id))
                .where(Post.game_id == game.id, Post.phase == label, Post.by_director.is_(False))
                .group_by(Post.author)
            ):
                counts[author] = int(n)
        # 潜水 is judged on a day that ran its length only (rulings: 潜水与提前关门): a day the
        # director closed before its 关门 time is exempt, as a day under 执行加速 is
        close = self.current_deadline(s, game.id)
        cut_short = close is not None and close.skill == CLOSE_PHASE and anchor < close.due_at
        exempt = state.accelerated or cut_short
        s.add(DayRecord(game_id=game.id, phase=label, accelerated=exempt, counts=counts, created_at=anchor))
        s.flush()
        rs = self.ruleset(game)
        policy = sched.policy_for(rs)
        if exempt:
            return  # 执行加速时（或提前关门的讨论日），发言不足或未投票者将不被判罚
        if forum is not None:  # the thread's 潜水 cases (never 0 posts in banshe's own, empty thread)
            for name, reason in forum[1]:
                s.add(
                    LurkFlag(
                        game_id=game.id,
                        phase=label,
                        player=name,
                        reason=reason[:200],
                        card=policy.lurk_card,
                        status="pending",
                        created_at=anchor,
                    )
                )
            return
        recent = s.scalars(
            select(DayRecord)
            .where(DayRecord.game_id == game.id)
            .order_by(DayRecord.created_at.desc(), DayRecord.id.desc())
        ).all()[:3]
        for name in state.alive_names():
            reasons = []
            if policy.lurk_min_posts and counts[name] < policy.lurk_min_posts:
                reasons.append(f"{label}发言不足{policy.lurk_min_posts}帖（{counts[name]}帖）")
            # 未投票 only for who could vote that day (the 白痴 after 装傻 may not: ruleset's can_vote)
            if policy.lurk_no_vote and name not in state.votes and rs.can_vote(state, name) is None:
                reasons.append(f"{label}未投票")
            if (
                policy.lurk_three_day_posts
                and len(recent) == 3
                and all(not r.accelerated and r.counts.get(name, 0) < policy.lurk_three_day_posts for r in recent)
            ):
                reasons.append(f"连续三个讨论日均不足{policy.lurk_three_day_posts}帖")
            for reason in reasons:
                s.add(
                    LurkFlag(
                        game_id=game.id,
                        phase=label,
                        player=name,
                        reason=reason,
                        card=policy.lurk_card,
                        status="pending",
                        created_at=anchor,
                    )
                )

    def resolve_flag(self, game_id: int, flag_id: int, issue: bool, at: str | None = None) -> None:
        self.resolve_flags(game_id, [flag_id], issue, at)

    def resolve_flags(self, game_id: int, flag_ids: list[int], issue: bool, at: str | None = None) -> int:
        """判罚 or 忽略 several 潜水 flags at once (all or none); each card carries the flag's reason."""
        if not flag_ids:
            raise ServiceError("请勾选要处理的潜水记录")
        with self._tx(game_id) as (s, game):
            self._check_at(game, self.state_of(s, game), at)
            flags: list[LurkFlag] = []
            for flag_id in dict.fromkeys(flag_ids):
                flag = s.get(LurkFlag, flag_id)
                if flag is None or flag.game_id != game.id:
                    raise NotFound("没有这条潜水记录")
                if flag.status != "pending":
                    raise ServiceError(f"{flag.player}的潜水记录（{flag.reason}）已经处理过了")
                flags.append(flag)
            if issue:
                self._check_running(game)
            for flag in flags:
                if issue:
                    state = self.state_of(s, game)
                    cmd = Command(DIRECTOR, flag.card, (flag.player,))
                    self._apply(s, game, state, cmd, "director", self.clock(), f"潜水：{flag.reason}")
                flag.status = "issued" if issue else "dismissed"
            return len(flags)

    def director_command(
        self, game_id: int, cmd: Command, at: str | None = None, note: str | None = None
    ) -> list[Event]:
        """A director's command (判罚 or 指令). It can be undone while nothing else has happened
        since (`undo`): the service's records before it are kept with it. A card or a deduction
        also tells its player privately, with the director's reason."""
        if note is not None and len(note) > MAX_NOTE:
            raise ServiceError(f"理由过长（最多{MAX_NOTE}字）")
        with self._tx(game_id) as (s, game):
            self._check_running(game)
            state = self.state_of(s, game)
            self._check_at(game, state, at)
            now = self.clock()
            before = _snapshot(s, game)
            first = self._head(s, game.id) + 1
            events = self._apply(s, game, state, cmd, "director", now, note)
            if cmd.skill in CARD_TEXT and cmd.targets and cmd.targets[0] in state.chars:
                what = f"扣{cmd.amount}分" if cmd.skill == DEDUCT else f"一张{CARD_TEXT[cmd.skill]}"
                reason = f"，理由：{note}" if note else ""
                text = f"你被导演判罚{what}{reason}。"
                s.add(
                    PlayerNotice(
                        game_id=game.id,
                        player=cmd.targets[0],
                        phase=state.phase.label,
                        text=text,
                        created_at=now,
                        command_seq=first,
                    )
                )
            s.flush()
            row = s.scalar(select(CommandRow).where(CommandRow.game_id == game.id, CommandRow.seq == first))
            if row is not None:
                row.undo = {"before": before, "after": _marks(s, game.id)}
            return events

    def undo_target(self, s: Session, game: Game) -> tuple[CommandRow | None, str]:
        """The director's last command if it can be undone now, else (None, why not)."""
        # the latest command a director stored with its records (the rows it set off in the same
        # step — stages opened before a night's close, held skills applied — come after it)
        rows = s.scalars(
            select(CommandRow)
            .where(CommandRow.game_id == game.id, CommandRow.undo.is_not(None), CommandRow.superseded.is_(False))
            .order_by(CommandRow.seq.desc())
        ).first()
        if rows is None or rows.undo is None:
            return None, "没有可以撤销的导演指令"
        if game.status == "ended":
            return None, "游戏已经结束"
        if _marks(s, game.id) != rows.undo.get("after"):
            return None, "上一条导演指令之后已有其他变化（提交、发言、公示发布或时限），不能撤销"
        return rows, ""

    def undo(self, game_id: int, at: str | None = None) -> str:
        """撤销 the director's last command while nothing else has happened since: retract it (and
        what it set off at once), replay, restore the service's records; says what changed."""
        with self._tx(game_id) as (s, game):
            state = self.state_of(s, game)
            self._check_at(game, state, at)
            row, why = self.undo_target(s, game)
            if row is None:
                raise ServiceError(why)
            rs = self.ruleset(game)
            snapshot = dict(row.undo or {}).get("before") or {}
            done = _sentence(rs, row)
            old_log = [e.text for e in state.log if e.text]
            for later in s.scalars(select(CommandRow).where(CommandRow.game_id == game.id, CommandRow.seq >= row.seq)):
                s.delete(later)
            s.flush()
            s.info.pop(HEAD, None)
            self._cache.pop(game.id, None)
            self._before_close.pop(game.id, None)
            _restore(s, game, snapshot)
            fresh = self.state_of(s, game)
            count = len([e for e in fresh.log if e.kind == "announce" and e.audience.kind == "public"])
            for ann in s.scalars(
                select(Announcement).where(Announcement.game_id == game.id, Announcement.idx >= count)
            ):
                s.delete(ann)
            new_log = [e.text for e in fresh.log if e.text]
            gone = old_log[len(new_log) :] if old_log[: len(new_log)] == new_log else []
            lines = "；".join(t for t in gone[:6] if t)
            more = f"（另有{len(gone) - 6}条）" if len(gone) > 6 else ""
            return f"已撤销：{done}" + (f"。撤销的结果：{lines}{more}" if lines else "。")

    def substitute(self, game_id: int, name: str, at: str | None = None, person: str = "") -> Seat:
        """替补: the character keeps its history; the new person (`person`, named in the log and the
        export) gets a new link, the old one stops working. 每名角色仅限更换一次替补 (seed 002)."""
        person = person.strip()
        if len(person) > 64 or not person.isprintable():
            raise ServiceError("替补玩家的名字过长或含有不可见字符")
        try:
            return self._substitute(game_id, name, at, person)
        finally:
            self.forget_seats(game_id)  # the old link dies at once (also when the commit failed)
            with self.sessions() as s:  # and in the other processes (PostgreSQL)
                pgsync.announce(s, game_id, seats=True)
                s.commit()

    def _substitute(self, game_id: int, name: str, at: str | None, person: str) -> Seat:
        with self._tx(game_id) as (s, game):
            state = self.state_of(s, game)
            self._check_at(game, state, at)
            if game.status == "ended":
                raise ServiceError("游戏已经结束")
            seat = s.scalar(select(Seat).where(Seat.game_id == game.id, Seat.name == name, Seat.active.is_(True)))
            if seat is None:
                raise ServiceError(f"{name}不是本局的角色")
            earlier = s.scalar(select(func.count(Seat.id)).where(Seat.game_id == game.id, Seat.name == name)) or 0
            if earlier > 1:
                raise ServiceError(f"每名角色仅限更换一次替补：{name}已经换过替补（{seat.person or '未填写'}）")
            seat.active = False
            new = Seat(
                game_id=game.id,
                name=name,
                token=secrets.token_urlsafe(24),
                active=True,
                created_at=self.clock(),
                person=person or None,
            )
            s.add(new)
            # 更换替补…照常公示 (seed 000); the new person's name stays in the director's records
            s.add(notice(game.id, state.phase.label, f"{name}更换替补。", self.clock(), game.auto_publish))
            s.flush()
            return new

    def set_status(self, game_id: int, action: str, at: str | None = None) -> None:
        with self._tx(game_id) as (s, game):
            self._check_at(game, self.state_of(s, game), at)
            now = self.clock()
            if game.status == "ended":
                raise ServiceError("游戏已经结束")
            if action == "pause":
                if game.status == "paused":
                    raise ServiceError("游戏已经暂停")
                game.status, game.paused_at = "paused", now
            elif action == "resume":
                if game.status != "paused":
                    raise ServiceError("游戏没有暂停")
                shift = now - (game.paused_at or now)
                for row in s.scalars(
                    select(Deadline).where(
                        Deadline.game_id == game.id, Deadline.fired_at.is_(None), Deadline.cancelled.is_(False)
                    )
                ):
                    row.due_at += shift
                game.phase_started_at += shift
                game.public_since += shift
                for name in ("closed_at", "start_at", "dawn_at"):
                    value = getattr(game, name)
                    if value is not None:
                        setattr(game, name, value + shift)
                if game.settings and "outage" in game.settings:
                    game.settings = {k: v for k, v in game.settings.items() if k != "outage"}
                game.status, game.paused_at = "running", None
            elif action == "end":
                game.status = "ended"
                for row in s.scalars(select(Deadline).where(Deadline.game_id == game.id, Deadline.fired_at.is_(None))):
                    row.cancelled = True
                for ann in s.scalars(
                    select(Announcement).where(
                        Announcement.game_id == game.id,
                        Announcement.published_at.is_(None),
                        Announcement.withheld.is_(False),
                    )
                ):
                    ann.published_at = now
                publish_notices(s, game.id, now)
            else:
                raise ServiceError("未知的操作")


def _max_id(s: Session, column: Any, game_id: int, owner: Any) -> int:
    return int(s.scalar(select(func.max(column)).where(owner == game_id)) or 0)


def _marks(s: Session, game_id: int) -> dict[str, Any]:
    """Everything that can happen in a game besides a director command, as counters: a change of
    any of them since his last command means it can no longer be undone."""
    published = s.scalar(
        select(func.count(Announcement.id)).where(
            Announcement.game_id == game_id, Announcement.published_at.is_not(None)
        )
    )
    fired = s.scalar(select(func.count(Deadline.id)).where(Deadline.game_id == game_id, Deadline.fired_at.is_not(None)))
    settled = s.scalar(
        select(func.count(HeldCommand.id)).where(HeldCommand.game_id == game_id, HeldCommand.status != "held")
    )
    flags = s.scalar(select(func.count(LurkFlag.id)).where(LurkFlag.game_id == game_id, LurkFlag.status != "pending"))
    return {
        "seq": _max_id(s, CommandRow.seq, game_id, CommandRow.game_id),
        "posts": _max_id(s, Post.id, game_id, Post.game_id),
        "chats": _max_id(s, GroupMessage.id, game_id, GroupMessage.game_id),
        "held": _max_id(s, HeldCommand.id, game_id, HeldCommand.game_id),
        "settled": int(settled or 0),
        "requests": _max_id(s, PlayerRequest.id, game_id, PlayerRequest.game_id),
        "seats": _max_id(s, Seat.id, game_id, Seat.game_id),
        "published": int(published or 0),
        "fired": int(fired or 0),
        "flags": int(flags or 0),
    }


def _snapshot(s: Session, game: Game) -> dict[str, Any]:
    """The service's records a director command may change, as they are before it."""
    s.flush()
    return {
        "game": {name: getattr(game, name) for name in GAME_FIELDS},
        "settings": dict(game.settings or {}),
        "deadlines": [
            [r.id, r.due_at, r.fired_at, r.cancelled]
            for r in s.scalars(select(Deadline).where(Deadline.game_id == game.id))
        ],
        "announcements": [
            [a.id, a.published_at, a.withheld]
            for a in s.scalars(select(Announcement).where(Announcement.game_id == game.id))
        ],
        "held": [
            [h.id, h.status, h.reason, h.settled_at]
            for h in s.scalars(select(HeldCommand).where(HeldCommand.game_id == game.id))
        ],
        "flags": _max_id(s, LurkFlag.id, game.id, LurkFlag.game_id),
        "days": _max_id(s, DayRecord.id, game.id, DayRecord.game_id),
        "notices": _max_id(s, PlayerNotice.id, game.id, PlayerNotice.game_id),
        "posts": _max_id(s, Post.id, game.id, Post.game_id),
    }


def _restore(s: Session, game: Game, snap: dict[str, Any]) -> None:
    """Put the service's records back as `_snapshot` found them."""
    for name, value in (snap.get("game") or {}).items():
        setattr(game, name, value)
    game.settings = dict(snap.get("settings") or {})
    known = {int(r[0]): r for r in snap.get("deadlines") or []}
    for row in s.scalars(select(Deadline).where(Deadline.game_id == game.id)):
        old = known.get(row.id)
        if old is None:
            s.delete(row)
        else:
            row.due_at, row.fired_at, row.cancelled = old[1], old[2], old[3]
    anns = {int(a[0]): a for a in snap.get("announcements") or []}
    for ann in s.scalars(select(Announcement).where(Announcement.game_id == game.id)):
        old = anns.get(ann.id)
        if old is None:
            s.delete(ann)
        else:
            ann.published_at, ann.withheld = old[1], old[2]
    held = {int(h[0]): h for h in snap.get("held") or []}
    for h in s.scalars(select(HeldCommand).where(HeldCommand.game_id == game.id)):
        old = held.get(h.id)
        if old is not None:
            h.status, h.reason, h.settled_at = old[1], old[2], old[3]
    for model, key in ((LurkFlag, "flags"), (DayRecord, "days"), (PlayerNotice, "notices"), (Post, "posts")):
        for extra in s.scalars(select(model).where(model.game_id == game.id, model.id > int(snap.get(key) or 0))):
            s.delete(extra)
    s.flush()


def _sentence(rs: Ruleset, row: CommandRow) -> str:
    line = logtext.command_sentence(
        rs, row.phase, dict(row.payload), logtext.Row(row.source, row.note, row.stage, row.created_at)
    )
    return line
