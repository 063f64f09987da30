"""The forum desk: a game played on a Discuz! thread, with banshe as the director's desk.

Reading by hand (issue 14): the director reads a day's thread (uploaded pages or its address)
into `banshe forum count`'s result, reviews every floor's verdict, overrides one with a note
(kept with the day) and applies the votes: they enter the engine as the service's commands in
floor order (source `forum`), and the thread's posts are mirrored into the game's thread, each
citing its floor. Night actions sent privately are entered from the same page (代投).

A game played on the forum (issue 23) is a setting of the game (`ForumLink`): the thread's
address and the director's forum account. Then

- during a day the desk re-reads the thread every few minutes (`ForumPoller`, and on demand),
  logged in as the director, and shows the live tally with every verdict;
- the day's deadline does not close the day by itself (`hold_day_close`, called by the
  scheduler): the thread is read once more with the deadline as the close, and the day waits
  for the director's review (overrides, then 录入并关门) — or closes with the count at once when
  the game is set to (`auto_close`);
- 潜水 flags come from the thread's count, never from banshe's own (empty) thread
  (`forum_day_counts`, called when a day is recorded);
- each published 公示 is posted to the thread by the service as the director (one click; a
  second click, or a resend after a lost answer, never posts it twice);
- a relay list shows, per player, the private results the director sends by message.

Every network call goes through `banshe.forum.fetch` (checked addresses, one error text, a
deadline and byte caps) and runs in the desk's own small pool, so slow forums never hold the
service's worker threads.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import quote, urlparse

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile

from ..engine.commands import CHANGE_VOTE, CLOSE_PHASE, CLOSE_STAGE, DIRECTOR, VOTE, Command, IllegalCommand
from ..engine.core import apply_in_place
from ..engine.events import FEEDBACK, GROUP, NOTICE, PLAYER
from ..engine.model import DAY, GameState, Phase
from ..engine.view import view
from ..forum.count import CountError, Options, count, parse_close
from ..forum.count import Game as CountGame
from ..forum.discuz import ForumError, Thread, decode_page, parse_page, read_thread
from ..forum.fetch import FETCH_FAILED, FetchError, Limits
from ..forum.remote import ForumSession, thread_id
from ..rulesets.registry import find_ruleset
from ..scenario import to_command
from . import bbcode, security
from . import schedule as sched
from .edge import MAX_INT, DayId, GameId, OptionalDayId, form_int
from .forms import valid_id
from .forum_models import ForumDay, ForumLink, ForumOverride, ForumPublication, forum_link
from .games import GameService, NotFound, ServiceError, public_announcements
from .models import Announcement, Director, Game, Post
from .sealing import SealError, seal, unseal
from .views import desk_choices, tally_lines

log = logging.getLogger("banshe.forum")
MAX_UPLOAD = 20 * 1024 * 1024
ALLOW_PRIVATE_ENV = "BANSHE_FORUM_PRIVATE_HOSTS"  # "1": the desk may fetch threads on private addresses
POLL_ENV = "BANSHE_FORUM_POLL_SECONDS"  # how often the poller looks for threads due (default 20 s)
# one operation (a thread's pages, a login and a post): 90 s in all, 4 MiB a page, 48 MiB, 100 pages
LIMITS = Limits(deadline=90.0, page_bytes=4 * 1024 * 1024, total_bytes=48 * 1024 * 1024, max_pages=100)
SLOTS = 2  # the desk's own pool: network calls from pages at once (the poller reads one at a time)
QUEUE = 8  # requests admitted at once (running or waiting for a slot); more are refused (503)
CLAIM = 300.0  # seconds a poller owns a thread it reads (another process skips it meanwhile)
_WORDS = {VOTE: "投票", CHANGE_VOTE: "改票"}
T = TypeVar("T")


def forum_bbcode(rs_id: str, phase: str, text: str) -> str:
    """A 公示 in the director's reserved fonts (the service's one renderer, service/bbcode.py: red
    #FF0000 and size 6 where players may use neither, 品茗 违规判定 6(1); size 6 in 沉寂与取酒)."""
    return bbcode.announcement(find_ruleset(rs_id), phase, text)


def allow_private() -> bool:
    """Whether the desk may read forums on private addresses (a test, an intranet deployment)."""
    return os.environ.get(ALLOW_PRIVATE_ENV) == "1"


def _check_thread_url(url: str) -> str:
    url = url.strip()
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname or len(url) > 1000:
        raise ServiceError("帖子地址必须是 http:// 或 https:// 开头的网址")
    return url


def _fetch_error(exc: ForumError) -> ServiceError:
    """A forum failure as the page shows it: fetch failures all read alike (FETCH_FAILED)."""
    if isinstance(exc, FetchError):
        log.info("forum fetch failed: %s", exc.detail)
        return ServiceError(FETCH_FAILED)
    return ServiceError(str(exc))


