"""The director's pages: his games, a new game, import, the god view and its actions, export and 复盘.

The dependencies load the login and the owned game once per request (`DirectorGame`,
`DirectorGameForm`); every action then runs through `god_action`: the position mark (`at`),
the form's idempotency key, and on a refusal the god view again with the Chinese reason."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData

from ...engine.commands import (
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
from ...library.board import board_file_text
from ...rulesets.registry import all_rulesets
from .. import idempotency as idem
from .. import import_schema, security
from .. import schedule as sched
from ..edge import MAX_INT, AnnouncementIndex, DeadlineId, FlagId, GameId, form_int
from ..errors import NotFound
from ..forms import MAX_SEED, field, parse_int, parse_options, parse_seats, post_id, stage_value
from ..games import ServiceError, board_counts, counts_text
from ..models import Director, Game
from ..uploaded_boards import MAX_BOARD_BYTES, decode, find_offered, is_uploaded
from ..views import director_page, thread_page
from ..web import DirectorForm, DirectorGame, DirectorGameForm, DirectorLogin, OwnedGameForm, Web, WebDep

# the director's commands and his penalties: two forms (issue 22: a penalty form whose default
# was 关闭当前夜晚阶段 once closed a seer's stage)
COMMANDS = {
    CLOSE_STAGE: "关闭当前夜晚阶段",
    CLOSE_PHASE: "立即关门结算",
    PROMPT_TIMEOUT: "当前回应超时",
    ACCELERATE: "执行加速",
    DELAY: "取消加速（延时）",
    JUDGE_LOSS: "判负",
}
PENALTIES = {CARD_BLUE: "蓝牌", CARD_YELLOW: "黄牌", CARD_RED: "红牌", DEDUCT: "扣分"}
DIRECTOR_SKILLS = {**COMMANDS, **PENALTIES}
router = APIRouter()
NoticeId = Annotated[int, Path(ge=1, le=MAX_INT)]  # a service notice's post id


def _games(web: Web, director: Director) -> list[Game]:
    with web.sessions() as s:
        return list(s.scalars(select(Game).where(Game.director_id == director.id).order_by(Game.id.desc())))


@router.get("/d", response_class=HTMLResponse)
def director_home(request: Request, web: WebDep, login: DirectorLogin) -> Response:
    games = _games(web, login.director)
    ctx = {"director": login.director, "csrf": login.csrf, "games": games, "error": "", "nav_here": "home"}
    return web.render(request, "director_home.html", ctx)


def new_game_ctx(
    web: Web, director: Director, csrf: str, ruleset: str, form: dict[str, str], error: str
) -> dict[str, Any]:
    # the built-in boards, then the ones this director uploaded (issue 27)
    choices = [r for r in all_rulesets() if not is_uploaded(r.id)] + web.service.uploads.of_director(director.id)
    rs = next((r for r in choices if ruleset in (r.id, r.name, *r.aliases)), choices[0])
    return {
        "director": director,
        "csrf": csrf,
        "rulesets": choices,
        "uploaded": is_uploaded(rs.id),
        "max_board_kb": MAX_BOARD_BYTES // 1024,
        "rs": rs,
        "schedule": sched.default_schedule(rs),
        "board_text": counts_text(board_counts(rs)),
        "form": form,
        "error": error,
        "timezone": sched.DEFAULT_TIMEZONE,
        "nav_here": "new",
    }


@router.get("/d/new", response_class=HTMLResponse)
def new_game_page(request: Request, web: WebDep, login: DirectorLogin, ruleset: str = "品茗") -> Response:
    return web.render(request, "new_game.html", new_game_ctx(web, login.director, login.csrf, ruleset, {}, ""))


@router.post("/d/new", response_class=HTMLResponse)
async def new_game_post(request: Request, web: WebDep, login: DirectorForm) -> Response:
    director, csrf, form = login.director, login.csrf, login.form
    fields = {k: field(v) for k, v in form.items()}
    try:
        rs = find_offered(fields.get("ruleset", ""))
    except KeyError:
        return web.render(request, "new_game.html", new_game_ctx(web, director, csrf, "", fields, "未知的规则"), 400)
    try:
        players, roles = parse_seats(fields.get("seats", ""), {*rs.role_names, *rs.role_names.values()})
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
            "dawn_publish": fields.get("dawn_publish") or None,
            "stages": [stage_value(fields.get(f"stage_{i}", "")) for i in range(len(rs.night_stages))],
        }
        start = fields.get("start_at", "").strip()
        zone_name = fields.get("timezone") or sched.DEFAULT_TIMEZONE
        start_at = sched.parse_local(start, sched.zone(zone_name)) if start else None
        game = web.service.create_game(
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
            start_at=start_at,
        )
    except ValueError as exc:  # parse_seats / parse_options: their reasons are Chinese
        return web.render(request, "new_game.html", new_game_ctx(web, director, csrf, rs.id, fields, str(exc)), 400)
    except ServiceError as exc:
        return web.render(request, "new_game.html", new_game_ctx(web, director, csrf, rs.id, fields, exc.reason), 400)
    return RedirectResponse(f"/d/g/{game.id}", status_code=303)


@router.post("/d/boards", response_class=HTMLResponse)
async def board_upload(request: Request, web: WebDep, login: DirectorForm) -> Response:
    """A board file uploaded (or pasted): checked by the board compiler, kept, and offered on the
    new-game form; a bad file is refused with the compiler's line and nothing is kept."""
    director, csrf, form = login.director, login.csrf, login.form
    upload = form.get("board_file")
    pasted = form.get("board_text")
    body = pasted.encode() if isinstance(pasted, str) else b""
    filename = "粘贴的板子"
    if upload is not None and not isinstance(upload, str) and upload.filename:
        body = await upload.read(MAX_BOARD_BYTES + 1)
        filename = upload.filename or filename

    def check() -> str:  # compiling a board reads and checks the whole file: off the event loop
        rs = web.service.uploads.upload(director.id, decode(body), filename)
        return rs.id

    try:
        rid = await run_in_threadpool(check)
    except ServiceError as exc:
        ctx = new_game_ctx(web, director, csrf, "", {}, exc.reason)
        ctx["board_paste"] = pasted if isinstance(pasted, str) else ""
        return web.render(request, "new_game.html", ctx, 400)
    return RedirectResponse(f"/d/new?ruleset={quote(rid)}", status_code=303)


