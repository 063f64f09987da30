"""`kill -9` a real `banshe serve` while players post: every acknowledged post survives the restart."""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from pathlib import Path

import httpx
from sqlalchemy import select

from banshe.engine import DIRECTOR, Command, replay
from banshe.service import auth
from banshe.service.app import Settings, create_app
from banshe.service.models import Post, Seat

from .conftest import PINMING_SEATS, free_port, start_server

CSRF_RE = re.compile(r'name="csrf-token" content="([^"]+)"')


def test_kill_9_loses_no_acknowledged_submission(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'crash.sqlite3'}"
    app = create_app(Settings(database_url=db, start_scheduler=False))
    service = app.state.service
    with service.sessions() as s:
        director = auth.create_director(s, "admin", "crash-test-pw")
        s.commit()
    game = service.create_game(director.id, "品茗", list(PINMING_SEATS), dict(PINMING_SEATS), seed=1)
    service.submit(game.id, Command(DIRECTOR, "close_phase"), "director")
    with service.sessions() as s:
        tokens = {seat.name: seat.token for seat in s.scalars(select(Seat))}
    app.state.engine.dispose()

    port = free_port()
    proc = start_server(db, port)
    base = f"http://127.0.0.1:{port}"
    acked: list[tuple[str, str]] = []
    lock = threading.Lock()
    stop = threading.Event()

    def player(name: str) -> None:
        with httpx.Client(base_url=base, timeout=5) as client:
            try:
                m = CSRF_RE.search(client.get(f"/p/{tokens[name]}/thread").text)
                assert m is not None
                for i in range(200):
                    if stop.is_set():
                        return
                    text = "投票对象：饺子\n投票理由：先投" if i == 0 else f"{name}的第{i}帖"
                    r = client.post(f"/p/{tokens[name]}/post", data={"csrf": m.group(1), "text": text})
                    if r.status_code == 303:
                        with lock:
                            acked.append((name, text))
            except httpx.HTTPError:
                return  # the server is gone

    threads = [threading.Thread(target=player, args=(n,)) for n in ["包子", "烧麦", "锅贴", "馄饨"]]
    for t in threads:
        t.start()
    for _ in range(600):
        with lock:
            if len(acked) >= 30:
                break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)  # mid-stream: requests are in flight
    proc.wait()
    stop.set()
    for t in threads:
        t.join()
    assert len(acked) >= 30

    # restart: a real server comes back up on the same file, and the stored game replays
    proc = start_server(db, port)
    try:
        r = httpx.get(f"{base}/p/{tokens['包子']}/state.json")
        assert r.status_code == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
    app = create_app(Settings(database_url=db, start_scheduler=False))
    service = app.state.service
    with service.sessions() as s:
        stored = {(p.author, p.text) for p in s.scalars(select(Post).where(Post.game_id == game.id))}
    assert set(acked) <= stored
    _game, state = service.read(game.id)
    for name, text in acked:
        if text.startswith("投票对象"):
            assert state.votes[name] == "饺子"
    assert replay(state).fingerprint() == state.fingerprint()
    app.state.engine.dispose()