def _local(ts: float, tz_name: str) -> datetime:
    """An epoch time as the forum's wall clock (the game's time zone), naive like the pages' times."""
    return datetime.fromtimestamp(ts, sched.zone(tz_name)).replace(tzinfo=None)


class Busy(ServiceError):
    """The desk's pool is full: try again later."""

    status = 503


class ForumDesk:
    def __init__(self, service: GameService, secret: str) -> None:
        self.service = service
        self.secret = secret
        self._limiter: anyio.CapacityLimiter | None = None
        self._waiting = 0

    # -- the desk's own pool ---------------------------------------------------------------------
    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a call that reaches a forum in the desk's pool (SLOTS at once, QUEUE admitted in all)."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(SLOTS)
        if self._waiting >= QUEUE:
            raise Busy("正在读取论坛的请求太多，请稍后再试")
        self._waiting += 1
        try:
            return await anyio.to_thread.run_sync(fn, *args, limiter=self._limiter)
        finally:
            self._waiting -= 1

    # -- the game's forum --------------------------------------------------------------------------
    def link(self, game_id: int) -> ForumLink | None:
        with self.service.sessions() as s:
            return forum_link(s, game_id)

    def _login(self, link: ForumLink) -> ForumSession:
        try:
            password = unseal(self.secret, link.sealed_password)
        except SealError as exc:
            raise ServiceError(str(exc)) from None
        session = ForumSession.open(allow_private(), LIMITS)
        try:
            session.login(link.thread_url, link.account, password)
        except BaseException:
            session.close()
            raise
        return session

    def configure(
        self, game_id: int, url: str, account: str, password: str, poll_minutes: int, auto_close: bool
    ) -> str:
        """Play the game on a forum thread (or change its settings); the login is tried first."""
        game, state = self.service.read(game_id)
        if game.status == "ended":
            raise ServiceError("游戏已经结束")
        url = _check_thread_url(url)
        if thread_id(url) is None:
            raise ServiceError("帖子地址中没有帖子编号（tid），请复制帖子第 1 页的地址")
        account = account.strip()
        if not account or len(account) > 64 or not account.isprintable():
            raise ServiceError("请填写导演的论坛账号（最多64个字符）")
        if not 1 <= poll_minutes <= 60:
            raise ServiceError("读帖间隔应在1到60分钟之间")
        old = self.link(game_id)
        if not password:
            if old is None or old.account != account:
                raise ServiceError("请填写论坛账号的密码")
            sealed = old.sealed_password
        else:
            if len(password) > 200:
                raise ServiceError("密码过长")
            sealed = seal(self.secret, password)
        probe = ForumLink(game_id=game_id, thread_url=url, account=account, sealed_password=sealed)
        try:
            with self._login(probe) as session:
                session.read_thread(url)
        except ForumError as exc:
            raise _fetch_error(exc) from None
        with self.service.sessions() as s:
            link = forum_link(s, game_id)
            if link is None:
                link = ForumLink(game_id=game_id, created_at=self.service.clock())
                s.add(link)
            link.thread_url, link.account, link.sealed_password = url, account, sealed
            link.poll_minutes, link.auto_close = poll_minutes, auto_close
            link.read_at, link.read_error = None, None
            s.commit()
        return f"本局在论坛上进行：{account} 已登录论坛并读到了帖子"

    def unlink(self, game_id: int) -> str:
        with self.service.sessions() as s:
            link = forum_link(s, game_id)
            if link is None:
                raise ServiceError("本局没有设置论坛")
            s.delete(link)
            s.commit()
        return "已取消论坛设置（保存的论坛密码已删除）"

    # -- reading -------------------------------------------------------------------------------
    def read(
        self,
        game_id: int,
        pages: list[tuple[str, bytes]],
        url: str,
        close: str,
        accelerated: bool | None,
    ) -> ForumDay:
        """A reading by hand: uploaded pages, or an address (the game's own thread is read logged in)."""
        export = self.service.export(game_id)
        if export["status"] == "ended":
            raise ServiceError("游戏已经结束")
        rs = self.service.ruleset(self.service.read(game_id)[0])  # by id: an uploaded board may share a name
        game = CountGame(rs, export=export, source=f"对局{game_id}")
        link = self.link(game_id)
        try:
            if pages:
                thread = Thread([parse_page(decode_page(data), name) for name, data in pages])
                source = "上传：" + "、".join(name for name, _ in pages)
            elif url.strip():
                source = _check_thread_url(url)
                if link is not None and source == link.thread_url:
                    with self._login(link) as session:
                        thread = read_thread([source], session.read_thread)
                else:
                    with ForumSession.open(allow_private(), LIMITS) as guest:
                        thread = read_thread([source], guest.read_thread)
            else:
                raise ServiceError("请上传帖子页面或填写帖子地址")
            _game, state = self.service.read(game_id)
            options = Options(
                close=parse_close(close) if close.strip() else None,
                director=link.account if link is not None else None,
                accelerated=state.accelerated if accelerated is None else accelerated,
            )
            result = count(game, thread, options)
        except (CountError, ForumError) as exc:
            raise _fetch_error(exc) if isinstance(exc, ForumError) else ServiceError(str(exc)) from None
        with self.service.sessions() as s:
            day = ForumDay(
                game_id=game_id, phase=result["day"], source=source, result=result, created_at=self.service.clock()
            )
            s.add(day)
            s.commit()
            return day

    def _close_of(self, game: Game, state: GameState, link: ForumLink) -> float | None:
        """The counted day's close: its held deadline, or the deadline now running."""
        if link.held_phase == state.phase.label and link.held_close is not None:
            return link.held_close
        with self.service.sessions() as s:
            row = self.service.current_deadline(s, game.id)
            return row.due_at if row is not None and row.skill in (CLOSE_PHASE, CLOSE_STAGE) else None

    def read_live(self, game_id: int) -> ForumDay:
        """Read a forum game's thread for the day now running (logged in as the director) and keep
        the reading as the day's live tally (updated in place; final once the deadline passed)."""
        game, state = self.service.read(game_id)
        link = self.link(game_id)
        if link is None:
            raise ServiceError("本局没有设置论坛，请先填写帖子地址与导演账号")
        if game.status != "running" or state.phase.kind != DAY or state.settling:
            raise ServiceError(f"对局当前是{state.phase.label}，只有讨论日读帖计票")
        due = self._close_of(game, state, link)
        final = link.held_phase == state.phase.label
        try:
            export = self.service.export(game_id)
            counted = CountGame(find_ruleset(game.ruleset), export=export, source=f"对局{game_id}")
            with self._login(link) as session:
                thread = read_thread([link.thread_url], session.read_thread)
            options = Options(
                day=state.phase.number,
                close=_local(due, game.timezone) if due is not None else None,
                director=link.account,
                accelerated=state.accelerated,
            )
            result = count(counted, thread, options)
        except (CountError, ForumError, ServiceError) as exc:
            reason = (
                _fetch_error(exc).reason if isinstance(exc, ForumError) else getattr(exc, "reason", None) or str(exc)
            )
            with self.service.sessions() as s:
                s.execute(
                    update(ForumLink)
                    .where(ForumLink.game_id == game_id)
                    .values(read_at=self.service.clock(), read_error=reason, claimed_until=None)
                )
                s.commit()
            raise ServiceError(reason) from None
        now = self.service.clock()
        with self.service.sessions() as s:
            day = s.scalars(
                select(ForumDay)
                .where(
                    ForumDay.game_id == game_id,
                    ForumDay.phase == result["day"],
                    ForumDay.mode.in_(("live", "final")),
                    ForumDay.applied_at.is_(None),
                )
                .order_by(ForumDay.id.desc())
            ).first()
            if day is None:
                day = ForumDay(game_id=game_id, phase=result["day"], source=link.thread_url, created_at=now)
                s.add(day)
            day.result, day.created_at, day.source = result, now, link.thread_url
            day.mode = "final" if final else "live"
            row = forum_link(s, game_id)
            if row is not None:
                row.read_at, row.read_error, row.claimed_until = now, None, None
            s.commit()
            s.refresh(day)
            s.expunge(day)
        if final and link.auto_close:
            try:
                self.close_day(game_id, day.id)
            except ServiceError as exc:
                log.warning("game %s: the forum count of %s could not close the day: %s", game_id, day.phase, exc)
        return day

    def due(self, now: float) -> list[int]:
        """Forum games whose thread is due for a reading: running, in a day, read longer ago than
        their interval (or never since the deadline passed), and claimed by no other poller."""
        with self.service.sessions() as s:
            rows = s.execute(
                select(ForumLink.game_id, ForumLink.poll_minutes, ForumLink.read_at, ForumLink.claimed_until)
                .join(Game, Game.id == ForumLink.game_id)
                .where(Game.status == "running", Game.phase_label.like("%天"))  # days only (第N天)
            ).all()
            out = []
            for game_id, minutes, read_at, claimed in rows:
                if claimed is not None and claimed > now:
                    continue
                if read_at is not None and now - read_at < minutes * 60:
                    continue
                out.append(int(game_id))
            return out

    def poll(self, now: float | None = None) -> int:
        """One round of the poller: read every thread due (one at a time). Returns how many were read."""
        now = self.service.clock() if now is None else now
        done = 0
        for game_id in self.due(now):
            with self.service.sessions() as s:  # claim it (another process polling the same database skips it)
                claimed = s.execute(
                    update(ForumLink)
                    .where(
                        ForumLink.game_id == game_id,
                        or_(ForumLink.claimed_until.is_(None), ForumLink.claimed_until <= now),
                    )
                    .values(claimed_until=now + CLAIM)
                )
                s.commit()
                if getattr(claimed, "rowcount", 0) != 1:
                    continue
            _game, state = self.service.read(game_id)
            if state.phase.kind != DAY or state.settling:
                with self.service.sessions() as s:
                    s.execute(update(ForumLink).where(ForumLink.game_id == game_id).values(claimed_until=None))
                    s.commit()
                continue
            try:
                self.read_live(game_id)
                done += 1
            except ServiceError as exc:
                log.info("game %s: forum reading failed: %s", game_id, exc.reason)
        return done

    def day(self, game_id: int, day_id: int) -> ForumDay:
        if not valid_id(day_id):
            raise NotFound("没有这次读帖记录")
        with self.service.sessions() as s:
            day = s.get(ForumDay, day_id)
            if day is None or day.game_id != game_id:
                raise NotFound("没有这次读帖记录")
            return day

    def overrides(self, day_id: int) -> list[ForumOverride]:
        with self.service.sessions() as s:
            return list(
                s.scalars(
                    select(ForumOverride).where(ForumOverride.forum_day_id == day_id).order_by(ForumOverride.id)
                )
            )

    # -- the director's verdicts -------------------------------------------------------------------
    def override(self, game_id: int, day_id: int, floor: int, accept: bool, kind: str, target: str, note: str) -> None:
        day = self.day(game_id, day_id)
        if day.applied_at is not None:
            raise ServiceError("这一天的票已经录入，不能再改判")
        post = next((p for p in day.result["posts"] if p["floor"] == floor), None)
        if post is None:
            raise ServiceError(f"当日没有{floor}楼")
        if post["kind"] in ("director", "other"):
            raise ServiceError(f"{floor}楼不是角色的帖子")
        if not note.strip():
            raise ServiceError("改判需要写明理由")
        kind = kind or _WORDS.get(post["kind"], "投票")
        if kind not in ("投票", "改票"):
            raise ServiceError("改判的类型只能是投票或改票")
        if accept and not (target.strip() or post["target"]):
            raise ServiceError("判为有效时需要写明投票对象")
        with self.service.sessions() as s:
            s.add(
                ForumOverride(
                    forum_day_id=day_id,
                    floor=floor,
                    accept=accept,
                    kind=kind,
                    target=target.strip(),
                    note=note.strip(),
                    created_at=self.service.clock(),
                )
            )
            s.commit()

    def effective(self, day: ForumDay) -> list[dict[str, Any]]:
        """Every vote post with its final verdict: the count's, or the director's last override.
        A live reading keeps the overrides made on the day's earlier readings (by floor)."""
        last = {o.floor: o for o in self.overrides(day.id)}
        out = []
        for post in day.result["posts"]:
            o = last.get(post["floor"])
            if post["kind"] not in (VOTE, CHANGE_VOTE) and o is None:
                continue
            if post["kind"] in ("director", "other"):
                continue
            accepted = o.accept if o is not None else post["refused"] is None
            word = o.kind if o is not None else _WORDS[post["kind"]]
            target = (o.target if o is not None and o.target else None) or post["target"]
            out.append(
                {
                    "floor": post["floor"],
                    "author": post["author"],
                    "accepted": accepted,
                    "input": [post["author"], word, target],
                    "override": {"note": o.note, "accept": o.accept} if o is not None else None,
                    "refused": post["refused"],
                }
            )
        return out

    # -- applying -------------------------------------------------------------------------------
    def apply(self, game_id: int, day_id: int) -> int:
        """The day's votes enter the engine in floor order; all or none (checked on a copy first)."""
        day = self.day(game_id, day_id)
        if day.applied_at is not None:
            raise ServiceError("这一天的票已经录入过了")
        game, state = self.service.read(game_id)
        if state.phase.label != day.phase or state.settling:
            now = state.phase.label + ("（结算中）" if state.settling else "")
            raise ServiceError(f"对局当前是{now}，不是{day.phase}")
        rs = find_ruleset(game.ruleset)
        votes = [v for v in self.effective(day) if v["accepted"]]
        probe = state.clone()
        commands: list[tuple[int, Command]] = []
        for v in votes:
            try:
                cmd = to_command(rs, v["input"])
                apply_in_place(probe, cmd)
            except IllegalCommand as exc:
                raise ServiceError(f"{v['floor']}楼（{v['author']}）：{exc.reason}；没有录入任何票") from None
            commands.append((v["floor"], cmd))
        for _floor, cmd in commands:
            self.service.submit(game_id, cmd, source="forum")
        self._mirror(game, day, {floor: cmd for floor, cmd in commands})
        return len(commands)

    def close_day(self, game_id: int, day_id: int) -> str:
        """录入并关门: the reading's votes enter the engine, then the day closes (its settlement)."""
        day = self.day(game_id, day_id)
        n = self.apply(game_id, day_id) if day.applied_at is None else 0
        _game, state = self.service.read(game_id)
        if state.phase.label == day.phase and not state.settling:
            self.service.director_command(game_id, Command(DIRECTOR, CLOSE_PHASE), at=self.service.position(state))
        with self.service.sessions() as s:
            s.execute(
                update(ForumLink)
                .where(ForumLink.game_id == game_id, ForumLink.held_phase == day.phase)
                .values(held_phase=None, held_close=None)
            )
            s.commit()
        return f"已录入{n}张票，{day.phase}已关门"

    def _mirror(self, game: Game, day: ForumDay, applied: dict[int, Command]) -> None:
        """The thread's posts by characters enter the game's thread, each citing its floor."""
        tz = sched.zone(game.timezone)
        with self.service.sessions() as s:
            for post in day.result["posts"]:
                if post["kind"] in ("director", "other"):
                    continue
                when = datetime.strptime(post["time"], "%Y-%m-%d %H:%M").replace(tzinfo=tz).timestamp()
                cmd = applied.get(post["floor"])
                body = "（该帖被管理员或版主屏蔽）" if post.get("banned") else post["body"]
                s.add(
                    Post(
                        game_id=game.id,
                        author=post["author"],
                        phase=day.phase,
                        text=f"［论坛{post['floor']}楼］{body}"[:4000],
                        vote_kind=cmd.skill if cmd else None,
                        vote_target=cmd.targets[0] if cmd else None,
                        by_director=False,
                        created_at=when,
                    )
                )
            row = s.get(ForumDay, day.id)
            assert row is not None
            row.applied_at = self.service.clock()
            s.commit()

    def proxy(self, game_id: int, player: str, skill: str, targets: str) -> str:
        """代投: a night action a player sent the director privately."""
        game, state = self.service.read(game_id)
        rs = find_ruleset(game.ruleset)
        if player not in state.chars:
            raise ServiceError(f"{player}不是本局的角色")
        raw: list[Any] = [player, skill.strip(), *[t for t in targets.replace("、", " ").split() if t]]
        try:
            cmd = to_command(rs, raw)
        except IllegalCommand as exc:
            raise ServiceError(exc.reason) from None
        self.service.submit(game_id, cmd, source="director")
        return f"已代{player}提交<{rs.skill_name(cmd.skill)}>"

    # -- the 公示 on the forum ---------------------------------------------------------------------
    def _publishable(self, game_id: int) -> list[tuple[int, str, str]]:
        """(idx, phase, text) of every published 公示, as the thread showed them (the director's edits,
        the 票型 with a day's result)."""
        game, state = self.service.read(game_id)
        engine = public_announcements(state)
        tallies = tally_lines(find_ruleset(game.ruleset), state, view(state, None)["events"])
        with self.service.sessions() as s:
            rows = s.scalars(
                select(Announcement)
                .where(Announcement.game_id == game_id, Announcement.published_at.is_not(None))
                .order_by(Announcement.idx)
            ).all()
            return [
                (a.idx, a.phase, _with_tally(a.text or engine[a.idx].text, tallies.get(a.idx)))
                for a in rows
                if a.idx < len(engine)
            ]

    def post_announcement(self, game_id: int, idx: int) -> str:
        """Post one published 公示 to the forum thread as the director, once: the 公示 is claimed
        first (a second click is refused), and the forum is asked whether the thread already holds
        this text by the director (a retry after a lost answer finds the post, never posts again)."""
        game, _state = self.service.read(game_id)
        link = self.link(game_id)
        if link is None:
            raise ServiceError("本局没有设置论坛")
        found = [a for a in self._publishable(game_id) if a[0] == idx]
        if not found:
            raise ServiceError("这条公示还没有发布，不能发到论坛")
        _idx, phase, text = found[0]
        now = self.service.clock()
        with self.service.sessions() as s:
            row = s.scalar(
                select(ForumPublication).where(ForumPublication.game_id == game_id, ForumPublication.idx == idx)
            )
            if row is not None and row.status == "posted":
                raise ServiceError(f"这条公示已经发到论坛（{row.floor}楼）")
            if row is not None and row.status == "posting" and now - row.created_at < LIMITS.deadline * 2:
                raise ServiceError("这条公示正在发往论坛，请稍后刷新")
            if row is None:
                row = ForumPublication(game_id=game_id, idx=idx, status="posting", created_at=now)
                s.add(row)
            else:
                row.status, row.created_at, row.error = "posting", now, None
            try:
                s.commit()
            except IntegrityError:
                raise ServiceError("这条公示正在发往论坛，请稍后刷新") from None
        try:
            with self._login(link) as session:
                reply = session.reply(link.thread_url, forum_bbcode(game.ruleset, phase, text))
        except (ForumError, ServiceError) as exc:
            reason = _fetch_error(exc).reason if isinstance(exc, ForumError) else exc.reason
            with self.service.sessions() as s:
                s.execute(
                    update(ForumPublication)
                    .where(ForumPublication.game_id == game_id, ForumPublication.idx == idx)
                    .values(status="failed", error=reason)
                )
                s.commit()
            raise ServiceError(f"公示没有发到论坛：{reason}") from None
        with self.service.sessions() as s:
            s.execute(
                update(ForumPublication)
                .where(ForumPublication.game_id == game_id, ForumPublication.idx == idx)
                .values(
                    status="posted", url=reply.url, pid=reply.pid, floor=reply.floor, posted_at=self.service.clock()
                )
            )
            s.commit()
        where = f"{reply.floor}楼" if reply.floor else "帖子"
        return f"{phase}的公示已在论坛{where}" + ("（论坛上已有这条，没有重发）" if reply.existing else "发出")

    def post_pending(self, game_id: int) -> str:
        """Every published 公示 not yet on the forum, in order (stops at the first refusal)."""
        with self.service.sessions() as s:
            done = set(
                s.scalars(
                    select(ForumPublication.idx).where(
                        ForumPublication.game_id == game_id, ForumPublication.status == "posted"
                    )
                )
            )
        pending = [a for a in self._publishable(game_id) if a[0] not in done]
        if not pending:
            raise ServiceError("没有待发到论坛的公示")
        for idx, _phase, _text in pending:
            self.post_announcement(game_id, idx)
        return f"已把{len(pending)}条公示发到论坛"

    def publications(self, game_id: int) -> dict[int, ForumPublication]:
        with self.service.sessions() as s:
            rows = s.scalars(select(ForumPublication).where(ForumPublication.game_id == game_id)).all()
            return {r.idx: r for r in rows}

    # -- the relay list ---------------------------------------------------------------------------
    @staticmethod
    def relay(state: GameState) -> list[dict[str, Any]]:
        """Per player, the private messages the engine gave them (身份, 预言 results, 通灵, group
        notices …), newest phase first: what the director sends each player by forum message."""
        per: dict[str, list[tuple[str, str]]] = {n: [] for n in state.order}
        for e in state.log:
            if e.kind not in (FEEDBACK, NOTICE) or e.audience.kind not in (PLAYER, GROUP):
                continue
            for name in e.audience.members:
                if name in per:
                    per[name].append((e.phase, e.text))
        out = []
        for name in state.order:
            items = per[name]
            phases: dict[str, list[str]] = {}
            for phase, text in items:
                phases.setdefault(phase, []).append(text)
            order = sorted(phases, key=lambda p: Phase.parse(p, state.rules.night_first).ordinal, reverse=True)
            ordered = [{"phase": p, "texts": phases[p], "message": f"【{p}】" + "\n".join(phases[p])} for p in order]
            out.append({"player": name, "alive": state.is_alive(name), "phases": ordered})
        return out

    # -- the page ---------------------------------------------------------------------------------
    def page(self, game_id: int, day_id: int | None) -> dict[str, Any]:
        game, state = self.service.read(game_id)
        rs = find_ruleset(game.ruleset)
        link = self.link(game_id)
        with self.service.sessions() as s:
            days = list(s.scalars(select(ForumDay).where(ForumDay.game_id == game_id).order_by(ForumDay.id.desc())))
            deadline = self.service.current_deadline(s, game_id)
        live = next((d for d in days if d.mode in ("live", "final") and d.phase == state.phase.label), None)
        current = next((d for d in days if d.id == day_id), live or (days[0] if days else None))
        effective = self.effective(current) if current else []
        by_floor = {v["floor"]: v for v in effective}
        published = self.publications(game_id)
        engine = public_announcements(state)
        with self.service.sessions() as s:
            rows = {a.idx: a for a in s.scalars(select(Announcement).where(Announcement.game_id == game_id))}
        tallies = tally_lines(rs, state, view(state, None)["events"])
        announcements: list[dict[str, Any]] = []
        for i, e in enumerate(engine):
            row = rows.get(i)
            text = _with_tally((row.text if row is not None and row.text else None) or e.text, tallies.get(i))
            announcements.append(
                {
                    "idx": i,
                    "phase": e.phase,
                    "text": text,
                    "bbcode": forum_bbcode(rs.id, e.phase, text),
                    "published": row is not None and row.published_at is not None,
                    "forum": published.get(i),
                }
            )
        tz = sched.zone(game.timezone)
        held = link is not None and link.held_phase == state.phase.label
        return {
            "game": game,
            "rs": rs,
            "phase": state.phase.label,
            "settling": state.settling,
            "over": state.over,
            "accelerated": state.accelerated,
            "days": days,
            "day": current,
            "verdicts": by_floor,
            "inputs": [v for v in effective if v["accepted"]],
            "overrides": self.overrides(current.id) if current else [],
            "alive": [n for n in state.order if state.is_alive(n)],
            "choices": desk_choices(state),
            "announcements": announcements[::-1],
            "link": link,
            "is_day": state.phase.kind == DAY and not state.settling and not state.over,
            "held": held,
            "held_close": sched.local_text(link.held_close, tz) if held and link and link.held_close else "",
            "deadline": sched.local_text(deadline.due_at, tz) if deadline is not None else "",
            "read_at": sched.local_text(link.read_at, tz) if link is not None and link.read_at else "",
            "relay": self.relay(state) if link is not None else [],
            "pending_forum": [a for a in announcements if a["published"] and not _posted(a["forum"])],
        }


