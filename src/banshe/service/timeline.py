"""Per-request timelines (issue 26): where a request's wall-clock time goes, from the moment the
event loop read its first bytes to its last byte sent.

Off unless `BANSHE_TIMELINE` names a file; then every timed HTTP request (the kinds of
`timing.kind_of`: posts, pages, static files, other; SSE streams are not requests) appends one
JSON line to `<file>.<pid>`:

    {"kind": "post", "path": "/p/…/post", "end": <epoch>, "ms": <total>,
     "marks": [[label, ms since the first mark, thread], …], "sql_ms": …, "sql_n": …,
     "render_ms": …, "cpu_ms": …}

Marks, in order of time (any may be missing):

- `accept` — the connection was accepted (first request on a connection only);
- `recv` — the event loop read the request's first bytes (GuardedHttpTools.data_received);
- `headers` — the headers were parsed and the request's task created;
- `app` — the task started running the application (loop scheduling since `headers`);
- `body` — the form was read;
- `hop:<name>` / `run:<name>` / `ran:<name>` / `back:<name>` — work handed to a thread
  (`hop`): queued on the loop, started in the thread, finished there, resumed on the loop. The
  gaps are the thread pool's wake-up, the GIL, and the loop's own queue;
- `lock` / `locked` — waiting for the game's lock and the SQLite writer (store._tx), `commit`;
- `start` / `end` — the response's headers and its last byte handed to the transport.

`thread` is "L" for the event loop's thread, "W" for any other. `sql_ms` is the time spent in
the database driver (SQLAlchemy's cursor events), `render_ms` in templates, `cpu_ms` the CPU time
of the request's `hop` and `inline` sections (time.thread_time, summed): wall minus CPU is waiting —
for the GIL, a lock, the database, or a turn on the loop.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import IO, Any, TypeVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

ENV = "BANSHE_TIMELINE"
SCOPE_KEY = "banshe.timeline"  # the marks the protocol made before the app ran (scope extension)
T = TypeVar("T")


def enabled() -> bool:
    return bool(os.environ.get(ENV))


class Timeline:
    __slots__ = ("cpu", "loop", "marks", "render", "sql", "sql_n")

    def __init__(self, marks: list[tuple[str, float, str]] | None = None) -> None:
        self.marks: list[tuple[str, float, str]] = marks if marks is not None else []
        self.loop = threading.get_ident()
        self.sql = 0.0
        self.sql_n = 0
        self.render = 0.0
        self.cpu = 0.0

    def mark(self, label: str) -> None:
        self.marks.append((label, time.perf_counter(), "L" if threading.get_ident() == self.loop else "W"))

    def record(self, kind: str, path: str) -> dict[str, Any]:
        t0 = self.marks[0][1] if self.marks else time.perf_counter()
        last = self.marks[-1][1] if self.marks else t0
        return {
            "kind": kind,
            "path": path,
            "end": round(time.time(), 3),
            "ms": round((last - t0) * 1000, 3),
            "marks": [[label, round((t - t0) * 1000, 3), th] for label, t, th in self.marks],
            "sql_ms": round(self.sql * 1000, 3),
            "sql_n": self.sql_n,
            "render_ms": round(self.render * 1000, 3),
            "cpu_ms": round(self.cpu * 1000, 3),
        }


CURRENT: ContextVar[Timeline | None] = ContextVar("banshe_timeline", default=None)


def mark(label: str) -> None:
    """Mark `label` on the running request's timeline (nothing when timelines are off)."""
    tl = CURRENT.get()
    if tl is not None:
        tl.mark(label)


def protocol_marks(t_accept: float | None, t_recv: float | None) -> list[tuple[str, float, str]]:
    """The marks the HTTP protocol makes (on the loop) when a request begins."""
    out: list[tuple[str, float, str]] = []
    if t_accept is not None:
        out.append(("accept", t_accept, "L"))
    if t_recv is not None:
        out.append(("recv", t_recv, "L"))
    return out


