"""The director's running of a game: his commands, 潜水 flags (recorded when a day closes), 替补,
and pause / resume / end."""

from __future__ import annotations

import secrets

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..engine.commands import CLOSE_PHASE, DIRECTOR, Command
from ..engine.events import Event
from ..engine.model import GameState
from . import pgsync
from . import schedule as sched
from .errors import NotFound, ServiceError
from .forum_models import forum_day_counts
from .models import Announcement, DayRecord, Deadline, Game, LurkFlag, Post, Seat
from .notices import notice, publish_notices
from .store import Store


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
        return self.submit(game_id, cmd, source="director", at=at, note=note)

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
