"""The web app: director pages (session login), players' secret links, SSE live updates.

Every form POST carries a CSRF token (the director's session token; an HMAC of the player's
link for players). A refused request re-renders the page with the Chinese reason and changes
nothing; an accepted one redirects (303) back to the page.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..engine.commands import (
    ACCELERATE,
    CARD_BLUE,
    CARD_RED,
    CARD_YELLOW,
    CLOSE_PHASE,
    CLOSE_STAGE,
    DEDUCT,
    DELAY,
    DIRECTOR,
    JUDGE_LOSS,
    PROMPT_TIMEOUT,
    Command,
)
from ..engine.ruleset import FREE_TEXT, MANY_TARGETS, NO_TARGET, YES_NO
from ..rulesets.registry import all_rulesets, find_ruleset
from . import auth, import_schema, live, security
from . import idempotency as idem
from . import schedule as sched
from .db import live_url, make_engine, migrate, session_factory
from .forum_desk import install as install_forum_desk
from .games import GameService, NotFound, ServiceError, board_counts, counts_text
from .models import Director, Game, Seat
from .views import director_page, player_page, viewer_version

HERE = Path(__file__).parent
sched_log = logging.getLogger("banshe.scheduler")
LOGIN_COOKIE = "banshe_login"
LOGIN_WINDOW = 15 * 60.0
DEFAULT_DATABASE_URL = "sqlite:///banshe.sqlite3"
DIRECTOR_SKILLS = {
    CLOSE_STAGE: "关闭当前夜晚阶段",
    CLOSE_PHASE: "立即关门结算",
    PROMPT_TIMEOUT: "当前回应超时",
    CARD_BLUE: "蓝牌",
    CARD_YELLOW: "黄牌",
    CARD_RED: "红牌",
    DEDUCT: "扣分",
    ACCELERATE: "执行加速",
    DELAY: "取消加速（延时）",
    JUDGE_LOSS: "判负",
}


@dataclass
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    sse_max_seconds: float = 300.0
    start_scheduler: bool = True
    scheduler_interval: float = 1.0
    trusted_proxies: str = ""  # reverse proxies whose X-Forwarded-For / -Proto are believed
    session_hours: float = auth.SESSION_LIFETIME / 3600
    login_failures_per_account: int = 10  # per 15 minutes
    login_failures_per_client: int = 30
    hash_slots: int = 4  # concurrent argon2 hashes (64 MiB each)

    @staticmethod
    def from_env() -> Settings:
        return Settings(
            database_url=os.environ.get("BANSHE_DATABASE_URL", DEFAULT_DATABASE_URL),
            sse_max_seconds=float(os.environ.get("BANSHE_SSE_SECONDS", "300")),
            trusted_proxies=os.environ.get("BANSHE_TRUSTED_PROXIES", ""),
            session_hours=float(os.environ.get("BANSHE_SESSION_HOURS", str(auth.SESSION_LIFETIME / 3600))),
        )


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


class NeedLogin(Exception):
    pass


def create_app(settings: Settings | None = None, clock: Callable[[], float] | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    proxies = security.parse_proxies(settings.trusted_proxies)
    now = clock or time.time
    lifetime = settings.session_hours * 3600
    per_account = security.RateLimiter(settings.login_failures_per_account, LOGIN_WINDOW, now)
    per_client = security.RateLimiter(settings.login_failures_per_client, LOGIN_WINDOW, now)
    hash_gate = security.HashGate(settings.hash_slots)
    engine = make_engine(settings.database_url)
    migrate(engine)
    sessions = session_factory(engine)
    service = GameService(sessions, clock or time.time)
    with sessions() as s:
        secret = auth.secret_key(s)
    scheduler = Scheduler(service, settings.scheduler_interval) if settings.start_scheduler else None

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        pushed.hub.bind()
        if listener is not None:
            listener.start()
        if scheduler is not None:
            scheduler.start()
        yield
        if scheduler is not None:
            scheduler.stop()
        if listener is not None:
            listener.stop()

    app = FastAPI(title="banshe 版杀自动导演", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.service = service
    app.state.engine = engine
    app.state.settings = settings
    app.add_middleware(security.HeadersMiddleware)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    templates = Jinja2Templates(directory=HERE / "templates")
    templates.env.globals["local_time"] = lambda ts, tz: sched.local_text(ts, sched.zone(tz))
    templates.env.globals["quote"] = quote
    templates.env.globals["form_key"] = idem.new_key  # a fresh idempotency key per rendered form
    templates.env.globals["ruleset_name"] = lambda rid: find_ruleset(rid).name
    pushed = live.Live(service, templates.env)  # issue 13: pushed live updates
    app.state.live = pushed
    # on PostgreSQL the other processes' writes wake this one's streams too (LISTEN/NOTIFY)
    listener = None
    if engine.dialect.name == "postgresql":
        listener = live.PgListener(live_url(engine), pushed.hub, service.forget_seats)

    def render(request: Request, name: str, ctx: dict[str, Any], status: int = 200) -> HTMLResponse:
        return templates.TemplateResponse(request, name, ctx, status_code=status)

    def message(request: Request, text: str, status: int) -> HTMLResponse:
        return render(request, "message.html", {"text": text}, status)

    @app.exception_handler(NeedLogin)
    async def _need_login(request: Request, _exc: NeedLogin) -> Response:
        if request.method == "GET":
            return RedirectResponse("/login?next=" + quote(request.url.path), status_code=303)
        return message(request, "请先以导演身份登录", 401)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        text = {404: "页面不存在", 405: "不支持这种请求方式"}.get(exc.status_code, "请求有误")
        return message(request, text, exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, _exc: RequestValidationError) -> Response:
        return message(request, "请求参数有误", 400)

    @app.exception_handler(ServiceError)
    async def _refused(request: Request, exc: ServiceError) -> Response:
        return message(request, exc.reason, exc.status)

    # -- director session --------------------------------------------------------------------
    def director_of(request: Request) -> tuple[Director, str]:
        with sessions() as s:
            ws = auth.session_of(s, request.cookies.get(auth.SESSION_COOKIE), now(), lifetime)
            if ws is None:
                raise NeedLogin()
            director = s.get(Director, ws.director_id)
            if director is None:
                raise NeedLogin()
            return director, ws.csrf

    async def director_form(request: Request) -> tuple[Director, str, FormData]:
        director, csrf = await run_in_threadpool(director_of, request)
        form = await request.form()
        if not auth.same(_str(form.get("csrf")), csrf):
            raise _Csrf()
        return director, csrf, form

    class _Csrf(Exception):
        pass

    @app.exception_handler(_Csrf)
    async def _csrf_failed(request: Request, _exc: _Csrf) -> Response:
        return message(request, "表单已过期或来源不明（CSRF 校验失败），请刷新页面后重试", 403)

    def owned(director: Director, game_id: int) -> Game:
        if not valid_id(game_id):
            raise NotFound("没有这局游戏")
        with sessions() as s:
            game = s.get(Game, game_id)
            if game is None or game.director_id != director.id:
                raise NotFound("没有这局游戏")
            return game

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request) -> Response:
        return RedirectResponse("/d", status_code=303)

    def secure(request: Request) -> bool:
        return security.is_https(request, proxies)

    def login_form(request: Request, nxt: str, error: str = "", status: int = 200) -> Response:
        # login CSRF: a double-submit token, in a cookie and in the form
        token = request.cookies.get(LOGIN_COOKIE) or ""
        if not (16 <= len(token) <= 64):
            token = secrets.token_urlsafe(16)
        resp = render(request, "login.html", {"next": safe_next(nxt), "error": error, "csrf": token}, status)
        resp.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict", max_age=3600, secure=secure(request))
        return resp

    @app.get("/login", response_class=HTMLResponse)
    def login_page(request: Request, next: str = "/d") -> Response:
        return login_form(request, next)

    @app.post("/login", response_class=HTMLResponse)
    async def login_post(request: Request) -> Response:
        form = await request.form()
        nxt = safe_next(_str(form.get("next")))
        cookie = request.cookies.get(LOGIN_COOKIE)
        if not cookie or not auth.same(_str(form.get("csrf")), cookie):
            raise _Csrf()
        username = _str(form.get("username")).strip()
        client = "client:" + security.client_address(request, proxies)
        account = "account:" + username.casefold()
        # failed logins are limited per account and per client, checked before any hashing
        wait = max(per_account.blocked(account), per_client.blocked(client))
        if wait:
            return login_form(request, nxt, security.wait_text(wait), 429)

        def check(password: str) -> str | None:
            with hash_gate, sessions() as s:  # argon2: off the event loop, a bounded number at once
                ws = auth.login(s, username, password, now())
                s.commit()
                return None if ws is None else ws.token

        token = await run_in_threadpool(check, _str(form.get("password")))
        if token is None:
            per_account.hit(account)
            per_client.hit(client)
            return login_form(request, nxt, "用户名或密码错误", 401)
        per_account.reset(account)
        resp = RedirectResponse(nxt, status_code=303)
        # the server decides the session's life (renewed on use); the cookie outlives it
        resp.set_cookie(
            auth.SESSION_COOKIE, token, httponly=True, samesite="lax", max_age=400 * 24 * 3600, secure=secure(request)
        )
        return resp

    @app.post("/logout")
    async def logout(request: Request) -> Response:
        _director, _csrf, _form = await director_form(request)
        with sessions() as s:
            ws = auth.session_of(s, request.cookies.get(auth.SESSION_COOKIE), now(), lifetime)
            if ws is not None:
                s.delete(ws)
                s.commit()
        resp = RedirectResponse("/login", status_code=303)
        resp.delete_cookie(auth.SESSION_COOKIE)
        return resp

    @app.get("/d", response_class=HTMLResponse)
    def director_home(request: Request) -> Response:
        director, csrf = director_of(request)
        with sessions() as s:
            games = list(s.scalars(select(Game).where(Game.director_id == director.id).order_by(Game.id.desc())))
        return render(request, "director_home.html", {"director": director, "csrf": csrf, "games": games, "error": ""})

    def new_game_ctx(director: Director, csrf: str, ruleset: str, form: dict[str, str], error: str) -> dict[str, Any]:
        try:
            rs = find_ruleset(ruleset)
        except KeyError:
            rs = all_rulesets()[0]
        return {
            "director": director,
            "csrf": csrf,
            "rulesets": all_rulesets(),
            "rs": rs,
            "schedule": sched.default_schedule(rs),
            "board_text": counts_text(board_counts(rs)),
            "form": form,
            "error": error,
            "timezone": sched.DEFAULT_TIMEZONE,
        }

    @app.get("/d/new", response_class=HTMLResponse)
    def new_game_page(request: Request, ruleset: str = "品茗") -> Response:
        director, csrf = director_of(request)
        return render(request, "new_game.html", new_game_ctx(director, csrf, ruleset, {}, ""))

    @app.post("/d/new", response_class=HTMLResponse)
    async def new_game_post(request: Request) -> Response:
        director, csrf, form = await director_form(request)
        fields = {k: _str(v) for k, v in form.items()}
        try:
            rs = find_ruleset(fields.get("ruleset", ""))
        except KeyError:
            return render(request, "new_game.html", new_game_ctx(director, csrf, "", fields, "未知的规则"), 400)
        try:
            players, roles = parse_seats(fields.get("seats", ""))
            options = parse_options(rs.options, form)
            seed = parse_int(fields.get("seed", ""), "随机种子", 0, MAX_SEED)
            schedule = {
                "start_minutes": fields.get("start_minutes") or None,
                "day_end": fields.get("day_end") or None,
                "min_day_hours": fields.get("min_day_hours") or None,
                "prompt_minutes_day": fields.get("prompt_minutes_day") or None,
                "prompt_minutes_night": fields.get("prompt_minutes_night") or None,
                "weekend_extra_day": fields.get("weekend_extra_day") or None,
                "auto_accelerate_below": fields.get("auto_accelerate_below") or None,
                "stages": [_stage_value(fields.get(f"stage_{i}", "")) for i in range(len(rs.night_stages))],
            }
            game = service.create_game(
                director.id,
                rs.id,
                players,
                roles,
                options,
                seed,
                schedule,
                fields.get("timezone") or sched.DEFAULT_TIMEZONE,
                fields.get("title", ""),
                auto_publish=fields.get("auto_publish") == "on",
                custom_board=fields.get("custom_board") == "on",
            )
        except ValueError as exc:  # parse_seats / parse_options: their reasons are Chinese
            return render(request, "new_game.html", new_game_ctx(director, csrf, rs.id, fields, str(exc)), 400)
        except ServiceError as exc:
            return render(request, "new_game.html", new_game_ctx(director, csrf, rs.id, fields, exc.reason), 400)
        return RedirectResponse(f"/d/g/{game.id}", status_code=303)

    @app.post("/d/import", response_class=HTMLResponse)
    async def import_post(request: Request) -> Response:
        director, csrf, form = await director_form(request)
        limit = import_schema.MAX_IMPORT_BYTES
        upload = form.get("file")
        raw = form.get("data")
        body = raw.encode() if isinstance(raw, str) else b""
        if upload is not None and not isinstance(upload, str):
            body = await upload.read(limit + 1) or body

        def load() -> Game:  # parsing and replaying a large file: off the event loop
            if len(body) > limit:
                raise ServiceError(f"导入失败：文件过大（最多{limit // (1024 * 1024)} MB）")
            if b"\x00" in body or b"\\u0000" in body:
                raise ServiceError("导入失败：文件含有 NUL 字符")
            try:
                data = json.loads(body.decode("utf-8"))
            except UnicodeDecodeError:
                raise ServiceError("导入失败：文件不是 UTF-8 编码的 JSON") from None
            except json.JSONDecodeError as exc:
                raise ServiceError(f"导入失败：不是合法的 JSON（第{exc.lineno}行第{exc.colno}列）") from None
            return service.import_game(director.id, data)

        try:
            game = await run_in_threadpool(load)
        except ServiceError as exc:
            reason = exc.reason
            with sessions() as s:
                games = list(s.scalars(select(Game).where(Game.director_id == director.id).order_by(Game.id.desc())))
            ctx = {"director": director, "csrf": csrf, "games": games, "error": reason}
            return render(request, "director_home.html", ctx, 400)
        return RedirectResponse(f"/d/g/{game.id}", status_code=303)

    def god(
        request: Request, director: Director, csrf: str, game_id: int, error: str = "", status: int = 200
    ) -> Response:
        owned(director, game_id)
        version = service.version(game_id)
        ctx = director_page(service, game_id)
        ctx.update(
            {
                "director": director,
                "csrf": csrf,
                "error": error,
                "ok": security.read_flash(secret, request.url.path, request.query_params.get("ok", "")),
                "director_skills": DIRECTOR_SKILLS,
                "base": str(request.base_url).rstrip("/"),
                "version": version,
            }
        )
        return render(request, "god.html", ctx, status)

    @app.get("/d/g/{game_id}", response_class=HTMLResponse)
    def god_view(request: Request, game_id: int) -> Response:
        director, csrf = director_of(request)
        return god(request, director, csrf, game_id)

    async def god_action(request: Request, game_id: int, act: Callable[[FormData, str], str]) -> Response:
        director, csrf, form = await director_form(request)
        await run_in_threadpool(owned, director, game_id)
        at = _str(form.get("at"))  # the phase/stage/prompt the page showed: refused once the game moved on
        try:
            if not at:
                raise ServiceError("表单缺少阶段标记，请刷新页面后重试")
            key = _str(form.get(idem.KEY_FIELD))
            done = await run_in_threadpool(service.once, game_id, key, lambda: act(form, at))
        except ServiceError as exc:
            return await run_in_threadpool(god, request, director, csrf, game_id, exc.reason, exc.status)
        except ValueError:  # never a Python message on a page
            return await run_in_threadpool(god, request, director, csrf, game_id, "输入的内容有误，请检查后重试", 400)
        path = f"/d/g/{game_id}"
        return RedirectResponse(f"{path}?ok={quote(security.sign_flash(secret, path, done))}", status_code=303)

    @app.post("/d/g/{game_id}/command", response_class=HTMLResponse)
    async def god_command(request: Request, game_id: int) -> Response:
        def act(form: FormData, at: str) -> str:
            skill = _str(form.get("skill"))
            if skill not in DIRECTOR_SKILLS:
                raise ServiceError("未知的导演指令")
            target = _str(form.get("target")).strip()
            amount = parse_int(_str(form.get("amount")), "分值", 1, 10000)
            reason = _str(form.get("reason")).strip()
            cmd = Command(DIRECTOR, skill, (target,) if target else (), amount=amount)
            service.director_command(game_id, cmd, at, reason or None)
            return f"已执行：{DIRECTOR_SKILLS[skill]}" + (f"（{target}）" if target else "")

        return await god_action(request, game_id, act)

    @app.post("/d/g/{game_id}/proxy-vote", response_class=HTMLResponse)
    async def god_proxy(request: Request, game_id: int) -> Response:
        def act(form: FormData, at: str) -> str:
            player, target = _str(form.get("player")), _str(form.get("target"))
            service.proxy_vote(game_id, player, target, at)
            return f"已为{player}代投{target}"

        return await god_action(request, game_id, act)

    @app.post("/d/g/{game_id}/thread-post", response_class=HTMLResponse)
    async def god_thread_post(request: Request, game_id: int) -> Response:
        def act(form: FormData, at: str) -> str:
            post = service.director_post(game_id, _str(form.get("text")), reply_to=_post_id(form))
            return f"已在讨论帖发言（{post.phase}）"

        return await god_action(request, game_id, act)

    @app.post("/d/g/{game_id}/extend", response_class=HTMLResponse)
    async def god_extend(request: Request, game_id: int) -> Response:
        def act(form: FormData, at: str) -> str:
            minutes = parse_int(_str(form.get("minutes")), "延长分钟数", -60 * 24 * 14, 60 * 24 * 14)
            if minutes is None:
                raise ServiceError("请填写延长的分钟数")
            row = service.extend(game_id, minutes, at)
            return f"{row.label}的时限已调整"

        return await god_action(request, game_id, act)

    @app.post("/d/g/{game_id}/publish", response_class=HTMLResponse)
    async def god_publish(request: Request, game_id: int) -> Response:
        def act(form: FormData, at: str) -> str:
            upto = parse_int(_str(form.get("upto")), "公示序号", 0, 10**6)
            if upto is None:
                raise ServiceError("请选择要发布的公示")
            n = service.publish(game_id, upto, at)
            return f"已发布{n}条公示"

        return await god_action(request, game_id, act)

    @app.post("/d/g/{game_id}/announcements/{idx}", response_class=HTMLResponse)
    async def god_announcement(request: Request, game_id: int, idx: int) -> Response:
        """One pending 公示: 修改 (the director's wording), 扣留 / 取消扣留, or 单独发布."""

        def act(form: FormData, at: str) -> str:
            action = _str(form.get("action"))
            if action == "edit":
                service.edit_announcement(game_id, idx, _str(form.get("text")), at)
                return "公示已修改（发布前仍可再改）"
            if action in ("withhold", "release"):
                service.withhold(game_id, idx, action == "withhold", at)
                return "公示已扣留，不会随“发布到此条”发出" if action == "withhold" else "公示已放回待发布"
            if action == "publish":
                service.publish(game_id, idx, at, only=True)
                return "已发布这条公示"
            raise ServiceError("未知的操作")

        return await god_action(request, game_id, act)

    @app.post("/d/g/{game_id}/substitute", response_class=HTMLResponse)
    async def god_substitute(request: Request, game_id: int) -> Response:
        def act(form: FormData, at: str) -> str:
            name = _str(form.get("player"))
            person = _str(form.get("person"))
            service.substitute(game_id, name, at, person)
            return f"{name}已换上替补{'（' + person.strip() + '）' if person.strip() else ''}，新链接见角色表"

        return await god_action(request, game_id, act)

    @app.post("/d/g/{game_id}/status", response_class=HTMLResponse)
    async def god_status(request: Request, game_id: int) -> Response:
        def act(form: FormData, at: str) -> str:
            action = _str(form.get("action"))
            service.set_status(game_id, action, at)
            return {"pause": "游戏已暂停", "resume": "游戏已恢复", "end": "游戏已结束"}.get(action, "")

        return await god_action(request, game_id, act)

    @app.post("/d/g/{game_id}/flags", response_class=HTMLResponse)
    async def god_flags(request: Request, game_id: int) -> Response:
        """潜水 flags in bulk: the ticked ones are all 判罚 or all 忽略."""

        def act(form: FormData, at: str) -> str:
            ids = [parse_int(_str(v), "潜水记录", 1, 2**31 - 1) for v in form.getlist("flag")]
            chosen = [i for i in ids if i is not None]
            issue = _str(form.get("action")) == "issue"
            n = service.resolve_flags(game_id, chosen, issue, at)
            return f"已判罚{n}条潜水记录" if issue else f"已忽略{n}条潜水记录"

        return await god_action(request, game_id, act)

    @app.post("/d/g/{game_id}/flags/{flag_id}", response_class=HTMLResponse)
    async def god_flag(request: Request, game_id: int, flag_id: int) -> Response:
        if not valid_id(flag_id):
            raise NotFound("没有这条潜水记录")

        def act(form: FormData, at: str) -> str:
            issue = _str(form.get("action")) == "issue"
            service.resolve_flag(game_id, flag_id, issue, at)
            return "已判罚" if issue else "已忽略"

        return await god_action(request, game_id, act)

    install_forum_desk(app, service, render, director_of, director_form, owned)  # issue 14: 论坛计票

    @app.get("/d/g/{game_id}/export.json")
    def god_export(request: Request, game_id: int) -> Response:
        director, _csrf = director_of(request)
        owned(director, game_id)
        data = service.export(game_id)
        headers = {"Content-Disposition": f'attachment; filename="banshe-game-{game_id}.json"'}
        return JSONResponse(data, headers=headers)

    @app.get("/d/g/{game_id}/review", response_class=HTMLResponse)
    def god_review(request: Request, game_id: int) -> Response:
        director, _csrf = director_of(request)
        owned(director, game_id)
        return review(request, game_id, allowed=True, back=(f"/d/g/{game_id}", "返回导演页面"))

    @app.get("/d/g/{game_id}/events")
    async def god_events(request: Request, game_id: int) -> Response:
        director, _csrf = director_of(request)
        owned(director, game_id)
        return sse(pushed.stream(game_id, "", settings.sse_max_seconds, request.is_disconnected))

    def review(request: Request, game_id: int, allowed: bool, back: tuple[str, str] = ("", "")) -> Response:
        ctx = director_page(service, game_id)
        if not allowed and not ctx["over"]:
            return message(request, "游戏结束后才能查看复盘", 403)
        ctx.update({"back": back[0], "back_label": back[1]})
        return render(request, "review.html", ctx)

    # -- players -------------------------------------------------------------------------------
    def seat_of(token: str) -> Seat:
        return service.seat_by_token(token)

    def player(
        request: Request,
        token: str,
        page: str,
        error: str = "",
        status: int = 200,
        draft: dict[str, str] | None = None,
    ) -> Response:
        """A player's page; after a refusal `draft` is the refused form's text (and its group or
        replied floor), rendered back with the reason next to it: nothing typed is lost, and no
        text travels through a query string."""
        seat = seat_of(token)
        ctx = player_page(service, seat)
        draft = dict(draft or {})
        by_id = {i.post_id: i for i in ctx["items"] if i.post_id}
        if not draft:  # 回复此楼 / 改票（回复此楼） links name a post id (a number), never text
            raw = request.query_params.get("reply", "")
            if raw.isdigit() and len(raw) <= 12 and int(raw) in by_id:
                draft["reply_to"] = raw
                if request.query_params.get("change") == "1":
                    draft["text"] = "改票对象：\n改票理由："
        reply = by_id.get(int(draft["reply_to"])) if draft.get("reply_to", "").isdigit() else None
        ctx.update(
            {
                "version": viewer_version(ctx),
                "token": token,
                "csrf": auth.player_csrf(secret, token),
                "error": error,
                "ok": security.read_flash(secret, request.url.path, request.query_params.get("ok", "")),
                "page": page,
                "draft": draft,
                "reply": reply,
                "reply_base": f"/p/{token}/thread",
            }
        )
        return render(request, "player.html" if page == "me" else "thread.html", ctx, status)

    @app.get("/p/{token}", response_class=HTMLResponse)
    def player_home(request: Request, token: str) -> Response:
        return player(request, token, "me")

    @app.get("/p/{token}/thread", response_class=HTMLResponse)
    def player_thread(request: Request, token: str) -> Response:
        return player(request, token, "thread")

    @app.get("/p/{token}/review", response_class=HTMLResponse)
    def player_review(request: Request, token: str) -> Response:
        seat = seat_of(token)
        return review(request, seat.game_id, allowed=False, back=(f"/p/{token}", "返回我的页面"))

    @app.get("/p/{token}/events")
    async def player_events(request: Request, token: str) -> Response:
        seat = seat_of(token)

        def version() -> str:  # raises NotFound once the link died (替补): the stream ends
            return viewer_version(player_page(service, seat_of(token)))

        shown = request.query_params.get("v", "")[:64]
        stream = pushed.stream(
            seat.game_id,
            seat.name,
            settings.sse_max_seconds,
            request.is_disconnected,
            version,
            shown,
            lambda: seat_of(token),
        )
        return sse(stream)

    @app.get("/p/{token}/state.json")
    def player_state(request: Request, token: str) -> Response:
        seat = seat_of(token)
        ctx = player_page(service, seat)
        return JSONResponse(
            {
                "view": ctx["v"],
                "actions": [{"skill": a.skill, "name": a.name, "targets": a.targets} for a in ctx["actions"]],
                "deadline": ctx["deadline"],
                "thread": [
                    {
                        "kind": i.kind,
                        "author": i.author,
                        "text": i.text,
                        "phase": i.phase,
                        "vote": i.vote,
                        "floor": i.floor,
                        "time": i.time,
                        "post_id": i.post_id,
                        "quote": i.quote,
                        "director_post": i.director_post,
                    }
                    for i in ctx["items"]
                ],
            }
        )

    async def player_form(request: Request, token: str) -> tuple[Seat, FormData]:
        seat = await run_in_threadpool(seat_of, token)
        form = await request.form()
        if not auth.same(_str(form.get("csrf")), auth.player_csrf(secret, token)):
            raise _Csrf()
        return seat, form

    async def player_action(request: Request, token: str, page: str, act: Callable[[Seat, FormData], str]) -> Response:
        seat, form = await player_form(request, token)
        try:
            key = _str(form.get(idem.KEY_FIELD))
            done = await run_in_threadpool(service.once, seat.game_id, key, lambda: act(seat, form))
        except ServiceError as exc:
            draft = {k: _str(form.get(k)) for k in ("text", "group", "reply_to", "skill") if _str(form.get(k))}
            return await run_in_threadpool(player, request, token, page, exc.reason, exc.status, draft)
        suffix = "" if page == "me" else "/thread"
        path = f"/p/{token}{suffix}"
        return RedirectResponse(f"{path}?ok={quote(security.sign_flash(secret, path, done))}", status_code=303)

    @app.post("/p/{token}/act", response_class=HTMLResponse)
    async def player_act(request: Request, token: str) -> Response:
        def act(seat: Seat, form: FormData) -> str:
            # the actor is always the link's character: any name in the form is ignored
            cmd = build_command(seat, form)
            service.submit(seat.game_id, cmd)
            return f"已提交<{service_skill_name(seat, cmd.skill)}>"

        return await player_action(request, token, "me", act)

    def service_skill_name(seat: Seat, skill: str) -> str:
        with sessions() as s:
            game = s.get(Game, seat.game_id)
            assert game is not None
            return GameService.ruleset(game).skill_name(skill)

    def build_command(seat: Seat, form: FormData) -> Command:
        with sessions() as s:
            game = s.get(Game, seat.game_id)
            assert game is not None
        rs = GameService.ruleset(game)
        skill = _str(form.get("skill"))
        spec = rs.skills.get(skill)
        if spec is None:
            raise ServiceError("未知的技能")
        if spec.shape == NO_TARGET:
            return Command(seat.name, skill)
        if spec.shape == YES_NO:
            answer = _str(form.get("answer"))
            if answer not in ("是", "否"):
                raise ServiceError(f"<{spec.name}>需要回答“是”或“否”")
            return Command(seat.name, skill, answer=answer == "是")
        if spec.shape == FREE_TEXT:
            text = _str(form.get("text")).strip()
            if len(text) > 5000:
                raise ServiceError("内容过长")
            return Command(seat.name, skill, text=text or None)
        if spec.shape == MANY_TARGETS:
            raw = _str(form.get("targets")).replace(",", "、").replace("，", "、").replace(" ", "、")
            return Command(seat.name, skill, tuple(t for t in raw.split("、") if t))
        target = _str(form.get("target")).strip()
        return Command(seat.name, skill, (target,) if target else ())

    @app.post("/p/{token}/post", response_class=HTMLResponse)
    async def player_post(request: Request, token: str) -> Response:
        def act(seat: Seat, form: FormData) -> str:
            post = service.post(seat.game_id, seat.name, _str(form.get("text")), reply_to=_post_id(form))
            return "投票已记录" if post.vote_kind else "已发言"

        return await player_action(request, token, "thread", act)

    @app.post("/p/{token}/group", response_class=HTMLResponse)
    async def player_group(request: Request, token: str) -> Response:
        def act(seat: Seat, form: FormData) -> str:
            service.group_post(seat.game_id, seat.name, _str(form.get("group")), _str(form.get("text")))
            return "已在群内发言"

        return await player_action(request, token, "me", act)

    @app.post("/p/{token}/request", response_class=HTMLResponse)
    async def player_request(request: Request, token: str) -> Response:
        def act(seat: Seat, form: FormData) -> str:
            return service.request(seat.game_id, seat.name, _str(form.get("kind")))

        return await player_action(request, token, "thread", act)

    # -- live updates (live.py) ------------------------------------------------------------------
    def sse(stream: AsyncIterator[str]) -> StreamingResponse:
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream, media_type="text/event-stream", headers=headers)

    return app


