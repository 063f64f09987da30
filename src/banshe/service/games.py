"""The director service's core: an adapter that stores every input and replays the engine.

A game is its setup (ruleset, seats, identities or seed, options) plus the ordered commands the
engine accepted — from players, the director and the deadline scheduler. The state is rebuilt
by `new_game` + `apply_in_place` of those commands (kept in a per-game cache); every change is
committed before it is acknowledged, under a per-game lock, with a unique (game, seq) so two
writers can never interleave. Deadlines live in the database and reach the engine only as
`close_stage` / `close_phase` / `prompt_timeout` commands.
"""

from __future__ import annotations

import logging
import random
import re
import secrets
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from ..engine.commands import (
    ABSTAIN,
    ACCELERATE,
    CHANGE_VOTE,
    CLOSE_PHASE,
    CLOSE_STAGE,
    DELAY,
    DIRECTOR,
    PROMPT_TIMEOUT,
    VOTE,
    Command,
    IllegalCommand,
)
from ..engine.core import apply_in_place, new_game
from ..engine.events import ANNOUNCE, NOTICE, PUBLIC, Event
from ..engine.model import DAY, NIGHT, START, GameState
from ..engine.ruleset import Ruleset
from ..engine.view import is_legal
from ..forum import VoteFormatError, parse_vote
from ..rulesets.registry import find_ruleset, get_ruleset
from . import idempotency as idem
from . import import_schema, pgsync
from . import schedule as sched
from .models import (
    Announcement,
    CommandRow,
    DayRecord,
    Deadline,
    Game,
    GroupMessage,
    LurkFlag,
    PlayerRequest,
    Post,
    Seat,
    Submission,
)
from .names import check_names
from .names import key as name_key
from .notices import DIRECTOR_POST_KIND, NOTICE_KIND, notice

log = logging.getLogger("banshe.scheduler")
MAX_TEXT = 5000
MAX_NOTE = 500
MAX_TITLE = 100
TOKEN = re.compile(r"^[A-Za-z0-9_-]{8,64}$")  # a seat link's token (secrets.token_urlsafe)
RETRY_FAILED = 60.0
CACHE_GAMES = 1000
EXPORT_FORMAT = "banshe-game"


class ServiceError(Exception):
    """A refused request: `reason` is Chinese; nothing was changed."""

    status = 400

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    status = 409


@dataclass
class _Cached:
    head: int  # the highest stored command seq the state includes
    state: GameState


def public_announcements(state: GameState) -> list[Event]:
    return [e for e in state.log if e.kind == ANNOUNCE and e.audience.kind == PUBLIC]


