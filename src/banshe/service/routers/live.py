"""Live updates (SSE, issue 13): the god view's and a player's `/events` streams, pushed by
`service/live.py` (one read per game and write; fragments or `reload` per viewer)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse

from ..live import Live
from ..views import player_page, viewer_version
from ..web import DirectorGame, PlayerSeatDep, WebDep

router = APIRouter()


def _live(request: Request) -> Live:
    pushed: Live = request.app.state.live
    return pushed


@router.get("/d/g/{game_id}/events")
async def god_events(request: Request, game_id: int, web: WebDep, _owned: DirectorGame) -> Response:
    # the director sees all: his page reloads on every change of the game
    return sse(_live(request).stream(game_id, "", web.settings.sse_max_seconds, request.is_disconnected))


@router.get("/p/{token}/events")
async def player_events(request: Request, web: WebDep, me: PlayerSeatDep) -> Response:
    token = me.token

    def version() -> str:  # raises NotFound once the link died (替补): the stream ends
        return viewer_version(player_page(web.service, web.service.seat_by_token(token)))

    stream = _live(request).stream(
        me.seat.game_id,
        me.seat.name,
        web.settings.sse_max_seconds,
        request.is_disconnected,
        version,
        request.query_params.get("v", "")[:64],  # the version his page was rendered with
        lambda: web.service.seat_by_token(token),
    )
    return sse(stream)


def sse(stream: AsyncIterator[str]) -> StreamingResponse:
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream, media_type="text/event-stream", headers=headers)
