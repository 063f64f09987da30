"""Server-side request timings for the load benchmark (issue 13: server-side latency percentiles).

Off unless `BANSHE_TIMING_FILE` names a file: then every finished HTTP request appends
`<kind> <milliseconds> <end, epoch seconds>` to `<file>.<pid>` (one file per worker process), from the request's arrival
at the application to its last body byte. SSE streams are not timed (they last for the connection).
"""

from __future__ import annotations

import os
import re
import time
from typing import IO, Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

ENV = "BANSHE_TIMING_FILE"
_PLAYER = re.compile(r"^/p/[^/]+(/[a-z._]+)?$")


def kind_of(method: str, path: str) -> str | None:
    """The benchmark's route kinds: `post` (a post or a vote), `page`, `static`, `other`; None: a stream."""
    if path.startswith("/static/"):
        return "static"
    m = _PLAYER.match(path)
    if m is not None:
        tail = m.group(1) or ""
        if tail == "/events":
            return None
        if method == "POST" and tail == "/post":
            return "post"
        if method == "GET" and tail in ("", "/thread"):
            return "page"
    return "other"


class TimingMiddleware:
    def __init__(self, app: ASGIApp, path: str) -> None:
        self.app = app
        self.path = path
        self._file: IO[str] | None = None

    def _write(self, kind: str, ms: float) -> None:
        if self._file is None:
            self._file = open(f"{self.path}.{os.getpid()}", "a", encoding="utf-8")  # noqa: SIM115 - process-long
        self._file.write(f"{kind} {ms:.3f} {time.time():.3f}\n")
        self._file.flush()  # one small write per request (µs); nothing lost when the server is killed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        kind = kind_of(scope["method"], scope["path"])
        if kind is None:
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()

        async def timed(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                self._write(kind, (time.perf_counter() - start) * 1000)

        await self.app(scope, receive, timed)


def install(app: Any) -> None:
    """Add the middleware when the environment asks for it (outermost, so it times everything)."""
    path = os.environ.get(ENV, "")
    if path:
        app.add_middleware(TimingMiddleware, path=path)
