"""The players' pages behind their secret links: my page, the thread, actions, posts, 复盘.

`PlayerSeatDep` / `PlayerFormDep` resolve the link to its seat and game once per request (and
check the form's CSRF token, an HMAC of the link); the action's command is built from that game."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from sqlalchemy import Integer, String, bindparam, select
from starlette.datastructures import FormData

from .. import auth, security, timeline
from .. import idempotency as idem
from ..edge import MAX_INT, form_int
from ..forms import command_from_form, field, post_id
from ..games import GameService, ServiceError
from ..models import Post, Seat
from ..thread import NearMiss
from ..views import ThreadItem, page_of_floor, player_page, post_item, thread_items, thread_page, viewer_version
from ..web import PlayerForm, PlayerFormDep, PlayerSeatDep, Web, WebDep
from .director import review

router = APIRouter()


def player(
    web: Web,
    request: Request,
    token: str,
    seat: Seat,
    page: str,
    error: str = "",
    status: int = 200,
    draft: dict[str, str] | None = None,
) -> Response:
    """A player's page; after a refusal `draft` is the refused form's text (and its group or
    replied floor), rendered back with the reason next to it: nothing typed is lost, and no
    text travels through a query string."""
    ctx = player_page(web.service, seat)
    draft = dict(draft or {})
    suggest = draft.pop("suggest", None)
    by_id = {i.post_id: i for i in ctx["items"] if i.post_id}
    if not draft:  # 回复此楼 / 改票（回复此楼） links name a post id (a number), never text
        try:  # edge.form_int: ASCII digits in range ("²" is a digit to isdigit, not to int)
            reply_to = form_int(request.query_params.get("reply", ""), "reply", 1, MAX_INT)
        except ValueError:
            reply_to = None
        if reply_to is not None and reply_to in by_id:
            draft["reply_to"] = str(reply_to)
            if request.query_params.get("change") == "1":
                draft["text"] = "改票对象：\n改票理由："
    raw_reply = draft.get("reply_to", "")
    reply = by_id.get(int(raw_reply)) if raw_reply.isascii() and raw_reply.isdigit() and len(raw_reply) <= 12 else None
    # the thread by page: ?page=N (default the newest), ?day=第N天 (from its first page)
    try:
        number = form_int(request.query_params.get("page", ""), "page", 1, MAX_INT)
    except ValueError:
        number = None
    tp = thread_page(
        ctx["items"],
        None if draft else number,
        "" if draft else request.query_params.get("day", "")[:16],
        ctx["v"]["phase"],
    )
    ctx.update(
        {
            "version": viewer_version(ctx),
            "token": token,
            "csrf": auth.player_csrf(web.secret, token),
            "error": error,
            "ok": security.read_flash(web.secret, request.url.path, request.query_params.get("ok", "")),
            "page": page,
            "draft": draft,
            "reply": reply,
            "reply_base": f"/p/{token}/thread",
            "thread_base": f"/p/{token}/thread",
            "tp": tp,
            "suggest": {"name": suggest[0], "text": suggest[1], "reply_to": draft.get("reply_to", "")}
            if suggest
            else None,
        }
    )
    return web.render(request, "player.html" if page == "me" else "thread.html", ctx, status)


# issue 26: the players' routes run on the event loop, start to end, with no hand-off to a worker
# thread (each hand-off waited for the pool and for the GIL — see docs/performance.md); their work is
# short database reads and writes and the page's rendering. Several cores: `banshe serve --workers N`.
@router.get("/p/{token}", response_class=HTMLResponse)
async def player_home(request: Request, web: WebDep, me: PlayerSeatDep) -> Response:
    return timeline.inline("page", player, web, request, me.token, me.seat, "me")


@router.get("/p/{token}/thread", response_class=HTMLResponse)
async def player_thread(request: Request, web: WebDep, me: PlayerSeatDep) -> Response:
    try:  # 回复 N楼 / one's own new floor: the page that holds it
        floor = form_int(request.query_params.get("floor", ""), "floor", 1, MAX_INT)
    except ValueError:
        floor = None
    if floor is not None:
        address = timeline.inline("floor", floor_address, web, me.seat, me.token, floor)
        return RedirectResponse(address, status_code=303)
    if request.query_params.get("mine") == "1":  # after a post by script from an older page: his new floor
        ok = quote(request.query_params.get("ok", ""))
        address = timeline.inline("floor", own_floor_address, web, me.seat, me.token, ok)
        return RedirectResponse(address or f"/p/{me.token}/thread", status_code=303)
    return timeline.inline("page", player, web, request, me.token, me.seat, "thread")


def thread_of(web: Web, seat: Seat) -> list[ThreadItem]:
    """The thread's items as `seat` sees them, numbered as his page numbers them (the floors and
    pages only: no view, no actions — a post's redirect needs no more)."""
    svc = web.service
    game, state, pub = svc.read_published(seat.game_id)
    with svc.sessions() as s:
        return thread_items(s, svc, game, state, [], director=False, viewer=seat.name, pub=pub)


