"""Live-page load benchmark (a script, not a test) for the director service (issue 13).

实时页面负载基准：启动一个真实的 `banshe serve`，像导演一样建 G 局品茗（14 人），每局 V 个玩家的讨论帖页面
保持 SSE 实时连接（收到更新就照 static/app.js 的做法重新 GET 页面），同时按开环泊松到达（固定种子）以 R 帖/秒
在各局发帖与投票，延迟从每个请求的计划时刻算起（排队也算在内），并以低频率 GET 同一服务器上的静态文件作对照。

    .venv/bin/python benchmarks/bench_live.py --games 2 --duration 10           # 冒烟
    .venv/bin/python benchmarks/bench_live.py --matrix --duration 20             # 10/25/50 局，SQLite 与 PostgreSQL

Only 127.0.0.1 is ever contacted. Every loop is bounded in count and time (a hard stop ends the run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
NAMES = ["饺子", "包子", "烧麦", "锅贴", "馄饨", "油条", "豆花", "粽子", "汤圆", "月饼", "春卷", "麻花", "年糕", "米糕"]
PG_ADMIN_URLS = [
    "postgresql+psycopg://postgres@127.0.0.1:5432/postgres",
    "postgresql+psycopg://root@127.0.0.1:5432/postgres",
]
CSRF_RE = re.compile(r'name="csrf-token" content="([^"]+)"')
SSE_RE = re.compile(r'id="live"(?: data-url="[^"]*")? data-sse="([^"]+)" data-version="([^"]*)"')
LINK_RE = re.compile(r'class="player-link[^"]*" data-player="([^"]+)" href="(/p/[^"]+)"')
IDEM_RE = re.compile(
    r'id="post-form">(?:<input type="hidden" name="csrf" value="[^"]*">)?'
    r'<input type="hidden" name="idem" value="([^"]+)"'
)
WINDOW_RE = re.compile(  # the god page's 立即结束结算窗口 form
    r'action="(/d/g/\d+/deadlines/\d+)"[^>]*>[^\n]*\n'
    r'<input type="hidden" name="action" value="now"><span class="muted">结算窗口'
)
ERROR_RE = re.compile(r'class="error"[^>]*>([^<]{0,120})')
KINDS = ["post", "vote", "page", "sse_refresh", "push", "static"]
REQUESTS = [k for k in KINDS if k != "push"]  # push: a message on a held stream, not a request
KIND_LABELS = {
    "post": "发帖 post",
    "vote": "投票 vote",
    "page": "页面 GET",
    "sse_refresh": "SSE reload 后的 GET",
    "push": "推送到每个页面（计划→收到）",
    "static": "静态文件",
}
MARK_RE = re.compile(r"的第(\d+)帖")


# -- HTML forms --------------------------------------------------------------------------------
class _Forms(HTMLParser):
    """The forms of a page with the fields a browser would send (checked boxes, selected options)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[tuple[dict[str, str], list[tuple[str, str]]]] = []
        self._select: str | None = None
        self._select_value: str | None = None
        self._textarea: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append((a, []))
            return
        if not self.forms:
            return
        fields = self.forms[-1][1]
        if tag == "input" and a.get("name"):
            if a.get("type") in ("checkbox", "radio"):
                if "checked" in a:
                    fields.append((a["name"], a.get("value") or "on"))
            elif a.get("type") not in ("submit", "button", "file"):
                fields.append((a["name"], a.get("value", "")))
        elif tag == "select" and a.get("name"):
            self._select, self._select_value = a["name"], None
        elif tag == "option" and self._select is not None:
            if self._select_value is None or "selected" in a:
                self._select_value = a.get("value", "")
        elif tag == "textarea" and a.get("name"):
            self._textarea, self._text = a["name"], []

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "select" and self._select is not None and self.forms:
            self.forms[-1][1].append((self._select, self._select_value or ""))
            self._select = None
        elif tag == "textarea" and self._textarea is not None and self.forms:
            self.forms[-1][1].append((self._textarea, "".join(self._text)))
            self._textarea = None


def forms_of(html: str) -> list[tuple[dict[str, str], dict[str, str]]]:
    p = _Forms()
    p.feed(html)
    return [(attrs, dict(fields)) for attrs, fields in p.forms]


def form_where(html: str, action: str, method: str = "", **want: str) -> dict[str, str]:
    for attrs, fields in forms_of(html):
        if attrs.get("action") != action or (method and attrs.get("method", "get").lower() != method):
            continue
        if all(fields.get(k) == v for k, v in want.items()):
            return fields
    raise RuntimeError(f"页面上没有表单 {action} {want}")


# -- measurements ------------------------------------------------------------------------------
@dataclass
class Stats:
    lat: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    errors: list[str] = field(default_factory=list)
    sse_messages: int = 0
    reloads: int = 0
    sched: dict[int, float] = field(default_factory=dict)  # post number -> its scheduled time
    in_flight: int = 0
    dropped: int = 0
    votes_left_out: int = 0

    def error(self, what: str) -> None:
        self.errors.append(what)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * q))] * 1000


