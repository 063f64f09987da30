"""The web app: director pages (session login), players' secret links, SSE live updates.

Every form POST carries a CSRF token (the director's session token; an HMAC of the player's
link for players). A refused request re-renders the page with the Chinese reason and changes
nothing; an accepted one redirects (303) back to the page.

`create_app` builds the settings, the database, the `GameService`, the deadline scheduler,
the exception handlers and the middleware, and includes the routers of `routers/` (login,
director, player, live) and the forum desk's pages; what they share is `web.Web`.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..rulesets.registry import find_ruleset
from . import auth, edge, security, serving, timeline, timing
from . import idempotency as idem
from . import live as pushing
from . import schedule as sched
from .config import DEFAULT_DATABASE_URL, Settings
from .db import live_url, make_engine, migrate, session_factory
from .forum_desk import ForumPoller
from .forum_desk import install as install_forum_desk
from .forum_desk import poll_interval as forum_poll_interval
from .games import GameService, ServiceError
from .routers import director, live, login, player
from .web import UNAVAILABLE_ERRORS, CsrfFailed, NeedLogin, Web

__all__ = ["DEFAULT_DATABASE_URL", "Scheduler", "Settings", "create_app"]

HERE = Path(__file__).parent
sched_log = logging.getLogger("banshe.scheduler")
LOGIN_WINDOW = 15 * 60.0


class Scheduler:
    """Fires due deadlines from a background thread (and every overdue one at start-up)."""

    def __init__(self, service: GameService, interval: float) -> None:
        self.service = service
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="banshe-scheduler", daemon=True)

    def start(self) -> None:
        self._tick()  # deadlines that passed while the service was down, oldest first
        self._thread.start()

    def _tick(self) -> None:
        try:
            self.service.fire_due()
        except Exception:  # the database itself failed: keep serving, the next tick retries
            sched_log.exception("scheduler tick failed")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._tick()


def create_app(settings: Settings | None = None, clock: Callable[[], float] | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    now = clock or time.time
    engine = make_engine(settings.database_url)
    migrate(engine)
    sessions = session_factory(engine)
    service = GameService(sessions, clock or time.time)
    service.post_limits = security.PostLimits(settings.posts_per_minute, settings.post_chars_per_phase)
    with sessions() as s:
        secret = auth.secret_key(s)
    scheduler = Scheduler(service, settings.scheduler_interval) if settings.start_scheduler else None
    poller: ForumPoller | None = None  # re-reads forum games' threads (with the scheduler)

    forget_uploads = service.uploads.install()  # games of uploaded boards find their board

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        pushed.hub.bind()
        if listener is not None:
            listener.start()
        if scheduler is not None:
            scheduler.start()
        if poller is not None:
            poller.start()
        if os.environ.get(serving.FREEZE_AT_START) == "1":  # `banshe serve` (not a test's app)
            # what was built to start (modules, tables, templates, rulesets) lives as long as the
            # process: kept out of every full garbage collection, which otherwise walks it all
            # while the event loop waits (issue 26)
            gc.collect()
            gc.freeze()
            # and the young generation 10,000 objects, not 700: a request's and a write's garbage
            # dies young instead of being promoted, so a full collection (40-55 ms at 50 games)
            # comes about once a minute, not every few seconds (docs/performance.md, issue 26)
            gc.set_threshold(10_000, 20, 20)
        yield
        if poller is not None:
            poller.stop()
        if scheduler is not None:
            scheduler.stop()
        if listener is not None:
            listener.stop()
        forget_uploads()

    app = FastAPI(title="banshe 版杀自动导演", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    templates = Jinja2Templates(directory=HERE / "templates")
    templates.env.auto_reload = False  # the templates ship with the code: no stat() per render (issue 26)
    templates.env.globals["local_time"] = lambda ts, tz: sched.local_text(ts, sched.zone(tz))
    templates.env.globals["quote"] = quote
    templates.env.globals["form_key"] = idem.new_key  # a fresh idempotency key per rendered form
    templates.env.globals["ruleset_name"] = lambda rid: find_ruleset(rid).name
    # issue 13: pushed live updates (live.py); issue 25: streams capped per link and per game
    pushed = pushing.Live(service, templates.env, settings.sse_per_link, settings.sse_per_game)
    # on PostgreSQL the other processes' writes wake this one's streams too (LISTEN/NOTIFY)
    listener = None
    if engine.dialect.name == "postgresql":
        service.trust_seat_cache(False)  # until the listener hears every 替补 (it turns the cache on)
        listener = pushing.PgListener(live_url(engine), pushed.hub, service.forget_seats, service.trust_seat_cache)
    web = Web(
        service=service,
        sessions=sessions,
        settings=settings,
        templates=templates,
        secret=secret,
        proxies=security.parse_proxies(settings.trusted_proxies),
        now=now,
        lifetime=settings.session_hours * 3600,
        per_account=security.RateLimiter(settings.login_failures_per_account, LOGIN_WINDOW, now),
        per_client=security.RateLimiter(settings.login_failures_per_client, LOGIN_WINDOW, now),
        hash_gate=security.HashGate(settings.hash_slots),
    )
    app.state.web = web
    app.state.live = pushed
    app.state.service = service
    app.state.engine = engine
    app.state.settings = settings
    app.add_middleware(security.HeadersMiddleware)
    serving.install_log_redaction()  # a player's link never reaches the access log
    timing.install(app)  # the load benchmark's server-side latencies (off unless BANSHE_TIMING_FILE)
    timeline.install(app, engine, templates.env)  # issue 26: per-request timelines (off unless BANSHE_TIMELINE)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    @app.exception_handler(NeedLogin)
    async def _need_login(request: Request, _exc: NeedLogin) -> Response:
        if request.method == "GET":
            return RedirectResponse("/login?next=" + quote(request.url.path), status_code=303)
        return web.message(request, "请先以导演身份登录", 401)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        text = {404: "页面不存在", 405: "不支持这种请求方式"}.get(exc.status_code, "请求有误")
        return web.message(request, text, exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> Response:
        # a path id out of range (edge.py) is a page that does not exist, as an unknown id is
        missing = edge.not_found_text(list(exc.errors()))
        return web.message(request, missing, 404) if missing else web.message(request, "请求参数有误", 400)

    async def _unavailable(request: Request, exc: Exception) -> Response:
        return await web.unavailable(request, exc)

    for failure in UNAVAILABLE_ERRORS:  # the database is down, or its disk is full
        app.add_exception_handler(failure, _unavailable)

    @app.exception_handler(Exception)
    async def _server_error(request: Request, _exc: Exception) -> Response:
        return web.message(request, "服务器内部错误，请稍后重试", 500)

    @app.exception_handler(ServiceError)
    async def _refused(request: Request, exc: ServiceError) -> Response:
        return web.message(request, exc.reason, exc.status)

    @app.exception_handler(CsrfFailed)
    async def _csrf_failed(request: Request, _exc: CsrfFailed) -> Response:
        return web.message(request, "表单已过期或来源不明（CSRF 校验失败），请刷新页面后重试", 403)

    app.include_router(login.router)
    app.include_router(director.router)
    desk = install_forum_desk(app, web)  # issues 14 and 23: 论坛计票, games played on a forum
    app.state.forum_desk = desk
    if scheduler is not None:
        poller = ForumPoller(desk, forum_poll_interval())
    app.include_router(live.router)
    app.include_router(player.router)
    return app
