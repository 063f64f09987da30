"""How `banshe serve` holds its connections (issue 25): what one client may keep open.

Uvicorn closes a keep-alive connection after `idle_timeout` seconds without data, but any byte
restarts that clock, and nothing limits how long a request's headers or body may take: 1,100
half-sent requests held every descriptor of a process started with the usual limit of 1,024.
`GuardedHttpTools` (uvicorn's httptools protocol) adds, at the cost of a timer per request:

- a **header timeout**: a request's line and headers must arrive within `header_timeout` seconds
  of the connection (or of the previous response) — trickling a byte at a time does not extend it;
- a **body timeout**: a request body may not stall for more than `body_timeout` seconds;
- **connections per client address** (`connections_per_client`): more are closed at once with a
  503; a trusted reverse proxy (BANSHE_TRUSTED_PROXIES) is not counted — behind it, nginx's
  `limit_conn` counts the real clients (docs/deploy.md).

Live streams (SSE) are limited per link and per game by the application (live.StreamCaps), and a
player's secret link never reaches the access log (`RedactTokens`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import time
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol  # uvicorn[standard] brings httptools

from . import timeline
from .config import Settings
from .security import Network, parse_proxies

log = logging.getLogger("banshe.service")
_LINK = re.compile(r"/p/[^/?#\s\"]+")
TOO_MANY = (
    "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    "retry-after: 10\r\nconnection: close\r\ncontent-length: {n}\r\n\r\n{body}"
)
TOO_MANY_BODY = "同一地址打开的连接过多，请稍后重试".encode()
TOO_MANY_RESPONSE = TOO_MANY.format(n=len(TOO_MANY_BODY), body="").encode() + TOO_MANY_BODY


def redact(text: str) -> str:
    """A path or log line with every player link (`/p/<token>`) replaced by `/p/…`."""
    return _LINK.sub("/p/…", text) if "/p/" in text else text


class RedactTokens(logging.Filter):
    """On uvicorn's access log: the request line without the player's secret token."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


def install_log_redaction() -> None:
    """Once per process (create_app calls it; uvicorn's logging setup keeps logger filters)."""
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactTokens) for f in access.filters):
        access.addFilter(RedactTokens())


@dataclass(frozen=True)
class Limits:
    header_timeout: float
    body_timeout: float
    per_client: int
    proxies: tuple[Network, ...]

    @staticmethod
    def of(settings: Settings) -> Limits:
        return Limits(
            settings.header_timeout,
            settings.body_timeout,
            settings.connections_per_client,
            parse_proxies(settings.trusted_proxies),
        )

    def counted(self, host: str) -> bool:
        """Connections from `host` count against the per-client limit (not a trusted proxy's)."""
        import ipaddress

        try:
            addr = ipaddress.ip_address(host)
        except ValueError:
            return bool(host)
        return not any(addr in net for net in self.proxies)


_limits: Limits | None = None
_timeline = timeline.enabled()  # read once: the protocol's marks cost nothing when off
_open: dict[str, int] = {}  # client address -> open connections (this process's event loop only)


def limits() -> Limits:
    """This process's limits (from the environment, as each `--workers` process reads them)."""
    global _limits
    if _limits is None:
        _limits = Limits.of(Settings.from_env())
    return _limits


def configure(settings: Settings) -> None:
    global _limits
    _limits = Limits.of(settings)


class GuardedHttpTools(HttpToolsProtocol):
    """Uvicorn's httptools protocol with a header timeout, a body timeout and a per-client cap."""

    _guard_host = ""
    _guard_timer: asyncio.TimerHandle | None = None
    _guard_last = 0.0  # loop time of the last body bytes (the body timer re-arms from it)
    _tl_accept: float | None = None  # BANSHE_TIMELINE: when the connection came, when bytes last came
    _tl_recv: float | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if _timeline:
            self._tl_accept = time.perf_counter()
        super().connection_made(transport)
        lim = limits()
        host = self.client[0] if self.client else ""
        if lim.counted(host):
            n = _open.get(host, 0) + 1
            _open[host] = n
            self._guard_host = host
            if n > lim.per_client:
                transport.write(TOO_MANY_RESPONSE)
                transport.close()
                return
        self._arm(lim.header_timeout, self._header_expired)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        host = self._guard_host
        if host:
            self._guard_host = ""
            left = _open.get(host, 0) - 1
            if left > 0:
                _open[host] = left
            else:
                _open.pop(host, None)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if _timeline:
            self._tl_recv = time.perf_counter()
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if _timeline:
            self.scope[timeline.SCOPE_KEY] = timeline.protocol_marks(self._tl_accept, self._tl_recv)  # type: ignore[literal-required]
            self._tl_accept = None  # the connection's first request only

    def on_headers_complete(self) -> None:
        if _timeline:
            marks = self.scope.get(timeline.SCOPE_KEY)
            if isinstance(marks, list):
                marks.append(("headers", time.perf_counter(), "L"))
        # the headers are in: from now on the body may not stall (no body: nothing to wait for)
        self._guard_last = self.loop.time()
        self._arm(limits().body_timeout, self._body_stalled)
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        self._guard_last = self.loop.time()
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._disarm()  # the request is whole: its handler (or a live stream) takes its time
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.timeout_keep_alive_task is not None:  # waiting for the next request's headers
            self._arm(limits().header_timeout, self._header_expired)

    # -- timers --------------------------------------------------------------------------
    def _arm(self, seconds: float, then: Any) -> None:
        self._disarm()
        self._guard_timer = self.loop.call_later(seconds, then)

    def _disarm(self) -> None:
        if self._guard_timer is not None:
            self._guard_timer.cancel()
            self._guard_timer = None

    def _header_expired(self) -> None:
        self._guard_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def _body_stalled(self) -> None:
        self._guard_timer = None
        if self.flow is not None and self.flow.read_paused:  # we stopped reading (the app is busy): not a stall
            self._guard_last = self.loop.time()
        left = self._guard_last + limits().body_timeout - self.loop.time()
        if left > 0:  # bytes came meanwhile: wait the rest from the last of them
            self._guard_timer = self.loop.call_later(left, self._body_stalled)
        elif not self.transport.is_closing():
            self.transport.close()


PROTOCOL = "banshe.service.serving:GuardedHttpTools"  # by name: each --workers process imports it
FREEZE_AT_START = "BANSHE_GC_FREEZE"  # set by `run`, read by each serving process once it started (app.py)


def run(target: Any, host: str, port: int, log_level: str, workers: int = 1, factory: bool = False) -> None:
    """uvicorn.run with the guarded protocol and the idle timeout (`target`: the app, or with
    `workers` > 1 the import string of its factory)."""
    import uvicorn

    settings = Settings.from_env()
    configure(settings)
    os.environ[FREEZE_AT_START] = "1"
    uvicorn.run(
        target,
        host=host,
        port=port,
        log_level=log_level,
        workers=workers if workers > 1 else None,
        factory=factory,
        http=PROTOCOL,
        timeout_keep_alive=settings.idle_timeout,  # type: ignore[arg-type]  # a float works (call_later)
    )
