"""Reaching a forum over the network: the one place banshe opens a connection to a forum.

Everything the forum bridge fetches (a thread's pages, its 下一页 links, the login and reply
forms, every redirect) goes through a `Fetcher`:

- **every connection is checked**: the host name is resolved once, every address it resolves
  to must be public (unless the caller allows private addresses: the command line, a test, an
  intranet deployment), and the socket is opened to that checked address — a second lookup
  (DNS rebinding) never happens. Redirects and 下一页 links open new connections, so every hop
  is checked the same way;
- **one error text for every failure** (`FETCH_FAILED`): an unknown host, a private address, a
  refused or reset connection, a timeout, a page too large and a bad status read the same, so
  the service's answers never tell an open port from a closed one. The cause stays in
  `FetchError.detail` (for the command line and the server's log);
- **limits**: a total deadline for the whole operation (not per read: a server that drips one
  byte at a time is cut off), a byte cap per page and per operation, a cap on redirects and on
  pages. Bodies are read as a stream and dropped at the cap, so a huge page never sits in memory.
"""

from __future__ import annotations

import ipaddress
import socket
import time
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlencode, urljoin, urlparse

import httpcore
import httpx

from .discuz import ForumError

FETCH_FAILED = "无法读取论坛地址：地址不存在、无法连接、超时、页面过大，或不是公网地址（内网的论坛请上传保存的页面）"
USER_AGENT = "Mozilla/5.0 (compatible; banshe forum bridge)"


class FetchError(ForumError):
    """Any failure to fetch: always the same text; the cause is kept in `detail`."""

    def __init__(self, detail: str) -> None:
        super().__init__(FETCH_FAILED)
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Limits:
    """What one operation (reading a thread, logging in and posting) may take."""

    deadline: float = 90.0  # seconds, the whole operation
    page_bytes: int = 4 * 1024 * 1024  # one response body (decoded)
    total_bytes: int = 48 * 1024 * 1024  # every body of the operation
    max_pages: int = 100  # a thread's pages followed by 下一页
    max_redirects: int = 5
    connect_timeout: float = 10.0


# The command line reads whatever address its user gives (a thread on an intranet forum too).
COMMAND_LINE = Limits(deadline=600.0, total_bytes=512 * 1024 * 1024, max_pages=500)


def is_public(address: str) -> bool:
    """A globally routable unicast address (no loopback, private, link-local, CGNAT, multicast …)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast and not ip.is_unspecified


class _Refused(httpcore.ConnectError):
    """A host that resolves to no address, or to an address the policy refuses."""


Policy = typing.Callable[[str], bool]  # may this address be connected to?


def policy_of(allow_private: bool) -> Policy:
    return (lambda _address: True) if allow_private else is_public


def resolve_checked(host: str, port: int, allowed: Policy) -> str:
    """The one address to connect to: every address `host` resolves to must be allowed."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise _Refused(f"主机名无法解析：{host}（{exc}）") from None
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise _Refused(f"主机名没有地址：{host}")
    refused = [a for a in addresses if not allowed(a)]
    if refused:
        raise _Refused(f"不是公网地址：{host} → {refused[0]}")
    return addresses[0]


class CheckedBackend(httpcore.SyncBackend):
    """httpcore's socket backend, connecting only to the address `resolve_checked` approved."""

    def __init__(self, allowed: Policy) -> None:
        self.allowed = allowed

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]]
        | None = None,
    ) -> httpcore.NetworkStream:
        address = resolve_checked(host, port, self.allowed)
        return super().connect_tcp(address, port, timeout, local_address, socket_options)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]]
        | None = None,
    ) -> httpcore.NetworkStream:
        raise _Refused("不支持 Unix 套接字")


class _CheckedTransport(httpx.HTTPTransport):
    """httpx's transport over `CheckedBackend` (no proxies: the connection goes where it was checked)."""

    def __init__(self, allowed: Policy) -> None:
        super().__init__(trust_env=False, retries=0)
        ssl_context = httpx.create_ssl_context()
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context,
            max_connections=2,
            max_keepalive_connections=2,
            keepalive_expiry=5.0,
            network_backend=CheckedBackend(allowed),
        )


