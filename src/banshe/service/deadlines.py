"""The game's clock (issue 22): what the players see of it and the deadline rows that drive it.

The players' clock (`Game.public_label`, `public_settling`, `public_since`) moves only on public
times, never on what the engine knows ahead of them:

- 开局 runs from its (scheduled) start for `start_minutes`; a day from the moment it opens until
  its 关门; a night's stages by the night's timetable, made when the night opens: every stage runs
  its whole time (a stage whose holders are all out, secretly, still runs: the clock must not tell).
- Every close is followed by a settling window of the schedule's prompt minutes: the prompts the
  close raises (最后一枪, 装傻, 殉职, 指认) are answered inside it, the rest take their default when
  it ends, and nothing the settlement decided reaches the players before then (published.py).
  The window is the same whether a prompt is pending or not.
- After a night (and after 开局) the next day opens when its dawn 公示 is published: at the window's
  end with automatic publication, else when the director publishes it or at the automatic
  publish time he set (`dawn_at`, or the schedule's `dawn_publish`).

Rows (`Deadline.skill`): `begin` (a scheduled start), `close_phase` / `close_stage` (开局, a day, the
night's stages), `window`, `dawn`, and `prompt_timeout` for a prompt raised in the middle of a phase
(a 行刺 by day), which only its player and the director see. The scheduler fires due rows oldest
first; after a long outage or a clock jump it fires the first overdue one, pauses the game and
tells the director instead of playing several phases with no input.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from sqlalchemy import Integer, bindparam, func, select
from sqlalchemy.orm import Session

from ..engine.commands import (
    ACCELERATE,
    CLOSE_PHASE,
    CLOSE_STAGE,
    DELAY,
    DIRECTOR,
    PROMPT_TIMEOUT,
    Command,
)
from ..engine.model import DAY, NIGHT, START, GameState, Phase
from . import schedule as sched
from .errors import ServiceError
from .forum_models import hold_day_close
from .models import Announcement, Deadline, Game, PlayerRequest
from .notices import notice
from .store import Store

log = logging.getLogger("banshe.scheduler")
RETRY_FAILED = 60.0
BEGIN = "begin"
WINDOW = "window"
DAWN = "dawn"
# a deadline this late when fired was missed (the service was down or the clock jumped): if another
# one of its game is that late too, the game pauses after the first (issue 22)
OUTAGE_GRACE = 300.0
MAX_MOVE_MINUTES = 60 * 24 * 14
# every deadline still to come, in order (built once: each live step reads it)
_OPEN_ROWS = (
    select(Deadline)
    .where(
        Deadline.game_id == bindparam("game_id", type_=Integer),
        Deadline.fired_at.is_(None),
        Deadline.cancelled.is_(False),
    )
    .order_by(Deadline.due_at, Deadline.id)
)


class Deadlines(Store):
    """The players' clock and the deadline rows (the scheduler fires them), and the requests and
    director's moves that change them."""

    # -- the players' clock after each change ------------------------------------------------
    def _timeline(self, s: Session, game: Game, state: GameState, anchor: float, before_log: int | None) -> None:
        """Keep the players' clock and the rows in step with the engine after a change: a close
        starts its settling window; the current public phase has its deadline rows."""
        if state.over or game.status == "ended":
            if state.over:
                game.public_label, game.public_settling, game.held_log = state.phase.label, False, None
            for row in self._open_rows(s, game.id):
                row.cancelled = True
            return
        if not game.public_settling and (state.settling or state.phase.label != game.public_label):
            self._enter_window(s, game, state, anchor, before_log)
        self._ensure_rows(s, game, state, anchor)

    def _enter_window(self, s: Session, game: Game, state: GameState, anchor: float, before_log: int | None) -> None:
        closed = game.public_label
        kind = Phase.parse(closed).kind
        game.public_settling = True
        game.held_log = len(state.log) if before_log is None else before_log
        game.closed_at = anchor
        game.public_since = anchor
        game.start_at = None
        for row in self._open_rows(s, game.id):
            row.cancelled = True  # the phase's own deadlines (and a mid-phase prompt's) are over
        due = anchor + sched.window_minutes(game.schedule, kind) * 60
        self._add_row(s, game, f"{closed}|window", WINDOW, f"{closed}结算", due)

    def _ensure_rows(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        """The rows the current public phase needs (made once; a fired or cancelled row stays)."""
        tz = sched.zone(game.timezone)
        schedule = game.schedule
        label = game.public_label
        if game.public_settling:
            if game.held_log is None and self._awaiting_dawn(game, state):
                due = game.dawn_at or sched.dawn_due(schedule, game.public_since, tz)
                if due is not None:
                    day = state.phase.label
                    self._add_row(s, game, f"{day}|dawn", DAWN, f"{day}公示", max(due, anchor))
            return
        if game.start_at is not None:
            self._add_row(s, game, "开局|begin", BEGIN, "开局时间", game.start_at)
            return
        kind = state.phase.kind
        if kind == START:
            due = game.public_since + int(schedule["start_minutes"]) * 60
            self._add_row(s, game, "开局|close", CLOSE_PHASE, "开局行动", due)
        elif kind == DAY:
            close, weekend = sched.day_close_info(game.public_since, schedule, tz)
            self._add_row(
                s, game, f"{label}|close", CLOSE_PHASE, f"{label}关门" + ("（周末延长一天）" if weekend else ""), close
            )
        elif kind == NIGHT:
            self._night_rows(s, game, anchor)
        position = self.position(state)
        for row in self._open_rows(s, game.id):
            if row.skill == PROMPT_TIMEOUT and row.key != position:
                row.cancelled = True  # answered (or the phase moved on)
        if state.prompts and state.prompt_raised and not state.settling:
            # a prompt in the middle of a phase (a 行刺 by day): its own time, which only its
            # player and the director see; the phase's deadline runs on
            head = state.prompts[0]
            rs = self.ruleset(game)
            due = anchor + sched.window_minutes(schedule, kind) * 60
            self._add_row(s, game, position, PROMPT_TIMEOUT, f"{head.actor}的<{rs.skill_name(head.skill)}>", due)

    def _night_rows(self, s: Session, game: Game, opened: float) -> None:
        """The night's timetable: one row per stage (the last closes the night)."""
        rs = self.ruleset(game)
        tz = sched.zone(game.timezone)
        label = game.public_label
        plan = sched.stage_deadlines(game.public_since, game.schedule, tz, game.closed_at)
        last = len(rs.night_stages) - 1
        for i, stage in enumerate(rs.night_stages):
            skill = CLOSE_STAGE if i < last else CLOSE_PHASE
            self._add_row(s, game, f"{label}|stage|{i}", skill, f"{label}·{stage.name}", plan[i])

    def _add_row(self, s: Session, game: Game, key: str, skill: str, label: str, due: float) -> Deadline | None:
        exists = s.scalar(select(Deadline).where(Deadline.game_id == game.id, Deadline.key == key))
        if exists is not None:
            return None
        row = Deadline(game_id=game.id, key=key, skill=skill, label=label[:64], due_at=due)
        s.add(row)
        s.flush()
        return row

    def _open_rows(self, s: Session, game_id: int) -> list[Deadline]:
        return list(s.scalars(_OPEN_ROWS, {"game_id": game_id}))

    @staticmethod
    def _awaiting_dawn(game: Game, state: GameState) -> bool:
        """The engine's day has begun and its dawn 公示 is not published yet (review on)."""
        return (
            game.public_settling
            and game.held_log is None
            and state.phase.kind == DAY
            and not state.settling
            and state.phase.label != game.public_label
        )

    def _open_day(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        """The players' day begins (its clock, votes and 潜水 counting)."""
        game.public_label = state.phase.label
        game.public_settling = False
        game.public_since = anchor
        game.phase_started_at = anchor
        game.dawn_at = None
        for row in self._open_rows(s, game.id):
            if row.skill == DAWN:
                row.cancelled = True
        self._ensure_rows(s, game, state, anchor)
        if sched.auto_accelerate(game.schedule, state):
            self._apply(s, game, state, Command(DIRECTOR, ACCELERATE), "scheduler", anchor)

    def _open_night(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        game.public_label = state.phase.label
        game.public_settling = False
        game.public_since = anchor
        game.phase_started_at = anchor
        self._ensure_rows(s, game, state, anchor)
        self._stage_opened(s, game, state, anchor)

    def _end_window(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        """The settling window ends: every prompt still open takes its default; what the close
        settled is released; the next phase opens (a day only once its dawn 公示 is published)."""
        for _ in range(1000):
            if not state.prompts or state.over:
                break
            skill = CLOSE_PHASE if state.settling else PROMPT_TIMEOUT
            self._apply(s, game, state, Command(DIRECTOR, skill), "scheduler", anchor)
        if state.over or game.status == "ended":
            return
        game.held_log = None
        if game.auto_publish:
            self._publish_pending(s, game, anchor)  # what the close settled, all at once
        if state.phase.kind == NIGHT and not state.settling:
            self._open_night(s, game, state, anchor)
        elif state.phase.kind == DAY and not state.settling:
            if game.auto_publish:
                self._open_day(s, game, state, anchor)
            else:
                self._ensure_rows(s, game, state, anchor)
        else:
            log.warning("game %s: the settling window ended in %s", game.id, self.position(state))

    def _publish_pending(self, s: Session, game: Game, at: float) -> int:
        rows = s.scalars(
            select(Announcement).where(
                Announcement.game_id == game.id,
                Announcement.published_at.is_(None),
                Announcement.withheld.is_(False),
            )
        ).all()
        for row in rows:
            row.published_at = at
        return len(rows)

    def _start_dawn(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        """A 公示 of the engine's new day was published: the players' day begins now."""
        if self._awaiting_dawn(game, state):
            self._open_day(s, game, state, anchor)

    # -- firing --------------------------------------------------------------------------------
    def due_deadlines(self, now: float, skip: set[int] | frozenset[int] = frozenset()) -> list[tuple[int, int, float]]:
        """The oldest due row of a running game (skipping `skip`): (row id, game id, due)."""
        with self.sessions() as s:
            query = (
                select(Deadline.id, Deadline.game_id, Deadline.due_at)
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
            return [(int(r[0]), int(r[1]), float(r[2])) for r in rows]

    def fire_due(self, now: float | None = None) -> int:
        """Fire every passed deadline, oldest first; a deadline fired late anchors what follows at
        its due time. Returns how many fired.

        A deadline missed by more than OUTAGE_GRACE (the service was down, the clock jumped) is
        fired alone: the rows due at the same moment fire with it, and if another one of its game
        is overdue too, the game is paused as of that deadline and the director is told, so the
        game never plays several phases with no one able to act.

        Each game's deadline fires on its own: one that fails is logged and its game skipped (until
        RETRY_FAILED seconds have passed), so no game can stop the others' deadlines."""
        fired = 0
        wall = time.monotonic()
        skip = {g for g, until in self._failed.items() if until > wall}
        for _ in range(10000):
            current = self.clock() if now is None else now
            due = self.due_deadlines(current, skip)
            if not due:
                break
            row_id, game_id, due_at = due[0]
            try:
                self._fire(game_id, row_id)
                fired += 1
                if current - due_at > OUTAGE_GRACE:
                    fired += self._after_outage(game_id, due_at, current)
            except Exception:
                log.exception("game %s: deadline %s failed; the game is skipped for now", game_id, row_id)
                self._failed[game_id] = time.monotonic() + RETRY_FAILED
                skip.add(game_id)
                continue
            self._failed.pop(game_id, None)
        return fired

    def _after_outage(self, game_id: int, due_at: float, now: float) -> int:
        """A missed deadline has fired: the others of that moment fire too; if one more is overdue,
        the game pauses as of `due_at` (its remaining deadlines keep their lengths from the resume)."""
        fired = 0
        with self.sessions() as s:
            same = [r.id for r in self._open_rows(s, game_id) if r.due_at <= due_at]
        for row_id in same:
            self._fire(game_id, row_id)
            fired += 1
        with self._tx(game_id) as (s, game):
            if game.status != "running":
                return fired
            late = [r for r in self._open_rows(s, game.id) if r.due_at < now - OUTAGE_GRACE]
            if not late:
                return fired
            tz = sched.zone(game.timezone)
            game.status, game.paused_at = "paused", due_at
            settings = dict(game.settings or {})
            settings["outage"] = (  # for the director's page (a plain string: it is exported)
                f"服务停机或时钟跳变：{sched.local_text(due_at, tz)} 的时限在 {sched.local_text(now, tz)} 才执行，"
                f"另有{len(late)}个时限也已过期（最早的是{late[0].label}）。已执行第一个过期的时限，游戏已暂停；"
                "恢复后其余时限按暂停时长顺延。"
            )
            game.settings = settings
        log.warning("game %s paused after an outage (deadline of %s fired at %s)", game_id, due_at, now)
        return fired

    def _fire(self, game_id: int, deadline_id: int) -> None:
        with self._tx(game_id) as (s, game):
            row = s.get(Deadline, deadline_id)
            if row is None or row.fired_at is not None or row.cancelled or game.status != "running":
                return
            state = self.state_of(s, game)
            row.fired_at = self.clock()
            handler = self._handlers().get(row.skill)
            if handler is None or not handler(s, game, state, row):
                row.cancelled = True

    def _handlers(self) -> dict[str, Callable[[Session, Game, GameState, Deadline], bool]]:
        return {
            BEGIN: self._fire_begin,
            WINDOW: self._fire_window,
            DAWN: self._fire_dawn,
            PROMPT_TIMEOUT: self._fire_prompt,
            CLOSE_PHASE: self._fire_close,
            CLOSE_STAGE: self._fire_close,
        }

    def _fire_begin(self, s: Session, game: Game, state: GameState, row: Deadline) -> bool:
        if game.start_at is None:
            return False
        game.start_at = None
        game.public_since = game.phase_started_at = row.due_at
        self._ensure_rows(s, game, state, row.due_at)
        return True

    def _fire_window(self, s: Session, game: Game, state: GameState, row: Deadline) -> bool:
        if game.held_log is None or row.key != f"{game.public_label}|window":
            return False
        self._end_window(s, game, state, row.due_at)
        return True

    def _fire_dawn(self, s: Session, game: Game, state: GameState, row: Deadline) -> bool:
        if not self._awaiting_dawn(game, state) or row.key != f"{state.phase.label}|dawn":
            return False
        self._publish_pending(s, game, row.due_at)
        self._open_day(s, game, state, row.due_at)
        return True

    def _fire_prompt(self, s: Session, game: Game, state: GameState, row: Deadline) -> bool:
        if self.position(state) != row.key:
            return False
        self._apply(s, game, state, Command(DIRECTOR, PROMPT_TIMEOUT), "scheduler", row.due_at)
        return True

    def _fire_close(self, s: Session, game: Game, state: GameState, row: Deadline) -> bool:
        label, _, rest = row.key.partition("|")
        if game.public_settling or game.public_label != label or state.phase.label != label or state.settling:
            return False
        if not rest.startswith("stage|"):
            if hold_day_close(s, game, state, CLOSE_PHASE, row.due_at):
                return True  # a forum game's day waits for the thread's count (forum_desk.py)
            self._close(s, game, state, CLOSE_PHASE, row.due_at)
            return True
        index = int(rest.split("|")[1])
        last = len(self.ruleset(game).night_stages) - 1
        if state.stage > index:
            return True  # the stage opened early (every input it waited for was in): passed already
        if index >= last:
            self._close(s, game, state, CLOSE_PHASE, row.due_at)
            return True
        while state.stage <= index and not state.settling and state.phase.label == label:
            if not self._close(s, game, state, CLOSE_STAGE, row.due_at):
                break
        return True

    def _close(self, s: Session, game: Game, state: GameState, skill: str, anchor: float) -> bool:
        """The scheduler's close; a ruleset's gate may refuse it for now (拍刀环节)."""
        try:
            self._apply(s, game, state, Command(DIRECTOR, skill), "scheduler", anchor)
        except ServiceError as exc:
            log.info("game %s: the scheduler's %s was refused: %s", game.id, skill, exc.reason)
            return False
        return True

    def _waiting_stage_due(self, s: Session, game: Game, state: GameState, opened: float) -> None:
        """A stage that waits for the earlier ones and opened late gets its full length from then
        (品茗: 女巫<通灵>…收到反馈后半小时); later rows move on to stay in order."""
        rs = self.ruleset(game)
        i = state.stage
        if state.phase.kind != NIGHT or state.settling or i <= 0 or i >= len(rs.night_stages):
            return
        if rs.night_stages[i].opens_with_night:
            return
        tz = sched.zone(game.timezone)
        plan = sched.stage_deadlines(game.public_since, game.schedule, tz, game.closed_at)
        row = s.scalar(
            select(Deadline).where(Deadline.game_id == game.id, Deadline.key == f"{state.phase.label}|stage|{i}")
        )
        if row is None or row.fired_at is not None or row.cancelled:
            return
        due = sched.stage_due(plan, i, opened, waits=True)
        if due > row.due_at:
            self._shift_from(s, game, row, due - row.due_at)

    def _shift_from(self, s: Session, game: Game, row: Deadline, delta: float) -> None:
        """Move `row` by `delta` seconds; later rows of the same phase move on only as far as
        they must to stay after it."""
        row.due_at += delta
        label = row.key.split("|")[0]
        floor = row.due_at
        for other in self._open_rows(s, game.id):
            if other.id == row.id or other.skill == PROMPT_TIMEOUT or not other.key.startswith(label + "|"):
                continue
            if _order(other.key) > _order(row.key) and other.due_at < floor:
                other.due_at = floor
            if _order(other.key) > _order(row.key):
                floor = max(floor, other.due_at)

    def next_due(self) -> float | None:
        with self.sessions() as s:
            value = s.scalar(
                select(func.min(Deadline.due_at))
                .join(Game, Game.id == Deadline.game_id)
                .where(Deadline.fired_at.is_(None), Deadline.cancelled.is_(False), Game.status == "running")
            )
            return None if value is None else float(value)

    # -- the director's moves ------------------------------------------------------------------
    def extend(self, game_id: int, minutes: int, at: str | None = None) -> Deadline:
        """延长当前时限: the players' current deadline (or, while only a prompt runs, its own)."""
        with self._tx(game_id) as (s, game):
            self._check_at(game, self.state_of(s, game), at)
            row = self.current_deadline(s, game.id) or self.prompt_deadline(s, game.id)
            if row is None:
                raise ServiceError("当前没有进行中的时限")
            return self._move(s, game, row, minutes)

    def move_deadline(self, game_id: int, deadline_id: int, minutes: int, at: str | None = None) -> Deadline:
        """One deadline of the timetable, earlier or later by `minutes`."""
        with self._tx(game_id) as (s, game):
            self._check_at(game, self.state_of(s, game), at)
            row = s.get(Deadline, deadline_id)
            if row is None or row.game_id != game.id:
                raise ServiceError("没有这个时限")
            if row.fired_at is not None or row.cancelled:
                raise ServiceError(f"{row.label}的时限已经过去，不能再调整")
            return self._move(s, game, row, minutes)

    def due_now(self, game_id: int, deadline_id: int, at: str | None = None) -> Deadline:
        """One deadline of the timetable due now (the scheduler fires it at once)."""
        with self._tx(game_id) as (s, game):
            self._check_at(game, self.state_of(s, game), at)
            row = s.get(Deadline, deadline_id)
            if row is None or row.game_id != game.id:
                raise ServiceError("没有这个时限")
            if row.fired_at is not None or row.cancelled:
                raise ServiceError(f"{row.label}的时限已经过去")
            now = self.clock()
            if row.due_at > now:
                self._move(s, game, row, 0, due=now)
            return row

    def _move(self, s: Session, game: Game, row: Deadline, minutes: int, due: float | None = None) -> Deadline:
        if due is None and (minutes == 0 or abs(minutes) > MAX_MOVE_MINUTES):
            raise ServiceError("调整的分钟数不合理")
        if game.status == "ended":
            raise ServiceError("游戏已经结束")
        now = self.clock()
        if due is not None or minutes < 0:
            new = row.due_at + minutes * 60 if due is None else due
            if due is None and new < now:
                raise ServiceError(f"{row.label}不能提前到现在之前（最多提前{int((row.due_at - now) // 60)}分钟）")
            label = row.key.split("|")[0]
            for other in self._open_rows(s, game.id):
                earlier = other.key.startswith(label + "|") and _order(other.key) < _order(row.key)
                if other.id != row.id and earlier and other.skill != PROMPT_TIMEOUT and other.due_at > new:
                    when = sched.local_text(other.due_at, sched.zone(game.timezone))
                    raise ServiceError(f"{row.label}不能早于前面的{other.label}（{when}），请先调整前面的时限")
            row.due_at = new
        else:
            self._shift_from(s, game, row, minutes * 60.0)
        return row

    def set_dawn(self, game_id: int, when: float | None, at: str | None = None) -> None:
        """The automatic publish time of the pending dawn 公示 (None: only by hand)."""
        with self._tx(game_id) as (s, game):
            state = self.state_of(s, game)
            self._check_at(game, state, at)
            if when is not None and when < self.clock():
                raise ServiceError("自动发布时间不能早于现在")
            game.dawn_at = when
            for row in self._open_rows(s, game.id):
                if row.skill == DAWN:
                    row.cancelled = True
            if when is not None:
                label = state.phase.label if state.phase.kind == DAY else state.phase.next().label
                old = s.scalar(select(Deadline).where(Deadline.game_id == game.id, Deadline.key == f"{label}|dawn"))
                if old is not None:
                    old.cancelled, old.fired_at, old.due_at = False, None, when
                else:
                    self._ensure_rows(s, game, state, self.clock())

    def request(self, game_id: int, player: str, kind: str) -> str:
        """申请加速 / 延时: judged as soon as at least half of the alive characters have asked."""
        if kind not in (ACCELERATE, DELAY):
            raise ServiceError("未知的申请")
        name = "加速" if kind == ACCELERATE else "延时"
        with self._tx(game_id) as (s, game):
            self._check_running(game)
            state = self.state_of(s, game)
            pub = self.publication_of(s, game, state)
            if state.phase.kind != DAY or not pub.open or pub.label != state.phase.label:
                raise ServiceError("只有讨论日可以申请加速或延时")
            if not pub.alive_to(player, player):
                raise ServiceError(f"{player}已出局，不能申请{name}")
            now = self.clock()
            policy = sched.policy_for(self.ruleset(game))
            label = state.phase.label
            close = s.scalar(select(Deadline).where(Deadline.game_id == game.id, Deadline.key == f"{label}|close"))
            cutoff = policy.request_cutoff_minutes * 60
            if cutoff and close is not None and now >= close.due_at - cutoff:
                raise ServiceError(f"申请{name}已截止（讨论日结束前{cutoff / 3600:g}小时）")
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
            # who is alive as the players know it (an out not yet published still counts)
            alive = [n for n in state.order if pub.alive_to(n, None)]
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

    # -- reading -------------------------------------------------------------------------------
    def timetable(self, s: Session, game_id: int) -> list[Deadline]:
        """Every deadline still to come, in order (the god view's timetable)."""
        return self._open_rows(s, game_id)

    def night_rows(self, s: Session, game_id: int, label: str) -> list[Deadline]:
        """The rows of night `label`'s stages (fired or not), by stage."""
        rows = s.scalars(
            select(Deadline).where(Deadline.game_id == game_id, Deadline.key.like(f"{label}|stage|%"))
        ).all()
        return sorted(rows, key=lambda r: _order(r.key))

    def night_rows_of(self, game_id: int, label: str) -> list[Deadline]:
        with self.sessions() as s:
            return self.night_rows(s, game_id, label)

    # -- what the night windows add (holding.py) -----------------------------------------------
    def _stage_opened(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        """A night stage has just become the current one (or the night opened): a waiting stage's
        length, then what the night windows release (holding.py overrides and calls this)."""
        self._waiting_stage_due(s, game, state, anchor)


def _order(key: str) -> tuple[int, int]:
    """A row's place within its phase: the stages in order, then the window and the dawn."""
    parts = key.split("|")
    kind = parts[1] if len(parts) > 1 else ""
    if kind == "stage" and len(parts) > 2 and parts[2].isdigit():
        return (1, int(parts[2]))
    return {"begin": (0, 0), "close": (1, 0), "prompt": (1, 0), "window": (2, 0), "dawn": (3, 0)}.get(kind, (1, 0))