@router.get("/d/boards/{ruleset_id}", response_class=PlainTextResponse)
def board_file(web: WebDep, login: DirectorLogin, ruleset_id: Annotated[str, Path(max_length=64)]) -> Response:
    """A board's file as text (a built-in board, or one this director uploaded)."""
    try:
        rs = find_offered(ruleset_id)
    except KeyError:
        raise NotFound("没有这个板子") from None
    text = board_file_text(rs)
    if not text or (is_uploaded(rs.id) and not web.service.uploads.owns(login.director.id, rs.id)):
        raise NotFound("没有这个板子")
    return PlainTextResponse(text, headers={"Content-Disposition": "inline"})


@router.post("/d/import", response_class=HTMLResponse)
async def import_post(request: Request, web: WebDep, login: DirectorForm) -> Response:
    director, csrf, form = login.director, login.csrf, login.form
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
        return web.service.import_game(director.id, data)

    try:
        game = await run_in_threadpool(load)
    except ServiceError as exc:
        ctx = {"director": director, "csrf": csrf, "games": _games(web, director), "error": exc.reason}
        return web.render(request, "director_home.html", ctx, 400)
    return RedirectResponse(f"/d/g/{game.id}", status_code=303)


def god(
    web: Web, request: Request, director: Director, csrf: str, game_id: int, error: str = "", status: int = 200
) -> Response:
    """The god view of a game the caller's dependency found the director owns."""
    version = web.service.version(game_id)
    ctx = director_page(web.service, game_id)
    ctx.update(
        {
            "director": director,
            "csrf": csrf,
            "error": error,
            "ok": security.read_flash(web.secret, request.url.path, request.query_params.get("ok", "")),
            "director_skills": DIRECTOR_SKILLS,
            "penalty_skills": PENALTIES,
            "command_skills": COMMANDS,
            "base": str(request.base_url).rstrip("/"),
            "version": version,
            # the god view shows the thread's newest page; every page is at /d/g/{id}/thread
            "tp": thread_page(ctx["items"], None, "", ctx["v"]["phase"]),
            "thread_base": f"/d/g/{game_id}/thread",
        }
    )
    return web.render(request, "god.html", ctx, status)


