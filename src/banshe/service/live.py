"""Live pages (issue 13): a write wakes its game's open pages once, and what changed is pushed.

- `Hub`: per-game notifications. A committed write (command, post, group message, 公示 publish,
  deadline fire) calls `notify(game_id)` from any thread; the game's SSE streams wait on an
  asyncio event, no polling loop per connection. On PostgreSQL a `LISTEN` thread per process
  (`PgListener`) turns other processes' `NOTIFY`s (sent inside their transactions, see pgsync.py)
  into the same wake-ups.
- `Feed`: one per game with open pages in this process. On a wake it reads the game ONCE (the
  state, the new posts and group messages, the deadline) into a `Step`, renders each new post once
  per audience (with or without the reply links) and each new group message once.
- Per viewer the step is decided from what he has been shown only (`seen.player_context`, the
  same as his pages: the engine's view as published): a digest of everything his live area shows
  except the thread and the chats (his view without the other players' vote events — those reach
  pages only as posts —, his actions as his page lists them, his deadline, the game's status).
  If it moved, or the change is one a fragment cannot express (phase, 公示, status, seats), he
  gets `reload`; else the new posts (`post`) and the messages of the groups he is in (`chat`). A
  step that changes nothing he can see sends him nothing at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import re
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from jinja2 import Environment
from sqlalchemy import BindParameter, Integer, bindparam, func, select

from ..engine.commands import CHANGE_VOTE, VOTE
from ..engine.events import ACCEPTED
from ..engine.model import GameState
from ..rulesets.registry import get_ruleset
from . import schedule as sched
from .games import GameService, NotFound
from .models import Announcement, Game, GroupMessage, HeldCommand, PlayerNotice, Post, Seat
from .notices import DIRECTOR_POST_KIND, NOTICE_KIND, UNPUBLISHED_NOTICES
from .published import Publication
from .seen import Seen, player_context, seen_of
from .views import ThreadItem, hides_votes, post_item, quote_of, thread_items

log = logging.getLogger("banshe.live")
CHANNEL = "banshe_live"  # PostgreSQL NOTIFY channel; the payload is the game id
KEEP_STEPS = 8  # steps (each a copy of the state) a stream may lag behind before it is told to reload
KEEPALIVE = 15.0  # seconds between SSE comments on an idle stream (on a fixed clock, see `stream`)
RELOAD = "reload"
_LINES = re.compile(r"\r\n|\r|\n")


def sse(event: str, data: str) -> str:
    """One SSE message; every line of `data` gets its own `data:` field (CR and LF both end a line)."""
    return f"event: {event}\n" + "".join(f"data: {line}\n" for line in _LINES.split(data)) + "\n"


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class Hub:
    """Per-game change notifications for the streams of this process's event loop."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._gen: dict[int, int] = {}
        self._waiters: dict[int, asyncio.Event] = {}

    def bind(self) -> None:
        """Called on the event loop by each stream (a test client may run a new loop)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop = loop
            self._waiters = {}

    def notify(self, game_id: int) -> None:
        """A write to `game_id` was committed (any thread)."""
        loop = self._loop
        if loop is None:
            return
        if _running_loop() is loop:  # a write made on the loop itself (the players' routes): no wake-up pipe
            loop.call_soon(self._wake, game_id)
            return
        with contextlib.suppress(RuntimeError):  # the loop has closed (the app is shutting down)
            loop.call_soon_threadsafe(self._wake, game_id)

    def notify_all(self) -> None:
        """Every game may have changed (the PostgreSQL listener reconnected: NOTIFYs were missed)."""
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._wake_all)

    def _wake_all(self) -> None:
        for game_id in list(self._waiters):
            self._wake(game_id)

    def _wake(self, game_id: int) -> None:
        self._gen[game_id] = self._gen.get(game_id, 0) + 1
        ev = self._waiters.pop(game_id, None)
        if ev is not None:
            ev.set()

    def generation(self, game_id: int) -> int:
        return self._gen.get(game_id, 0)

    async def wait(self, game_id: int, seen: int, timeout: float) -> int:
        """Until the game's generation passes `seen` (or `timeout` seconds); the generation now."""
        if self.generation(game_id) == seen and timeout > 0:
            ev = self._waiters.get(game_id)
            if ev is None:
                ev = self._waiters[game_id] = asyncio.Event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ev.wait(), timeout)
        return self.generation(game_id)