# -- form parsing -------------------------------------------------------------------------------
def safe_next(nxt: str) -> str:
    """Where to go after login: a path on this site only (no open redirect)."""
    if not nxt.startswith("/") or nxt.startswith("//") or "\\" in nxt or len(nxt) > 500 or not nxt.isprintable():
        return "/d"
    return nxt


MAX_INT = 2**31 - 1  # ids and numbers fit an INTEGER column on every database
MAX_SEED = 2**31 - 1


def _str(value: Any) -> str:
    """A form field's text. A NUL byte never reaches the database (PostgreSQL refuses it)."""
    if not isinstance(value, str):
        return ""
    if "\x00" in value:
        raise ServiceError("内容含有不允许的控制字符（NUL）")
    return value



def valid_id(value: int) -> bool:
    return 0 < value <= MAX_INT


def parse_int(text: str, field: str, low: int, high: int) -> int | None:
    """A whole number from a form field (None when empty); a Chinese ServiceError names the field."""
    text = text.strip()
    if not text:
        return None
    digits = text[1:] if text[:1] in "+-" else text
    if not digits.isascii() or not digits.isdigit():
        raise ServiceError(f"“{field}”必须是整数：{text[:20]}")
    value = int(text) if len(digits) <= 12 else (high + 1 if text[0] != "-" else low - 1)
    if not low <= value <= high:
        raise ServiceError(f"“{field}”应在{low}到{high}之间")
    return value