def page_args(request: Request) -> tuple[int | None, str]:
    """?page=N and ?day=第N天 of a thread page (None: the default page, also for a bad number)."""
    try:
        number = form_int(request.query_params.get("page", ""), "page", 1, MAX_INT)
    except ValueError:
        number = None
    return number, request.query_params.get("day", "")[:16]


@router.get("/d/g/{game_id}/thread", response_class=HTMLResponse)
def god_thread(request: Request, game_id: GameId, web: WebDep, owned: DirectorGame) -> Response:
    """The whole thread as the director sees it (pending 公示 in place), by page and by day."""
    ctx = director_page(web.service, game_id)
    page, day = page_args(request)
    ctx.update(
        {
            "director": owned.director,
            "csrf": owned.csrf,
            "error": "",
            "ok": "",
            "version": web.service.version(game_id),
            "tp": thread_page(ctx["items"], page, day, ctx["v"]["phase"]),
            "thread_base": f"/d/g/{game_id}/thread",
        }
    )
    return web.render(request, "god_thread.html", ctx)


@router.get("/d/g/{game_id}", response_class=HTMLResponse)
def god_view(request: Request, game_id: GameId, web: WebDep, owned: DirectorGame) -> Response:
    return god(web, request, owned.director, owned.csrf, game_id)


Act = Callable[[FormData, str], str]


async def god_action(request: Request, web: Web, owned: OwnedGameForm, act: Act) -> Response:
    game_id = owned.game.id
    form = owned.form
    at = field(form.get("at"))  # the phase/stage/prompt the page showed: refused once the game moved on
    try:
        if not at:
            raise ServiceError("表单缺少阶段标记，请刷新页面后重试")
        key = field(form.get(idem.KEY_FIELD))
        done = await run_in_threadpool(web.service.once, game_id, key, lambda: act(form, at))
    except ServiceError as exc:
        return await run_in_threadpool(god, web, request, owned.director, owned.csrf, game_id, exc.reason, exc.status)
    except ValueError:  # never a Python message on a page
        return await run_in_threadpool(
            god, web, request, owned.director, owned.csrf, game_id, "输入的内容有误，请检查后重试", 400
        )
    path = f"/d/g/{game_id}"
    return RedirectResponse(f"{path}?ok={quote(security.sign_flash(web.secret, path, done))}", status_code=303)


def _director_command(web: Web, game_id: int, skills: dict[str, str]) -> Act:
    def act(form: FormData, at: str) -> str:
        skill = field(form.get("skill"))
        if skill not in skills:
            raise ServiceError("请选择判罚" if skills is PENALTIES else "未知的导演指令")
        target = field(form.get("target")).strip()
        if skills is PENALTIES and not target:
            raise ServiceError("请选择被判罚的角色")
        amount = parse_int(field(form.get("amount")), "分值", 1, 10000)
        reason = field(form.get("reason")).strip()
        cmd = Command(DIRECTOR, skill, (target,) if target else (), amount=amount)
        web.service.director_command(game_id, cmd, at, reason or None)
        return f"已执行：{skills[skill]}" + (f"（{target}）" if target else "")

    return act


@router.post("/d/g/{game_id}/command", response_class=HTMLResponse)
async def god_command(request: Request, game_id: GameId, web: WebDep, owned: DirectorGameForm) -> Response:
    return await god_action(request, web, owned, _director_command(web, game_id, DIRECTOR_SKILLS))


@router.post("/d/g/{game_id}/penalty", response_class=HTMLResponse)
async def god_penalty(request: Request, game_id: GameId, web: WebDep, owned: DirectorGameForm) -> Response:
    """判罚 only (蓝/黄/红牌, 扣分): never a command, and always a named character."""
    return await god_action(request, web, owned, _director_command(web, game_id, PENALTIES))


@router.post("/d/g/{game_id}/undo", response_class=HTMLResponse)
async def god_undo(request: Request, game_id: GameId, web: WebDep, owned: DirectorGameForm) -> Response:
    def act(form: FormData, at: str) -> str:
        return web.service.undo(game_id, at)

    return await god_action(request, web, owned, act)


