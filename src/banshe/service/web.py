"""What every route shares: the app's service, settings, templates and secrets (`Web`), and the
FastAPI dependencies that load what a request needs once — the director's login (with the game
he owns) and a player's seat (with its game)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, cast

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from sqlalchemy import exc as sa_exc
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData

from . import auth, security, serving, timeline
from .config import Settings
from .edge import GameId, Token
from .forms import field, valid_id
from .games import GameService, NotFound
from .models import Director, Game, Seat

log = logging.getLogger("banshe.service")
UNAVAILABLE = "服务器暂时不可用，请稍后重试"
# the database cannot be reached or cannot write (down, restarting, disk full, pool exhausted)
UNAVAILABLE_ERRORS: tuple[type[Exception], ...] = (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.TimeoutError)
# fields of a refused-by-outage form shown as text to keep (the rest travel back hidden; never a password)
DRAFT_FIELDS = {
    "text": "你输入的内容",
    "reason": "理由",
    "note": "备注",
    "person": "替补玩家",
    "seats": "座位表",
    "data": "导入的内容",
}


class NeedLogin(Exception):
    pass


class CsrfFailed(Exception):
    pass


@dataclass
class Web:
    service: GameService
    sessions: sessionmaker[Session]
    settings: Settings
    templates: Jinja2Templates
    secret: str
    proxies: Any  # security.parse_proxies
    now: Callable[[], float]
    lifetime: float  # a director's session, seconds
    per_account: security.RateLimiter
    per_client: security.RateLimiter
    hash_gate: security.HashGate

    def render(self, request: Request, name: str, ctx: dict[str, Any], status: int = 200) -> HTMLResponse:
        return self.templates.TemplateResponse(request, name, ctx, status_code=status)

    def message(self, request: Request, text: str, status: int) -> HTMLResponse:
        return self.render(request, "message.html", {"text": text}, status)

    async def unavailable(self, request: Request, exc: Exception) -> HTMLResponse:
        """503 when the database is down or full. A form's fields come back in a form to send again
        (its idempotency key included, so a submission that did commit is not stored twice): what
        the player typed is never lost. Nothing here touches the database."""
        where = serving.redact(request.url.path)
        log.warning("database unavailable on %s %s: %s", request.method, where, (str(exc).splitlines() or [""])[0])
        fields: list[tuple[str, str]] = []
        if request.method == "POST":
            try:
                form = await request.form()
                fields = [(k, v) for k, v in form.multi_items() if isinstance(v, str) and k != "password"]
            except Exception:  # noqa: BLE001 - a body that cannot be read again: the message alone
                fields = []
        ctx = {"text": UNAVAILABLE, "fields": fields, "action": request.url.path, "shown": DRAFT_FIELDS}
        resp = self.render(request, "unavailable.html", ctx, 503)
        resp.headers["Retry-After"] = "5"
        return resp

    def secure(self, request: Request) -> bool:
        return security.is_https(request, self.proxies)

    # -- the director's login ----------------------------------------------------------------
    def _login(self, s: Session, request: Request) -> tuple[Director, str]:
        ws = auth.session_of(s, request.cookies.get(auth.SESSION_COOKIE), self.now(), self.lifetime)
        if ws is None:
            raise NeedLogin()
        director = s.get(Director, ws.director_id)
        if director is None:
            raise NeedLogin()
        return director, ws.csrf

    def director_of(self, request: Request) -> tuple[Director, str]:
        with self.sessions() as s:
            return self._login(s, request)

    def login_and_game(self, request: Request, game_id: int) -> tuple[Director, str, Game | None]:
        """The director and, in the same session, his game `game_id` (None: not his, or none)."""
        with self.sessions() as s:
            director, csrf = self._login(s, request)
            game = s.get(Game, game_id) if valid_id(game_id) else None
            return director, csrf, game if game is not None and game.director_id == director.id else None

    def owned(self, director: Director, game_id: int) -> Game:
        if not valid_id(game_id):
            raise NotFound("没有这局游戏")
        with self.sessions() as s:
            game = s.get(Game, game_id)
            if game is None or game.director_id != director.id:
                raise NotFound("没有这局游戏")
            return game

    async def director_form(self, request: Request) -> tuple[Director, str, FormData]:
        director, csrf = await run_in_threadpool(self.director_of, request)
        form = await request.form()
        if not auth.same(field(form.get("csrf")), csrf):
            raise CsrfFailed()
        return director, csrf, form


def web_of(request: Request) -> Web:
    return cast(Web, request.app.state.web)


# -- dependencies ------------------------------------------------------------------------------
@dataclass
class Login:
    director: Director
    csrf: str


@dataclass
class LoginForm(Login):
    form: FormData


@dataclass
class OwnedGame(Login):
    game: Game


@dataclass
class OwnedGameForm(OwnedGame):
    form: FormData


def _login(request: Request) -> Login:
    director, csrf = web_of(request).director_of(request)
    return Login(director, csrf)


async def _login_form(request: Request) -> LoginForm:
    director, csrf, form = await web_of(request).director_form(request)
    return LoginForm(director, csrf, form)


def _owned_game(request: Request, game_id: GameId) -> OwnedGame:
    director, csrf, game = web_of(request).login_and_game(request, game_id)
    if game is None:
        raise NotFound("没有这局游戏")
    return OwnedGame(director, csrf, game)


async def _owned_game_form(request: Request, game_id: GameId) -> OwnedGameForm:
    """Login, then the form's CSRF token, then ownership (the order of the refusals); the login
    and the game are loaded in one database session."""
    web = web_of(request)
    director, csrf, game = await run_in_threadpool(web.login_and_game, request, game_id)
    form = await request.form()
    if not auth.same(field(form.get("csrf")), csrf):
        raise CsrfFailed()
    if game is None:
        raise NotFound("没有这局游戏")
    return OwnedGameForm(director, csrf, game, form)


@dataclass
class PlayerSeat:
    token: str
    seat: Seat
    game: Game


async def _player_seat(request: Request, token: Token) -> PlayerSeat:
    # on the event loop (issue 26): a cached link and one primary-key read, no thread hop
    seat, game = timeline.inline("seat", web_of(request).service.seat_and_game, token)
    return PlayerSeat(token, seat, game)


@dataclass
class PlayerForm(PlayerSeat):
    form: FormData


async def _player_form(request: Request, token: Token) -> PlayerForm:
    web = web_of(request)
    seat, game = timeline.inline("seat", web.service.seat_and_game, token)
    form = await request.form()
    timeline.mark("body")
    if not auth.same(field(form.get("csrf")), auth.player_csrf(web.secret, token)):
        raise CsrfFailed()
    return PlayerForm(token, seat, game, form)


async def _web(request: Request) -> Web:
    """`web_of` as a dependency (async: FastAPI runs a plain `def` dependency in a worker thread)."""
    return web_of(request)


WebDep = Annotated[Web, Depends(_web)]
DirectorLogin = Annotated[Login, Depends(_login)]
DirectorForm = Annotated[LoginForm, Depends(_login_form)]
DirectorGame = Annotated[OwnedGame, Depends(_owned_game)]
DirectorGameForm = Annotated[OwnedGameForm, Depends(_owned_game_form)]
PlayerSeatDep = Annotated[PlayerSeat, Depends(_player_seat)]
PlayerFormDep = Annotated[PlayerForm, Depends(_player_form)]
