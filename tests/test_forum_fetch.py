"""banshe.forum.fetch: every hop checked, the connection made to the checked address, one error
text for every failure, a total deadline and byte caps (issue 25, item 5); a UTF-8 page
labelled GBK (item 6). The desk's own pool: tests/service/test_forum_game.py."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from banshe.forum.discuz import ForumError, decode_page
from banshe.forum.fetch import FETCH_FAILED, Fetcher, FetchError, Limits, is_public
from banshe.forum.remote import ForumSession

from .discuz_pages import P, encode, page

LOOPBACK_ONLY = {"127.0.0.1"}


def only(*addresses: str) -> Callable[[str], bool]:
    return lambda address: address in addresses


class _Handler(BaseHTTPRequestHandler):
    routes: dict[str, Callable[[BaseHTTPRequestHandler], None]] = {}
    seen: list[tuple[str, str]] = []

    def do_GET(self) -> None:  # noqa: N802
        self.seen.append((self.path, self.headers.get("Host", "")))
        route = self.routes.get(self.path.split("?")[0])
        if route is None:
            self.send_error(404)
            return
        route(self)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def http() -> Iterator[Callable[[str], tuple[str, type[_Handler]]]]:
    """Start a small HTTP server on a loopback address; its base URL and handler class."""
    servers: list[ThreadingHTTPServer] = []

    def start(host: str = "127.0.0.1") -> tuple[str, type[_Handler]]:
        handler = type("H", (_Handler,), {"routes": {}, "seen": []})
        httpd = ThreadingHTTPServer((host, 0), handler)
        httpd.daemon_threads = True
        servers.append(httpd)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        return f"http://{host}:{httpd.server_address[1]}", handler

    yield start
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()


def _text(body: bytes, status: int = 200, ctype: str = "text/html; charset=utf-8") -> Callable[[Any], None]:
    def send(h: Any) -> None:
        h.send_response(status)
        h.send_header("Content-Type", ctype)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    return send


def _redirect(location: str) -> Callable[[Any], None]:
    def send(h: Any) -> None:
        h.send_response(302)
        h.send_header("Location", location)
        h.send_header("Content-Length", "0")
        h.end_headers()

    return send


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.9", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("::1", False),
        ("fe80::1", False),
        ("fd00::1", False),
        ("::ffff:127.0.0.1", False),
        ("::ffff:10.0.0.1", False),
        ("8.8.8.8", True),
        ("2001:4860:4860::8888", True),
        ("not an address", False),
    ],
)
def test_only_public_addresses_by_default(address: str, public: bool) -> None:
    assert is_public(address) is public


def _silent_server() -> tuple[socket.socket, int]:
    """Accepts connections and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    return sock, sock.getsockname()[1]


def test_every_failure_reads_the_same(http: Callable[..., Any]) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    silent, silent_port = _silent_server()
    base, handler = http()
    handler.routes["/missing"] = _text(b"not found", 404)
    handler.routes["/big"] = _text(b"x" * 300_000)
    failures: dict[str, FetchError] = {}
    cases: list[tuple[str, str, bool, Limits]] = [
        ("private", f"{base}/big", False, Limits()),
        ("closed port", f"http://127.0.0.1:{closed_port}/", True, Limits()),
        ("unknown host", "http://no-such-host.invalid/", True, Limits()),
        ("silent", f"http://127.0.0.1:{silent_port}/", True, Limits(deadline=1.0)),
        ("too big", f"{base}/big", True, Limits(page_bytes=100_000)),
        ("not http", "ftp://127.0.0.1/", True, Limits()),
    ]
    try:
        for name, url, allow, limits in cases:
            with Fetcher(allow_private=allow, limits=limits) as f, pytest.raises(FetchError) as err:
                f.get(url)
            failures[name] = err.value
    finally:
        silent.close()
    assert {str(e) for e in failures.values()} == {FETCH_FAILED}  # an open port reads like a closed one
    assert len({e.detail for e in failures.values()}) == len(cases)  # the causes stay for the log
    assert "不是公网地址" in failures["private"].detail and "Timeout" in failures["silent"].detail
    with Fetcher(allow_private=True) as f:
        assert f.get(f"{base}/missing").status == 404  # a status is the caller's to judge


def test_a_redirect_is_checked_again(http: Callable[..., Any]) -> None:
    inner, inner_handler = http("127.0.0.2")
    inner_handler.routes["/secret"] = _text(b"internal")
    outer, outer_handler = http("127.0.0.1")
    outer_handler.routes["/go"] = _redirect(f"{inner}/secret")
    outer_handler.routes["/ok"] = _text(b"fine")
    with Fetcher(allowed=only("127.0.0.1")) as f:
        assert f.get(f"{outer}/ok").content == b"fine"
        with pytest.raises(FetchError) as err:
            f.get(f"{outer}/go")
    assert "127.0.0.2" in err.value.detail and inner_handler.seen == []
    with Fetcher(allowed=only("127.0.0.1", "127.0.0.2")) as f:
        got = f.get(f"{outer}/go")
    assert got.content == b"internal" and got.hops == (f"{outer}/go",)