@router.post("/d/g/{game_id}/deadlines/{deadline_id}", response_class=HTMLResponse)
async def god_deadline(
    request: Request, game_id: GameId, deadline_id: DeadlineId, web: WebDep, owned: DirectorGameForm
) -> Response:
    """One deadline of the timetable: earlier or later by some minutes, or due now."""

    def act(form: FormData, at: str) -> str:
        if field(form.get("action")) == "now":
            row = web.service.due_now(game_id, deadline_id, at)
            return f"{row.label}的时限已改为现在，马上执行"
        minutes = parse_int(field(form.get("minutes")), "调整分钟数", -60 * 24 * 14, 60 * 24 * 14)
        if minutes is None:
            raise ServiceError("请填写调整的分钟数（负数为提前）")
        row = web.service.move_deadline(game_id, deadline_id, minutes, at)
        return f"{row.label}的时限已{'推迟' if minutes > 0 else '提前'}{abs(minutes)}分钟"

    return await god_action(request, web, owned, act)


@router.post("/d/g/{game_id}/dawn", response_class=HTMLResponse)
async def god_dawn(request: Request, game_id: GameId, web: WebDep, owned: DirectorGameForm) -> Response:
    """The pending dawn 公示: publish it now (the day begins), or set its automatic publish time."""

    def act(form: FormData, at: str) -> str:
        if field(form.get("action")) == "publish":
            label = web.service.publish_dawn(game_id, at)
            return f"已发布黎明公示，{label}开始"
        text = field(form.get("when")).strip()
        tz = sched.zone(owned.game.timezone)
        when = sched.parse_local(text, tz) if text else None
        web.service.set_dawn(game_id, when, at)
        return f"黎明公示将于 {sched.local_text(when, tz)} 自动发布" if when else "已取消自动发布"

    return await god_action(request, web, owned, act)


@router.post("/d/g/{game_id}/proxy-vote", response_class=HTMLResponse)
async def god_proxy(request: Request, game_id: GameId, web: WebDep, owned: DirectorGameForm) -> Response:
    def act(form: FormData, at: str) -> str:
        player, target = field(form.get("player")), field(form.get("target"))
        web.service.proxy_vote(game_id, player, target, at)
        return f"已为{player}代投{target}"

    return await god_action(request, web, owned, act)


@router.post("/d/g/{game_id}/thread-post", response_class=HTMLResponse)
async def god_thread_post(request: Request, game_id: GameId, web: WebDep, owned: DirectorGameForm) -> Response:
    def act(form: FormData, at: str) -> str:
        post = web.service.director_post(game_id, field(form.get("text")), reply_to=post_id(form))
        return f"已在讨论帖发言（{post.phase}）"

    return await god_action(request, web, owned, act)


@router.post("/d/g/{game_id}/extend", response_class=HTMLResponse)
async def god_extend(request: Request, game_id: GameId, web: WebDep, owned: DirectorGameForm) -> Response:
    def act(form: FormData, at: str) -> str:
        minutes = parse_int(field(form.get("minutes")), "延长分钟数", -60 * 24 * 14, 60 * 24 * 14)
        if minutes is None:
            raise ServiceError("请填写延长的分钟数")
        row = web.service.extend(game_id, minutes, at)
        return f"{row.label}的时限已调整"

    return await god_action(request, web, owned, act)


@router.post("/d/g/{game_id}/publish", response_class=HTMLResponse)
async def god_publish(request: Request, game_id: GameId, web: WebDep, owned: DirectorGameForm) -> Response:
    def act(form: FormData, at: str) -> str:
        upto = parse_int(field(form.get("upto")), "公示序号", 0, 10**6)
        if upto is None:
            raise ServiceError("请选择要发布的公示")
        n = web.service.publish(game_id, upto, at)
        return f"已发布{n}条公示"

    return await god_action(request, web, owned, act)


@router.post("/d/g/{game_id}/announcements/{idx}", response_class=HTMLResponse)
async def god_announcement(
    request: Request, game_id: GameId, idx: AnnouncementIndex, web: WebDep, owned: DirectorGameForm
) -> Response:
    """One pending 公示: 修改 (the director's wording), 扣留 / 取消扣留, or 单独发布."""

    def act(form: FormData, at: str) -> str:
        action = field(form.get("action"))
        if action == "edit":
            web.service.edit_announcement(game_id, idx, field(form.get("text")), at)
            return "公示已修改（发布前仍可再改）"
        if action in ("withhold", "release"):
            web.service.withhold(game_id, idx, action == "withhold", at)
            return "公示已扣留，不会随“发布到此条”发出" if action == "withhold" else "公示已放回待发布"
        if action == "publish":
            web.service.publish(game_id, idx, at, only=True)
            return "已发布这条公示"
        raise ServiceError("未知的操作")

    return await god_action(request, web, owned, act)


