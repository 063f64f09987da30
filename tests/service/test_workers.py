"""Several processes on one PostgreSQL database (issue 13, `banshe serve --workers N`): one game
written through two real `banshe serve` processes keeps its order and loses no post, and a live
page held on one process receives the posts written through the other (LISTEN/NOTIFY)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
from sqlalchemy import select

from banshe.engine.commands import Command
from banshe.engine.core import apply_in_place, new_game
from banshe.rulesets.registry import get_ruleset
from banshe.service.db import make_engine, session_factory
from banshe.service.games import GameService
from banshe.service.models import CommandRow, Post

from .conftest import PINMING_SEATS, FakeClock, Harness, _reset_pg, free_port, start_server


def test_serve_refuses_several_workers_on_sqlite(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'one.sqlite3'}"
    cmd = [sys.executable, "-m", "banshe", "serve", "--workers", "2", "--database-url", db, "--port", "1"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "SQLite 只能用一个进程" in done.stderr + done.stdout


def test_two_processes_write_one_game_in_order(pg_database: str) -> None:
    _reset_pg(pg_database)
    ports = [free_port(), free_port()]
    procs = [start_server(pg_database, p) for p in ports]
    engine = make_engine(pg_database)
    service = GameService(session_factory(engine))
    clients = [httpx.Client(base_url=f"http://127.0.0.1:{p}", timeout=60) for p in ports]
    try:
        h = Harness(clients[0], service, FakeClock(time.time()), pg_database)  # type: ignore[arg-type]
        h.login()
        game = h.create_pinming()
        links = h.links(game)
        assert h.director(game, "command", skill="close_phase")[0] == 303  # 开局 → 第1天
        with service.sessions() as s:  # its settling window, ended at once by the director
            window = service.current_deadline(s, game)
            assert window is not None and window.skill == "window"
        assert h.director(game, f"deadlines/{window.id}", action="now")[0] == 303
        for _ in range(300):  # the servers' schedulers fire it
            if service.read_published(game)[2].open:
                break
            time.sleep(0.1)
        assert service.read_published(game)[2].label == "第1天"
        names = list(PINMING_SEATS)
        watcher = links["粽子"]
        received: list[str] = []
        listening = threading.Event()

        def watch() -> None:  # a live page held on the second process
            page = clients[1].get(f"/p/{watcher}/thread").text
            version = page.split('data-version="', 1)[1].split('"', 1)[0]
            with clients[1].stream("GET", f"/p/{watcher}/events?v={version}", timeout=40) as r:
                listening.set()
                for line in r.iter_lines():
                    received.append(line)
                    if "跨进程 1-14" in line:
                        return

        watching = threading.Thread(target=watch)
        watching.start()
        assert listening.wait(30)
        time.sleep(1.0)
        failures: list[str] = []

        def writer(k: int) -> None:  # the two processes write the same game at once
            c = clients[k]
            worker = Harness(c, service, h.clock, pg_database)  # type: ignore[arg-type]
            for i in range(15):
                author = names[(i * 2 + k) % len(names)]
                text = f"投票对象：汤圆\n投票理由：跨进程 {k}-{i}" if i < 5 else f"跨进程 {k}-{i}"
                code, body = worker.post(links[author], text)
                if code != 303:
                    failures.append(f"{k}-{i} {code} {body[:200]}")

        threads = [threading.Thread(target=writer, args=(k,)) for k in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        watching.join(timeout=40)
        assert not failures, failures
        with service.sessions() as s:
            posts = [p.text for p in s.scalars(select(Post).where(Post.game_id == game).order_by(Post.id))]
            rows = list(s.scalars(select(CommandRow).where(CommandRow.game_id == game).order_by(CommandRow.seq)))
        for k in (0, 1):
            for i in range(15):
                assert sum(1 for p in posts if p.endswith(f"跨进程 {k}-{i}")) == 1, (k, i)
        assert [r.seq for r in rows] == list(range(1, len(rows) + 1))  # one order, no gap
        state = new_game(get_ruleset("pinming"), names, dict(PINMING_SEATS), {}, 7)
        for r in rows:
            apply_in_place(state, Command.from_json(r.payload))  # the stored order replays
        assert len(state.votes) == 10  # every vote post of both processes is the engine's vote
        # the page held on process 2 got process 1's posts pushed (fragments, no whole-page reload)
        assert any("跨进程 0-" in line for line in received), received
        assert sum(1 for line in received if line == "event: post") >= 20, received
    finally:
        for c in clients:
            c.close()
        for p in procs:
            p.terminate()
            p.wait(timeout=20)
        engine.dispose()


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            out += [int(k) for k in task.read_text().split()]
        except OSError:
            continue
    return out


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_serve_workers_starts_that_many_processes_on_postgresql(pg_database: str) -> None:
    """Issue 26's scale-out path: `banshe serve --workers 2` on PostgreSQL runs two serving
    processes (uvicorn's workers, each its own app and event loop) that both answer."""
    _reset_pg(pg_database)
    port = free_port()
    cmd = [sys.executable, "-m", "banshe", "serve", "--workers", "2", "--port", str(port)]
    cmd += ["--database-url", pg_database, "--log-level", "warning"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        workers: list[int] = []
        for _ in range(600):  # both workers up (at most ~60 s)
            workers = [
                k
                for k in _children(proc.pid)
                if b"spawn_main" in _cmdline(k)  # not the resource tracker
            ]
            try:
                ok = httpx.get(f"http://127.0.0.1:{port}/login", timeout=1).status_code == 200
            except httpx.HTTPError:
                ok = False
            if ok and len(workers) == 2:
                break
            assert proc.poll() is None, "banshe serve exited"
            time.sleep(0.1)
        assert len(workers) == 2
        for _ in range(10):  # new connections, whichever worker takes them
            with httpx.Client(base_url=f"http://127.0.0.1:{port}") as c:
                assert c.get("/login").status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)
