"""What the service does to be safe on the open internet: response headers (a Content-Security-
Policy without inline script), the client's address and scheme behind a trusted reverse proxy,
login rate limits, and a bound on concurrent password hashing (argon2 takes 64 MiB a hash).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .edge import same

# No inline script anywhere (behaviour lives in /static/app.js, driven by data- attributes), no
# inline style (htmx's indicator style is switched off in base.html's htmx-config), no framing.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # a player's secret link must never leave in a Referer
    "Cross-Origin-Opener-Policy": "same-origin",
}


class HeadersMiddleware:
    """Adds HEADERS to every HTTP response (a plain ASGI middleware: SSE streams pass untouched),
    and `Cache-Control: no-store` to every page but the static files: a player's page, the god
    view, an export — nothing private stays in a shared computer's cache or a proxy's."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        private = not str(scope.get("path", "")).startswith("/static/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in HEADERS.items():
                    if key not in headers:
                        headers[key] = value
                if private:
                    headers["Cache-Control"] = "no-store"
            await send(message)

        await self.app(scope, receive, send_with_headers)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_proxies(text: str) -> tuple[Network, ...]:
    """BANSHE_TRUSTED_PROXIES: addresses or networks, separated by commas or spaces."""
    out: list[Network] = []
    for part in text.replace(",", " ").split():
        try:
            out.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ValueError(f"BANSHE_TRUSTED_PROXIES 中的地址无法识别：{part}") from None
    return tuple(out)


def _trusted(host: str, proxies: Iterable[Network]) -> bool:
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(addr in net for net in proxies)


def client_address(request: Request, proxies: tuple[Network, ...]) -> str:
    """The socket's peer; X-Forwarded-For only when that peer is a trusted proxy (then the nearest
    address in the chain that is not itself a trusted proxy)."""
    peer = request.client.host if request.client else ""
    if not proxies or not _trusted(peer, proxies):
        return peer
    chain = [p.strip() for p in request.headers.get("x-forwarded-for", "").split(",") if p.strip()]
    for hop in reversed(chain):
        if not _trusted(hop, proxies):
            return hop
    return chain[0] if chain else peer


def is_https(request: Request, proxies: tuple[Network, ...]) -> bool:
    """Served over HTTPS: the request's own scheme, or X-Forwarded-Proto from a trusted proxy."""
    if request.url.scheme == "https":
        return True
    peer = request.client.host if request.client else ""
    if proxies and _trusted(peer, proxies):
        return request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower() == "https"
    return False


class RateLimiter:
    """At most `limit` events per key in a sliding `window` seconds (failed logins)."""

    def __init__(self, limit: int, window: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        hits = self._hits.setdefault(key, deque())
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        return hits

    def blocked(self, key: str) -> float:
        """Seconds until `key` may try again (0 when it may now)."""
        with self._lock:
            now = self.clock()
            hits = self._recent(key, now)
            if len(hits) < self.limit:
                if not hits:
                    self._hits.pop(key, None)
                return 0.0
            return max(1.0, hits[0] + self.window - now)

    def hit(self, key: str) -> None:
        with self._lock:
            now = self.clock()
            self._recent(key, now).append(now)
            if len(self._hits) > 100_000:  # a flood of distinct keys: forget the idle ones
                for k in [k for k, v in self._hits.items() if not v or v[-1] <= now - self.window]:
                    del self._hits[k]

    def reset(self, key: str) -> None:
        with self._lock:
            self._hits.pop(key, None)


class PostLimits:
    """Flood control of a seat's writes (thread posts, group messages, the director's posts): a
    token bucket of `per_minute` (a burst of that many, then one every 60/per_minute seconds) and
    at most `chars_per_phase` characters a phase. In memory, per process (as the login limits): a
    phase's count starts from the database's once (`prime`), then each stored write is added."""

    def __init__(self, per_minute: int, chars_per_phase: int) -> None:
        self.per_minute = per_minute
        self.chars_per_phase = chars_per_phase
        self._buckets: dict[tuple[int, str], tuple[float, float]] = {}  # (tokens, at)
        self._chars: dict[tuple[int, str, str], int] = {}
        self._lock = threading.Lock()

    def _tokens(self, key: tuple[int, str], now: float) -> float:
        tokens, at = self._buckets.get(key, (float(self.per_minute), now))
        return min(float(self.per_minute), tokens + max(0.0, now - at) * self.per_minute / 60.0)

    def known(self, game_id: int, author: str, phase: str) -> bool:
        return (game_id, author, phase) in self._chars

    def prime(self, game_id: int, author: str, phase: str, chars: int) -> None:
        with self._lock:
            if len(self._chars) > 100_000:
                self._chars.clear()
            self._chars.setdefault((game_id, author, phase), chars)

    def refusal(self, game_id: int, author: str, phase: str, size: int, now: float) -> str | None:
        """Why this write must wait or stop (Chinese), or None."""
        with self._lock:
            tokens = self._tokens((game_id, author), now)
            if tokens < 1.0:
                wait = max(1, int((1.0 - tokens) * 60.0 / self.per_minute + 0.999))
                return f"发言过于频繁：每分钟最多{self.per_minute}条，请{wait}秒后再发"
            used = self._chars.get((game_id, author, phase), 0)
            if used + size > self.chars_per_phase:
                return (
                    f"{phase}的发言已达上限：每名角色每个阶段最多{self.chars_per_phase}字"
                    f"（已发{used}字，这条{size}字）"
                )
            return None

    def spend(self, game_id: int, author: str, phase: str, size: int, now: float) -> None:
        """A write was stored: one token and its characters."""
        with self._lock:
            key = (game_id, author)
            self._buckets[key] = (self._tokens(key, now) - 1.0, now)
            if len(self._buckets) > 100_000:  # a flood of keys: forget the full buckets
                for k in [k for k, (t, _) in self._buckets.items() if t >= self.per_minute - 1]:
                    del self._buckets[k]
            chars = (game_id, author, phase)
            self._chars[chars] = self._chars.get(chars, 0) + size


class HashGate:
    """A bound on concurrent argon2 work: each hash holds 64 MiB, so N at once is N × 64 MiB."""

    def __init__(self, slots: int) -> None:
        self._sem = threading.BoundedSemaphore(max(1, slots))

    def __enter__(self) -> HashGate:
        self._sem.acquire()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._sem.release()


def wait_text(seconds: float) -> str:
    minutes = int(seconds // 60) + (1 if seconds % 60 else 0)
    return f"尝试次数过多，请{minutes}分钟后再试" if seconds >= 60 else f"尝试次数过多，请{int(seconds) or 1}秒后再试"


def sign_flash(key: str, path: str, text: str) -> str:
    """A redirect's "done" message as `?ok=`: the text with an HMAC bound to the page's path, so a
    crafted link cannot make a page say anything the server did not say there."""
    sig = hmac.new(key.encode(), f"flash:{path}\n{text}".encode(), hashlib.sha256).hexdigest()[:24]
    return f"{sig}.{text}"


def read_flash(key: str, path: str, value: str) -> str:
    """The signed message, or "" for anything else (an arbitrary `?ok=` is never echoed)."""
    sig, _, text = value.partition(".")
    if not text or len(value) > 600:
        return ""
    want = sign_flash(key, path, text).partition(".")[0]
    return text if same(sig, want) else ""