@dataclass
class PostFragment:
    author: str
    vote: bool  # a vote post (its author's own page differs: 改票 link, the half-public hiding)
    quoted_hidden: str | None  # the author of a hidden vote this post quotes (he sees it unhidden)
    with_links: str  # for a viewer who can post (回复此楼)
    plain: str


@dataclass
class Step:
    """The game after one or more writes, as read once for all its open pages."""

    game: Game
    state: GameState
    pub: Publication
    seen: Seen
    structural: bool  # phase, 公示, status or seats changed: every page reloads
    seats_changed: bool
    posts: list[PostFragment] = field(default_factory=list)
    chats: list[tuple[str, str]] = field(default_factory=list)  # (group, fragment)
    _digests: dict[str, tuple[str, frozenset[str]]] = field(default_factory=dict)
    decisions: dict[str, list[str]] = field(default_factory=dict)
    released: bool = False  # the read game is dropped: only the digests and decisions made remain

    def seen_by(self, viewer: str) -> tuple[str, frozenset[str]]:
        """The digest of `viewer`'s live area outside the thread and chats, and his groups (a
        released step that never made his: a digest no page has, so his page reloads)."""
        got = self._digests.get(viewer)
        if got is None:
            if self.released:
                return ("released", frozenset())
            got = self._digests[viewer] = _digest(self.game, self.pub, self.seen, viewer)
        return got

    def release(self) -> None:
        """Drop the game as read (a copy of the state and its rows) once the next step has been
        decided for every open page: the steps kept for lagging streams hold only what they
        send. Eight copies of every game's state made each full garbage collection stall the
        event loop for 80–150 ms at 50 games (issue 26)."""
        self.released = True
        self.state = self.pub = self.seen = None  # type: ignore[assignment]  # never read once released

    def can_post(self, viewer: str) -> bool:
        return self.pub.alive_to(viewer, viewer) and not self.pub.over and self.game.status == "running"


def _digest(game: Game, pub: Publication, seen: Seen, viewer: str) -> tuple[str, frozenset[str]]:
    ctx = player_context(get_ruleset(game.ruleset), game, pub, seen, viewer)
    parts = ctx.digest_parts()
    v = dict(parts["v"])
    v["events"] = [
        e
        for e in v["events"]
        if not (
            e["kind"] == ACCEPTED
            and e["data"]["command"]["skill"] in (VOTE, CHANGE_VOTE)
            and e["data"]["command"]["actor"] != viewer
        )
    ]
    parts["v"] = v
    parts["status"] = game.status
    raw = json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(raw.encode()).hexdigest(), frozenset(ctx.v.get("groups", {}))


# a live step's reads, built once (issue 26: each write runs them once per game); by name
_GAME: BindParameter[int] = bindparam("game_id", type_=Integer)
_AFTER: BindParameter[int] = bindparam("after", type_=Integer)
# what a step's change marks count, in one statement (one round trip on PostgreSQL): the 公示
# and service notices published, the seats, and the newest post, chat, notice and held row
_MARKS = select(
    select(func.count(Announcement.id))
    .where(Announcement.game_id == _GAME, Announcement.published_at.is_not(None))
    .scalar_subquery(),
    select(func.count(Post.id)).where(Post.game_id == _GAME, Post.vote_kind == NOTICE_KIND).scalar_subquery(),
    select(func.count(Seat.id)).where(Seat.game_id == _GAME).scalar_subquery(),
    select(func.max(Post.id)).where(Post.game_id == _GAME).scalar_subquery(),
    select(func.max(GroupMessage.id)).where(GroupMessage.game_id == _GAME).scalar_subquery(),
    select(func.max(PlayerNotice.id)).where(PlayerNotice.game_id == _GAME).scalar_subquery(),
    select(func.max(HeldCommand.id)).where(HeldCommand.game_id == _GAME).scalar_subquery(),
)
_NEW_POSTS = select(Post).where(Post.game_id == _GAME, Post.id > _AFTER).order_by(Post.id)
_NEW_CHATS = (
    select(GroupMessage).where(GroupMessage.game_id == _GAME, GroupMessage.id > _AFTER).order_by(GroupMessage.id)
)


