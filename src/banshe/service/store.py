"""The director service's core: an adapter that stores every input and replays the engine.

A game is its setup (ruleset, seats, identities or seed, options) plus the ordered commands the
engine accepted — from players, the director and the deadline scheduler. The state is rebuilt
by `new_game` + `apply_in_place` of those commands (kept in a per-game cache); every change is
committed before it is acknowledged, under a per-game lock, with a unique (game, seq) so two
writers can never interleave. Deadlines live in the database and reach the engine only as
`close_stage` / `close_phase` / `prompt_timeout` commands.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BindParameter, Integer, bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from ..engine.commands import CLOSE_PHASE, PROMPT_TIMEOUT, Command, IllegalCommand
from ..engine.core import apply_in_place, new_game
from ..engine.events import ANNOUNCE, NOTICE, PUBLIC, Event
from ..engine.model import DAY, NIGHT, START, GameState
from ..engine.ruleset import Ruleset
from ..rulesets.registry import get_ruleset
from . import idempotency as idem
from . import pgsync, security, timeline
from . import schedule as sched
from .board import check_board
from .errors import Conflict, NotFound, ServiceError
from .models import Announcement, CommandRow, Deadline, Game, Seat, Submission
from .names import check_names
from .notices import publish_notices
from .published import Publication, publication
from .uploaded_boards import UploadedBoards, find_offered, is_uploaded

MAX_TEXT = 5000
MAX_NOTE = 500
MAX_TITLE = 100
TOKEN = re.compile(r"^[A-Za-z0-9_-]{8,64}$")  # a seat link's token (secrets.token_urlsafe)
CACHE_GAMES = 1000
HEAD = "banshe_head"  # Session.info: (game id, its stored head) read in this session
# the player link a submission came through (set by the player's routes around the write): every
# transaction it opens re-reads that the link is still the seat's active one, under the game's lock
ACTING_LINK: ContextVar[str | None] = ContextVar("banshe_acting_link", default=None)
LINK_DEAD = "链接无效或已停用"

# the statements every write and every live step runs, built once (issue 26: building a statement
# and its cache key cost more than running it); parameters by name
_GAME: BindParameter[int] = bindparam("game_id", type_=Integer)
_SUBMISSION = select(Submission).where(Submission.game_id == _GAME, Submission.key == bindparam("key"))
_HEAD_SEQ = select(func.max(CommandRow.seq)).where(CommandRow.game_id == _GAME)
_GAME_AND_HEAD = select(Game, _HEAD_SEQ.scalar_subquery()).where(Game.id == _GAME)
_GAME_HEAD_AND_LINK = select(
    Game,
    _HEAD_SEQ.scalar_subquery(),
    select(Seat.active).where(Seat.token == bindparam("link"), Seat.game_id == _GAME).scalar_subquery(),
).where(Game.id == _GAME)
_PUBLISHED_IDX = select(Announcement.idx).where(Announcement.game_id == _GAME, Announcement.published_at.is_not(None))
_PUBLISHED_COUNT = select(func.count(Announcement.id)).where(
    Announcement.game_id == _GAME, Announcement.published_at.is_not(None)
)
_OPEN_DEADLINES = select(Deadline).where(
    Deadline.game_id == _GAME, Deadline.fired_at.is_(None), Deadline.cancelled.is_(False)
)
_CURRENT_DEADLINE = _OPEN_DEADLINES.where(Deadline.skill != PROMPT_TIMEOUT).order_by(Deadline.due_at, Deadline.id)
_PROMPT_DEADLINE = _OPEN_DEADLINES.where(Deadline.skill == PROMPT_TIMEOUT).order_by(Deadline.due_at, Deadline.id)


@dataclass
class Cached:
    head: int  # the highest stored command seq the state includes
    state: GameState


def public_announcements(state: GameState) -> list[Event]:
    return [e for e in state.log if e.kind == ANNOUNCE and e.audience.kind == PUBLIC]


class Store(ABC):
    """Transactions under a per-game lock, the cached state (replayed from the stored commands),
    the one write path (`_apply`), creating games, the position mark (`at`) and lookups."""

    def __init__(self, sessions: sessionmaker[Session], clock: Callable[[], float] = time.time) -> None:
        self.sessions = sessions
        self.clock = clock
        self._locks: dict[int, threading.RLock] = {}
        self._guard = threading.Lock()
        self._cache: OrderedDict[int, Cached] = OrderedDict()
        self.versions: dict[int, int] = {}
        self.on_change: Callable[[int], None] | None = None  # called after each committed write
        self._seats: dict[str, Seat] = {}  # token -> its active seat (issue 13: no lookup per request)
        self._seat_epoch = 0
        # the link cache is trusted only while every 替补 reaches it: always in one process; on
        # PostgreSQL only while the LISTEN connection is up (live.PgListener turns it on and off)
        self._seat_cache_on = True
        self.post_limits = security.PostLimits(per_minute=12, chars_per_phase=100_000)  # create_app: Settings
        self.uploads = UploadedBoards(sessions, clock)  # boards directors uploaded (issue 27)
        self._failed: dict[int, float] = {}  # game id -> monotonic time its deadlines are tried again
        # game id -> (the log index of a running settling window's close, the state before it)
        self._before_close: dict[int, tuple[int, GameState]] = {}
        # SQLite has one writer at a time and its busy handler is unfair under load: queue writers here
        bind = sessions.kw.get("bind")
        single_writer = bind is not None and bind.dialect.name == "sqlite"
        self._writer: threading.Lock | None = threading.Lock() if single_writer else None

    def lock(self, game_id: int) -> threading.RLock:
        with self._guard:
            lk = self._locks.get(game_id)
            if lk is None:
                lk = self._locks[game_id] = threading.RLock()
            return lk

    @contextmanager
    def _tx(self, game_id: int) -> Iterator[tuple[Session, Game]]:
        """Lock the game, open a transaction, commit on success; any failure drops the cache."""
        timeline.mark("lock")
        with self.lock(game_id), self._writer or nullcontext():
            timeline.mark("locked")
            s = self.sessions()
            before = self._cache.get(game_id)
            before_head = before.head if before is not None else None
            try:
                pgsync.lock_game(s, game_id)
                link = ACTING_LINK.get()
                game = self._load(s, game_id, link)
                pending = idem.CURRENT.get()
                if pending is not None and pending.game_id == game_id and not pending.used:
                    pending.used = True
                    done = s.scalar(_SUBMISSION, {"game_id": game_id, "key": pending.key})
                    if done is not None:
                        raise idem.AlreadyDone(done.result or idem.DONE_BEFORE)
                    row = Submission(game_id=game_id, key=pending.key, result="", created_at=self.clock())
                    s.add(row)
                    yield s, game
                    s.flush()
                    pending.stored_id = row.id
                else:
                    yield s, game
                pgsync.announce(s, game_id)
                s.commit()
                timeline.mark("commit")
            except IntegrityError as exc:
                s.rollback()
                self._cache.pop(game_id, None)
                self._before_close.pop(game_id, None)
                raise Conflict("另一个提交同时到达，请重试") from exc
            except idem.AlreadyDone:
                s.rollback()
                raise
            except ServiceError:
                # a refusal: the engine validates before it changes anything, so the cache stays good
                # unless this transaction already stored a command (rolled back now)
                s.rollback()
                after = self._cache.get(game_id)
                if after is not before or (after is not None and after.head != before_head):
                    self._cache.pop(game_id, None)
                raise
            except BaseException:
                s.rollback()
                self._cache.pop(game_id, None)
                self._before_close.pop(game_id, None)
                raise
            finally:
                s.close()
            self.versions[game_id] = self.versions.get(game_id, 0) + 1
            if self.on_change is not None:
                self.on_change(game_id)  # live pages (live.py)

    def once(self, game_id: int, key: str, act: Callable[[], str]) -> str:
        """Run `act` (a submission answering a result text) at most once per form key; a resend of
        a stored one answers its original result (see idempotency.py)."""
        if not key:
            return act()
        if not idem.valid(key):
            raise ServiceError("表单标识无效，请刷新页面后重试")
        pending = idem.Pending(game_id, key)
        token = idem.CURRENT.set(pending)
        try:
            result = act()
        except idem.AlreadyDone as done:
            return done.result
        finally:
            idem.CURRENT.reset(token)
        if pending.stored_id is not None:  # the result text, for a resend (best effort: the key is stored)
            # a write: SQLite's writers queue on the process's writer lock (its busy handler sleeps)
            with self._writer or nullcontext(), self.sessions() as s:
                s.execute(update(Submission).where(Submission.id == pending.stored_id).values(result=result[:200]))
                s.commit()
        return result

    def _remember(self, game_id: int, cached: Cached) -> None:
        """Keep the states of the most recently used games (older ones replay again when needed)."""
        with self._guard:
            self._cache[game_id] = cached
            self._cache.move_to_end(game_id)
            while len(self._cache) > CACHE_GAMES:
                self._cache.popitem(last=False)

    def version(self, game_id: int) -> int:
        return self.versions.get(game_id, 0)

    @staticmethod
    def ruleset(game: Game) -> Ruleset:
        return get_ruleset(game.ruleset)

    def head_seq(self, s: Session, game_id: int) -> int:
        """The highest stored command seq (the live feed's change mark)."""
        return self._head(s, game_id)

    def _head(self, s: Session, game_id: int) -> int:
        known = s.info.get(HEAD)
        if known is not None and known[0] == game_id:  # read with the game row, kept up to date by _apply
            return int(known[1])
        return int(s.scalar(_HEAD_SEQ, {"game_id": game_id}) or 0)

    def _load(self, s: Session, game_id: int, link: str | None = None) -> Game:
        """The game row and its stored head in one statement; the head is kept in the session for
        `_head` (another service on the same database may have written: it is always read once).
        `link`: the player link a submission came through — read in the same statement, after the
        game's lock, so a link a 替补 replaced stores nothing, however long ago it was resolved."""
        if link is None:
            found = s.execute(_GAME_AND_HEAD, {"game_id": game_id}).first()
        else:
            found = s.execute(_GAME_HEAD_AND_LINK, {"game_id": game_id, "link": link}).first()
            if found is not None and found[2] is not True:
                self._forget_link(link)
                raise NotFound(LINK_DEAD)
        if found is None:
            raise NotFound("没有这局游戏")
        s.info[HEAD] = (game_id, int(found[1] or 0))
        game: Game = found[0]
        return game

    def state_of(self, s: Session, game: Game) -> GameState:
        """The game's state (cached when no other writer stored a command since)."""
        cached = self._cache.get(game.id)
        head = self._head(s, game.id)
        if cached is not None and cached.head == head:
            return cached.state
        state = self._rebuild(s, game)
        self._remember(game.id, Cached(head, state))
        return state

    def _rebuild(self, s: Session, game: Game, exclude: int | None = None, log_before: int | None = None) -> GameState:
        """Replay the stored commands (less `exclude`); `log_before`: stop at the command whose
        events would start at that log index (the state just before a close)."""
        state = new_game(get_ruleset(game.ruleset), game.players, game.roles, game.options, game.seed)
        rows = s.scalars(
            select(CommandRow)
            .where(CommandRow.game_id == game.id, CommandRow.superseded.is_(False))
            .order_by(CommandRow.seq)
        )
        for row in rows:
            if row.seq == exclude:
                continue
            if log_before is not None and len(state.log) >= log_before:
                break
            apply_in_place(state, Command.from_json(row.payload))
        return state

    def publication_of(self, s: Session, game: Game, state: GameState) -> Publication:
        """What the players may see of the game now (published.py): the announcement rows, and
        while a settling window runs the state before its close (replayed once per window)."""
        published = s.scalars(_PUBLISHED_IDX, {"game_id": game.id}).all()
        before: GameState | None = None
        if game.held_log is not None and not state.over:
            known = self._before_close.get(game.id)
            if known is None or known[0] != game.held_log:
                known = (game.held_log, self._rebuild(s, game, log_before=game.held_log))
                self._before_close[game.id] = known
            before = known[1]
        return publication(game, state, before, published)

    def read_published(self, game_id: int) -> tuple[Game, GameState, Publication]:
        """`read` with what the players may see of it."""
        with self.lock(game_id), self.sessions() as s:
            game = self._load(s, game_id)
            state = self.state_of(s, game).clone()
            return game, state, self.publication_of(s, game, state)

    def read(self, game_id: int) -> tuple[Game, GameState]:
        """A consistent snapshot for rendering (the state is a private copy)."""
        with self.lock(game_id), self.sessions() as s:
            game = self._load(s, game_id)
            return game, self.state_of(s, game).clone()

    def create_game(
        self,
        director_id: int,
        ruleset: str,
        players: list[str],
        roles: dict[str, str] | None = None,
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        schedule: dict[str, Any] | None = None,
        timezone: str = sched.DEFAULT_TIMEZONE,
        title: str = "",
        auto_publish: bool = False,
        custom_board: bool = False,
        start_at: float | None = None,
    ) -> Game:
        try:
            rs = find_offered(ruleset)
        except KeyError:
            raise ServiceError(f"未知的规则：{ruleset}") from None
        if is_uploaded(rs.id) and not self.uploads.owns(director_id, rs.id):
            raise ServiceError(f"未知的规则：{ruleset}")  # another director's upload is not offered
        try:
            names = check_names(list(players))
        except ValueError as exc:
            raise ServiceError(str(exc)) from None
        if seed is None:
            seed = secrets.randbelow(2**31)
        if not 0 <= seed < 2**31:
            raise ServiceError("随机种子应在0到2147483647之间")
        title = title.strip()
        if len(title) > MAX_TITLE or not title.isprintable():
            raise ServiceError(f"对局名称过长或含有控制字符（最多{MAX_TITLE}个字符）")
        try:
            sched.zone(timezone)
            full_schedule = sched.validate_schedule(rs, schedule or {})
            if rs.deck_is_fixed:  # 品茗: its deck is its only board, no 自定义板子 (rulings 2026-12-04)
                check_board(rs, names, roles, seed)
            state = new_game(rs, names, roles, options or {}, seed)
            if not custom_board and not rs.deck_is_fixed:
                check_board(rs, names, roles, seed, state.options)
        except ValueError as exc:
            raise ServiceError(str(exc)) from None  # the engine's and the schedule's reasons are Chinese
        now = self.clock()
        if start_at is not None and start_at <= now:
            start_at = None  # a start time already past: the game starts now
        with self.sessions() as s:
            game = insert_game(
                s,
                title.strip() or f"{rs.name}（{len(names)}人）",
                director_id,
                state,
                roles,
                full_schedule,
                timezone,
                auto_publish,
                now,
            )
            game.settings = {"custom_board": custom_board}
            if start_at is not None:
                # links go out now; the 开局 clock runs from the start (issue 22)
                game.start_at = start_at
                game.public_since = game.phase_started_at = start_at
            self._after_change(s, game, state, now)
            s.commit()
            self._remember(game.id, Cached(0, state))
            return game

    def _check_running(self, game: Game) -> None:
        if game.status == "paused":
            raise ServiceError("游戏已暂停，请等待导演恢复")
        if game.status == "ended":
            raise ServiceError("游戏已经结束")

    def _apply(
        self,
        s: Session,
        game: Game,
        state: GameState,
        cmd: Command,
        source: str,
        anchor: float,
        note: str | None = None,
    ) -> list[Event]:
        """Apply `cmd` to the cached state and store it (inside the caller's transaction); `note`:
        the director's reason (判罚理由), kept with the command for the log and the export."""
        if cmd.skill == CLOSE_PHASE and state.phase.kind == NIGHT and not state.settling:
            self._open_held_stages(s, game, state, source, anchor)  # night windows (holding.py)
        phase, stage = state.phase.label, state.stage
        if cmd.skill == CLOSE_PHASE and state.phase.kind == DAY and not state.settling:
            self._record_day(s, game, state, anchor)
        accepted = len(state.commands)
        before_log = len(state.log)
        try:
            events = apply_in_place(state, cmd)
        except IllegalCommand as exc:
            if len(state.commands) != accepted:  # refused half-way: never trust that copy again
                self._cache.pop(game.id, None)
            raise ServiceError(exc.reason) from None
        head = self._head(s, game.id)
        s.flush()  # pending ORM changes first (a superseded row, the form key), then the Core insert
        s.execute(
            insert(CommandRow).values(
                game_id=game.id,
                seq=head + 1,
                actor=cmd.actor,
                skill=cmd.skill,
                payload=cmd.to_json(),
                phase=phase,
                stage=stage,
                source=source,
                superseded=False,
                created_at=self.clock(),
                note=note or None,
            )
        )
        s.info[HEAD] = (game.id, head + 1)
        self._remember(game.id, Cached(head + 1, state))
        self._after_change(s, game, state, anchor, before_log)
        if state.phase.label == phase and state.stage > stage and state.phase.kind == NIGHT and not state.settling:
            self._stage_opened(s, game, state, anchor)  # a waiting stage's length; held skills
        return events

    def _replaceable(self, s: Session, game: Game, state: GameState, cmd: Command) -> CommandRow | None:
        """An earlier submission of the same skill whose deadline has not passed (night / 开局 skills only:
        their effects wait for the stage to close, so replacing one changes nothing anyone saw)."""
        rs = self.ruleset(game)
        spec = rs.skills.get(cmd.skill)
        if spec is None or spec.prompt or state.settling or state.phase.kind not in (NIGHT, START):
            return None
        stage = rs.stage_of(cmd.skill)
        if state.phase.kind == NIGHT and (stage is None or stage < state.stage):
            return None
        return s.scalars(
            select(CommandRow)
            .where(
                CommandRow.game_id == game.id,
                CommandRow.actor == cmd.actor,
                CommandRow.skill == cmd.skill,
                CommandRow.phase == state.phase.label,
                CommandRow.superseded.is_(False),
            )
            .order_by(CommandRow.seq.desc())
        ).first()

    def submit(
        self, game_id: int, cmd: Command, source: str = "player", at: str | None = None, note: str | None = None
    ) -> list[Event]:
        """A player's skill or a director's command (`at`: the position it is meant for, see
        `position`; `note`: the director's reason). Raises ServiceError with the engine's reason."""
        if note is not None and len(note) > MAX_NOTE:
            raise ServiceError(f"理由过长（最多{MAX_NOTE}字）")
        with self._tx(game_id) as (s, game):
            self._check_running(game)
            state = self.state_of(s, game)
            self._check_at(game, state, at)
            now = self.clock()
            if source == "player":
                return self._player_submit(s, game, state, cmd, now)  # holding.py
            return self._apply(s, game, state, cmd, source, now, note)

    def _replace(self, s: Session, game: Game, prior: CommandRow, cmd: Command, now: float) -> list[Event]:
        try:
            candidate = self._rebuild(s, game, exclude=prior.seq)
        except IllegalCommand as exc:
            raise ServiceError(f"无法替换之前的提交：{exc.reason}") from None
        prior.superseded = True
        s.flush()
        self._cache.pop(game.id, None)
        events = self._apply(s, game, candidate, cmd, "player", now)
        return events

    def _after_change(
        self, s: Session, game: Game, state: GameState, anchor: float, before_log: int | None = None
    ) -> None:
        """The service's records after the engine changed: the players' clock and deadlines
        (a close starts its settling window), the new 公示 (published at once when publication
        is automatic and no window holds them), and the end of the game."""
        self._timeline(s, game, state, anchor, before_log)
        anns = public_announcements(state)
        total = len(anns)
        have = s.scalar(select(func.count(Announcement.id)).where(Announcement.game_id == game.id)) or 0
        for idx in range(have, total):
            published = anchor if game.auto_publish and game.held_log is None and not game.public_settling else None
            s.add(
                Announcement(game_id=game.id, idx=idx, phase=anns[idx].phase, created_at=anchor, published_at=published)
            )
        if state.over:
            # the game is over: the 复盘 reveals everything, so every 公示 goes out
            game.status = "ended"
            s.flush()
            for row in s.scalars(
                select(Announcement).where(
                    Announcement.game_id == game.id,
                    Announcement.published_at.is_(None),
                    Announcement.withheld.is_(False),
                )
            ):
                row.published_at = anchor
            publish_notices(s, game.id, anchor)
        if state.phase.label != game.phase_label:
            game.phase_label = state.phase.label

    @staticmethod
    def position(state: GameState) -> str:
        """Where the game stands, as every close and director command names it (`at`): the phase,
        the night stage, or the pending prompt. The scheduler's deadline keys are the same strings."""
        label = state.phase.label
        if state.over:
            return f"{label}|over"
        if state.prompts and state.prompt_raised:
            raised = sum(1 for e in state.log if e.kind == NOTICE and "prompt" in e.data)
            return f"{label}|prompt|{raised}"
        if state.settling:
            return f"{label}|settling"
        if state.phase.kind == NIGHT:
            return f"{label}|stage|{state.stage}"
        return f"{label}|close"

    def _describe(self, game: Game, at: str) -> str:
        parts = at.split("|")
        if len(parts) == 3 and parts[1] == "stage" and parts[2].isdigit():
            stages = self.ruleset(game).night_stages
            i = int(parts[2])
            return f"{parts[0]}·{stages[i].name}" if i < len(stages) else parts[0]
        extra = {"prompt": "（等待回应）", "settling": "（结算中）", "over": "（游戏结束）"}
        return parts[0] + (extra.get(parts[1], "") if len(parts) > 1 else "")

    def _check_at(self, game: Game, state: GameState, at: str | None) -> None:
        """A command meant for one phase/stage/prompt is refused once the game has moved on (so a
        second 立即关门, or one racing the scheduler, never closes the next phase unseen)."""
        if at is None:
            return
        now = self.position(state)
        if at != now:
            raise Conflict(
                f"游戏已经进入{self._describe(game, now)}，这条为{self._describe(game, at)}发出的指令未执行；"
                "请刷新页面确认后再操作"
            )

    def current_deadline(self, s: Session, game_id: int) -> Deadline | None:
        """The players' current deadline: the first to come of the public clock's rows (a prompt's
        own deadline is not one of them: only its player and the director see it)."""
        return s.scalars(_CURRENT_DEADLINE, {"game_id": game_id}).first()

    def prompt_deadline(self, s: Session, game_id: int) -> Deadline | None:
        """A prompt's own deadline in the middle of a phase, if one runs."""
        return s.scalars(_PROMPT_DEADLINE, {"game_id": game_id}).first()

    def seat_by_token(self, token: str) -> Seat:
        """The active seat of a link (cached: a link changes only by 替补, which forgets its game's)."""
        if not TOKEN.match(token):
            raise NotFound(LINK_DEAD)
        cached = self._seats.get(token) if self._seat_cache_on else None
        if cached is not None:
            return cached
        epoch = self._seat_epoch
        with self.sessions() as s:
            seat = s.scalar(select(Seat).where(Seat.token == token))
            if seat is None or not seat.active:
                raise NotFound(LINK_DEAD)
        with self._guard:
            if epoch == self._seat_epoch and self._seat_cache_on:  # no 替补 (or lost NOTIFY) while read
                if len(self._seats) >= CACHE_GAMES * 32:
                    self._seats.clear()
                self._seats[token] = seat
        return seat

    @contextmanager
    def as_link(self, token: str) -> Iterator[None]:
        """Writes inside come through the player link `token` (see ACTING_LINK)."""
        mark = ACTING_LINK.set(token)
        try:
            yield
        finally:
            ACTING_LINK.reset(mark)

    def _forget_link(self, token: str) -> None:
        with self._guard:
            self._seat_epoch += 1
            self._seats.pop(token, None)

    def forget_seats(self, game_id: int) -> None:
        """A 替补 in `game_id` (here or in another process): its links are looked up again."""
        with self._guard:
            self._seat_epoch += 1
            for token in [t for t, x in self._seats.items() if x.game_id == game_id]:
                del self._seats[token]

    def trust_seat_cache(self, trusted: bool) -> None:
        """The PostgreSQL listener (re)connected (True) or lost its connection (False): either way
        every cached link is forgotten — a 替补's NOTIFY sent while it was away is lost — and while
        it is away no link is cached (each request reads its seat)."""
        with self._guard:
            self._seat_cache_on = trusted
            self._seat_epoch += 1
            self._seats.clear()

    def seat_and_game(self, token: str) -> tuple[Seat, Game]:
        """A live link's seat and its game, loaded in one session."""
        seat = self.seat_by_token(token)
        with self.sessions() as s:
            game = s.get(Game, seat.game_id)
            if game is None:
                raise NotFound("链接无效或已停用")
            return seat, game

    def published_count(self, s: Session, game_id: int) -> int:
        return int(s.scalar(_PUBLISHED_COUNT, {"game_id": game_id}) or 0)

    # -- what the other parts of the service provide (deadlines.py, direction.py) -------------
    @abstractmethod
    def _timeline(self, s: Session, game: Game, state: GameState, anchor: float, before_log: int | None) -> None:
        """Keep the players' clock and the deadline rows in step with the engine (deadlines.py)."""

    @abstractmethod
    def _stage_opened(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        """A night stage has just become the current one (deadlines.py, holding.py)."""

    @abstractmethod
    def _open_held_stages(self, s: Session, game: Game, state: GameState, source: str, anchor: float) -> None:
        """Before the night closes: the stages that still hold skills open one by one (holding.py)."""

    @abstractmethod
    def _player_submit(self, s: Session, game: Game, state: GameState, cmd: Command, now: float) -> list[Event]:
        """A player's skill through the players' gate, held or void where it must be (holding.py)."""

    @abstractmethod
    def _record_day(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        """A closing day's post counts and its 潜水 flags (direction.py)."""


def insert_game(
    s: Session,
    title: str,
    director_id: int,
    state: GameState,
    roles: dict[str, str] | None,
    schedule: dict[str, Any],
    timezone: str,
    auto_publish: bool,
    now: float,
) -> Game:
    """A new running game row and one secret link per seat (created and imported games alike)."""
    game = Game(
        title=title,
        director_id=director_id,
        ruleset=state.ruleset,
        seed=state.seed,
        options=dict(state.options),
        players=list(state.order),
        roles=roles,
        schedule=schedule,
        timezone=timezone,
        status="running",
        auto_publish=auto_publish,
        phase_label=state.phase.label,
        phase_started_at=now,
        created_at=now,
        public_label=state.phase.label,
        public_settling=False,
        public_since=now,
    )
    s.add(game)
    s.flush()
    for n in state.order:
        s.add(Seat(game_id=game.id, name=n, token=secrets.token_urlsafe(24), active=True, created_at=now))
    return game
