"""Issue 25, bounded load tests against a real `banshe serve` (seconds each, not minutes):

- one link's 300 live streams, and 300 half-sent requests, under a descriptor limit of 256 (the
  usual 1,024, scaled down): every other player is still served, and the held connections go;
- one link flooding the thread: a burst, then the rate; the pages stay small;
- a player's link never reaches the access log;
- two processes on PostgreSQL: a 替补 made while one of them had lost its LISTEN connection
  kills the old link there too;
- the service behind nginx with docs/deploy.md's own settings (where nginx is installed).
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, select, text

from banshe.engine import DIRECTOR, Command
from banshe.service import auth
from banshe.service.app import Settings, create_app
from banshe.service.models import Post, Seat

from .conftest import PINMING_SEATS, _find_pg, _reset_pg, free_port

CSRF_RE = re.compile(r'name="csrf-token" content="([^"]+)"')
FD_LIMIT = 256
ROOT = Path(__file__).resolve().parents[2]


def _db(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'load.sqlite3'}"
    url: str = request.getfixturevalue("pg_database")
    _reset_pg(url)
    return url


def _game(db: str) -> tuple[int, dict[str, str]]:
    """A 品茗 game on day 1, set up in-process; its links by name."""
    app = create_app(Settings(database_url=db, start_scheduler=False))
    service = app.state.service
    with service.sessions() as s:
        director = auth.create_director(s, "admin", "load-test-pw")
        s.commit()
    game = service.create_game(director.id, "品茗", list(PINMING_SEATS), dict(PINMING_SEATS), seed=1)
    service.submit(game.id, Command(DIRECTOR, "close_phase"), "director")
    with service.sessions() as s:
        links = {seat.name: seat.token for seat in s.scalars(select(Seat).where(Seat.game_id == game.id))}
    app.state.engine.dispose()
    return game.id, links


def _limit_fds() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


def serve(
    db: str, port: int, log: Path, env: dict[str, str] | None = None, limit: bool = True
) -> subprocess.Popen[bytes]:
    """`banshe serve` on 127.0.0.1:port with RLIMIT_NOFILE 256, its stderr in `log`."""
    cmd = [sys.executable, "-m", "banshe", "serve", "--port", str(port), "--database-url", db, "--log-level", "info"]
    out = log.open("wb")
    proc = subprocess.Popen(
        cmd,
        stdout=out,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
        preexec_fn=_limit_fds if limit else None,  # noqa: PLW1509 - the child's own limit, before exec
    )
    for _ in range(300):
        try:
            httpx.get(f"http://127.0.0.1:{port}/login", timeout=1)
            return proc
        except httpx.HTTPError:
            if proc.poll() is not None:
                raise RuntimeError("banshe serve exited: " + log.read_text()[-800:]) from None
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("banshe serve did not start")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def connect(port: int, source: str) -> socket.socket:
    sock = socket.socket()
    sock.settimeout(5)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def open_many(port: int, source: str, n: int, request: bytes) -> list[socket.socket]:
    """n connections from `source`, each sending `request` (whole or half); failures are skipped."""
    socks: list[socket.socket] = []
    for _ in range(n):
        try:
            s = connect(port, source)
            s.sendall(request)
            socks.append(s)
        except OSError:
            continue
    return socks


def first_line(sock: socket.socket, timeout: float = 5.0) -> bytes:
    sock.settimeout(timeout)
    try:
        return sock.recv(200).split(b"\r\n", 1)[0]
    except OSError:
        return b""


def closed_by_server(sock: socket.socket, timeout: float) -> bool:
    sock.settimeout(timeout)
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return True
    except ConnectionResetError:
        return True
    except OSError:
        return False


def served(port: int, path: str, source: str = "127.0.0.3") -> int:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(transport=transport, timeout=5) as client:
        return client.get(f"http://127.0.0.1:{port}{path}").status_code


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_one_link_cannot_exhaust_the_server(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    db = _db(kind, tmp_path, request)
    game, links = _game(db)
    port = free_port()
    log = tmp_path / "serve.log"
    proc = serve(db, port, log, {"BANSHE_HEADER_TIMEOUT": "1.5"})
    started = time.monotonic()
    attack: list[socket.socket] = []
    try:
        link = links["汤圆"]
        stream = f"GET /p/{link}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        # 300 live streams of one link from one address (more than the process has descriptors)
        attack = open_many(port, "127.0.0.2", 300, stream)
        answers = [first_line(s) for s in attack]
        # every other player is still served: pages and his own stream
        assert served(port, f"/p/{links['饺子']}/thread") == 200
        other = connect(port, "127.0.0.3")
        other.sendall(f"GET /p/{links['饺子']}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        assert first_line(other).startswith(b"HTTP/1.1 200")
        other.close()
        assert sum(1 for a in answers if a.startswith(b"HTTP/1.1 200")) == 4  # the per-link cap
        assert all(a.startswith((b"HTTP/1.1 200", b"HTTP/1.1 429", b"HTTP/1.1 503")) or not a for a in answers)
        # the same link from other addresses (behind a proxy, say) still gets no fifth stream
        more = open_many(port, "127.0.0.4", 10, stream)
        assert not any(first_line(s).startswith(b"HTTP/1.1 200") for s in more)
        for s in attack + more:
            s.close()
        # 300 half-sent requests from one address: the rest are served, and the held ones go
        half = open_many(port, "127.0.0.5", 300, b"GET /login HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        assert served(port, "/login") == 200
        assert served(port, f"/p/{links['包子']}") == 200
        trickle = connect(port, "127.0.0.6")
        trickle.sendall(b"GET /login HTTP/1.1\r\n")
        for _ in range(4):  # a byte every half second does not keep it open past the header timeout
            time.sleep(0.5)
            try:
                trickle.sendall(b"X")
            except OSError:
                break
        assert closed_by_server(trickle, 3)
        assert all(closed_by_server(s, 3) for s in half[:64])
        for s in half:
            s.close()
        assert served(port, f"/p/{links['包子']}/thread") == 200
    finally:
        for s in attack:
            s.close()
        stop(proc)
    took = time.monotonic() - started
    assert "Too many open files" not in log.read_text()
    print(f"\n[{kind}] 300 streams + 300 half-sent requests, fd limit {FD_LIMIT}: {took:.1f} s")


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_one_link_cannot_flood_the_thread(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    db = _db(kind, tmp_path, request)
    game, links = _game(db)
    port = free_port()
    proc = serve(db, port, tmp_path / "serve.log")
    token = links["锅贴"]
    base = f"http://127.0.0.1:{port}"
    accepted: list[int] = []
    refused: list[str] = []
    lock = threading.Lock()
    flood_seconds = 2.0
    started = time.monotonic()

    def flood() -> None:
        with httpx.Client(base_url=base, timeout=10) as client:
            m = CSRF_RE.search(client.get(f"/p/{token}/thread").text)
            assert m is not None
            while time.monotonic() - started < flood_seconds:
                r = client.post(f"/p/{token}/post", data={"csrf": m.group(1), "text": "刷" * 5000})
                with lock:
                    if r.status_code == 303:
                        accepted.append(1)
                    else:
                        refused.append(f"{r.status_code} {'发言过于频繁' in r.text}")

    try:
        threads = [threading.Thread(target=flood) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.monotonic() - started
        per_minute = 12  # BANSHE_POSTS_PER_MINUTE's default
        assert len(accepted) <= per_minute + int(took * per_minute / 60) + 1, len(accepted)
        assert refused and all(r == "429 True" for r in refused), refused[:5]
        with httpx.Client(base_url=base, timeout=10) as client:
            state = client.get(f"/p/{links['饺子']}/state.json")
            assert state.status_code == 200 and len(state.content) < 400_000
    finally:
        stop(proc)
    print(f"\n[{kind}] flood: {len(accepted)} of {len(accepted) + len(refused)} posts stored in {took:.1f} s")


def test_player_links_stay_out_of_the_access_log(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'log.sqlite3'}"
    _game_id, links = _game(db)
    port = free_port()
    log = tmp_path / "serve.log"
    proc = serve(db, port, log, limit=False)
    try:
        token = links["饺子"]
        for path in (f"/p/{token}", f"/p/{token}/thread?reply=1", f"/p/{token}/state.json", "/login"):
            assert served(port, path, "127.0.0.1") == 200
    finally:
        stop(proc)
    written = log.read_text()
    assert '"GET /login HTTP/1.1" 200' in written and "/p/…/thread?reply=1" in written, written[-1000:]
    assert not any(t in written for t in links.values())


def test_a_replaced_link_dies_in_every_process(pg_database: str, tmp_path: Path) -> None:
    """--workers on PostgreSQL: a 替补 whose NOTIFY one process missed (its LISTEN connection was
    cut, as by a database restart) must not leave the old link working there."""
    _reset_pg(pg_database)
    game, links = _game(pg_database)
    ports = [free_port(), free_port()]
    procs = [serve(pg_database, p, tmp_path / f"serve{i}.log", limit=False) for i, p in enumerate(ports)]
    admin = _find_pg()
    assert admin is not None
    eng = create_engine(admin, isolation_level="AUTOCOMMIT")
    name = pg_database.rsplit("/", 1)[1]
    old = links["馄饨"]
    a, b = (httpx.Client(base_url=f"http://127.0.0.1:{p}", timeout=10) for p in ports)
    try:
        assert b.get(f"/p/{old}").status_code == 200  # process B has the link cached
        with eng.connect() as conn:  # every LISTEN connection is cut (a database restart)
            listen = "SELECT pid FROM pg_stat_activity WHERE datname = :d AND query ILIKE 'LISTEN%'"
            for _ in range(50):
                pids = conn.execute(text(listen), {"d": name}).scalars().all()
                if len(pids) >= 2:
                    break
                time.sleep(0.1)
            conn.execute(text(f"SELECT pg_terminate_backend(pid) FROM ({listen}) x"), {"d": name})
            for _ in range(50):
                if not conn.execute(text(listen), {"d": name}).scalars().all():
                    break
                time.sleep(0.02)
        # the 替补 commits while nobody listens: its NOTIFY is lost
        app = create_app(Settings(database_url=pg_database, start_scheduler=False))
        app.state.service.substitute(game, "馄饨", None, "新来的")
        app.state.engine.dispose()
        deadline = time.monotonic() + 5
        code = 200
        while time.monotonic() < deadline:
            code = b.get(f"/p/{old}").status_code
            if code == 404:
                break
            time.sleep(0.2)
        assert code == 404, "the old link still works on the process that missed the NOTIFY"
        m = CSRF_RE.search(a.get(f"/p/{links['饺子']}").text)
        assert m is not None
        r = b.post(f"/p/{old}/post", data={"csrf": auth.player_csrf(_secret(pg_database), old), "text": "旧链接"})
        assert r.status_code == 404
        with create_engine(pg_database).connect() as conn:
            assert conn.execute(select(Post.id).where(Post.text == "旧链接")).first() is None
        # and once it listens again, links are cached and die at a 替补 as before
        assert b.get(f"/p/{links['饺子']}").status_code == 200
    finally:
        a.close()
        b.close()
        for p in procs:
            stop(p)
        eng.dispose()


def _secret(db: str) -> str:
    with create_engine(db).connect() as conn:
        return str(conn.execute(text("SELECT value FROM settings WHERE key = 'secret_key'")).scalar())


# -- behind nginx, with docs/deploy.md's own settings ----------------------------------------------
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def deploy_nginx_config(service_port: int, port: int) -> str:
    """docs/deploy.md's nginx block (the one marked `# banshe: nginx`), for a test: plain HTTP on a
    free port, no certificates, the service's port; everything else exactly as documented."""
    doc = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```nginx\n(.*?)```", doc, re.S)
    conf = next(b for b in blocks if "# banshe: nginx" in b)
    conf = re.sub(r"server \{\s*listen 80;.*?\n\}\n", "", conf, count=1, flags=re.S)  # the http→https redirect
    conf = re.sub(r"listen 443 ssl[^;]*;", f"listen 127.0.0.1:{port};", conf)
    conf = re.sub(r"\n\s*(ssl_certificate|ssl_certificate_key|add_header Strict-Transport-Security)[^\n]*", "", conf)
    return conf.replace("127.0.0.1:8000", f"127.0.0.1:{service_port}")