def cell(values: list[float]) -> str:
    if not values:
        return "–"
    return "/".join(f"{pct(values, q):.0f}" for q in (0.5, 0.9, 0.99)) + f"/{max(values) * 1000:.0f} (n={len(values)})"


def proc_cpu(pid: int) -> float:
    """utime + stime in seconds of a process and its live children (`--workers`: uvicorn's worker
    processes), from /proc/<pid>/stat (fields 14 and 15) and /proc/<pid>/task/*/children."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    rest = raw[raw.rindex(")") + 2 :].split()
    total = (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            kids = task.read_text().split()
        except OSError:
            continue
        total += sum(proc_cpu(int(k)) for k in kids)
    return total


def run_delay(pid: int, children: bool = True) -> float:
    """Seconds the threads of `pid` (and its live children) spent runnable but waiting for a CPU
    (/proc/<pid>/task/*/schedstat, field 2): a starved process — or threads that woke to wait for
    each other (the GIL) — not a slow one."""
    total = 0.0
    for f in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        try:
            total += int(f.read_text().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            continue
    for task in Path(f"/proc/{pid}/task").glob("*/children") if children else ():
        try:
            kids = task.read_text().split()
        except OSError:
            continue
        total += sum(run_delay(int(k)) for k in kids)
    return total


def postgres_cpu() -> float:
    """utime + stime of every PostgreSQL server process on this machine (its backends serve the
    benchmark's database: the database's share of a write's CPU)."""
    total = 0.0
    for d in Path("/proc").glob("[0-9]*"):
        try:
            if (d / "comm").read_text().strip() != "postgres":
                continue
            raw = (d / "stat").read_text()
        except OSError:
            continue
        rest = raw[raw.rindex(")") + 2 :].split()
        total += (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")
    return total


def self_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


# one client address stands for every simulated player here: issue 25's per-client, per-link and
# per-seat limits (docs/deploy.md) would measure themselves, so the benchmark lifts them
BENCH_LIMITS = {
    "BANSHE_CONNECTIONS_PER_CLIENT": "1000000",
    "BANSHE_SSE_PER_LINK": "1000",
    "BANSHE_SSE_PER_GAME": "1000000",
    "BANSHE_POSTS_PER_MINUTE": "1000000",
    "BANSHE_POST_CHARS_PER_PHASE": "1000000000",
}


# -- the server --------------------------------------------------------------------------------
def _port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def banshe_cmd() -> list[str]:
    venv = REPO / ".venv" / "bin" / "python"
    return [str(venv if venv.exists() else Path(sys.executable)), "-m", "banshe"]


def serve_supports_workers() -> bool:
    out = subprocess.run([*banshe_cmd(), "serve", "--help"], capture_output=True, text=True, timeout=60).stdout
    return "--workers" in out


def find_pg() -> str | None:
    try:
        from sqlalchemy import create_engine, text
    except ImportError:
        return None
    for url in PG_ADMIN_URLS:
        try:
            eng = create_engine(url, connect_args={"connect_timeout": 2})
            with eng.connect() as conn:
                conn.execute(text("select 1"))
            eng.dispose()
            return url
        except Exception:  # noqa: BLE001 - any failure means "not reachable"
            continue
    return None


class Database:
    """A fresh SQLite file, or a throw-away PostgreSQL database (dropped afterwards)."""

    def __init__(self, kind: str, tmp: Path) -> None:
        self.kind = kind
        self._admin: str | None = None
        self._name = ""
        if kind == "sqlite":
            self.url = f"sqlite:///{tmp / f'live-{uuid.uuid4().hex[:8]}.sqlite3'}"
            return
        admin = find_pg()
        if admin is None:
            raise RuntimeError("PostgreSQL 不可达（127.0.0.1:5432）")
        from sqlalchemy import create_engine, text

        self._admin = admin
        self._name = f"banshe_bench_{uuid.uuid4().hex[:10]}"
        eng = create_engine(admin, isolation_level="AUTOCOMMIT")
        with eng.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{self._name}"'))
        eng.dispose()
        self.url = admin.rsplit("/", 1)[0] + "/" + self._name

    def drop(self) -> None:
        if self._admin is None:
            return
        from sqlalchemy import create_engine, text

        eng = create_engine(self._admin, isolation_level="AUTOCOMMIT")
        with eng.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{self._name}" WITH (FORCE)'))
        eng.dispose()


# -- the director's setup (through the forms, as a browser would) --------------------------------
@dataclass
class Viewer:
    game: int
    name: str
    path: str  # /p/<token>/thread
    csrf: str = ""
    idem: str = ""
    used_idem: set[str] = field(default_factory=set)
    sse: str = ""
    seen: str | None = None
    ready: bool = False


async def login(client: httpx.AsyncClient, username: str, password: str) -> None:
    page = await client.get("/login")
    m = CSRF_RE.search(page.text)
    if m is None:
        raise RuntimeError("登录页没有 csrf")
    fields = form_where(page.text, "/login")
    fields.update({"username": username, "password": password, "csrf": m.group(1), "next": "/d"})
    r = await client.post("/login", data=fields)
    if r.status_code != 303:
        raise RuntimeError(f"登录失败：{r.status_code}")


async def create_game(client: httpx.AsyncClient, seed: int) -> tuple[int, dict[str, str]]:
    page = await client.get("/d/new", params={"ruleset": "品茗"})
    fields = form_where(page.text, "/d/new", method="post")
    fields.update({"seats": "\n".join(NAMES), "seed": str(seed), "title": f"压测{seed}", "auto_publish": "on"})
    r = await client.post("/d/new", data=fields)
    if r.status_code != 303:
        raise RuntimeError(f"建局失败：{r.status_code} {ERROR_RE.findall(r.text)[:1]}")
    game_path = r.headers["location"]
    god = await client.get(game_path)
    start = form_where(god.text, f"{game_path}/command", skill="close_phase")  # 开局 -> 第1天
    r = await client.post(f"{game_path}/command", data=start)
    if r.status_code != 303:
        raise RuntimeError(f"开局失败：{r.status_code} {ERROR_RE.findall(r.text)[:1]}")
    god = await client.get(game_path)
    # issue 22: the 开局 close opens a settling window; the day begins for the players when it ends
    window = WINDOW_RE.search(god.text)
    if window is not None:
        end = next(f for a, f in forms_of(god.text) if a.get("action") == window.group(1) and f.get("action") == "now")
        r = await client.post(window.group(1), data=end)
        if r.status_code != 303:
            raise RuntimeError(f"结束结算窗口失败：{r.status_code} {ERROR_RE.findall(r.text)[:1]}")
        god = await client.get(game_path)
    links = {name: href for name, href in LINK_RE.findall(god.text)}
    if len(links) != len(NAMES):
        raise RuntimeError(f"角色表只有 {len(links)} 个链接")
    return int(game_path.rsplit("/", 1)[1]), links


def read_page(v: Viewer, html: str) -> None:
    m = CSRF_RE.search(html)
    if m:
        v.csrf = m.group(1)
    k = IDEM_RE.search(html)  # the post form's key (no post form: the day closed)
    if k:
        v.idem = k.group(1)
    s = SSE_RE.search(html)
    if s:
        v.sse = s.group(1)
        if v.seen is None:
            v.seen = s.group(2) or None


# -- the live viewers and the load -------------------------------------------------------------
async def timed_get(client: httpx.AsyncClient, stats: Stats, kind: str, url: str, t0: float) -> httpx.Response | None:
    try:
        r = await client.get(url)
    except (httpx.HTTPError, RuntimeError) as exc:
        stats.error(f"{kind} {type(exc).__name__}")
        return None
    stats.lat[kind].append(time.perf_counter() - t0)
    if r.status_code != 200:
        stats.error(f"{kind} {r.status_code}")
        return None
    return r


class _StreamGone(Exception):
    pass


async def _sse_lines(client: httpx.AsyncClient, url: str) -> Any:
    """The lines of one SSE response, read on a plain asyncio connection (HTTP/1.1, chunked), not
    through httpx: 700 streams held in httpx's pool made every other request of this generator
    scan them, and the generator — not the server — became the bottleneck (issue 26)."""
    base = client.base_url
    reader, writer = await asyncio.open_connection(base.host, base.port)
    try:
        writer.write(
            f"GET {url} HTTP/1.1\r\nHost: {base.host}:{base.port}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
        status = int(head.split(b" ", 2)[1])
        if status != 200:
            raise _StreamGone(f"sse {status}")
        chunked = b"transfer-encoding: chunked" in head.lower()
        pending = b""
        while True:
            if chunked:
                size = int((await reader.readuntil(b"\r\n")).strip() or b"0", 16)
                if size == 0:
                    return
                data = await reader.readexactly(size + 2)
                pending += data[:-2]
            else:
                data = await reader.read(65536)
                if not data:
                    return
                pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                yield line.decode("utf-8").rstrip("\r")
    finally:
        writer.close()


async def viewer_loop(client: httpx.AsyncClient, v: Viewer, stats: Stats, stop: asyncio.Event) -> None:
    """What static/app.js does: hold the page's EventSource (`?v=` the page's version); append each
    pushed `post` / `chat` fragment (nothing to fetch: the latency of each post's fragment is taken
    from the post's scheduled time); on `reload`, GET the page again (htmx.ajax swaps #live).
    Reconnects after `retry`."""
    while not stop.is_set():
        try:
            url = v.sse + (f"?v={v.seen}" if v.seen else "")
            event, data = "message", []
            async for line in _sse_lines(client, url):
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[6:] if line.startswith("data: ") else line[5:])
                elif line == "":
                    if event in ("version", "post", "chat", "reload"):
                        stats.sse_messages += 1
                    if event == "version":
                        v.ready = True
                    elif event == "post":
                        m = MARK_RE.search("\n".join(data))
                        if m and int(m.group(1)) in stats.sched:
                            stats.lat["push"].append(time.perf_counter() - stats.sched[int(m.group(1))])
                    elif event == "reload" and v.ready:
                        stats.reloads += 1
                        t0 = time.perf_counter()
                        r = await timed_get(client, stats, "sse_refresh", v.path, t0)
                        if r is not None:
                            s = SSE_RE.search(r.text)
                            v.seen = s.group(2) if s else v.seen
                    elif event == "gone":
                        return
                    event, data = "message", []
                if stop.is_set():
                    return
        except _StreamGone as exc:
            stats.error(str(exc))
            return
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError) as exc:
            if stop.is_set():
                return
            stats.error(f"sse {type(exc).__name__}")
        await asyncio.sleep(2.0)  # `retry: 2000`


async def submit(
    client: httpx.AsyncClient, v: Viewer, kind: str, text: str, t_sched: float, stats: Stats, by_form: bool = False
) -> None:
    """What the thread page does with a post: static/app.js sends it by fetch (Accept: JSON) and
    takes the next form key from the answer — the new floor comes by the push; `by_form`: a page
    without its script (the form's own POST, then the redirect's page)."""
    stats.in_flight += 1
    try:
        key = v.idem if v.idem and v.idem not in v.used_idem else secrets.token_urlsafe(18)
        v.used_idem.add(key)
        base = v.path.rsplit("/", 1)[0]
        headers = {} if by_form else {"Accept": "application/json"}
        try:
            r = await client.post(f"{base}/post", data={"csrf": v.csrf, "idem": key, "text": text}, headers=headers)
        except (httpx.HTTPError, RuntimeError) as exc:  # RuntimeError: the client closed at the hard stop
            stats.error(f"{kind} {type(exc).__name__}")
            return
        stats.lat[kind].append(time.perf_counter() - t_sched)
        if not by_form:
            if r.status_code != 200:
                stats.error(f"{kind} {r.status_code} {r.text[:80]}")
                return
            v.idem = r.json()["idem"]
            return
        if r.status_code != 303:
            stats.error(f"{kind} {r.status_code} {''.join(ERROR_RE.findall(r.text)[:1])}")
            return
        # the browser follows the redirect: a fresh page with a fresh form key
        page = await timed_get(client, stats, "page", r.headers["location"], time.perf_counter())
        if page is not None:
            read_page(v, page.text)
    finally:
        stats.in_flight -= 1


async def static_loop(
    client: httpx.AsyncClient, rate: float, start: float, end: float, stats: Stats, pending: set[asyncio.Task[Any]]
) -> None:
    """The side-by-side figure: one static file at a fixed rate (its tasks join `pending`)."""
    k = 0
    while True:
        t = start + k / rate
        if t >= end or time.perf_counter() >= end:
            break
        await asyncio.sleep(max(0.0, t - time.perf_counter()))
        task = asyncio.create_task(timed_get(client, stats, "static", "/static/htmx.min.js", t))
        pending.add(task)
        task.add_done_callback(pending.discard)
        k += 1


@dataclass
class Result:
    db: str
    games: int
    viewers: int
    workers: int
    rate: float
    elapsed: float
    stats: Stats
    server_cpu: float
    client_cpu: float
    load: tuple[float, float]
    ready: int
    server_lat: dict[str, list[float]]  # server-side, seconds, per route kind (BANSHE_TIMING_FILE)
    timelines: list[dict[str, Any]]  # --timeline: the server's per-request timelines (BANSHE_TIMELINE)
    waits: tuple[float, float] = (0.0, 0.0)  # seconds runnable but not running: server, client
    pg_cpu: float = 0.0  # CPU seconds of the PostgreSQL processes during the load


async def run_load(
    base: str, args: argparse.Namespace, games: int, rate: float
) -> tuple[Stats, float, float, float, int]:
    stats = Stats()
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    timeout = httpx.Timeout(args.timeout)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=timeout, follow_redirects=False) as director:
        await login(director, "bench", args.password)
        made = [await create_game(director, seed) for seed in range(games)]
    stop = asyncio.Event()
    viewers: list[Viewer] = []
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=timeout, follow_redirects=False) as client:
        for game_id, links in made:
            for name in NAMES[: args.viewers]:
                viewers.append(Viewer(game_id, name, links[name] + "/thread"))
        # open every page (bounded concurrency while opening), then its stream
        gate = asyncio.Semaphore(16)

        async def open_page(v: Viewer) -> None:
            async with gate:
                r = await timed_get(client, stats, "page", v.path, time.perf_counter())
            if r is not None:
                read_page(v, r.text)

        await asyncio.gather(*(open_page(v) for v in viewers))
        live = [asyncio.create_task(viewer_loop(client, v, stats, stop)) for v in viewers if v.sse]
        t_wait = time.perf_counter() + args.connect_seconds
        while time.perf_counter() < t_wait and not all(v.ready for v in viewers):
            await asyncio.sleep(0.2)
        ready = sum(v.ready for v in viewers)
        for kind in KINDS:  # the figures are the load window's only
            stats.lat[kind].clear()
        stats.errors.clear()
        stats.sse_messages = stats.reloads = 0

        # the open-loop arrivals, drawn up front from a fixed seed
        rng = random.Random(args.seed)
        by_game: dict[int, list[Viewer]] = {}
        for v in viewers:
            by_game.setdefault(v.game, []).append(v)
        voted: set[tuple[int, str]] = set()
        plan: list[tuple[float, str, Viewer, str]] = []
        t = 0.0
        for n in range(args.max_arrivals):
            t += rng.expovariate(rate)
            if t >= args.duration:
                break
            v = rng.choice(viewers)
            if rng.random() < args.vote_share:
                free = [w for w in by_game[v.game] if (w.game, w.name) not in voted]
                if free:
                    w = rng.choice(free)
                    voted.add((w.game, w.name))
                    target = NAMES[(NAMES.index(w.name) + 1) % len(NAMES)]
                    plan.append((t, "vote", w, f"投票对象：{target}\n投票理由：压测"))
                    continue
                stats.votes_left_out += 1  # everyone of that game voted already: a post instead
            plan.append((t, "post", v, f"{v.name}的第{n + 1}帖：我觉得这局很难。"))

        server_cpu0 = proc_cpu(args.server_pid)
        client_cpu0 = self_cpu()
        waits0 = run_delay(args.server_pid), run_delay(os.getpid(), children=False)  # not the server
        pg0 = postgres_cpu()
        args.load_started = time.time()  # the server-side timings count from here (not the setup)
        if getattr(args, "spy_cmd", None):
            args.spy_proc = subprocess.Popen(args.spy_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        start = time.perf_counter()
        pending: set[asyncio.Task[Any]] = set()
        end = start + args.duration
        static = asyncio.create_task(static_loop(client, args.static_rate, start, end, stats, pending))
        for t_rel, kind, v, text in plan:
            t_abs = start + t_rel
            if time.perf_counter() >= end:  # the client itself fell behind: the rest is not sent
                stats.dropped += 1
                continue
            await asyncio.sleep(max(0.0, t_abs - time.perf_counter()))
            if stats.in_flight >= args.max_in_flight:
                stats.dropped += 1
                continue
            m = MARK_RE.search(text)
            if m:
                stats.sched[int(m.group(1))] = t_abs
            task = asyncio.create_task(submit(client, v, kind, text, t_abs, stats, args.by_form))
            pending.add(task)
            task.add_done_callback(pending.discard)
        await static
        hard = start + args.duration + args.grace
        while pending and time.perf_counter() < hard:
            await asyncio.wait(pending, timeout=max(0.01, hard - time.perf_counter()))
        await asyncio.sleep(min(1.0, max(0.0, hard - time.perf_counter())))  # the last refreshes
        elapsed = time.perf_counter() - start
        server_cpu = proc_cpu(args.server_pid) - server_cpu0
        client_cpu = self_cpu() - client_cpu0
        args.run_waits = (
            run_delay(args.server_pid) - waits0[0],
            run_delay(os.getpid(), children=False) - waits0[1],
        )
        args.pg_cpu = postgres_cpu() - pg0
        for task in pending:
            task.cancel()
            stats.error("unfinished at the hard stop")
        stop.set()
        for task in live:
            task.cancel()
        await asyncio.gather(*live, *pending, return_exceptions=True)
    return stats, elapsed, server_cpu, client_cpu, ready


SERVER_KINDS = {"post": "发帖与投票 POST", "page": "页面 GET", "static": "静态文件", "other": "其他"}


def server_timings(base: Path, since: float) -> dict[str, list[float]]:
    """The server's own request times (`banshe.service.timing`: `<kind> <ms> <end epoch>` lines in
    `<base>.<pid>`, one file per worker), those that ended after the load began, in seconds."""
    out: dict[str, list[float]] = {k: [] for k in SERVER_KINDS}
    for f in base.parent.glob(base.name + ".*"):
        for line in f.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[0] in out and float(parts[2]) >= since:
                out[parts[0]].append(float(parts[1]) / 1000)
    return out


def load_timelines(base: Path, since: float) -> list[dict[str, Any]]:
    """The server's per-request timelines (`banshe.service.timeline`, BANSHE_TIMELINE: JSON lines
    in `<base>.<pid>`) of the requests that ended after the load began."""
    out: list[dict[str, Any]] = []
    for f in [*base.parent.glob(base.name + ".*"), *base.parent.glob(base.name + "-gc.*")]:
        gc_file = f.name.startswith(base.name + "-gc.")
        for line in f.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("end", 0) >= since:
                out.append({"kind": "gc", "pid": f.name.rsplit(".", 1)[1], **rec} if gc_file else rec)
    return out


def gc_report(recs: list[dict[str, Any]]) -> str:
    """The server processes' garbage collections while the load ran (BANSHE_TIMELINE's
    `-gc.<pid>` lines): per process and generation, how many, the longest and their sum — every
    thread, the event loop's included, waits that long."""
    rows = ["| 进程 | 代 | 次数 | 最长 ms | p99 ms | 合计 ms |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    by: dict[tuple[str, int], list[float]] = {}
    for r in recs:
        if r.get("kind") == "gc":
            by.setdefault((str(r["pid"]), int(r["gen"])), []).append(float(r["ms"]))
    for (pid, gen), ms in sorted(by.items()):
        ms.sort()
        p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
        rows.append(f"| {pid} | {gen} | {len(ms)} | {ms[-1]:.1f} | {p99:.1f} | {sum(ms):.0f} |")
    return "\n".join(rows)


def phases(rec: dict[str, Any]) -> dict[str, float]:
    """A timeline's gaps between consecutive marks, named `a→b` (hop names folded: `hop→run`)."""
    out: dict[str, float] = {}
    marks = rec["marks"]
    for (a, ta, tha), (b, tb, thb) in zip(marks, marks[1:], strict=False):
        name = f"{a.split(':')[0]}→{b.split(':')[0]}"
        if (tha, thb) != ("L", "L"):
            name += f" ({tha}{thb})"
        out[name] = out.get(name, 0.0) + tb - ta
    out["sql（驱动内）"] = rec.get("sql_ms", 0.0)
    out["render（模板）"] = rec.get("render_ms", 0.0)
    out["cpu（线程内与内联段）"] = rec.get("cpu_ms", 0.0)
    return out


def timeline_report(recs: list[dict[str, Any]], kinds: tuple[str, ...] = ("post", "page"), top: float = 0.01) -> str:
    """Where the slowest `top` share of each kind's requests spent their time, next to the median
    request: the mean of each gap over the slow ones and its median over all; and the 3 slowest."""
    lines: list[str] = []
    for kind in kinds:
        rs = sorted((r for r in recs if r["kind"] == kind), key=lambda r: r["ms"])
        if not rs:
            continue
        slow = rs[-max(5, int(len(rs) * top)) :]
        names: list[str] = []
        for r in rs:
            for name in phases(r):
                if name not in names:
                    names.append(name)
        lines.append(
            f"\n时间线 {kind}：{len(rs)} 个请求，总时长（从读到首字节起）p50 {rs[len(rs) // 2]['ms']:.1f} ms，"
            f"p99 {rs[min(len(rs) - 1, int(len(rs) * 0.99))]['ms']:.1f} ms；最慢的 {len(slow)} 个平均 "
            f"{sum(r['ms'] for r in slow) / len(slow):.1f} ms\n"
        )
        lines.append("| 段 | 全部 中位数 ms | 全部 平均 ms | 最慢 1% 平均 ms |")
        lines.append("| --- | ---: | ---: | ---: |")
        for name in names:
            every = sorted(phases(r).get(name, 0.0) for r in rs)
            slow_mean = sum(phases(r).get(name, 0.0) for r in slow) / len(slow)
            mean = sum(every) / len(every)
            if max(every[-1], slow_mean) < 0.05:
                continue
            lines.append(f"| {name} | {every[len(every) // 2]:.2f} | {mean:.2f} | {slow_mean:.2f} |")
        for r in slow[-3:]:
            marks = " ".join(f"{m[0]}@{m[1]:.1f}{m[2]}" for m in r["marks"])
            lines.append(
                f"\n- {r['ms']:.1f} ms（sql {r['sql_ms']:.1f} / {r['sql_n']} 条，模板 {r['render_ms']:.1f}，"
                f"CPU {r['cpu_ms']:.1f}）：{marks}"
            )
    return "\n".join(lines)


def one_run(args: argparse.Namespace, kind: str, games: int, rate: float, workers: int) -> Result:
    tmp = tempfile.TemporaryDirectory()
    db = Database(kind, Path(tmp.name))
    log = open(Path(tmp.name) / "serve.log", "w+")  # noqa: SIM115 - closed in finally
    proc: subprocess.Popen[bytes] | None = None
    try:
        timing = Path(tmp.name) / "timing"
        env = dict(os.environ, BANSHE_ADMIN_PASSWORD=args.password, BANSHE_TIMING_FILE=str(timing), **BENCH_LIMITS)
        tl_base = Path(tmp.name) / "timeline"
        if args.timeline:
            env["BANSHE_TIMELINE"] = str(tl_base)
        subprocess.run(
            [*banshe_cmd(), "admin", "create", "--username", "bench", "--database-url", db.url],
            env=env,
            check=True,
            capture_output=True,
            timeout=120,
        )
        port = _port()
        cmd = [*banshe_cmd(), "serve", "--host", HOST, "--port", str(port), "--database-url", db.url]
        cmd += ["--log-level", "warning"]
        if workers > 1:
            cmd += ["--workers", str(workers)]
        pin: Any = None
        if args.pin:  # issue 26: the server on core 0 (workers inherit it), this generator on core 1
            server_cpus, client_cpus = {0}, {1 % (os.cpu_count() or 1)}
            os.sched_setaffinity(0, client_cpus)

            def pin() -> None:
                os.sched_setaffinity(0, server_cpus)

        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, env=env, preexec_fn=pin)
        base = f"http://{HOST}:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(base + "/login", timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    log.seek(0)
                    raise RuntimeError("banshe serve 没有启动：" + log.read()[-500:]) from None
                time.sleep(0.2)
        args.server_pid = proc.pid
        load0 = os.getloadavg()[0]
        if args.spy:  # py-spy on the server from the load's start (see run_load's spy_start)
            args.spy_cmd = [
                str(REPO / ".venv" / "bin" / "py-spy"),
                "record",
                "--pid",
                str(proc.pid),
                "--duration",
                str(int(args.spy)),
                "--rate",
                "100",
                "--gil" if args.spy_gil else "--idle",
                "--threads",
                "--format",
                "raw",
                "-o",
                f"{args.spy_out}-{kind}-{games}-{workers}.txt",
                "--nonblocking",
            ]
        stats, elapsed, server_cpu, client_cpu, ready = asyncio.run(run_load(base, args, games, rate))
        load1 = os.getloadavg()[0]
        spy = getattr(args, "spy_proc", None)
        if spy is not None:
            spy.wait(timeout=args.spy + 60)
            args.spy_proc = None
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return Result(
            kind + ("（固定核 pinned）" if args.pin else ""),
            games,
            games * args.viewers,
            workers,
            rate,
            elapsed,
            stats,
            server_cpu,
            client_cpu,
            (load0, load1),
            ready,
            server_timings(timing, args.load_started),
            load_timelines(tl_base, args.load_started) if args.timeline else [],
            args.run_waits,
            args.pg_cpu if kind == "postgresql" else 0.0,
        )
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()
        db.drop()
        tmp.cleanup()


HEADER = (
    "| 数据库 | 局 | 实时页面 | 进程 | 目标 帖/秒 | 实得 请求/秒 | "
    + " | ".join(f"{KIND_LABELS[k]} p50/p90/p99/max ms" for k in KINDS)
    + " | SSE 消息 | 错误 | 服务器 CPU s | 客户端 CPU s | 等 CPU s 服务器/客户端 | 用时 s | 负载 前→后 |"
)


def row(r: Result) -> str:
    done = sum(len(r.stats.lat[k]) for k in REQUESTS)
    return (
        f"| {r.db} | {r.games} | {r.ready}/{r.viewers} | {r.workers} | {r.rate:g} | {done / r.elapsed:.1f} | "
        + " | ".join(cell(r.stats.lat[k]) for k in KINDS)
        + f" | {r.stats.sse_messages} | {len(r.stats.errors) + r.stats.dropped} | {r.server_cpu:.1f} | "
        f"{r.client_cpu:.1f} | {r.waits[0]:.1f}/{r.waits[1]:.1f} | {r.elapsed:.1f} | {r.load[0]:.1f}→{r.load[1]:.1f} |"
    )


SERVER_HEADER = (
    "| 数据库 | 局 | 进程 | "
    + " | ".join(f"服务器端 {label} p50/p90/p99/max ms" for label in SERVER_KINDS.values())
    + " | 客户端 发帖 p50 / 静态文件 p50 |"
)


def server_row(r: Result) -> str:
    ratio = pct(r.stats.lat["post"], 0.5) / pct(r.stats.lat["static"], 0.5) if r.stats.lat["static"] else float("nan")
    return (
        f"| {r.db} | {r.games} | {r.workers} | "
        + " | ".join(cell(r.server_lat[k]) for k in SERVER_KINDS)
        + f" | {ratio:.2f} |"
    )


def report(results: list[Result], workers_note: str) -> None:
    print()
    print(HEADER)
    print("|" + " --- |" * (HEADER.count("|") - 1))
    for r in results:
        print(row(r))
    print()
    print("服务器端（请求到达应用至最后一个字节，不含 TCP 排队；施压窗口内结束的请求）：")
    print()
    print(SERVER_HEADER)
    print("|" + " --- |" * (SERVER_HEADER.count("|") - 1))
    for r in results:
        print(server_row(r))
    print()
    print(workers_note)
    for r in results:
        if r.timelines:
            print(f"\n### {r.db} {r.games} 局 {r.workers} 进程：服务器端时间线（BANSHE_TIMELINE）")
            print(timeline_report(r.timelines))
            print(f"\n垃圾回收（每次回收期间所有线程都停着）：\n\n{gc_report(r.timelines)}")
    for r in results:
        notes = []
        if r.client_cpu >= 0.85 * r.elapsed:
            notes.append(
                f"客户端 CPU {r.client_cpu:.1f}s ≈ 用时 {r.elapsed:.1f}s：客户端占满了一个核，"
                "数字偏悲观 (client saturated)"
            )
        if r.pg_cpu:
            notes.append(f"PostgreSQL 进程 CPU {r.pg_cpu:.1f}s")
        if r.stats.dropped:
            notes.append(f"{r.stats.dropped} 个到达因在途请求达上限（--max-in-flight）未发出，计为错误")
        if r.stats.votes_left_out:
            notes.append(f"{r.stats.votes_left_out} 次投票因该局已全部投过票改为发帖")
        if r.stats.errors:
            kinds: dict[str, int] = {}
            for e in r.stats.errors:
                kinds[e] = kinds.get(e, 0) + 1
            notes.append("错误：" + "；".join(f"{k} ×{n}" for k, n in sorted(kinds.items(), key=lambda x: -x[1])[:5]))
        if notes:
            print(f"- {r.db} {r.games} 局：" + "；".join(notes))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="导演服务实时页面负载基准 (live-page load benchmark for banshe serve, issue 13)"
    )
    ap.add_argument("--games", type=int, default=10, help="品茗对局数 (games of 14 players)")
    ap.add_argument(
        "--viewers", type=int, default=14, help="每局打开实时讨论帖页面的玩家数 (live viewers per game, ≤14)"
    )
    ap.add_argument(
        "--rate",
        type=float,
        default=None,
        help="全部对局合计的开环到达率，帖/秒 (posts+votes per second; default: 1 per game)",
    )
    ap.add_argument(
        "--vote-share", type=float, default=0.2, help="到达中投票所占比例 (share of arrivals that are votes)"
    )
    ap.add_argument("--duration", type=float, default=30.0, help="施压时长，秒 (load duration in seconds)")
    ap.add_argument("--grace", type=float, default=20.0, help="施压结束后等待在途请求的秒数，之后硬停 (hard stop)")
    ap.add_argument("--static-rate", type=float, default=2.0, help="静态文件 GET 的固定频率，次/秒")
    ap.add_argument("--connect-seconds", type=float, default=60.0, help="等待全部 SSE 连接就绪的上限，秒")
    ap.add_argument("--seed", type=int, default=1, help="泊松到达的随机种子 (fixed seed)")
    ap.add_argument("--timeout", type=float, default=60.0, help="单个请求的超时，秒")
    ap.add_argument("--max-in-flight", type=int, default=2000, help="在途请求上限（超出的到达计为错误）")
    ap.add_argument("--max-arrivals", type=int, default=200_000, help="到达数上限 (bound)")
    ap.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite", help="数据库 (throw-away)")
    ap.add_argument("--workers", type=int, default=1, help="banshe serve --workers N（CLI 支持时才传）")
    ap.add_argument(
        "--pin",
        action="store_true",
        help="服务器固定在 0 号核、本客户端在 1 号核 (pin the server to core 0 and the generator to core 1)",
    )
    ap.add_argument(
        "--timeline",
        action="store_true",
        help="服务器记录每个请求的时间线 (BANSHE_TIMELINE)，打印最慢请求的时间花在哪里",
    )
    ap.add_argument(
        "--by-form",
        action="store_true",
        help="像没有脚本的页面那样发帖：表单 POST，再 GET 重定向的页面（默认照 app.js：fetch，楼层由推送送到）",
    )
    ap.add_argument("--spy", type=float, default=0.0, help="施压开始时对服务器运行 py-spy record 这么多秒（0：不运行）")
    ap.add_argument("--spy-gil", action="store_true", help="py-spy 只采持有 GIL 的线程（--gil；默认 --idle 采全部）")
    ap.add_argument("--spy-out", default="spy", help="py-spy 输出文件名前缀（raw 格式）")
    ap.add_argument("--matrix", action="store_true", help="10、25、50 局 × SQLite（与可达时的 PostgreSQL），打印一张表")
    ap.add_argument("--password", default="bench-password-0", help="压测导演账号的密码 (BANSHE_ADMIN_PASSWORD)")
    args = ap.parse_args(argv)
    if not 1 <= args.viewers <= len(NAMES) or args.games < 1 or args.duration <= 0:
        ap.error("参数超出范围：--viewers 1..14，--games ≥ 1，--duration > 0")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    supports = serve_supports_workers()
    wanted = sorted({1, 2} if args.matrix else {args.workers})
    workers = [w for w in wanted if w == 1 or supports]
    note = (
        f"进程数：{', '.join(map(str, workers))}。"
        if supports
        else "进程数：只测了 1 个进程——`banshe serve` 还没有 `--workers` 选项"
        " (workers=1 only: the CLI has no --workers yet)。"
    )
    plans: list[tuple[str, int]] = []
    if args.matrix:
        kinds = ["sqlite"] + (["postgresql"] if find_pg() else [])
        if "postgresql" not in kinds:
            note += " PostgreSQL 不可达，只测了 SQLite。"
        plans = [(k, g) for k in kinds for g in (10, 25, 50)]
    else:
        plans = [(args.database, args.games)]
    print(
        f"CPU 核数 {os.cpu_count()}，负载 {os.getloadavg()[0]:.1f}；每局 {args.viewers} 个实时页面，"
        f"投票占 {args.vote_share:.0%}，{args.duration:g}s，种子 {args.seed}",
        flush=True,
    )
    results = []
    for kind, games in plans:
        for w in workers:
            if kind == "sqlite" and w > 1:
                continue  # banshe serve refuses several processes on SQLite
            rate = args.rate if args.rate is not None else float(games)
            print(f"… {kind} {games} 局 {w} 进程 {rate:g} 帖/秒", flush=True)
            results.append(one_run(args, kind, games, rate, w))
            print(row(results[-1]), flush=True)
    report(results, note)
    return 1 if any(r.stats.errors or r.stats.dropped for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
