"""The director's login and logout (session cookie; login CSRF is a double-submit token)."""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from .. import auth, security
from ..forms import field, safe_next
from ..web import CsrfFailed, DirectorForm, Web, WebDep

LOGIN_COOKIE = "banshe_login"
router = APIRouter()


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> Response:
    return RedirectResponse("/d", status_code=303)


def login_form(web: Web, request: Request, nxt: str, error: str = "", status: int = 200) -> Response:
    # login CSRF: a double-submit token, in a cookie and in the form
    token = request.cookies.get(LOGIN_COOKIE) or ""
    if not (16 <= len(token) <= 64):
        token = secrets.token_urlsafe(16)
    resp = web.render(request, "login.html", {"next": safe_next(nxt), "error": error, "csrf": token}, status)
    resp.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict", max_age=3600, secure=web.secure(request))
    return resp


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, web: WebDep, next: str = "/d") -> Response:
    return login_form(web, request, next)


@router.post("/login", response_class=HTMLResponse)
async def login_post(request: Request, web: WebDep) -> Response:
    form = await request.form()
    nxt = safe_next(field(form.get("next")))
    cookie = request.cookies.get(LOGIN_COOKIE)
    if not cookie or not auth.same(field(form.get("csrf")), cookie):
        raise CsrfFailed()
    username = field(form.get("username")).strip()
    client = "client:" + security.client_address(request, web.proxies)
    account = "account:" + username.casefold()
    # failed logins are limited per account and per client, checked before any hashing
    wait = max(web.per_account.blocked(account), web.per_client.blocked(client))
    if wait:
        return login_form(web, request, nxt, security.wait_text(wait), 429)

    def check(password: str) -> str | None:
        with web.hash_gate, web.sessions() as s:  # argon2: off the event loop, a bounded number at once
            ws = auth.login(s, username, password, web.now())
            s.commit()
            return None if ws is None else ws.token

    token = await run_in_threadpool(check, field(form.get("password")))
    if token is None:
        web.per_account.hit(account)
        web.per_client.hit(client)
        return login_form(web, request, nxt, "用户名或密码错误", 401)
    web.per_account.reset(account)
    resp = RedirectResponse(nxt, status_code=303)
    # the server decides the session's life (renewed on use); the cookie outlives it
    resp.set_cookie(
        auth.SESSION_COOKIE, token, httponly=True, samesite="lax", max_age=400 * 24 * 3600, secure=web.secure(request)
    )
    return resp


@router.post("/logout")
async def logout(request: Request, web: WebDep, _login: DirectorForm) -> Response:
    with web.sessions() as s:
        ws = auth.session_of(s, request.cookies.get(auth.SESSION_COOKIE), web.now(), web.lifetime)
        if ws is not None:
            s.delete(ws)
            s.commit()
    resp = RedirectResponse("/login", status_code=303)
    resp.delete_cookie(auth.SESSION_COOKIE)
    return resp