@pytest.fixture
def behind_nginx(tmp_path: Path) -> Iterator[tuple[int, dict[str, str], Path]]:
    if NGINX is None:
        pytest.skip("nginx 未安装（scripts/test.sh 以 root 运行时会安装 Debian 的 nginx）")
    db = f"sqlite:///{tmp_path / 'nginx.sqlite3'}"
    _game_id, links = _game(db)
    service_port, port = free_port(), free_port()
    proc = serve(db, service_port, tmp_path / "serve.log", {"BANSHE_TRUSTED_PROXIES": "127.0.0.1"}, limit=False)
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    (prefix / "nginx.conf").write_text(
        f"daemon off;\nmaster_process off;\npid {prefix}/nginx.pid;\nerror_log {prefix}/error.log warn;\n"
        "events { worker_connections 1024; }\n"
        f"http {{\naccess_log off;\nclient_body_temp_path {prefix}/body;\nproxy_temp_path {prefix}/proxy;\n"
        f"fastcgi_temp_path {prefix}/f;\nuwsgi_temp_path {prefix}/u;\nscgi_temp_path {prefix}/s;\n"
        + deploy_nginx_config(service_port, port)
        + "\n}\n",
        encoding="utf-8",
    )
    nginx = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf")], stderr=subprocess.PIPE)
    try:
        for _ in range(100):
            try:
                httpx.get(f"http://127.0.0.1:{port}/login", timeout=1)
                break
            except httpx.HTTPError:
                if nginx.poll() is not None:
                    raise RuntimeError(nginx.stderr.read().decode() if nginx.stderr else "nginx exited") from None
                time.sleep(0.1)
        yield port, links, prefix
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)
        stop(proc)