class Feed:
    """One game's open pages in this process: its steps, read and rendered once per write."""

    def __init__(self, live: Live, game_id: int) -> None:
        self.live = live
        self.svc = live.svc
        self.game_id = game_id
        self.steps: deque[Step] = deque(maxlen=KEEP_STEPS)
        self.first = 0  # the index of steps[0]
        self.viewers: dict[str, int] = {}  # viewer name -> open streams ("" is the director)
        self.lock = asyncio.Lock()
        self.seen = -1  # the hub generation read last
        # the thread as the feed knows it (cursors and the floors of its posts, for quotes)
        self._mark: tuple[Any, ...] = ()
        self._post_cursor = 0
        self._chat_cursor = 0
        self._chat_counts: dict[str, int] = {}
        self._floor = 0
        self._last_at = 0.0
        self._items: dict[int, ThreadItem] = {}
        self._head: tuple[Any, ...] = ()

    @property
    def latest(self) -> int:
        return self.first + len(self.steps) - 1

    def step(self, index: int) -> Step | None:
        i = index - self.first
        return self.steps[i] if 0 <= i < len(self.steps) else None

    async def advance(self, generation: int) -> None:
        """Read the game once for every stream waiting on it (the first one reads, the rest wait)."""
        async with self.lock:
            if self.seen >= generation:
                return
            self.seen = generation
            self._advance()

    # -- on the event loop (issue 26: no hand-off to a worker thread per write or per stream) --
    def _advance(self) -> None:
        svc = self.svc
        game, state, pub = svc.read_published(self.game_id)
        with svc.sessions() as s:
            seen = seen_of(s, svc, game, pub)
            marks = s.execute(_MARKS, {"game_id": self.game_id}).one()
            announced, noticed, seats, head, chat_head, notices, held_head = (int(m or 0) for m in marks)
            published = (announced, noticed)
            rows = tuple((r.id, r.due_at) for r in seen.timetable)
            held = tuple((h.id, h.status) for h in seen.held)
            rs = svc.ruleset(game)
            hide = hides_votes(rs, pub)
            mark = (pub.label, pub.settling, pub.over, game.status, published, seats, hide, pub.begun)
            changed = (
                svc.head_seq(s, self.game_id),  # a replaced submission keeps the count, not the seq
                head,
                chat_head,
                rows,
                held,
                held_head,
                notices,
                mark,
            )
            if changed == self._head:
                return  # a wake-up for nothing new (our own NOTIFY echoed back, a retried write)
            # only posts or group messages came (no command, deadline, held action, notice, 公示,
            # phase or status): every viewer's digest is the previous step's (its inputs are equal)
            talk_only = bool(self._head) and changed[0] == self._head[0] and changed[3:] == self._head[3:]
            self._head = changed
            first = not self.steps
            structural = first or mark != self._mark
            seats_changed = bool(self._mark) and mark[5] != self._mark[5]
            self._mark = mark
            step = Step(game, state, pub, seen, structural and not first, seats_changed)
            new_posts = list(s.scalars(_NEW_POSTS, {"game_id": self.game_id, "after": self._post_cursor}))
            if talk_only and self.steps and not any(p.vote_kind in (VOTE, CHANGE_VOTE) for p in new_posts):
                step._digests = self.steps[-1]._digests  # shared: a digest computed later is the same for both
            if not structural and any(p.created_at < self._last_at for p in new_posts):
                step.structural = structural = True  # a post out of time order: renumber by reloading
            if structural:
                self._rebase(s, game, state, pub)
            else:
                for p in new_posts:
                    if p.vote_kind in UNPUBLISHED_NOTICES:  # the director's alone until he publishes it
                        self._post_cursor = p.id
                    else:
                        step.posts.append(self._fragment(p, game, pub, hide))
                new_chats = s.scalars(_NEW_CHATS, {"game_id": self.game_id, "after": self._chat_cursor})
                for m in new_chats:
                    self._chat_cursor = m.id
                    n = self._chat_counts[m.group_name] = self._chat_counts.get(m.group_name, 0) + 1
                    html = self.live.render("_chat_item.html", m=m, n=n, tz=game.timezone)
                    step.chats.append((m.group_name, html))
        if first:
            self.steps.append(step)
            return
        if len(self.steps) == self.steps.maxlen:
            self.first += 1
        self.steps.append(step)
        index = self.latest
        for viewer in list(self.viewers):
            self.decide(index, viewer)
        before = self.step(index - 1)
        if before is not None:
            before.release()

    def _rebase(self, s: Any, game: Game, state: GameState, pub: Publication) -> None:
        """The whole thread as any player sees it (viewer None: no own vote unhidden), for the
        floors and quotes of the posts that follow; and the chat counts."""
        items = thread_items(s, self.svc, game, state, [], director=False, viewer=None, pub=pub)
        self._items = {i.post_id: i for i in items if i.post_id}
        self._floor = max((i.floor for i in items), default=0)
        self._last_at = max((i.at for i in items), default=0.0)
        self._post_cursor = max(self._items, default=0)
        rows = s.execute(
            select(GroupMessage.group_name, func.count(GroupMessage.id), func.max(GroupMessage.id))
            .where(GroupMessage.game_id == game.id)
            .group_by(GroupMessage.group_name)
        ).all()
        self._chat_counts = {str(g): int(n) for g, n, _ in rows}
        self._chat_cursor = max((int(m) for _, _, m in rows), default=0)

    def _fragment(self, p: Post, game: Game, pub: Publication, hide: bool) -> PostFragment:
        item = post_item(p, hide, pub.label, None)
        self._floor += 1
        item.floor = self._floor
        item.time = sched.local_text(item.at, sched.zone(game.timezone))
        quoted_hidden = None
        quoted = self._items.get(p.reply_to) if p.reply_to is not None else None
        if quoted is not None:
            item.quote = quote_of(quoted)
            if quoted.kind == "hidden":
                quoted_hidden = quoted.author
        self._items[p.id] = item
        self._post_cursor = p.id
        self._last_at = max(self._last_at, item.at)
        is_vote = bool(p.vote_kind) and p.vote_kind not in (NOTICE_KIND, DIRECTOR_POST_KIND)
        return PostFragment(
            p.author,
            is_vote,
            quoted_hidden,
            self.live.render("_thread_item.html", item=item, reply_base="thread", can_post=True, show_bbcode=False),
            self.live.render("_thread_item.html", item=item, reply_base="thread", can_post=False, show_bbcode=False),
        )

    def decide(self, index: int, viewer: str) -> list[str]:
        """The messages step `index` sends `viewer` (computed once per step and viewer)."""
        step, prev = self.step(index), self.step(index - 1)
        if step is None or prev is None:
            return [sse(RELOAD, "")]
        done = step.decisions.get(viewer)
        if done is not None:
            return done
        out: list[str]
        # the director sees everything: his page reloads on every change (and a page that meets a
        # step whose game was dropped before his turn came)
        if viewer == "" or step.released or step.structural or step.seen_by(viewer)[0] != prev.seen_by(viewer)[0]:
            out = [sse(RELOAD, "")]
        else:
            out = []
            for f in step.posts:
                if (f.author == viewer and f.vote) or f.quoted_hidden == viewer:
                    out = [sse(RELOAD, "")]  # his own vote floor / his hidden vote quoted: his page differs
                    break
                out.append(sse("post", f.with_links if step.can_post(viewer) else f.plain))
            else:
                groups = step.seen_by(viewer)[1]
                out += [sse("chat", html) for g, html in step.chats if g in groups]
        step.decisions[viewer] = out
        return out


