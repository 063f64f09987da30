"""The forum desk (issue 14): a game played on a Discuz! thread, with banshe as the director's desk.

The director reads the day's thread (uploaded pages or its address) into `banshe forum count`'s
result, reviews every floor's verdict, overrides one with a note (kept with the day), and
applies the votes: they enter the engine as the service's commands in floor order (source
`forum`), and the thread's posts are mirrored into the game's thread, each citing its floor.
Night actions sent privately are entered from the same page (代投); every 公示 is shown as
BBCode to paste into the forum thread.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlparse

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile

from ..engine.commands import CHANGE_VOTE, VOTE, Command, IllegalCommand
from ..engine.core import apply_in_place
from ..forum.count import CountError, Options, count, parse_close
from ..forum.count import Game as CountGame
from ..forum.discuz import ForumError, Thread, decode_page, parse_page, read_thread
from ..rulesets.registry import find_ruleset
from ..scenario import to_command
from . import schedule as sched
from .forum_models import ForumDay, ForumOverride
from .games import GameService, NotFound, ServiceError, public_announcements
from .models import Director, Game, Post

MAX_UPLOAD = 20 * 1024 * 1024
ALLOW_PRIVATE_ENV = "BANSHE_FORUM_PRIVATE_HOSTS"  # "1": the desk may fetch threads on private addresses
_WORDS = {VOTE: "投票", CHANGE_VOTE: "改票"}


def forum_bbcode(rs_id: str, phase: str, text: str) -> str:
    """A 公示 in the director's reserved fonts: red #FF0000 and size 6 (品茗 违规判定 6(1): players may
    use neither); 沉寂与取酒 lets players use red, so its body is set in size 6 instead."""
    head = f"[size=6][color=#FF0000][b]【{phase}公示】[/b][/color][/size]"
    body = f"[size=6]{text}[/size]" if rs_id in ("chenji",) else f"[color=#FF0000]{text}[/color]"
    return f"{head}\n{body}"


def _public_host(url: str) -> None:
    """The server fetches only public http(s) addresses (no loopback, private or link-local hosts)."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ServiceError("帖子地址必须是 http:// 或 https:// 开头的网址")
    if os.environ.get(ALLOW_PRIVATE_ENV) == "1":
        return
    try:
        infos = socket.getaddrinfo(parsed.hostname, parsed.port or 80)
    except OSError:
        raise ServiceError(f"无法解析帖子地址的主机名：{parsed.hostname}") from None
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]))
        if address.is_private or address.is_loopback or address.is_link_local or address.is_reserved:
            raise ServiceError(f"不能读取内网地址的帖子：{parsed.hostname}（请上传保存的页面）")