async def hop(name: str, fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(*args)` in a worker thread, marking the hand-offs on the request's timeline."""
    from starlette.concurrency import run_in_threadpool

    tl = CURRENT.get()
    if tl is None:
        return await run_in_threadpool(fn, *args)
    tl.mark(f"hop:{name}")

    def timed() -> T:
        tl.mark(f"run:{name}")
        c0 = time.thread_time()
        try:
            return fn(*args)
        finally:
            tl.cpu += time.thread_time() - c0
            tl.mark(f"ran:{name}")

    try:
        return await run_in_threadpool(timed)
    finally:
        tl.mark(f"back:{name}")


def inline(name: str, fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(*args)` here (on the loop), marking it like `hop` does (`do:<name>` / `did:<name>`)."""
    tl = CURRENT.get()
    if tl is None:
        return fn(*args)
    tl.mark(f"do:{name}")
    c0 = time.thread_time()
    try:
        return fn(*args)
    finally:
        tl.cpu += time.thread_time() - c0
        tl.mark(f"did:{name}")


def watch_sql(engine: Any) -> None:
    """Add each statement's driver time to the running request's timeline."""
    from sqlalchemy import event

    starts: threading.local = threading.local()

    @event.listens_for(engine, "before_cursor_execute")
    def _before(*_a: Any, **_k: Any) -> None:
        starts.t = time.perf_counter()

    @event.listens_for(engine, "after_cursor_execute")
    def _after(*_a: Any, **_k: Any) -> None:
        tl = CURRENT.get()
        t = getattr(starts, "t", None)
        if tl is not None and t is not None:
            tl.sql += time.perf_counter() - t
            tl.sql_n += 1


def watch_render(env: Any) -> None:
    """Add each template's render time to the running request's timeline (wraps Template.render)."""
    cls = env.template_class
    if getattr(cls, "_banshe_timed", False):
        return
    plain = cls.render

    def render(self: Any, *args: Any, **kwargs: Any) -> str:
        tl = CURRENT.get()
        if tl is None:
            return str(plain(self, *args, **kwargs))
        t = time.perf_counter()
        try:
            return str(plain(self, *args, **kwargs))
        finally:
            tl.render += time.perf_counter() - t

    timed = type(cls.__name__, (cls,), {"render": render, "_banshe_timed": True})
    env.template_class = timed


class TimelineMiddleware:
    """Outermost: opens the request's timeline (with the protocol's marks) and writes it out."""

    def __init__(self, app: ASGIApp, path: str) -> None:
        self.app = app
        self.path = path
        self._file: IO[str] | None = None

    def _write(self, rec: dict[str, Any]) -> None:
        if self._file is None:
            self._file = open(f"{self.path}.{os.getpid()}", "a", encoding="utf-8")  # noqa: SIM115 - process-long
        self._file.write(json.dumps(rec, ensure_ascii=False) + "\n")
        self._file.flush()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from .serving import redact
        from .timing import kind_of

        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        kind = kind_of(scope["method"], scope["path"])
        if kind is None:
            await self.app(scope, receive, send)
            return
        tl = Timeline(list(scope.get(SCOPE_KEY) or []))
        tl.mark("app")
        token = CURRENT.set(tl)
        path = redact(scope["path"])

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                tl.mark("start")
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                tl.mark("end")
                self._write(tl.record(kind, path))

        try:
            await self.app(scope, receive, timed)
        finally:
            CURRENT.reset(token)


def install(app: Any, engine: Any, env: Any) -> None:
    """Add the middleware and the SQL and render watches when the environment asks for them."""
    path = os.environ.get(ENV, "")
    if not path:
        return
    watch_sql(engine)
    watch_render(env)
    watch_gc(path)
    app.add_middleware(TimelineMiddleware, path=path)


def watch_gc(path: str) -> None:
    """Every garbage collection of this process, one JSON line in `<path>-gc.<pid>`: its
    generation, how long it held the interpreter (every thread, the event loop's included, waits
    that long) and when it ended. The pauses of full collections were the slow requests' cause
    at 50 games (docs/performance.md, issue 26)."""
    import gc

    out = open(f"{path}-gc.{os.getpid()}", "a", buffering=1)  # noqa: SIM115 - open for the process's life
    began = [0.0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter()
        if phase == "start":
            began[0] = now
            return
        line = {"gen": info["generation"], "ms": round((now - began[0]) * 1000, 3), "end": time.time()}
        out.write(json.dumps(line) + "\n")

    gc.callbacks.append(on_gc)
