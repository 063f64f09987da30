"""Deadlines: the one that should be running (`_wanted`), keeping the stored rows in step, firing
the due ones (the scheduler), the director's 延长, and players' 申请加速 / 延时."""

from __future__ import annotations

import logging
import time

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..engine.commands import ACCELERATE, CLOSE_PHASE, CLOSE_STAGE, DELAY, DIRECTOR, PROMPT_TIMEOUT, Command
from ..engine.core import next_close
from ..engine.model import DAY, NIGHT, START, GameState
from . import schedule as sched
from .errors import Conflict, ServiceError
from .forum_models import hold_day_close
from .models import Deadline, Game, PlayerRequest
from .notices import notice
from .store import Store

log = logging.getLogger("banshe.scheduler")
RETRY_FAILED = 60.0


class Deadlines(Store):
    """The deadline rows (the scheduler fires them) and the requests that move them."""

    def _wanted(self, game: Game, state: GameState, anchor: float) -> tuple[str, str, str, float] | None:
        """The deadline that should be running now: (key, skill, label, due) — for what the
        engine says closes next (`next_close`)."""
        skill = next_close(state)
        if skill is None or game.status == "ended":
            return None
        rs = self.ruleset(game)
        schedule = game.schedule
        tz = sched.zone(game.timezone)
        label = state.phase.label
        position = self.position(state)
        if skill == PROMPT_TIMEOUT:
            head = state.prompts[0]
            key = "prompt_minutes_night" if state.phase.kind == NIGHT else "prompt_minutes_day"
            return (
                position,
                PROMPT_TIMEOUT,
                f"{head.actor}的<{rs.skill_name(head.skill)}>",
                anchor + int(schedule[key]) * 60,
            )
        if state.phase.kind == START:
            return position, skill, "开局行动", game.phase_started_at + int(schedule["start_minutes"]) * 60
        if state.phase.kind == DAY:
            close, weekend = sched.day_close_info(game.phase_started_at, schedule, tz)
            return position, skill, f"{label}关门" + ("（周末延长一天）" if weekend else ""), close
        i = min(state.stage, len(rs.night_stages) - 1)
        due = sched.stage_due(game.phase_started_at, anchor, i, schedule, rs, tz)  # anchor: the stage opened
        return position, skill, f"{label}·{rs.night_stages[i].name}", due

    def _sync_deadlines(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        wanted = self._wanted(game, state, anchor)
        open_rows = s.scalars(
            select(Deadline).where(
                Deadline.game_id == game.id, Deadline.fired_at.is_(None), Deadline.cancelled.is_(False)
            )
        ).all()
        for row in open_rows:
            if wanted is None or row.key != wanted[0]:
                row.cancelled = True
        if wanted is None:
            return
        key, skill, label, due = wanted
        exists = s.scalar(select(Deadline).where(Deadline.game_id == game.id, Deadline.key == key))
        if exists is None:
            if skill != PROMPT_TIMEOUT and sched.stage_idle(self.ruleset(game), state):
                due = anchor  # a night stage that waits for no one closes at once
            s.add(Deadline(game_id=game.id, key=key, skill=skill, label=label, due_at=max(due, anchor)))
        elif exists.cancelled and exists.fired_at is None:
            exists.cancelled = False  # a prompt interrupted it: it runs on to its deadline
        s.flush()

    def due_deadlines(self, now: float, skip: set[int] | frozenset[int] = frozenset()) -> list[tuple[int, int]]:
        with self.sessions() as s:
            query = (
                select(Deadline.id, Deadline.game_id)
                .join(Game, Game.id == Deadline.game_id)
                .where(
                    Deadline.fired_at.is_(None),
                    Deadline.cancelled.is_(False),
                    Deadline.due_at <= now,
                    Game.status == "running",
                )
                .order_by(Deadline.due_at, Deadline.id)
            )
            if skip:
                query = query.where(Deadline.game_id.not_in(sorted(skip)))
            rows = s.execute(query.limit(1)).all()
            return [(int(r[0]), int(r[1])) for r in rows]

    def fire_due(self, now: float | None = None) -> int:
        """Fire every passed deadline, oldest first (also those that passed while the service was
        down); a deadline fired late anchors the next ones at its due time. Returns how many fired.

        Each game's deadline fires on its own: one that fails is logged and its game skipped (until
        RETRY_FAILED seconds have passed), so no game can stop the others' deadlines."""
        fired = 0
        wall = time.monotonic()
        skip = {g for g, until in self._failed.items() if until > wall}
        for _ in range(10000):
            due = self.due_deadlines(self.clock() if now is None else now, skip)
            if not due:
                break
            deadline_id, game_id = due[0]
            try:
                self._fire(game_id, deadline_id)
            except Exception:
                log.exception("game %s: deadline %s failed; the game is skipped for now", game_id, deadline_id)
                self._failed[game_id] = time.monotonic() + RETRY_FAILED
                skip.add(game_id)
                continue
            self._failed.pop(game_id, None)
            fired += 1
        return fired

    def _fire(self, game_id: int, deadline_id: int) -> None:
        with self._tx(game_id) as (s, game):
            row = s.get(Deadline, deadline_id)
            if row is None or row.fired_at is not None or row.cancelled or game.status != "running":
                return
            state = self.state_of(s, game)
            row.fired_at = self.clock()
            try:
                self._check_at(game, state, row.key)  # the rule every director command follows
            except Conflict:
                row.cancelled = True
                return
            if self._wanted(game, state, row.due_at) is None:
                row.cancelled = True
                return
            if hold_day_close(s, game, state, row.skill, row.due_at):
                return  # a forum game's day waits for the thread's count (forum_desk.py)
            skills = [row.skill] + ([CLOSE_PHASE] if row.skill == CLOSE_STAGE else [])
            for skill in skills:
                try:
                    self._apply(s, game, state, Command(DIRECTOR, skill), "scheduler", row.due_at)
                    return
                except ServiceError:
                    continue

    def next_due(self) -> float | None:
        with self.sessions() as s:
            value = s.scalar(
                select(func.min(Deadline.due_at))
                .join(Game, Game.id == Deadline.game_id)
                .where(Deadline.fired_at.is_(None), Deadline.cancelled.is_(False), Game.status == "running")
            )
            return None if value is None else float(value)

    def extend(self, game_id: int, minutes: int, at: str | None = None) -> Deadline:
        if minutes == 0 or abs(minutes) > 60 * 24 * 14:
            raise ServiceError("延长的分钟数不合理")
        with self._tx(game_id) as (s, game):
            self._check_at(game, self.state_of(s, game), at)
            if game.status == "ended":
                raise ServiceError("游戏已经结束")
            row = self.current_deadline(s, game.id)
            if row is None:
                raise ServiceError("当前没有进行中的时限")
            row.due_at += minutes * 60
            return row

    def request(self, game_id: int, player: str, kind: str) -> str:
        """申请加速 / 延时: judged as soon as at least half of the alive characters have asked."""
        if kind not in (ACCELERATE, DELAY):
            raise ServiceError("未知的申请")
        name = "加速" if kind == ACCELERATE else "延时"
        with self._tx(game_id) as (s, game):
            self._check_running(game)
            state = self.state_of(s, game)
            if state.phase.kind != DAY or state.settling:
                raise ServiceError("只有讨论日可以申请加速或延时")
            if not state.is_alive(player):
                raise ServiceError(f"{player}已出局，不能申请{name}")
            now = self.clock()
            policy = sched.policy_for(self.ruleset(game))
            close = self.current_deadline(s, game.id)
            cutoff = policy.request_cutoff_minutes * 60
            if cutoff and close is not None and now >= close.due_at - cutoff:
                raise ServiceError(f"申请{name}已截止（讨论日结束前{cutoff / 3600:g}小时）")
            label = state.phase.label
            exists = s.scalar(
                select(PlayerRequest).where(
                    PlayerRequest.game_id == game.id,
                    PlayerRequest.phase == label,
                    PlayerRequest.player == player,
                    PlayerRequest.kind == kind,
                )
            )
            if exists is not None:
                raise ServiceError(f"你今天已经申请过{name}")
            s.add(PlayerRequest(game_id=game.id, phase=label, player=player, kind=kind, created_at=now))
            s.flush()
            askers = s.scalars(
                select(PlayerRequest.player).where(
                    PlayerRequest.game_id == game.id, PlayerRequest.phase == label, PlayerRequest.kind == kind
                )
            ).all()
            alive = state.alive_names()
            count = sum(1 for a in askers if a in alive)
            judged = s.scalar(
                select(PlayerRequest).where(
                    PlayerRequest.game_id == game.id,
                    PlayerRequest.phase == label,
                    PlayerRequest.player == "",
                    PlayerRequest.kind == kind,
                )
            )
            if count * 2 < len(alive) or judged is not None:
                return f"已申请{name}（{count}/{len(alive)}）"
            s.add(PlayerRequest(game_id=game.id, phase=label, player="", kind=kind, created_at=now))
            if kind == ACCELERATE:
                if not state.accelerated:
                    self._apply(s, game, state, Command(DIRECTOR, ACCELERATE), "requests", now)
                return f"申请加速成功（{count}/{len(alive)}），今日执行加速"
            if close is not None:
                close.due_at += 24 * 3600
            if state.accelerated:
                self._apply(s, game, state, Command(DIRECTOR, DELAY), "requests", now)
            until = f"，{sched.local_text(close.due_at, sched.zone(game.timezone))}关门" if close is not None else ""
            text = f"申请延时成功（{count}/{len(alive)}）：{label}延长一天{until}。"
            s.add(notice(game.id, label, text, now, game.auto_publish))
            return f"申请延时成功（{count}/{len(alive)}），讨论日延长一天"