class GameService:
    def __init__(self, sessions: sessionmaker[Session], clock: Callable[[], float] = time.time) -> None:
        self.sessions = sessions
        self.clock = clock
        self._locks: dict[int, threading.RLock] = {}
        self._guard = threading.Lock()
        self._cache: OrderedDict[int, _Cached] = OrderedDict()
        self.versions: dict[int, int] = {}
        self.on_change: Callable[[int], None] | None = None  # called after each committed write
        self._seats: dict[str, Seat] = {}  # token -> its active seat (issue 13: no lookup per request)
        self._seat_epoch = 0
        self._failed: dict[int, float] = {}  # game id -> monotonic time its deadlines are tried again
        # SQLite has one writer at a time and its busy handler is unfair under load: queue writers here
        bind = sessions.kw.get("bind")
        single_writer = bind is not None and bind.dialect.name == "sqlite"
        self._writer: threading.Lock | None = threading.Lock() if single_writer else None

    # -- plumbing ---------------------------------------------------------------------------
    def lock(self, game_id: int) -> threading.RLock:
        with self._guard:
            lk = self._locks.get(game_id)
            if lk is None:
                lk = self._locks[game_id] = threading.RLock()
            return lk

    @contextmanager
    def _tx(self, game_id: int) -> Iterator[tuple[Session, Game]]:
        """Lock the game, open a transaction, commit on success; any failure drops the cache."""
        with self.lock(game_id), self._writer or nullcontext():
            s = self.sessions()
            try:
                pgsync.lock_game(s, game_id)
                game = s.get(Game, game_id)
                if game is None:
                    raise NotFound("没有这局游戏")
                pending = idem.CURRENT.get()
                if pending is not None and pending.game_id == game_id and not pending.used:
                    pending.used = True
                    done = s.scalar(
                        select(Submission).where(Submission.game_id == game_id, Submission.key == pending.key)
                    )
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
            except IntegrityError as exc:
                s.rollback()
                self._cache.pop(game_id, None)
                raise Conflict("另一个提交同时到达，请重试") from exc
            except idem.AlreadyDone:
                s.rollback()
                raise
            except ServiceError:
                # a refusal: the engine validates before it changes anything, so the cache stays good
                s.rollback()
                raise
            except BaseException:
                s.rollback()
                self._cache.pop(game_id, None)
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
            with self.sessions() as s:
                row = s.get(Submission, pending.stored_id)
                if row is not None:
                    row.result = result[:200]
                    s.commit()
        return result

    def _remember(self, game_id: int, cached: _Cached) -> None:
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
        return int(s.scalar(select(func.max(CommandRow.seq)).where(CommandRow.game_id == game_id)) or 0)

    def state_of(self, s: Session, game: Game) -> GameState:
        """The game's state (cached when no other writer stored a command since)."""
        head = self._head(s, game.id)
        cached = self._cache.get(game.id)
        if cached is not None and cached.head == head:
            return cached.state
        state = self._rebuild(s, game)
        self._remember(game.id, _Cached(head, state))
        return state

    def _rebuild(self, s: Session, game: Game, exclude: int | None = None) -> GameState:
        state = new_game(get_ruleset(game.ruleset), game.players, game.roles, game.options, game.seed)
        rows = s.scalars(
            select(CommandRow)
            .where(CommandRow.game_id == game.id, CommandRow.superseded.is_(False))
            .order_by(CommandRow.seq)
        )
        for row in rows:
            if row.seq == exclude:
                continue
            apply_in_place(state, Command.from_json(row.payload))
        return state

    def read(self, game_id: int) -> tuple[Game, GameState]:
        """A consistent snapshot for rendering (the state is a private copy)."""
        with self.lock(game_id), self.sessions() as s:
            game = s.get(Game, game_id)
            if game is None:
                raise NotFound("没有这局游戏")
            return game, self.state_of(s, game).clone()

    # -- creating games -----------------------------------------------------------------------
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
    ) -> Game:
        try:
            rs = find_ruleset(ruleset)
        except KeyError:
            raise ServiceError(f"未知的规则：{ruleset}") from None
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
            state = new_game(rs, names, roles, options or {}, seed)
            if not custom_board:
                check_board(rs, names, roles, seed)
        except ValueError as exc:
            raise ServiceError(str(exc)) from None  # the engine's and the schedule's reasons are Chinese
        now = self.clock()
        with self.sessions() as s:
            game = _insert_game(
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
            self._after_change(s, game, state, now)
            s.commit()
            self._remember(game.id, _Cached(0, state))
            return game

    # -- the one write path -------------------------------------------------------------------
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
        phase, stage = state.phase.label, state.stage
        if cmd.skill == CLOSE_PHASE and state.phase.kind == DAY and not state.settling:
            self._record_day(s, game, state, anchor)
        accepted = len(state.commands)
        try:
            events = apply_in_place(state, cmd)
        except IllegalCommand as exc:
            if len(state.commands) != accepted:  # refused half-way: never trust that copy again
                self._cache.pop(game.id, None)
            raise ServiceError(exc.reason) from None
        head = self._head(s, game.id)
        s.add(
            CommandRow(
                game_id=game.id,
                seq=head + 1,
                actor=cmd.actor,
                skill=cmd.skill,
                payload=cmd.to_json(),
                phase=phase,
                stage=stage,
                source=source,
                created_at=self.clock(),
                note=note or None,
            )
        )
        s.flush()
        self._remember(game.id, _Cached(head + 1, state))
        self._after_change(s, game, state, anchor)
        if phase != state.phase.label and sched.auto_accelerate(game.schedule, state):
            events += self._apply(s, game, state, Command(DIRECTOR, ACCELERATE), "scheduler", anchor)
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
                prior = self._replaceable(s, game, state, cmd)
                if prior is not None:
                    return self._replace(s, game, prior, cmd, now)
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

    # -- the thread -----------------------------------------------------------------------------
    def post(
        self,
        game_id: int,
        author: str,
        text: str,
        by_director: bool = False,
        at: str | None = None,
        reply_to: int | None = None,
    ) -> Post:
        """A post in the 讨论帖; a vote post is also the engine's vote (both or neither are stored).
        `reply_to`: the post it replies to (a player's 改票 must reply to his own vote floor)."""
        body = _text(text)
        with self._tx(game_id) as (s, game):
            self._check_running(game)
            state = self.state_of(s, game)
            self._check_at(game, state, at)
            rs = self.ruleset(game)
            if state.over:
                raise ServiceError("游戏已经结束，讨论帖已关闭")
            if author not in state.chars:
                raise ServiceError(f"{author}不是本局的角色")
            if not state.is_alive(author):
                raise ServiceError(f"{author}已出局，不能在讨论帖发言（诈尸）")
            gate = rs.gate(state, Command(author, "post", text=body))
            if gate:
                raise ServiceError(gate)
            reason = rs.check_post(state, author, body)
            if reason:
                raise ServiceError(reason)
            try:
                vote = parse_vote(body)
            except VoteFormatError as exc:
                raise ServiceError(f"投票无效：{exc.reason}") from None
            now = self.clock()
            replied = self._replied(s, game, reply_to)
            row = Post(
                game_id=game.id,
                author=author,
                phase=state.phase.label,
                text=body,
                by_director=by_director,
                created_at=now,
                reply_to=replied.id if replied is not None else None,
            )
            if vote is not None:
                target = self._resolve_target(state, vote.target)
                if vote.kind == CHANGE_VOTE or by_director:
                    self._check_change_window(s, game, now, "代投" if by_director else "改票")
                reply_rule = vote.kind == CHANGE_VOTE and not by_director and sched.policy_for(rs).change_vote_reply
                # the engine's refusals (no vote yet, one change only, 加速) come first
                if reply_rule and is_legal(state, Command(author, CHANGE_VOTE, (target,))) is None:
                    self._check_change_reply(s, game, state, author, replied)
                self._apply(
                    s, game, state, Command(author, vote.kind, (target,)), "director" if by_director else "player", now
                )
                row.vote_kind, row.vote_target = vote.kind, target
            s.add(row)
            s.flush()
            return row

    @staticmethod
    def _replied(s: Session, game: Game, reply_to: int | None) -> Post | None:
        if reply_to is None:
            return None
        row = s.get(Post, reply_to)
        if row is None or row.game_id != game.id or row.vote_kind == NOTICE_KIND:
            raise ServiceError("回复的楼层不存在")
        return row

    @staticmethod
    def _check_change_reply(s: Session, game: Game, state: GameState, author: str, replied: Post | None) -> None:
        """Seed 002 改票格式: 改票需回复原投票楼层 — the author's own accepted 投票 post of the day."""
        own = s.scalars(
            select(Post)
            .where(
                Post.game_id == game.id,
                Post.author == author,
                Post.phase == state.phase.label,
                Post.vote_kind == VOTE,
            )
            .order_by(Post.id.desc())
        ).first()
        if own is None:
            raise ServiceError("改票无效：今天还没有有效投票，不能改票")
        if replied is None or replied.id != own.id:
            raise ServiceError("改票无效：改票需回复原投票楼层（请点击自己投票帖下的“改票（回复此楼）”）")

    @staticmethod
    def _resolve_target(state: GameState, written: str) -> str:
        wanted = name_key(written)
        if wanted == ABSTAIN:
            return ABSTAIN
        for name in state.order:
            if name_key(name) == wanted:
                return name
        raise ServiceError(f"投票无效：投票对象“{written}”不是本局的角色（弃权请填写“弃权”）")

    def _check_change_window(self, s: Session, game: Game, now: float, what: str) -> None:
        minutes = sched.policy_for(self.ruleset(game)).no_change_minutes
        if not minutes:
            return
        close = self.current_deadline(s, game.id)
        if close is not None and close.skill == CLOSE_PHASE and now >= close.due_at - minutes * 60:
            raise ServiceError(f"关门前{minutes // 60 or minutes}{'小时' if minutes >= 60 else '分钟'}不允许{what}")

    def proxy_vote(self, game_id: int, player: str, target: str, at: str | None = None) -> Post:
        """代投: the director posts a player's vote (a clear target, no conditions)."""
        with self.lock(game_id):
            _game, state = self.read(game_id)
            label = "改票" if player in state.votes else "投票"
            text = f"{label}对象：{target}\n{label}理由：导演代投"
            return self.post(game_id, player, text, by_director=True, at=at)

    def director_post(self, game_id: int, text: str, reply_to: int | None = None) -> Post:
        """The director's own post in the 讨论帖 (a rule clarification), marked as his."""
        body = _text(text)
        with self._tx(game_id) as (s, game):
            # a clarification is meant for no phase: `at` is not checked (a phase closing while the
            # director types must not lose his text)
            state = self.state_of(s, game)
            replied = self._replied(s, game, reply_to)
            row = Post(
                game_id=game.id,
                author=DIRECTOR,
                phase=state.phase.label,
                text=body,
                vote_kind=DIRECTOR_POST_KIND,
                vote_target=None,
                by_director=True,
                created_at=self.clock(),
                reply_to=replied.id if replied is not None else None,
            )
            s.add(row)
            s.flush()
            return row

    def group_post(self, game_id: int, author: str, group: str, text: str) -> GroupMessage:
        body = _text(text)
        with self._tx(game_id) as (s, game):
            self._check_running(game)
            state = self.state_of(s, game)
            if author not in state.groups.get(group, ()):
                raise ServiceError("你不在这个群里")
            if not state.is_alive(author):
                raise ServiceError(f"{author}已出局，不能在群内发言")
            row = GroupMessage(
                game_id=game.id,
                group_name=group,
                author=author,
                phase=state.phase.label,
                text=body,
                created_at=self.clock(),
            )
            s.add(row)
            s.flush()
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
            s.add(notice(game.id, label, f"申请延时成功（{count}/{len(alive)}）：{label}延长一天{until}。", now))
            return f"申请延时成功（{count}/{len(alive)}），讨论日延长一天"

    # -- after every change: 公示 rows, phase clock, deadlines ------------------------------------
    def _after_change(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        anns = public_announcements(state)
        total = len(anns)
        have = s.scalar(select(func.count(Announcement.id)).where(Announcement.game_id == game.id)) or 0
        for idx in range(have, total):
            published = anchor if game.auto_publish else None
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
        if state.phase.label != game.phase_label:
            game.phase_label = state.phase.label
            game.phase_started_at = anchor
        self._sync_deadlines(s, game, state, anchor)

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

    def _wanted(self, game: Game, state: GameState, anchor: float) -> tuple[str, str, str, float] | None:
        """The deadline that should be running now: (key, skill, label, due)."""
        if state.over or game.status == "ended":
            return None
        rs = self.ruleset(game)
        schedule = game.schedule
        tz = sched.zone(game.timezone)
        label = state.phase.label
        position = self.position(state)
        if state.prompts and state.prompt_raised:
            head = state.prompts[0]
            key = "prompt_minutes_night" if state.phase.kind == NIGHT else "prompt_minutes_day"
            return (
                position,
                PROMPT_TIMEOUT,
                f"{head.actor}的<{rs.skill_name(head.skill)}>",
                anchor + int(schedule[key]) * 60,
            )
        if state.settling:
            return None
        if state.phase.kind == START:
            return (
                position,
                CLOSE_PHASE,
                "开局行动",
                game.phase_started_at + int(schedule["start_minutes"]) * 60,
            )
        if state.phase.kind == DAY:
            close, weekend = sched.day_close_info(game.phase_started_at, schedule, tz)
            return position, CLOSE_PHASE, f"{label}关门" + ("（周末延长一天）" if weekend else ""), close
        i = min(state.stage, len(rs.night_stages) - 1)
        skill = CLOSE_STAGE if i < len(rs.night_stages) - 1 else CLOSE_PHASE
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

    def current_deadline(self, s: Session, game_id: int) -> Deadline | None:
        return s.scalars(
            select(Deadline)
            .where(Deadline.game_id == game_id, Deadline.fired_at.is_(None), Deadline.cancelled.is_(False))
            .order_by(Deadline.due_at)
        ).first()

    # -- 潜水 ----------------------------------------------------------------------------------
    def _record_day(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        label = state.phase.label
        if s.scalar(select(DayRecord).where(DayRecord.game_id == game.id, DayRecord.phase == label)) is not None:
            return
        counts = {n: 0 for n in state.order}
        for author, n in s.execute(
            select(Post.author, func.count(Post.id))
            .where(Post.game_id == game.id, Post.phase == label, Post.by_director.is_(False))
            .group_by(Post.author)
        ):
            counts[author] = int(n)
        s.add(DayRecord(game_id=game.id, phase=label, accelerated=state.accelerated, counts=counts, created_at=anchor))
        s.flush()
        rs = self.ruleset(game)
        policy = sched.policy_for(rs)
        if state.accelerated:
            return  # 执行加速时，发言不足或未投票者将不被判罚
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

    # -- the scheduler ---------------------------------------------------------------------------
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

    # -- director actions ------------------------------------------------------------------------
    def director_command(
        self, game_id: int, cmd: Command, at: str | None = None, note: str | None = None
    ) -> list[Event]:
        return self.submit(game_id, cmd, source="director", at=at, note=note)

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

    def publish(self, game_id: int, upto: int, at: str | None = None, only: bool = False) -> int:
        """Publish every pending 公示 up to index `upto`, in order, except the withheld ones; `only`:
        just the one at `upto` (also a withheld one: it is released)."""
        with self._tx(game_id) as (s, game):
            self._check_at(game, self.state_of(s, game), at)
            query = select(Announcement).where(Announcement.game_id == game.id, Announcement.published_at.is_(None))
            if only:
                query = query.where(Announcement.idx == upto)
            else:
                query = query.where(Announcement.idx <= upto, Announcement.withheld.is_(False))
            rows = s.scalars(query).all()
            if not rows:
                raise ServiceError("没有待发布的公示")
            now = self.clock()
            for row in rows:
                row.published_at = now
                row.withheld = False
            return len(rows)

    def _pending_announcement(self, s: Session, game: Game, idx: int) -> Announcement:
        row = s.scalar(select(Announcement).where(Announcement.game_id == game.id, Announcement.idx == idx))
        if row is None:
            raise NotFound("没有这条公示")
        if row.published_at is not None:
            raise ServiceError("这条公示已经发布，不能再修改或扣留")
        return row

    def edit_announcement(self, game_id: int, idx: int, text: str, at: str | None = None) -> None:
        """The director's wording replaces the engine's in the thread (the engine's text stays in
        the log and the export); an empty text restores the engine's."""
        body = text.strip()
        if len(body) > MAX_TEXT:
            raise ServiceError(f"公示过长（最多{MAX_TEXT}字）")
        with self._tx(game_id) as (s, game):
            state = self.state_of(s, game)
            self._check_at(game, state, at)
            row = self._pending_announcement(s, game, idx)
            anns = public_announcements(state)
            original = anns[idx].text if idx < len(anns) else ""
            row.text = body if body and body != original else None

    def withhold(self, game_id: int, idx: int, withheld: bool, at: str | None = None) -> None:
        """扣留 a pending 公示 (not published by 发布到此条, kept) or take it back into the queue."""
        with self._tx(game_id) as (s, game):
            self._check_at(game, self.state_of(s, game), at)
            row = self._pending_announcement(s, game, idx)
            if row.withheld == withheld:
                raise ServiceError("这条公示已经扣留" if withheld else "这条公示没有被扣留")
            row.withheld = withheld

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
            s.add(notice(game.id, state.phase.label, f"{name}更换替补。", self.clock()))
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
            else:
                raise ServiceError("未知的操作")

    # -- lookups for pages -------------------------------------------------------------------------
    def seat_by_token(self, token: str) -> Seat:
        """The active seat of a link (cached: a link changes only by 替补, which forgets its game's)."""
        if not TOKEN.match(token):
            raise NotFound("链接无效或已停用")
        cached = self._seats.get(token)
        if cached is not None:
            return cached
        epoch = self._seat_epoch
        with self.sessions() as s:
            seat = s.scalar(select(Seat).where(Seat.token == token))
            if seat is None or not seat.active:
                raise NotFound("链接无效或已停用")
        with self._guard:
            if epoch == self._seat_epoch:  # no 替补 while it was read
                if len(self._seats) >= CACHE_GAMES * 32:
                    self._seats.clear()
                self._seats[token] = seat
        return seat

    def forget_seats(self, game_id: int) -> None:
        """A 替补 in `game_id` (here or in another process): its links are looked up again."""
        with self._guard:
            self._seat_epoch += 1
            for token in [t for t, x in self._seats.items() if x.game_id == game_id]:
                del self._seats[token]

    def published_count(self, s: Session, game_id: int) -> int:
        return int(
            s.scalar(
                select(func.count(Announcement.id)).where(
                    Announcement.game_id == game_id, Announcement.published_at.is_not(None)
                )
            )
            or 0
        )

    # -- export / import -----------------------------------------------------------------------------
    def export(self, game_id: int) -> dict[str, Any]:
        with self.lock(game_id), self.sessions() as s:
            game = s.get(Game, game_id)
            if game is None:
                raise NotFound("没有这局游戏")
            state = self.state_of(s, game)
            rs = self.ruleset(game)
            commands = s.scalars(select(CommandRow).where(CommandRow.game_id == game.id).order_by(CommandRow.seq))
            posts = list(s.scalars(select(Post).where(Post.game_id == game.id).order_by(Post.id)))
            post_index = {p.id: i for i, p in enumerate(posts)}
            groups = s.scalars(select(GroupMessage).where(GroupMessage.game_id == game.id).order_by(GroupMessage.id))
            anns = s.scalars(select(Announcement).where(Announcement.game_id == game.id).order_by(Announcement.idx))
            seats = s.scalars(select(Seat).where(Seat.game_id == game.id).order_by(Seat.id))
            engine_anns = public_announcements(state)
            return {
                "format": EXPORT_FORMAT,
                "version": 1,
                "title": game.title,
                "ruleset": rs.name,
                "seed": game.seed,
                "options": game.options,
                "players": game.players,
                "roles": game.roles,
                "schedule": game.schedule,
                "timezone": game.timezone,
                "status": game.status,
                "settings": dict(game.settings or {}),
                # who played each character, in order (a 替补 adds a second entry for its character)
                "seats": [{"name": x.name, "person": x.person, "active": x.active, "at": x.created_at} for x in seats],
                # the 公示 as the thread showed them: their times keep them in place among the posts
                "announcements": [
                    {
                        "idx": a.idx,
                        "phase": a.phase,
                        "created_at": a.created_at,
                        "published_at": a.published_at,
                        "withheld": a.withheld,
                        "text": a.text,
                        "original": engine_anns[a.idx].text if a.idx < len(engine_anns) else None,
                    }
                    for a in anns
                ],
                "commands": [
                    {
                        "seq": c.seq,
                        "command": c.payload,
                        "phase": c.phase,
                        "stage": c.stage,
                        "source": c.source,
                        "superseded": c.superseded,
                        "at": c.created_at,
                        "note": c.note,
                    }
                    for c in commands
                ],
                "posts": [
                    {
                        "author": p.author,
                        "phase": p.phase,
                        "text": p.text,
                        "vote_kind": p.vote_kind,
                        "vote_target": p.vote_target,
                        "by_director": p.by_director,
                        "at": p.created_at,
                        "reply_to": post_index.get(p.reply_to) if p.reply_to is not None else None,
                    }
                    for p in posts
                ],
                "group_messages": [
                    {"group": g.group_name, "author": g.author, "phase": g.phase, "text": g.text, "at": g.created_at}
                    for g in groups
                ],
                "result": {
                    "winner": rs.camp_name(state.winner) if state.winner else None,
                    "ended_in": state.ended_in.label if state.ended_in else None,
                    "outs": [{"player": o.player, "phase": o.phase.label, "cause": o.cause} for o in state.outs],
                },
                "log": [
                    {
                        "kind": e.kind,
                        "phase": e.phase,
                        "audience": {
                            "kind": e.audience.kind,
                            "members": list(e.audience.members),
                            "group": e.audience.group,
                        },
                        "text": e.text,
                        "data": _jsonable(dict(e.data)),
                    }
                    for e in state.log
                ],
            }

    def import_game(self, director_id: int, data: Any) -> Game:
        """Create a game from an export: its commands are replayed and must reproduce its result."""
        try:
            data = import_schema.parse(data)  # the file's structure, before anything is replayed
        except ValueError as exc:
            raise ServiceError(str(exc)) from None
        try:
            rs = find_ruleset(str(data["ruleset"]))
            players = check_names([str(p) for p in data["players"]])
            roles = data.get("roles")
            seed = int(data["seed"])
            commands = list(data["commands"])
            state = new_game(rs, players, roles, dict(data.get("options") or {}), seed)
            for i, entry in enumerate(commands):
                if entry.get("superseded"):
                    continue
                try:
                    apply_in_place(state, Command.from_json(entry["command"]))
                except IllegalCommand as exc:
                    raise ServiceError(f"导入失败：第{i + 1}条指令被拒绝：{exc.reason}") from None
            schedule = sched.validate_schedule(rs, dict(data.get("schedule") or {}))
            timezone = str(data.get("timezone") or sched.DEFAULT_TIMEZONE)
            sched.zone(timezone)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ServiceError):
                raise
            if isinstance(exc, KeyError) and exc.args:
                what = f"缺少字段“{exc.args[0]}”"
            elif isinstance(exc, ValueError) and _chinese(str(exc)):
                what = str(exc)  # the names', the engine's and the schedule's own reasons
            else:
                what = "某个字段的类型或取值不对"  # Python's own text (int() of a word …) never reaches the page
            raise ServiceError(f"导入失败：文件内容不完整或有误（{what}）") from None
        result = data.get("result") or {}
        winner = rs.camp_name(state.winner) if state.winner else None
        if result.get("winner", winner) != winner:
            raise ServiceError(f"导入失败：重放结果（{winner}）与文件记录（{result.get('winner')}）不一致")
        now = self.clock()
        with self.sessions() as s:
            game = _insert_game(
                s, f"{data.get('title') or rs.name}（导入）", director_id, state, roles, schedule, timezone, True, now
            )
            for i, entry in enumerate(commands, start=1):
                cmd = Command.from_json(entry["command"])
                s.add(
                    CommandRow(
                        game_id=game.id,
                        seq=i,
                        actor=cmd.actor,
                        skill=cmd.skill,
                        payload=cmd.to_json(),
                        phase=str(entry.get("phase", "")),
                        stage=int(entry.get("stage", 0)),
                        source=str(entry.get("source", "import")),
                        superseded=bool(entry.get("superseded")),
                        created_at=float(entry.get("at") or now),
                        note=None if entry.get("note") is None else str(entry["note"])[:MAX_NOTE],
                    )
                )
            imported: list[Post] = []
            for p in data.get("posts") or []:
                ref = p.get("reply_to")  # the replied post's index in the export
                replied = imported[ref] if isinstance(ref, int) and 0 <= ref < len(imported) else None
                if replied is not None and replied.id is None:
                    s.flush()
                row = Post(
                    game_id=game.id,
                    author=str(p["author"]),
                    phase=str(p["phase"]),
                    text=str(p["text"]),
                    vote_kind=p.get("vote_kind"),
                    vote_target=p.get("vote_target"),
                    by_director=bool(p.get("by_director")),
                    created_at=float(p.get("at") or now),
                    reply_to=replied.id if replied is not None else None,
                )
                s.add(row)
                imported.append(row)
            for g in data.get("group_messages") or []:
                s.add(
                    GroupMessage(
                        game_id=game.id,
                        group_name=str(g["group"]),
                        author=str(g["author"]),
                        phase=str(g["phase"]),
                        text=str(g["text"]),
                        created_at=float(g.get("at") or now),
                    )
                )
            settings = data.get("settings")
            game.settings = dict(settings) if isinstance(settings, dict) else {}
            _import_announcements(s, game.id, data.get("announcements"), len(public_announcements(state)))
            _import_seats(s, game.id, data.get("seats"), now)
            s.flush()
            self._after_change(s, game, state, now)
            s.commit()
            self._remember(game.id, _Cached(len(commands), state))
            return game


def _text(text: str) -> str:
    """A post's body: not empty, not overlong, no NUL (PostgreSQL refuses it in text)."""
    body = text.strip()
    if not body:
        raise ServiceError("发言内容不能为空")
    if len(body) > MAX_TEXT:
        raise ServiceError(f"发言过长（最多{MAX_TEXT}字）")
    if "\x00" in body:
        raise ServiceError("发言含有不允许的控制字符（NUL）")
    return body


def _chinese(text: str) -> bool:
    """Whether a message was written for people (ours are Chinese; Python's own are English)."""
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _import_announcements(s: Session, game_id: int, entries: Any, total: int) -> None:
    """The exported 公示 rows with their times (so they keep their places among the posts)."""
    if not isinstance(entries, list):
        return
    for n, a in enumerate(entries):
        if not isinstance(a, dict) or n >= total:
            break
        published = a.get("published_at")
        text = a.get("text")
        s.add(
            Announcement(
                game_id=game_id,
                idx=n,
                phase=str(a.get("phase", "")),
                created_at=float(a.get("created_at") or 0.0),
                published_at=None if published is None else float(published),
                withheld=bool(a.get("withheld")),
                text=None if text is None else str(text)[:MAX_TEXT],
            )
        )


def _import_seats(s: Session, game_id: int, entries: Any, now: float) -> None:
    """Who played each character: `_insert_game` made one link per character; a 替补 in the file
    makes the first inactive and adds the substitute's (new links, the old ones stay void)."""
    if not isinstance(entries, list):
        return
    first = {x.name: x for x in s.scalars(select(Seat).where(Seat.game_id == game_id))}
    seen: dict[str, int] = {}
    for e in entries:
        if not isinstance(e, dict) or str(e.get("name")) not in first:
            continue
        name = str(e["name"])
        person = None if e.get("person") is None else str(e["person"])[:64]
        seen[name] = seen.get(name, 0) + 1
        if seen[name] == 1:
            first[name].person = person
            first[name].active = bool(e.get("active", True))
        elif seen[name] == 2:  # 每名角色仅限更换一次替补
            at = float(e.get("at") or now)
            s.add(
                Seat(
                    game_id=game_id,
                    name=name,
                    token=secrets.token_urlsafe(24),
                    active=True,
                    created_at=at,
                    person=person,
                )
            )
    for name, row in first.items():
        if seen.get(name, 0) < 2:
            row.active = True  # every character keeps one working link


def check_board(rs: Ruleset, names: list[str], roles: dict[str, str] | None, seed: int) -> None:
    """The seed's configuration: a count it deals identities for and, for a hand-entered table,
    the identities it would deal for that count (a different table needs 自定义板子)."""
    counts = board_counts(rs)
    if len(names) not in counts:
        raise ValueError(
            f"{rs.name}的标准配置需要{counts_text(counts)}名角色（现有{len(names)}名）；其他人数请勾选“自定义板子”"
        )
    if roles is None:
        return
    wanted = Counter(rs.deal(len(names), random.Random(seed)))
    given: Counter[str] = Counter()
    for n in names:
        rid = rs.role_id(roles.get(n, ""))
        if rid is None:
            raise ValueError(f"未知的身份：{roles.get(n)}")
        given[rid] += 1
    if given != wanted:
        more = "、".join(f"{rs.role_name(r)}×{k}" for r, k in (given - wanted).items())
        less = "、".join(f"{rs.role_name(r)}×{k}" for r, k in (wanted - given).items())
        raise ValueError(
            f"手填身份与{rs.name}{len(names)}人的标准配置不符（多出：{more or '无'}；缺少：{less or '无'}）；"
            "如确要使用自定义板子，请勾选“自定义板子”"
        )


_COUNTS: dict[str, tuple[int, ...]] = {}


def board_counts(rs: Ruleset) -> tuple[int, ...]:
    """The player counts the ruleset's seed configuration deals for (its `deal` declaration)."""
    found = _COUNTS.get(rs.id)
    if found is None:
        ok = []
        for n in range(rs.min_players, rs.max_players + 1):
            try:
                dealt = rs.deal(n, random.Random(0))
                rs.validate_roles(dealt)
            except (ValueError, NotImplementedError):
                continue
            if len(dealt) == n:
                ok.append(n)
        found = _COUNTS[rs.id] = tuple(ok)
    return found


def counts_text(counts: tuple[int, ...]) -> str:
    if not counts:
        return "（无标准配置）"
    if len(counts) == 1:
        return str(counts[0])
    if counts == tuple(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}–{counts[-1]}"
    return "、".join(str(c) for c in counts)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def _insert_game(
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
    )
    s.add(game)
    s.flush()
    for n in state.order:
        s.add(Seat(game_id=game.id, name=n, token=secrets.token_urlsafe(24), active=True, created_at=now))
    return game
