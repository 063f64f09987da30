"""Load benchmark (a script, not a test): concurrent 品茗 games against one `banshe serve`.

    .venv/bin/python benchmarks/bench_service.py                 # 50 games x 14 players, SQLite
    BANSHE_DATABASE_URL=postgresql://postgres@127.0.0.1/bench .venv/bin/python benchmarks/bench_service.py

Sets up the games in-process on a fresh database, starts `banshe serve` on 127.0.0.1, then
every player of every game posts and votes in day 1's thread at once (bounded: `--posts`
posts each, then a vote). Prints requests/s, p50/p99 latency and the error count (must be 0).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from sqlalchemy import select

from banshe.demo import DEMO_NAMES
from banshe.engine import DIRECTOR, Command
from banshe.service import auth
from banshe.service.app import Settings, create_app
from banshe.service.models import Seat

CSRF_RE = re.compile(r'name="csrf-token" content="([^"]+)"')
# one client address stands for every simulated player here: issue 25's per-client, per-link and
# per-seat limits (docs/deploy.md) would measure themselves, so the benchmark lifts them
BENCH_LIMITS = {
    "BANSHE_CONNECTIONS_PER_CLIENT": "1000000",
    "BANSHE_SSE_PER_LINK": "1000",
    "BANSHE_SSE_PER_GAME": "1000000",
    "BANSHE_POSTS_PER_MINUTE": "1000000",
    "BANSHE_POST_CHARS_PER_PHASE": "1000000000",
}


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def setup(db: str, games: int) -> list[dict[str, str]]:
    app = create_app(Settings(database_url=db, start_scheduler=False))
    service = app.state.service
    with service.sessions() as s:
        director = auth.create_director(s, f"bench{time.time_ns()}", "bench-password")
        s.commit()
    out = []
    names = DEMO_NAMES[:14]
    for i in range(games):
        game = service.create_game(director.id, "品茗", names, seed=i)
        service.submit(game.id, Command(DIRECTOR, "close_phase"), "director")  # 开局 -> 第1天
        with service.sessions() as s:
            out.append({seat.name: seat.token for seat in s.scalars(select(Seat).where(Seat.game_id == game.id))})
    app.state.engine.dispose()
    return out


async def player(
    client: httpx.AsyncClient,
    gate: asyncio.Semaphore,
    token: str,
    name: str,
    target: str,
    posts: int,
    lat: list[float],
    errors: list[str],
) -> None:
    async with gate:
        r = await client.get(f"/p/{token}/thread")
    m = CSRF_RE.search(r.text)
    if r.status_code != 200 or m is None:
        errors.append(f"GET {r.status_code}")
        return
    csrf = m.group(1)
    texts = [f"{name}的第{i + 1}帖：我觉得{target}很可疑。" for i in range(posts)]
    texts.append(f"投票对象：{target}\n投票理由：压测")
    for text in texts:
        async with gate:  # at most `connections` requests in flight; latency is the server's, not our queue's
            t0 = time.perf_counter()
            try:
                r = await client.post(f"/p/{token}/post", data={"csrf": csrf, "text": text})
            except httpx.HTTPError as exc:
                errors.append(repr(exc))
                continue
            lat.append(time.perf_counter() - t0)
        if r.status_code != 303:
            errors.append(f"POST {r.status_code}")


async def load(
    base: str, games: list[dict[str, str]], posts: int, connections: int
) -> tuple[list[float], list[str], float]:
    lat: list[float] = []
    errors: list[str] = []
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    gate = asyncio.Semaphore(connections)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120) as client:
        tasks = []
        for links in games:
            names = list(links)
            for i, name in enumerate(names):
                target = names[(i + 1) % len(names)]
                tasks.append(player(client, gate, links[name], name, target, posts, lat, errors))
        t0 = time.perf_counter()
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - t0
    return lat, errors, elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--posts", type=int, default=5, help="posts per player before the vote")
    ap.add_argument("--connections", type=int, default=32, help="requests in flight at once")
    args = ap.parse_args(argv)
    tmp = tempfile.TemporaryDirectory()
    db = os.environ.get("BANSHE_DATABASE_URL") or f"sqlite:///{Path(tmp.name) / 'bench.sqlite3'}"
    print(f"准备 {args.games} 局品茗（14人）…", flush=True)
    games = setup(db, args.games)
    port = _port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "banshe", "serve", "--port", str(port), "--database-url", db, "--log-level", "warning"],
        stdout=subprocess.DEVNULL,
        env={**os.environ, **BENCH_LIMITS},
    )
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                httpx.get(base + "/login", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        lat, errors, elapsed = asyncio.run(load(base, games, args.posts, args.connections))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        tmp.cleanup()
    lat.sort()
    n = len(lat)
    p50 = lat[n // 2] * 1000 if n else 0.0
    p99 = lat[min(n - 1, int(n * 0.99))] * 1000 if n else 0.0
    print(f"数据库：{db.split('://')[0]}  对局：{args.games}  玩家：{args.games * 14}")
    print(f"请求：{n}  用时：{elapsed:.1f}s  吞吐：{n / elapsed:.1f} req/s")
    print(f"延迟：p50 {p50:.1f} ms  p99 {p99:.1f} ms")
    print(f"错误：{len(errors)}" + (f"（例如 {errors[:3]}）" if errors else ""))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