def _post_id(form: FormData) -> int | None:
    """The replied post (回复 N楼) a thread form names, or None; anything but a post id is refused."""
    raw = _str(form.get("reply_to")).strip()
    if not raw:
        return None
    if not raw.isdigit() or len(raw) > 12:
        raise ServiceError("回复的楼层不存在")
    return int(raw)


def _stage_value(text: str) -> int | str | None:
    text = text.strip()
    if not text:
        return None
    return int(text) if text.isdigit() else text


def parse_seats(text: str) -> tuple[list[str], dict[str, str] | None]:
    """One seat a line: `名字` (identities dealt by the seeded RNG) or `名字 身份` (entered by hand)."""
    players: list[str] = []
    roles: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.replace("：", " ").replace(":", " ").strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) > 2:
            raise ValueError(f"座位表格式有误：“{raw.strip()}”（每行“名字”或“名字 身份”）")
        players.append(parts[0])
        if len(parts) == 2:
            roles[parts[0]] = parts[1]
    if not players:
        raise ValueError("座位表不能为空")
    if roles and len(roles) != len(players):
        raise ValueError("要么所有座位都写明身份，要么都不写（由种子随机发身份）")
    return players, roles or None


def parse_options(specs: Any, form: FormData) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, spec in specs.items():
        raw = form.get(f"opt_{name}")
        if isinstance(spec.default, bool):
            out[name] = raw == "on"
        elif isinstance(spec.default, int):
            text = _str(raw).strip()
            if text:
                try:
                    out[name] = int(text)
                except ValueError:
                    raise ValueError(f"选项“{name}”需要整数") from None
        elif raw is not None:
            out[name] = _str(raw)
    return out
