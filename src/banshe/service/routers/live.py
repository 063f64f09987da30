"""Live updates (SSE, issue 13): the god view's and a player's `/events` streams, pushed by
`service/live.py` (one read per game and write; fragments or `reload` per viewer)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from ..edge import GameId
from ..live import Live
from ..views import player_page, viewer_version
from ..web import DirectorGame, PlayerSeatDep, WebDep

router = APIRouter()


def _live(request: Request) -> Live:
    pushed: Live = request.app.state.live
    return pushed


@router.get("/d/g/{game_id}/events")
async def god_events(request: Request, game_id: GameId, web: WebDep, _owned: DirectorGame) -> Response:
    # the director sees all: his page reloads on every change of the game
    live = _live(request)
    refused = live.caps.admit(game_id, "")
    if refused:
        return web.message(request, refused, 429)
    stream = live.stream(game_id, "", web.settings.sse_max_seconds, request.is_disconnected)
    return sse(stream, lambda: live.caps.release(game_id, ""))


@router.get("/p/{token}/events")
async def player_events(request: Request, web: WebDep, me: PlayerSeatDep) -> Response:
    token = me.token
    live = _live(request)
    game_id, name = me.seat.game_id, me.seat.name
    refused = live.caps.admit(game_id, name)
    if refused:
        return web.message(request, refused, 429)

    def version() -> str:  # raises NotFound once the link died (替补): the stream ends
        return viewer_version(player_page(web.service, web.service.seat_by_token(token)))

    stream = live.stream(
        game_id,
        name,
        web.settings.sse_max_seconds,
        request.is_disconnected,
        version,
        request.query_params.get("v", "")[:64],  # the version his page was rendered with
        lambda: web.service.seat_by_token(token),
    )
    return sse(stream, lambda: live.caps.release(game_id, name))


class EventStream(StreamingResponse):
    """An SSE response that gives its place back (`StreamCaps.release`) however it ends: the
    stream finished, the client left, or the stream never started."""

    def __init__(self, stream: AsyncIterator[str], release: Callable[[], None]) -> None:
        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        super().__init__(stream, media_type="text/event-stream", headers=headers)
        self._release: Callable[[], None] | None = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.done()

    def done(self) -> None:
        if self._release is not None:
            release, self._release = self._release, None
            release()


def sse(stream: AsyncIterator[str], release: Callable[[], None]) -> EventStream:
    return EventStream(stream, release)