@dataclass(frozen=True, slots=True)
class Fetched:
    url: str  # after redirects
    status: int
    content: bytes
    charset: str | None
    hops: tuple[str, ...] = ()  # the addresses redirected from, in order

    @property
    def text(self) -> str:
        from .discuz import decode_page

        return decode_page(self.content, self.charset)


class Fetcher:
    """One browser-like client (its cookies, e.g. a forum login) under one operation's limits."""

    def __init__(
        self,
        allow_private: bool = False,
        limits: Limits | None = None,
        user_agent: str = USER_AGENT,
        clock: typing.Callable[[], float] = time.monotonic,
        allowed: Policy | None = None,
    ) -> None:
        """`allowed` replaces the address policy (`allow_private` or public addresses only)."""
        self.limits = limits = limits or Limits()
        self.clock = clock
        self.deadline = clock() + limits.deadline
        self.received = 0
        self.client = httpx.Client(
            transport=_CheckedTransport(allowed or policy_of(allow_private)),
            trust_env=False,
            follow_redirects=False,
            headers={"User-Agent": user_agent, "Accept-Language": "zh-CN,zh;q=0.9"},
        )

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.client.close()

    def left(self) -> float:
        return self.deadline - self.clock()

    def get(self, url: str, params: Mapping[str, str | int] | None = None) -> Fetched:
        return self._send("GET", url, params, None)

    def post(self, url: str, data: Mapping[str, str], charset: str = "utf-8") -> Fetched:
        """A form sent as a browser sends it: urlencoded in the page's own encoding."""
        body = urlencode(data, encoding=charset, errors="xmlcharrefreplace").encode("ascii")
        return self._send("POST", url, None, body)

    def _send(self, method: str, url: str, params: Mapping[str, str | int] | None, body: bytes | None) -> Fetched:
        hops: list[str] = []
        for _hop in range(self.limits.max_redirects + 1):
            parsed = urlparse(url)
            if parsed.scheme not in ("http", "https") or not parsed.hostname:
                raise FetchError(f"不是 http(s) 地址：{url[:200]}")
            left = self.left()
            if left <= 0:
                raise FetchError("超过总时限")
            timeout = httpx.Timeout(min(left, 30.0), connect=min(left, self.limits.connect_timeout))
            headers = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else None
            try:
                request = self.client.build_request(
                    method, url, params=params, content=body, headers=headers, timeout=timeout
                )
                response = self.client.send(request, stream=True)
                try:
                    if response.is_redirect:
                        hops.append(str(response.url))
                        url = urljoin(str(response.url), response.headers.get("location", ""))
                        if response.status_code in (301, 302, 303) and method == "POST":
                            method, body = "GET", None
                        params = None
                        continue
                    content = self._read(response)
                    charset = response.charset_encoding
                    return Fetched(str(response.url), response.status_code, content, charset, tuple(hops))
                finally:
                    response.close()
            except httpx.HTTPError as exc:
                raise FetchError(f"{exc.__class__.__name__}：{exc}") from None
            except (httpx.InvalidURL, ValueError, UnicodeError) as exc:
                raise FetchError(f"地址有误：{exc}") from None
        raise FetchError("重定向次数过多")

    def _read(self, response: httpx.Response) -> bytes:
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            self.received += len(chunk)
            if size > self.limits.page_bytes:
                raise FetchError(f"页面超过 {self.limits.page_bytes} 字节")
            if self.received > self.limits.total_bytes:
                raise FetchError(f"读取总量超过 {self.limits.total_bytes} 字节")
            if self.clock() > self.deadline:
                raise FetchError("超过总时限")
            chunks.append(chunk)
        return b"".join(chunks)


def same_site(a: str, b: str) -> bool:
    """Two addresses on the same scheme, host and port (a thread's 下一页 stays on its forum)."""
    pa, pb = urlparse(a), urlparse(b)
    return (pa.scheme, pa.hostname, pa.port) == (pb.scheme, pb.hostname, pb.port)


__all__ = ["COMMAND_LINE", "FETCH_FAILED", "FetchError", "Fetched", "Fetcher", "Limits", "is_public", "same_site"]