class ForumDesk:
    def __init__(self, service: GameService) -> None:
        self.service = service

    # -- reading -------------------------------------------------------------------------------
    def read(
        self,
        game_id: int,
        pages: list[tuple[str, bytes]],
        url: str,
        close: str,
        accelerated: bool | None,
    ) -> ForumDay:
        export = self.service.export(game_id)
        if export["status"] == "ended":
            raise ServiceError("游戏已经结束")
        game = CountGame(find_ruleset(str(export["ruleset"])), export=export, source=f"对局{game_id}")
        try:
            if pages:
                thread = Thread([parse_page(decode_page(data), name) for name, data in pages])
                source = "上传：" + "、".join(name for name, _ in pages)
            elif url.strip():
                _public_host(url.strip())
                thread = read_thread([url.strip()])
                source = url.strip()
            else:
                raise ServiceError("请上传帖子页面或填写帖子地址")
            _game, state = self.service.read(game_id)
            options = Options(
                close=parse_close(close) if close.strip() else None,
                accelerated=state.accelerated if accelerated is None else accelerated,
            )
            result = count(game, thread, options)
        except (CountError, ForumError) as exc:
            raise ServiceError(str(exc)) from None
        with self.service.sessions() as s:
            day = ForumDay(
                game_id=game_id, phase=result["day"], source=source, result=result, created_at=self.service.clock()
            )
            s.add(day)
            s.commit()
            return day

    def day(self, game_id: int, day_id: int) -> ForumDay:
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
        """Every vote post with its final verdict: the count's, or the director's last override."""
        last = {o.floor: o for o in self.overrides(day.id)}
        out = []
        for post in day.result["posts"]:
            o = last.get(post["floor"])
            if post["kind"] not in (VOTE, CHANGE_VOTE) and o is None:
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

    def _mirror(self, game: Game, day: ForumDay, applied: dict[int, Command]) -> None:
        """The thread's posts by characters enter the game's thread, each citing its floor."""
        tz = sched.zone(game.timezone)
        with self.service.sessions() as s:
            for post in day.result["posts"]:
                if post["kind"] in ("director", "other"):
                    continue
                when = datetime.strptime(post["time"], "%Y-%m-%d %H:%M").replace(tzinfo=tz).timestamp()
                cmd = applied.get(post["floor"])
                s.add(
                    Post(
                        game_id=game.id,
                        author=post["author"],
                        phase=day.phase,
                        text=f"［论坛{post['floor']}楼］{post['body']}"[:4000],
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
        return f"已代{player}提交<{skill.strip()}>"

    # -- the page ---------------------------------------------------------------------------------
    def page(self, game_id: int, day_id: int | None) -> dict[str, Any]:
        game, state = self.service.read(game_id)
        rs = find_ruleset(game.ruleset)
        with self.service.sessions() as s:
            days = list(s.scalars(select(ForumDay).where(ForumDay.game_id == game_id).order_by(ForumDay.id.desc())))
        current = next((d for d in days if d.id == day_id), days[0] if days else None)
        effective = self.effective(current) if current else []
        by_floor = {v["floor"]: v for v in effective}
        announcements = [
            {"phase": e.phase, "text": e.text, "bbcode": forum_bbcode(rs.id, e.phase, e.text)}
            for e in public_announcements(state)
        ]
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
            "announcements": announcements[::-1],
        }


def install(
    app: FastAPI,
    service: GameService,
    render: Callable[[Request, str, dict[str, Any], int], HTMLResponse],
    director_of: Callable[[Request], tuple[Director, str]],
    director_form: Callable[[Request], Awaitable[tuple[Director, str, FormData]]],
    owned: Callable[[Director, int], Game],
) -> ForumDesk:
    """Register the desk's pages on the service's app (its session, CSRF and ownership checks)."""
    desk = ForumDesk(service)

    def show(request: Request, game_id: int, day_id: int | None = None, error: str = "", status: int = 200) -> Response:
        director, csrf = director_of(request)
        owned(director, game_id)
        ctx = desk.page(game_id, day_id)
        ctx.update({"director": director, "csrf": csrf, "error": error, "ok": request.query_params.get("ok", "")})
        return render(request, "forum.html", ctx, status)

    Act = Callable[[FormData], Awaitable[tuple[str, int | None]]]

    async def action(request: Request, game_id: int, act: Act) -> Response:
        director, _csrf, form = await director_form(request)
        await run_in_threadpool(owned, director, game_id)
        try:
            done, day_id = await act(form)
        except ServiceError as exc:
            return await run_in_threadpool(show, request, game_id, None, exc.reason, exc.status)
        where = f"/d/g/{game_id}/forum" + (f"?day={day_id}&" if day_id else "?")
        return RedirectResponse(f"{where}ok={quote(done)}", status_code=303)

    @app.get("/d/g/{game_id}/forum", response_class=HTMLResponse)
    def forum_page(request: Request, game_id: int, day: int | None = None) -> Response:
        return show(request, game_id, day)

    @app.post("/d/g/{game_id}/forum/read", response_class=HTMLResponse)
    async def forum_read(request: Request, game_id: int) -> Response:
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
            day = await run_in_threadpool(
                desk.read, game_id, pages, _text(form.get("url")), _text(form.get("close")), accelerated
            )
            return f"已读取{day.phase}的帖子", day.id

        return await action(request, game_id, act)

    @app.post("/d/g/{game_id}/forum/{day_id}/override", response_class=HTMLResponse)
    async def forum_override(request: Request, game_id: int, day_id: int) -> Response:
        async def act(form: FormData) -> tuple[str, int | None]:
            try:
                floor = int(_text(form.get("floor")))
            except ValueError:
                raise ServiceError("楼层必须是数字") from None
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
    async def forum_apply(request: Request, game_id: int, day_id: int) -> Response:
        async def act(_form: FormData) -> tuple[str, int | None]:
            n = await run_in_threadpool(desk.apply, game_id, day_id)
            return f"已录入{n}张票", day_id

        return await action(request, game_id, act)

    @app.post("/d/g/{game_id}/forum/act", response_class=HTMLResponse)
    async def forum_act(request: Request, game_id: int) -> Response:
        async def act(form: FormData) -> tuple[str, int | None]:
            done = await run_in_threadpool(
                desk.proxy, game_id, _text(form.get("player")), _text(form.get("skill")), _text(form.get("targets"))
            )
            return done, None

        return await action(request, game_id, act)

    return desk


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _page_key(name: str) -> tuple[int, str]:
    digits = "".join(ch if ch.isdigit() else " " for ch in name).split()
    return (int(digits[-1]) if digits else 0, name)