def floor_address(
    web: Web, seat: Seat, token: str, floor: int, ok: str = "", items: list[ThreadItem] | None = None
) -> str:
    """The thread page that holds `floor`, scrolled to it (`ok`: a signed flash message)."""
    page = page_of_floor(items if items is not None else thread_of(web, seat), floor)
    path = f"/p/{token}/thread"
    query = "&".join(x for x in (f"page={page}" if page else "", f"ok={ok}" if ok else "") if x)
    return f"{path}{'?' + query if query else ''}#floor-{floor}"


@router.get("/p/{token}/review", response_class=HTMLResponse)
def player_review(request: Request, web: WebDep, me: PlayerSeatDep) -> Response:
    return review(web, request, me.seat.game_id, allowed=False, back=(f"/p/{me.token}", "返回我的页面"))


@router.get("/p/{token}/state.json")
async def player_state(web: WebDep, me: PlayerSeatDep) -> Response:
    ctx = timeline.inline("page", player_page, web.service, me.seat)
    return JSONResponse(
        {
            "view": ctx["v"],
            "actions": [{"skill": a.skill, "name": a.name, "targets": a.targets} for a in ctx["actions"]],
            "deadline": ctx["deadline"],
            "windows": ctx["windows"],
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


async def player_action(
    request: Request,
    web: Web,
    me: PlayerForm,
    page: str,
    act: Callable[[Seat, FormData], str],
    draft_of: Callable[[FormData], dict[str, Any]] | None = None,
) -> Response:
    seat, form, token = me.seat, me.form, me.token
    # the thread page's script posts by fetch and asks for JSON (static/app.js: data-fetch)
    by_script = "application/json" in request.headers.get("accept", "")

    def submit() -> str:
        # through this link: a 替补 committed since the link was resolved stores nothing (store.ACTING_LINK)
        with web.service.as_link(token):
            return web.service.once(seat.game_id, key, lambda: act(seat, form))

    try:
        key = field(form.get(idem.KEY_FIELD))
        done = timeline.inline("submit", submit)
    except ServiceError as exc:
        draft: dict[str, Any] = (
            draft_of(form)
            if draft_of is not None
            else {k: field(form.get(k)) for k in ("text", "group", "reply_to", "skill") if field(form.get(k))}
        )
        if isinstance(exc, NearMiss) and page == "thread":
            draft["suggest"] = (exc.suggestion, exc.corrected)
        if by_script:  # the page's script submits the form again the ordinary way, for this page
            return JSONResponse({"error": exc.reason}, status_code=exc.status)
        fresh = web.service.seat_by_token(token)  # a 替补 meanwhile: the link died
        return timeline.inline("page", player, web, request, token, fresh, page, exc.reason, exc.status, draft)
    suffix = "" if page == "me" else "/thread"
    path = f"/p/{token}{suffix}"
    ok = quote(security.sign_flash(web.secret, path, done))
    if by_script and page == "thread" and done in POSTED:
        # the live push brings the new floor to the open page: no page to render (issue 26)
        post, count = timeline.inline("floor", own_post_count, web, seat)
        mine = f"{path}?mine=1&ok={ok}"
        return JSONResponse({"ok": done, "idem": idem.new_key(), "post": post, "post_count": count, "mine": mine})
    if page == "thread" and done in POSTED:  # a post lands on its own floor (the page that holds it)
        address = timeline.inline("floor", own_floor_address, web, seat, token, ok)
        if address:
            return RedirectResponse(address, status_code=303)
    return RedirectResponse(f"{path}?ok={ok}", status_code=303)


POSTED = ("投票已记录", "已发言")


def own_floor(items: list[ThreadItem], seat: Seat) -> int:
    """The floor of `seat`'s newest post (0: none)."""
    return max((i.floor for i in items if i.post_id and i.author == seat.name and i.kind != "pending"), default=0)


def own_post_count(web: Web, seat: Seat) -> tuple[int, int]:
    """`seat`'s newest post — the one just made — and how many posts he has made in its day,
    counted as his thread page counts them (`player_page`'s post_count: his posts and votes)."""
    newest, count = 0, 0
    with web.service.sessions() as s:
        for p in s.scalars(_OWN_POSTS_THAT_DAY, {"game_id": seat.game_id, "author": seat.name}):
            newest = newest or p.id
            count += post_item(p, False, p.phase, seat.name).kind in ("post", "hidden")
    return newest, count


# the author's posts in the day of his newest post, newest first (built once, issue 26)
_GAME_ID = bindparam("game_id", type_=Integer)
_AUTHOR = bindparam("author", type_=String)
_OWN_POSTS_THAT_DAY = (
    select(Post)
    .where(
        Post.game_id == _GAME_ID,
        Post.author == _AUTHOR,
        Post.phase
        == select(Post.phase)
        .where(Post.game_id == _GAME_ID, Post.author == _AUTHOR)
        .order_by(Post.id.desc())
        .limit(1)
        .scalar_subquery(),
    )
    .order_by(Post.id.desc())
)


def own_floor_address(web: Web, seat: Seat, token: str, ok: str) -> str:
    """The address of the page that holds `seat`'s newest floor ("" if he has none), from one
    reading of the thread."""
    items = thread_of(web, seat)
    floor = own_floor(items, seat)
    return floor_address(web, seat, token, floor, ok, items) if floor else ""


@router.post("/p/{token}/act", response_class=HTMLResponse)
async def player_act(request: Request, web: WebDep, me: PlayerFormDep) -> Response:
    rs = GameService.ruleset(me.game)

    def act(seat: Seat, form: FormData) -> str:
        # the actor is always the link's character: any name in the form is ignored
        cmd = command_from_form(rs, seat.name, form)
        web.service.submit(seat.game_id, cmd)
        return f"已提交<{rs.skill_name(cmd.skill)}>"

    return await player_action(request, web, me, "me", act)


@router.post("/p/{token}/post", response_class=HTMLResponse)
async def player_post(request: Request, web: WebDep, me: PlayerFormDep) -> Response:
    def act(seat: Seat, form: FormData) -> str:
        post = web.service.post(seat.game_id, seat.name, field(form.get("text")), reply_to=post_id(form))
        return "投票已记录" if post.vote_kind else "已发言"

    return await player_action(request, web, me, "thread", act)


@router.post("/p/{token}/vote", response_class=HTMLResponse)
async def player_vote(request: Request, web: WebDep, me: PlayerFormDep) -> Response:
    """The vote picker: a target the engine offers and a reason, posted in the forum format
    (投票对象：… / 投票理由：…; a 改票 replies to the voter's own vote floor)."""

    def act(seat: Seat, form: FormData) -> str:
        post = web.service.vote(seat.game_id, seat.name, field(form.get("target")), field(form.get("reason")))
        return "投票已记录" if post.vote_kind else "已发言"

    def draft_of(form: FormData) -> dict[str, Any]:
        return {"vote_target": field(form.get("target")), "vote_reason": field(form.get("reason"))}

    return await player_action(request, web, me, "thread", act, draft_of)


@router.post("/p/{token}/group", response_class=HTMLResponse)
async def player_group(request: Request, web: WebDep, me: PlayerFormDep) -> Response:
    def act(seat: Seat, form: FormData) -> str:
        web.service.group_post(seat.game_id, seat.name, field(form.get("group")), field(form.get("text")))
        return "已在群内发言"

    return await player_action(request, web, me, "me", act)


@router.post("/p/{token}/request", response_class=HTMLResponse)
async def player_request(request: Request, web: WebDep, me: PlayerFormDep) -> Response:
    def act(seat: Seat, form: FormData) -> str:
        return web.service.request(seat.game_id, seat.name, field(form.get("kind")))

    return await player_action(request, web, me, "thread", act)
