"""Fixtures for the service tests: the same app on SQLite and (when reachable) PostgreSQL."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select, text

from banshe.service import auth
from banshe.service.app import Settings, create_app
from banshe.service.db import normalize_url
from banshe.service.games import GameService
from banshe.service.models import Seat

PG_ADMIN_URLS = [
    normalize_url(os.environ.get("BANSHE_TEST_PG_URL", "")),
    "postgresql+psycopg://postgres@127.0.0.1:5432/postgres",
    "postgresql+psycopg://root@127.0.0.1:5432/postgres",
]
SHANGHAI = ZoneInfo("Asia/Shanghai")
PINMING_SEATS = {
    "饺子": "预言家",
    "包子": "女巫",
    "烧麦": "猎人",
    "锅贴": "白痴",
    "馄饨": "村民",
    "油条": "村民",
    "豆花": "村民",
    "粽子": "村民",
    "汤圆": "狼人",
    "月饼": "狼人",
    "春卷": "狼人",
    "麻花": "狼人",
    "年糕": "混血儿",
    "米糕": "病娇",
}
WOLVES = ["汤圆", "月饼", "春卷", "麻花"]
CSRF_RE = re.compile(r'name="csrf-token" content="([^"]+)"')
AT_RE = re.compile(r'name="at" value="([^"]+)"')


class FakeClock:
    """The service's clock in tests: moved by hand, never by waiting."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def shanghai(year: int, month: int, day: int, hour: int, minute: int = 0) -> float:
    return datetime(year, month, day, hour, minute, tzinfo=SHANGHAI).timestamp()


_pg_admin: str | None = None
_pg_reason = ""


