"""Live updates (SSE): the god view's and a player's `/events` streams."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from ..games import NotFound
from ..views import player_page, viewer_version
from ..web import DirectorGame, PlayerSeatDep, Web, WebDep

router = APIRouter()


@router.get("/d/g/{game_id}/events")
async def god_events(request: Request, game_id: int, web: WebDep, _owned: DirectorGame) -> Response:
    return sse(web, request, game_id, lambda: str(web.service.version(game_id)))  # the director sees all


@router.get("/p/{token}/events")
async def player_events(request: Request, web: WebDep, me: PlayerSeatDep) -> Response:
    token = me.token

    def version() -> str:  # raises NotFound once the link died (替补): the stream ends
        return viewer_version(player_page(web.service, web.service.seat_by_token(token)))

    return sse(web, request, me.seat.game_id, version)


def sse(web: Web, request: Request, game_id: int, version: Callable[[], str]) -> StreamingResponse:
    """Live updates: `version()` is what THIS viewer can see, digested; a message goes out only
    when it changes. The per-game change counter only says when to look again (it is never sent),
    and the viewer's version is looked at every sse_recheck_seconds too (other processes' writes,
    a dead link). A link that dies (替补) ends its stream with a `gone` event."""
    service, settings = web.service, web.settings

    async def stream() -> AsyncIterator[str]:
        sent: str | None = None
        looked, looked_at = -1, 0.0
        started = time.monotonic()
        yield "retry: 2000\n\n"
        while True:
            changes = service.version(game_id)
            if changes != looked or time.monotonic() - looked_at >= settings.sse_recheck_seconds:
                looked, looked_at = changes, time.monotonic()
                try:
                    current = await run_in_threadpool(version)
                except NotFound:
                    yield "event: gone\ndata: 链接已停用\n\n"
                    return
                if current != sent:
                    sent = current
                    yield f"event: update\ndata: {current}\n\n"
            if time.monotonic() - started >= settings.sse_max_seconds or await request.is_disconnected():
                return
            await asyncio.sleep(0.5)

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)