def test_the_connection_goes_to_the_checked_address(http: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """DNS rebinding: the name is resolved once per connection, and that answer is connected to."""
    base, handler = http("127.0.0.1")
    port = int(base.rsplit(":", 1)[1])
    handler.routes["/"] = _text(b"checked")
    answers = iter(["127.0.0.1", "127.0.0.2", "127.0.0.2"])
    calls: list[str] = []
    real = socket.getaddrinfo

    def rebinding(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "forum.test":
            return real(host, *args, **kwargs)
        address = next(answers)
        calls.append(address)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    with Fetcher(allowed=only("127.0.0.1")) as f:
        got = f.get(f"http://forum.test:{port}/")
    assert got.content == b"checked" and calls == ["127.0.0.1"]  # one lookup, that address
    assert handler.seen == [("/", f"forum.test:{port}")]  # the name stays in the request
    with Fetcher(allowed=only("127.0.0.1")) as f, pytest.raises(FetchError):
        f.get(f"http://forum.test:{port}/")  # the name now points inside: refused, never connected
    assert calls == ["127.0.0.1", "127.0.0.2"] and len(handler.seen) == 1


def test_a_total_deadline_and_a_byte_cap(http: Callable[..., Any]) -> None:
    base, handler = http()

    def drip(h: Any) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.end_headers()
        try:
            for _ in range(100):  # one byte every 0.1 s: no single read ever times out
                h.wfile.write(b"x")
                h.wfile.flush()
                time.sleep(0.1)
        except OSError:
            pass

    handler.routes["/drip"] = drip
    handler.routes["/page"] = _text(b"y" * 200_000)
    started = time.monotonic()
    with Fetcher(allow_private=True, limits=Limits(deadline=1.0)) as f, pytest.raises(FetchError) as err:
        f.get(f"{base}/drip")
    assert time.monotonic() - started < 5 and "时限" in err.value.detail
    with Fetcher(allow_private=True, limits=Limits(total_bytes=300_000)) as f:
        f.get(f"{base}/page")
        with pytest.raises(FetchError) as err:
            f.get(f"{base}/page")  # the operation's total, not just one page
    assert "总量" in err.value.detail


def test_a_next_page_on_another_site_is_refused(http: Callable[..., Any]) -> None:
    base, handler = http()
    first = page([P("导演", "2026-12-2 09:00", "公示")], pages=2).replace(
        "http://bbs.example.com/forum.php?mod=viewthread", "http://127.0.0.2:9/forum.php?mod=viewthread"
    )
    handler.routes["/forum.php"] = _text(first.encode())
    with ForumSession.open(allow_private=True) as s, pytest.raises(ForumError) as err:
        s.read_thread(f"{base}/forum.php?mod=viewthread&tid=1")
    assert str(err.value) == FETCH_FAILED and "同一个网站" in getattr(err.value, "detail", "")


def test_a_utf8_page_labelled_gbk_is_read_as_utf8(http: Callable[..., Any]) -> None:
    html = page([P("导演", "2026-12-2 09:00", "【第2天】公示"), P("饺子", "2026-12-2 10:31", "投票对象：包子")], "gbk")
    utf8 = html.encode("utf-8")  # says gbk in its meta, is UTF-8
    assert "投票对象：包子" in decode_page(utf8)
    assert "投票对象：包子" in decode_page(utf8, "gbk")  # an HTTP header saying GBK too
    gbk_labelled_utf8 = encode(html.replace("charset=gbk", "charset=utf-8"), "gbk")
    assert "投票对象：包子" in decode_page(gbk_labelled_utf8)
    assert "投票对象：包子" in decode_page(encode(html, "gbk"))  # a real GBK page stays GBK
    base, handler = http()
    handler.routes["/forum.php"] = _text(utf8, ctype="text/html; charset=gbk")
    with ForumSession.open(allow_private=True) as s:
        pages = s.read_thread(f"{base}/forum.php?mod=viewthread&tid=1")
    assert [p.body for p in pages[0].posts] == ["【第2天】公示", "投票对象：包子"]


def test_addresses_forms_and_texts_of_the_forum() -> None:
    from lxml import html as lxml_html

    from banshe.forum.remote import find_form, forum_root, plain_text, thread_id

    assert forum_root("https://bbs.example.com/bbs/forum.php?mod=viewthread&tid=7") == "https://bbs.example.com/bbs/"
    assert thread_id("https://bbs.example.com/forum.php?mod=viewthread&tid=7&page=2") == 7
    assert thread_id("https://bbs.example.com/thread-70202-3-1.html") == 70202
    assert thread_id("https://bbs.example.com/forum.php") is None
    assert plain_text("[size=6][color=#FF0000][b]【第2天公示】[/b][/color][/size]\n[color=red]乙 出局。[/color]") == (
        "【第2天公示】乙出局。"
    )
    doc = lxml_html.document_fromstring(
        '<form id="loginform_Lb37v" action="member.php?loginsubmit=yes">'
        '<input type="hidden" name="formhash" value="ab12">'
        '<input name="username"><input type="checkbox" name="cookietime" value="2592000">'
        '<input type="checkbox" name="remember" value="1" checked>'
        '<select name="questionid"><option value="0">无</option>'
        '<option value="1" selected>一</option></select><textarea name="message">x</textarea>'
        '<input type="submit" name="loginsubmit" value="登录"></form>'
    )
    assert find_form(doc, "loginform") == (
        "member.php?loginsubmit=yes",
        {"formhash": "ab12", "username": "", "remember": "1", "questionid": "1", "message": "x"},
    )
    assert find_form(doc, "postform") is None