class StreamCaps:
    """At most `per_link` open streams per link (a viewer of a game; "" is the director) and
    `per_game` per game, in this process: one link cannot hold the server's descriptors. Counted
    on the event loop only (the SSE routes are async): two dict updates a stream, no lock."""

    def __init__(self, per_link: int, per_game: int) -> None:
        self.per_link = per_link
        self.per_game = per_game
        self._links: dict[tuple[int, str], int] = {}
        self._games: dict[int, int] = {}

    def admit(self, game_id: int, viewer: str) -> str | None:
        """Count a new stream in, or the Chinese reason it is refused (then nothing is counted)."""
        key = (game_id, viewer)
        if self._links.get(key, 0) >= self.per_link:
            return f"这个链接打开的实时连接过多（最多{self.per_link}个），请关闭多余的页面后刷新"
        if self._games.get(game_id, 0) >= self.per_game:
            return f"这局游戏打开的实时连接过多（最多{self.per_game}个），请稍后刷新页面"
        self._links[key] = self._links.get(key, 0) + 1
        self._games[game_id] = self._games.get(game_id, 0) + 1
        return None

    def release(self, game_id: int, viewer: str) -> None:
        key = (game_id, viewer)
        left = self._links.get(key, 0) - 1
        if left > 0:
            self._links[key] = left
        else:
            self._links.pop(key, None)
        left = self._games.get(game_id, 0) - 1
        if left > 0:
            self._games[game_id] = left
        else:
            self._games.pop(game_id, None)

    def open(self, game_id: int) -> int:
        return self._games.get(game_id, 0)