@router.post("/d/g/{game_id}/notices/{post_id}", response_class=HTMLResponse)
async def god_notice(
    request: Request, game_id: GameId, post_id: NoticeId, web: WebDep, owned: DirectorGameForm
) -> Response:
    """One of the service's own pending notices (替补, 延时): 发布, 扣留 / 取消扣留, 修改."""

    def act(form: FormData, at: str) -> str:
        return web.service.review_notice(game_id, post_id, field(form.get("action")), field(form.get("text")), at)

    return await god_action(request, web, owned, act)


@router.post("/d/g/{game_id}/substitute", response_class=HTMLResponse)
async def god_substitute(request: Request, game_id: GameId, web: WebDep, owned: DirectorGameForm) -> Response:
    def act(form: FormData, at: str) -> str:
        name = field(form.get("player"))
        person = field(form.get("person"))
        web.service.substitute(game_id, name, at, person)
        return f"{name}已换上替补{'（' + person.strip() + '）' if person.strip() else ''}，新链接见角色表"

    return await god_action(request, web, owned, act)


@router.post("/d/g/{game_id}/status", response_class=HTMLResponse)
async def god_status(request: Request, game_id: GameId, web: WebDep, owned: DirectorGameForm) -> Response:
    def act(form: FormData, at: str) -> str:
        action = field(form.get("action"))
        web.service.set_status(game_id, action, at)
        return {"pause": "游戏已暂停", "resume": "游戏已恢复", "end": "游戏已结束"}.get(action, "")

    return await god_action(request, web, owned, act)


@router.post("/d/g/{game_id}/flags", response_class=HTMLResponse)
async def god_flags(request: Request, game_id: GameId, web: WebDep, owned: DirectorGameForm) -> Response:
    """潜水 flags in bulk: the ticked ones are all 判罚 or all 忽略."""

    def act(form: FormData, at: str) -> str:
        ids = [parse_int(field(v), "潜水记录", 1, MAX_INT) for v in form.getlist("flag")]
        chosen = [i for i in ids if i is not None]
        issue = field(form.get("action")) == "issue"
        n = web.service.resolve_flags(game_id, chosen, issue, at)
        return f"已判罚{n}条潜水记录" if issue else f"已忽略{n}条潜水记录"

    return await god_action(request, web, owned, act)


@router.post("/d/g/{game_id}/flags/{flag_id}", response_class=HTMLResponse)
async def god_flag(
    request: Request, game_id: GameId, flag_id: FlagId, web: WebDep, owned: DirectorGameForm
) -> Response:
    def act(form: FormData, at: str) -> str:
        issue = field(form.get("action")) == "issue"
        web.service.resolve_flag(game_id, flag_id, issue, at)
        return "已判罚" if issue else "已忽略"

    return await god_action(request, web, owned, act)


@router.get("/d/g/{game_id}/export.json")
def god_export(game_id: GameId, web: WebDep, _owned: DirectorGame) -> Response:
    data = web.service.export(game_id)
    headers = {"Content-Disposition": f'attachment; filename="banshe-game-{game_id}.json"'}
    return JSONResponse(data, headers=headers)


def review(web: Web, request: Request, game_id: int, allowed: bool, back: tuple[str, str] = ("", "")) -> Response:
    ctx = director_page(web.service, game_id)
    if not allowed and not ctx["over"]:
        return web.message(request, "游戏结束后才能查看复盘", 403)
    page, day = page_args(request)
    ctx.update(
        {
            "back": back[0],
            "back_label": back[1],
            "tp": thread_page([i for i in ctx["items"] if i.kind != "pending"], page, day, ctx["v"]["phase"]),
            "thread_base": request.url.path,
            "thread_anchor": "#review-thread",
            "thread_open": page is not None or bool(day),
        }
    )
    return web.render(request, "review.html", ctx)


@router.get("/d/g/{game_id}/review", response_class=HTMLResponse)
def god_review(request: Request, game_id: GameId, web: WebDep, _owned: DirectorGame) -> Response:
    return review(web, request, game_id, allowed=True, back=(f"/d/g/{game_id}", "返回导演页面"))