def test_behind_nginx_as_documented(behind_nginx: tuple[int, dict[str, str], Path]) -> None:
    port, links, _prefix = behind_nginx
    started = time.monotonic()
    base = f"http://127.0.0.1:{port}"
    r = httpx.get(f"{base}/p/{links['饺子']}/thread", timeout=5)
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    # live streams pass unbuffered: the first event arrives at once
    sock = connect(port, "127.0.0.2")
    sock.sendall(f"GET /p/{links['饺子']}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    sock.settimeout(5)
    got = b""
    while b"retry:" not in got:
        chunk = sock.recv(4096)
        assert chunk, got
        got += chunk
    sock.close()
    # one client's streams are capped by nginx (limit_conn), whatever links they use
    names = list(PINMING_SEATS)
    held = [connect(port, "127.0.0.3") for _ in range(28)]
    for i, s in enumerate(held):
        s.sendall(f"GET /p/{links[names[i % 14]]}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    answers = [first_line(s) for s in held]
    ok = sum(1 for a in answers if a.startswith(b"HTTP/1.1 200"))
    assert 0 < ok <= 16 and any(a.startswith(b"HTTP/1.1 429") for a in answers), answers
    # ... while another client is served
    assert served(port, f"/p/{links['包子']}/thread", "127.0.0.4") == 200
    for s in held:
        s.close()
    # requests per client are rate-limited (limit_req): a burst past it is refused
    transport = httpx.HTTPTransport(local_address="127.0.0.5")
    with httpx.Client(transport=transport, timeout=5) as client:
        codes = [client.get(f"{base}/login").status_code for _ in range(120)]
    assert 200 in codes and 429 in codes
    print(f"\nbehind nginx: {time.monotonic() - started:.1f} s")