def _find_pg() -> str | None:
    global _pg_admin, _pg_reason
    if _pg_admin is not None or _pg_reason:
        return _pg_admin
    for url in PG_ADMIN_URLS:
        if not url:
            continue
        try:
            eng = create_engine(url, connect_args={"connect_timeout": 2})
            with eng.connect() as conn:
                conn.execute(text("select 1"))
            eng.dispose()
            _pg_admin = url
            return url
        except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
            _pg_reason = f"PostgreSQL 不可用（{url.split('@')[-1]}）：{str(exc).splitlines()[0]}"
    return None


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A fresh PostgreSQL database for this test session (dropped afterwards)."""
    admin = _find_pg()
    if admin is None:
        pytest.skip(_pg_reason or "PostgreSQL 不可用")
    name = f"banshe_test_{uuid.uuid4().hex[:10]}"
    eng = create_engine(admin, isolation_level="AUTOCOMMIT")
    with eng.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = admin.rsplit("/", 1)[0] + "/" + name
    yield url
    with eng.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    eng.dispose()


def _reset_pg(url: str) -> None:
    eng = create_engine(url, isolation_level="AUTOCOMMIT")
    with eng.connect() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    eng.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'banshe.sqlite3'}"
    url: str = request.getfixturevalue("pg_database")
    _reset_pg(url)
    return url


@dataclass
class Harness:
    client: TestClient
    service: GameService
    clock: FakeClock
    url: str
    csrf: str = ""
    director_id: int = 0
    games: list[int] = field(default_factory=list)

    def login(self, username: str = "导演甲", password: str = "correct-horse") -> None:
        with self.service.sessions() as s:
            d = auth.create_director(s, username, password)
            s.commit()
            self.director_id = d.id
        m = CSRF_RE.search(self.client.get("/login").text)
        assert m is not None
        data = {"username": username, "password": password, "csrf": m.group(1)}
        r = self.client.post("/login", data=data, follow_redirects=False)
        assert r.status_code == 303, r.text
        page = self.client.get("/d")
        m = CSRF_RE.search(page.text)
        assert m is not None
        self.csrf = m.group(1)

    def create_pinming(self, auto_publish: bool = True, seats: dict[str, str] | None = None) -> int:
        lines = "\n".join(f"{n} {r}" for n, r in (seats or PINMING_SEATS).items())
        data = {"csrf": self.csrf, "ruleset": "pinming", "seats": lines, "seed": "7", "title": "测试局"}
        if auto_publish:
            data["auto_publish"] = "on"
        r = self.client.post("/d/new", data=data, follow_redirects=False)
        assert r.status_code == 303, r.text
        game_id = int(r.headers["location"].rsplit("/", 1)[1])
        self.games.append(game_id)
        return game_id

    def links(self, game_id: int) -> dict[str, str]:
        with self.service.sessions() as s:
            seats = s.scalars(select(Seat).where(Seat.game_id == game_id, Seat.active.is_(True)))
            return {seat.name: seat.token for seat in seats}

    def player_csrf(self, token: str) -> str:
        m = CSRF_RE.search(self.client.get(f"/p/{token}").text)
        assert m is not None
        return m.group(1)

    def act(self, token: str, skill: str, **fields: str) -> tuple[int, str]:
        data = {"csrf": self.player_csrf(token), "skill": skill, **fields}
        r = self.client.post(f"/p/{token}/act", data=data, follow_redirects=False)
        return r.status_code, r.text

    def post(self, token: str, text_: str, reply_to: int | None = None) -> tuple[int, str]:
        data = {"csrf": self.player_csrf(token), "text": text_}
        if reply_to is not None:
            data["reply_to"] = str(reply_to)
        r = self.client.post(f"/p/{token}/post", data=data, follow_redirects=False)
        return r.status_code, r.text

    def change(self, token: str, text_: str) -> tuple[int, str]:
        """A 改票 as the page offers it: a reply to the floor its "改票（回复此楼）" link names
        (no such link: posted without a reply, for the engine's refusals)."""
        m = re.search(r'data-change-vote="(\d+)"', self.client.get(f"/p/{token}/thread").text)
        return self.post(token, text_, int(m.group(1)) if m else None)

    def at(self, game_id: int) -> str:
        """The position (phase/stage/prompt) the god page names in its forms."""
        m = AT_RE.search(self.client.get(f"/d/g/{game_id}").text)
        return m.group(1) if m else ""

    def director(self, game_id: int, path: str, **fields: str) -> tuple[int, str]:
        """A director form as the god page sends it (naming the position it shows, unless given)."""
        data = {"csrf": self.csrf, "at": fields.pop("at", None) or self.at(game_id), **fields}
        r = self.client.post(f"/d/g/{game_id}/{path}", data=data, follow_redirects=False)
        return r.status_code, r.text

    def run_until(self, until: float) -> int:
        """The scheduler running until `until`: each deadline fires at its own time (as a service
        that never stopped would fire it); the clock ends at `until`. Returns how many fired."""
        fired = 0
        for _ in range(1000):
            due = self.service.next_due()
            if due is None or due > until:
                break
            self.clock.now = max(self.clock.now, due)
            fired += self.service.fire_due()
        self.clock.now = max(self.clock.now, until)
        return fired

    def run_for(self, seconds: float) -> int:
        return self.run_until(self.clock.now + seconds)

    def settle(self, game_id: int) -> None:
        """A settling window runs out (after a close: prompts lapse, the results are released)."""
        with self.service.sessions() as s:
            row = self.service.current_deadline(s, game_id)
        if row is not None and row.skill == "window":
            self.run_until(row.due_at)

    def close(self, game_id: int) -> None:
        """The director's 立即关门结算, then its settling window runs out."""
        code, page = self.director(game_id, "command", skill="close_phase")
        assert code == 303, page[-500:]
        self.settle(game_id)

    def state(self, token: str) -> dict[str, object]:
        r = self.client.get(f"/p/{token}/state.json")
        assert r.status_code == 200
        data: dict[str, object] = r.json()
        return data


def make_harness(url: str, clock: FakeClock) -> Harness:
    app = create_app(Settings(database_url=url, start_scheduler=False, sse_max_seconds=0), clock=clock)
    client = TestClient(app)
    return Harness(client, app.state.service, clock, url)


@pytest.fixture
def harness(db_url: str) -> Iterator[Harness]:
    clock = FakeClock(shanghai(2026, 12, 1, 10))
    h = make_harness(db_url, clock)
    with h.client:
        yield h
    h.client.app.state.engine.dispose()  # type: ignore[attr-defined]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db: str, port: int) -> subprocess.Popen[bytes]:
    """A real `banshe serve` on 127.0.0.1, once it answers."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "banshe", "serve", "--port", str(port), "--database-url", db, "--log-level", "warning"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):  # until it listens (at most ~30 s)
        try:
            httpx.get(f"http://127.0.0.1:{port}/login", timeout=1)
            return proc
        except httpx.HTTPError:
            if proc.poll() is not None:
                raise RuntimeError("banshe serve exited") from None
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("banshe serve did not start")