class ForumPoller:
    """Re-reads forum games' threads in a thread of its own (one at a time, never in the pages' pool)."""

    def __init__(self, desk: ForumDesk, interval: float) -> None:
        self.desk = desk
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="banshe-forum-poller", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.desk.poll()
            except Exception:  # the database failed: keep going, the next round retries
                log.exception("forum poller round failed")


def poll_interval() -> float:
    try:
        return max(1.0, float(os.environ.get(POLL_ENV, "20")))
    except ValueError:
        return 20.0


def install(app: FastAPI, web: Any) -> ForumDesk:
    """Register the desk's pages on the service's app (its session, CSRF and ownership checks);
    `web` is the app's `web.Web`."""
    service: GameService = web.service
    render: Callable[[Request, str, dict[str, Any], int], HTMLResponse] = web.render
    director_of: Callable[[Request], tuple[Director, str]] = web.director_of
    director_form: Callable[[Request], Awaitable[tuple[Director, str, FormData]]] = web.director_form
    owned: Callable[[Director, int], Game] = web.owned
    desk = ForumDesk(service, web.secret)

    def show(request: Request, game_id: int, day_id: int | None = None, error: str = "", status: int = 200) -> Response:
        director, csrf = director_of(request)
        owned(director, game_id)
        ctx = desk.page(game_id, day_id)
        path = f"/d/g/{game_id}/forum"
        ok = security.read_flash(web.secret, path, request.query_params.get("ok", ""))
        ctx.update({"director": director, "csrf": csrf, "error": error, "ok": ok})
        return render(request, "forum.html", ctx, status)

    Act = Callable[[FormData], Awaitable[tuple[str, int | None]]]

    async def action(request: Request, game_id: int, act: Act) -> Response:
        director, _csrf, form = await director_form(request)
        await run_in_threadpool(owned, director, game_id)
        try:
            done, day_id = await act(form)
        except ServiceError as exc:
            return await run_in_threadpool(show, request, game_id, None, exc.reason, exc.status)
        path = f"/d/g/{game_id}/forum"
        where = path + (f"?day={day_id}&" if day_id else "?")
        return RedirectResponse(f"{where}ok={quote(security.sign_flash(web.secret, path, done))}", status_code=303)

    @app.get("/d/g/{game_id}/forum", response_class=HTMLResponse)
    def forum_page(request: Request, game_id: GameId, day: OptionalDayId = None) -> Response:
        return show(request, game_id, day)

    @app.post("/d/g/{game_id}/forum/read", response_class=HTMLResponse)
    async def forum_read(request: Request, game_id: GameId) -> Response:
        async def act(form: FormData) -> tuple[str, int | None]:
            pages: list[tuple[str, bytes]] = []
            total = 0
            for item in form.getlist("pages"):
                if isinstance(item, UploadFile) and item.filename:
                    data = await item.read()
                    total += len(data)
                    if total > MAX_UPLOAD:
                        raise ServiceError("上传的页面太大（最多 20 MB）")
                    pages.append((item.filename, data))
            pages.sort(key=lambda p: _page_key(p[0]))
            mode = _text(form.get("accelerated"))
            accelerated = None if mode == "" else mode == "on"
            url, close = _text(form.get("url")), _text(form.get("close"))
            if pages:
                day = await run_in_threadpool(desk.read, game_id, pages, url, close, accelerated)
            else:
                day = await desk.run(desk.read, game_id, pages, url, close, accelerated)
            return f"已读取{day.phase}的帖子", day.id

        return await action(request, game_id, act)

    @app.post("/d/g/{game_id}/forum/link", response_class=HTMLResponse)
    async def forum_link_form(request: Request, game_id: GameId) -> Response:
        async def act(form: FormData) -> tuple[str, int | None]:
            if _text(form.get("unlink")) == "1":
                return await run_in_threadpool(desk.unlink, game_id), None
            try:
                minutes = int(_text(form.get("poll_minutes")) or "3")
            except ValueError:
                raise ServiceError("读帖间隔必须是分钟数") from None
            done = await desk.run(
                desk.configure,
                game_id,
                _text(form.get("thread_url")),
                _text(form.get("account")),
                _text(form.get("password")),
                minutes,
                _text(form.get("auto_close")) == "on",
            )
            return done, None

        return await action(request, game_id, act)

    @app.post("/d/g/{game_id}/forum/live", response_class=HTMLResponse)
    async def forum_live(request: Request, game_id: GameId) -> Response:
        async def act(_form: FormData) -> tuple[str, int | None]:
            day = await desk.run(desk.read_live, game_id)
            return f"已读帖：{day.phase}（{len(day.result['posts'])}帖）", day.id

        return await action(request, game_id, act)

    @app.post("/d/g/{game_id}/forum/{day_id}/override", response_class=HTMLResponse)
    async def forum_override(request: Request, game_id: GameId, day_id: DayId) -> Response:
        async def act(form: FormData) -> tuple[str, int | None]:
            try:  # edge.form_int: ASCII digits in range (an INTEGER column on every database)
                floor = form_int(_text(form.get("floor")), "楼层", 1, MAX_INT)
            except ValueError:
                floor = None
            if floor is None:
                raise ServiceError("楼层必须是数字")
            accept = _text(form.get("verdict")) == "accept"
            await run_in_threadpool(
                desk.override,
                game_id,
                day_id,
                floor,
                accept,
                _text(form.get("kind")),
                _text(form.get("target")),
                _text(form.get("note")),
            )
            return f"{floor}楼已改判为{'有效' if accept else '无效'}", day_id

        return await action(request, game_id, act)

    @app.post("/d/g/{game_id}/forum/{day_id}/apply", response_class=HTMLResponse)
    async def forum_apply(request: Request, game_id: GameId, day_id: DayId) -> Response:
        async def act(_form: FormData) -> tuple[str, int | None]:
            n = await run_in_threadpool(desk.apply, game_id, day_id)
            return f"已录入{n}张票", day_id

        return await action(request, game_id, act)

    @app.post("/d/g/{game_id}/forum/{day_id}/close", response_class=HTMLResponse)
    async def forum_close(request: Request, game_id: GameId, day_id: DayId) -> Response:
        async def act(_form: FormData) -> tuple[str, int | None]:
            return await run_in_threadpool(desk.close_day, game_id, day_id), day_id

        return await action(request, game_id, act)

    @app.post("/d/g/{game_id}/forum/act", response_class=HTMLResponse)
    async def forum_act(request: Request, game_id: GameId) -> Response:
        async def act(form: FormData) -> tuple[str, int | None]:
            done = await run_in_threadpool(
                desk.proxy,
                game_id,
                _text(form.get("player")),
                _text(form.get("skill")),
                # one picker per place, or a typed list (空格或顿号分隔)
                " ".join(_text(t) for t in form.getlist("targets") if _text(t)),
            )
            return done, None

        return await action(request, game_id, act)

    @app.post("/d/g/{game_id}/forum/post", response_class=HTMLResponse)
    async def forum_post(request: Request, game_id: GameId) -> Response:
        async def act(form: FormData) -> tuple[str, int | None]:
            which = _text(form.get("idx"))
            if which == "all":
                return await desk.run(desk.post_pending, game_id), None
            try:
                idx = int(which)
            except ValueError:
                raise ServiceError("请选择要发到论坛的公示") from None
            if not 0 <= idx < 100_000:
                raise ServiceError("没有这条公示")
            return await desk.run(desk.post_announcement, game_id, idx), None

        return await action(request, game_id, act)

    return desk


def _posted(row: ForumPublication | None) -> bool:
    return row is not None and row.status == "posted"


def _with_tally(text: str, tally: str | None) -> str:
    return f"{text}\n{tally}" if tally else text


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _page_key(name: str) -> tuple[int, str]:
    digits = "".join(ch if ch.isascii() and ch.isdigit() else " " for ch in name).split()  # not "²"
    return (int(digits[-1]) if digits else 0, name)