class Live:
    """The hub and the feeds of one app."""

    def __init__(self, svc: GameService, env: Environment, per_link: int = 4, per_game: int = 200) -> None:
        self.svc = svc
        self.env = env
        self.hub = Hub()
        self.feeds: dict[int, Feed] = {}
        self.caps = StreamCaps(per_link, per_game)
        svc.on_change = self.hub.notify

    def render(self, name: str, **ctx: Any) -> str:
        return self.env.get_template(name).render(**ctx)

    async def join(self, game_id: int, viewer: str) -> tuple[Feed, int, int]:
        """The game's feed, its latest step and the hub generation that step includes."""
        self.hub.bind()
        feed = self.feeds.get(game_id)
        if feed is None:
            feed = self.feeds[game_id] = Feed(self, game_id)
        feed.viewers[viewer] = feed.viewers.get(viewer, 0) + 1
        async with feed.lock:  # not while another stream is reading a step in
            if not feed.steps:
                feed.seen = self.hub.generation(game_id)
                feed._advance()
            return feed, feed.latest, feed.seen

    def leave(self, feed: Feed, viewer: str) -> None:
        left = feed.viewers.get(viewer, 0) - 1
        if left > 0:
            feed.viewers[viewer] = left
        else:
            feed.viewers.pop(viewer, None)
        if not feed.viewers and self.feeds.get(feed.game_id) is feed:
            del self.feeds[feed.game_id]

    async def stream(
        self,
        game_id: int,
        viewer: str,
        max_seconds: float,
        disconnected: Callable[[], Any],
        current: Callable[[], str] | None = None,
        shown: str = "",
        alive: Callable[[], Any] | None = None,
    ) -> AsyncIterator[str]:
        """A viewer's SSE stream ("" for the director). `current()` is his version now (a digest of
        all he sees, views.viewer_version); `shown` the version his page was rendered with: if they
        differ the page is told to reload at once. `alive()` raises NotFound once his link died."""
        started = time.monotonic()
        yield "retry: 2000\n\n"
        feed, index, seen = await self.join(game_id, viewer)
        try:
            if viewer:
                base = feed.step(index)
                if base is not None:
                    base.seen_by(viewer)
            if current is not None:
                try:
                    now = current()
                except NotFound:
                    yield sse("gone", "链接已停用")
                    return
                yield sse("version", now)
                if shown and shown != now:
                    yield sse(RELOAD, "")
            beat = 1
            while True:
                left = started + max_seconds - time.monotonic()
                if left <= 0 or await disconnected():
                    return
                # keep-alives on a fixed clock, never after a wake-up (that would time hidden writes)
                due = started + beat * KEEPALIVE
                generation = await self.hub.wait(game_id, seen, min(left, max(0.0, due - time.monotonic())))
                if time.monotonic() >= due:
                    beat += 1
                    yield ": keep-alive\n\n"
                if generation == seen:
                    continue
                await feed.advance(generation)  # returns once the feed has read every write up to it
                seen = generation
                while index < feed.latest:
                    index += 1
                    step = feed.step(index)
                    if step is None:  # fell too far behind
                        index = feed.latest
                        yield sse(RELOAD, "")
                        break
                    if step.seats_changed and alive is not None:
                        try:
                            alive()
                        except NotFound:
                            yield sse("gone", "链接已停用")
                            return
                    messages = step.decisions.get(viewer)
                    if messages is None:
                        messages = feed.decide(index, viewer)
                    for m in messages:
                        yield m
        finally:
            self.leave(feed, viewer)


class PgListener:
    """PostgreSQL `LISTEN banshe_live` in a thread: other processes' writes wake this one's streams."""

    def __init__(
        self,
        url: str,
        hub: Hub,
        forget_seats: Callable[[int], None],
        trust_seats: Callable[[bool], None] = lambda _on: None,
    ) -> None:
        self.url = url
        self.hub = hub
        self.forget_seats = forget_seats
        self.trust_seats = trust_seats  # Store.trust_seat_cache: the link cache lives only while we listen
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="banshe-live-listen", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        import psycopg

        first = True
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    # every (re)connect: the links cached before may have been replaced meanwhile
                    self.trust_seats(True)
                    if not first:
                        self.hub.notify_all()  # NOTIFYs sent while we were away are lost
                    first = False
                    while not self._stop.is_set():
                        for n in conn.notifies(timeout=1.0):
                            game, _, what = n.payload.partition(":")
                            if not game.isdigit():
                                continue
                            if what == "seats":
                                self.forget_seats(int(game))
                            self.hub.notify(int(game))
            except Exception:  # the database went away: try again shortly
                self.trust_seats(False)  # until we hear every 替补 again, links are read each time
                log.exception("live listener lost its connection")
                first = False
                self._stop.wait(1.0)
