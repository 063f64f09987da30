"""Director accounts on the open internet: login limits, bounded hashing, sessions (issue 11)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from banshe.service import auth
from banshe.service.app import Settings, create_app

from .conftest import CSRF_RE, FakeClock, shanghai


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(shanghai(2026, 12, 1, 10))


def _app(db_url: str, clock: FakeClock, **settings: object) -> TestClient:
    app = create_app(Settings(database_url=db_url, start_scheduler=False, **settings), clock=clock)  # type: ignore[arg-type]
    with app.state.service.sessions() as s:
        if auth.login(s, "导演甲", "correct-horse") is None:
            auth.create_director(s, "导演甲", "correct-horse")
        s.commit()
    return TestClient(app, client=("203.0.113.9", 40000))


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    c = _app(db_url, clock)
    with c:
        yield c
    c.app.state.engine.dispose()  # type: ignore[attr-defined]


def _login(c: TestClient, username: str, password: str, **kw: object) -> int:
    m = CSRF_RE.search(c.get("/login").text)
    assert m is not None
    data = {"username": username, "password": password, "csrf": m.group(1)}
    r = c.post("/login", data=data, follow_redirects=False, **kw)  # type: ignore[arg-type]
    if r.status_code == 429:
        assert "尝试次数过多" in r.text
    return r.status_code


def test_failed_logins_are_limited_per_account_and_per_client(client: TestClient, clock: FakeClock) -> None:
    c = client
    for _ in range(10):
        assert _login(c, "导演甲", "wrong-password") == 401
    assert _login(c, "导演甲", "correct-horse") == 429  # even the right password waits
    clock.advance(15 * 60 + 1)
    assert _login(c, "导演甲", "correct-horse") == 303
    # one client guessing many accounts
    for i in range(30):  # Settings.login_failures_per_client
        assert _login(c, f"无名{i}", "wrong-password") == 401
    assert _login(c, "无名x", "wrong-password") == 429
    assert _login(c, "导演甲", "correct-horse") == 429


def test_the_forwarded_address_counts_only_from_a_trusted_proxy(db_url: str, clock: FakeClock) -> None:
    c = _app(db_url, clock, trusted_proxies="203.0.113.0/24")
    with c:
        # behind the proxy, each forwarded client has its own count (the proxy is not blocked)
        for i in range(30):
            assert _login(c, f"无名{i}", "x", headers={"X-Forwarded-For": "198.51.100.1"}) == 401
        assert _login(c, "无名", "x", headers={"X-Forwarded-For": "198.51.100.1"}) == 429
        assert _login(c, "无名", "x", headers={"X-Forwarded-For": "198.51.100.2"}) == 401
    c.app.state.engine.dispose()  # type: ignore[attr-defined]
    # an untrusted peer's X-Forwarded-For is ignored: it cannot spread its guesses over addresses
    c = _app(db_url, clock)
    with c:
        for i in range(30):
            assert _login(c, f"无名{i}", "x", headers={"X-Forwarded-For": f"198.51.100.{i}"}) == 401
        assert _login(c, "无名", "x", headers={"X-Forwarded-For": "192.0.2.77"}) == 429
    c.app.state.engine.dispose()  # type: ignore[attr-defined]


def test_concurrent_hashing_is_bounded(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    real = auth._HASHER
    running = 0
    peak = 0
    lock = threading.Lock()

    class Slow:
        def hash(self, password: str) -> str:
            return self._work(lambda: real.hash(password))

        def verify(self, stored: str, password: str) -> bool:
            return self._work(lambda: real.verify(stored, password))

        def _work(self, fn):  # type: ignore[no-untyped-def]
            nonlocal running, peak
            with lock:
                running += 1
                peak = max(peak, running)
            try:
                time.sleep(0.05)
                return fn()
            finally:
                with lock:
                    running -= 1

    monkeypatch.setattr(auth, "_HASHER", Slow())
    codes: list[int] = []
    m = CSRF_RE.search(client.get("/login").text)
    assert m is not None
    csrf = m.group(1)

    def attempt(i: int) -> None:
        data = {"username": f"甲{i}", "password": "x", "csrf": csrf}
        codes.append(client.post("/login", data=data, follow_redirects=False).status_code)

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert codes == [401] * 12
    assert 1 <= peak <= 4  # Settings.hash_slots


def test_sessions_expire_unless_used_and_end_on_a_new_password(client: TestClient, clock: FakeClock) -> None:
    c = client
    assert _login(c, "导演甲", "correct-horse") == 303
    for _ in range(3):  # used every 10 days: renewed each time
        clock.advance(10 * 24 * 3600)
        assert c.get("/d", follow_redirects=False).status_code == 200
    clock.advance(15 * 24 * 3600)  # unused past its lifetime (14 days)
    assert c.get("/d", follow_redirects=False).status_code == 303
    assert _login(c, "导演甲", "correct-horse") == 303
    assert c.get("/d", follow_redirects=False).status_code == 200
    with c.app.state.service.sessions() as s:  # type: ignore[attr-defined]
        auth.set_password(s, "导演甲", "a-new-password")  # what `banshe admin password` does
        s.commit()
    r = c.get("/d", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/login")


def test_the_session_cookie_is_secure_over_https(db_url: str, clock: FakeClock) -> None:
    plain = _app(db_url, clock)
    with plain:
        m = CSRF_RE.search(plain.get("/login").text)
        assert m is not None
        data = {"username": "导演甲", "password": "correct-horse", "csrf": m.group(1)}
        r = plain.post("/login", data=data, follow_redirects=False)
        assert "banshe_session=" in r.headers["set-cookie"] and "secure" not in r.headers["set-cookie"].lower()
        # a forwarded scheme from an untrusted peer is ignored
        r = plain.post("/login", data=data, follow_redirects=False, headers={"X-Forwarded-Proto": "https"})
        assert "secure" not in r.headers["set-cookie"].lower()
    plain.app.state.engine.dispose()  # type: ignore[attr-defined]
    proxied = _app(db_url, clock, trusted_proxies="203.0.113.9")
    with proxied:
        page = proxied.get("/login", headers={"X-Forwarded-Proto": "https"})
        assert "; secure" in page.headers["set-cookie"].lower()  # the login form's cookie too
        m = CSRF_RE.search(page.text)
        assert m is not None
        data = {"username": "导演甲", "password": "correct-horse", "csrf": m.group(1)}
        headers = {"X-Forwarded-Proto": "https", "Cookie": f"banshe_login={m.group(1)}"}
        r = proxied.post("/login", data=data, follow_redirects=False, headers=headers)
        cookies = r.headers.get_list("set-cookie")
        assert any(c.startswith("banshe_session=") and "; secure" in c.lower() for c in cookies), cookies
    proxied.app.state.engine.dispose()  # type: ignore[attr-defined]
    https = TestClient(_app(db_url, clock).app, base_url="https://testserver")
    with https:
        m = CSRF_RE.search(https.get("/login").text)
        assert m is not None
        data = {"username": "导演甲", "password": "correct-horse", "csrf": m.group(1)}
        r = https.post("/login", data=data, follow_redirects=False)
        assert any("; secure" in c.lower() for c in r.headers.get_list("set-cookie") if "banshe_session" in c)
    https.app.state.engine.dispose()  # type: ignore[attr-defined]
