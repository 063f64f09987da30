"""Per-request timelines (issue 26, service/timeline.py): off by default; with BANSHE_TIMELINE each
timed request is one JSON line whose marks name where its time went. The players' routes run on
the event loop: their timelines have no hand-off to a worker thread."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from banshe.service import timeline
from banshe.service.app import Settings, create_app
from banshe.service.live import Feed

from .conftest import FakeClock, Harness, free_port, shanghai


def _records(base: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for f in base.parent.glob(base.name + ".*"):
        out += [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines()]
    return out


def _labels(rec: dict[str, Any]) -> list[str]:
    return [m[0] for m in rec["marks"]]


def _harness(tmp_path: Path) -> Harness:
    clock = FakeClock(shanghai(2026, 12, 1, 10))
    url = f"sqlite:///{tmp_path / 'tl.sqlite3'}"
    app = create_app(Settings(database_url=url, start_scheduler=False, sse_max_seconds=0), clock=clock)
    return Harness(TestClient(app), app.state.service, clock, url)


def _first_day(h: Harness) -> tuple[int, dict[str, str]]:
    h.login()
    game = h.create_pinming()
    h.close(game)  # 开局 → 第1天 (its settling window run out)
    return game, h.links(game)


def test_no_timeline_unless_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(timeline.ENV, raising=False)
    h = _harness(tmp_path)
    with h.client:
        assert h.client.get("/login").status_code == 200
    h.client.app.state.engine.dispose()  # type: ignore[attr-defined]
    assert list(tmp_path.glob("timeline*")) == []


def test_a_post_records_its_phases_all_on_the_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path / "timeline"
    monkeypatch.setenv(timeline.ENV, str(base))
    h = _harness(tmp_path)
    with h.client:
        _game, links = _first_day(h)
        token = links["饺子"]
        code, _ = h.post(token, "我是好人，今天先听发言。")
        assert code == 303
        assert h.client.get(f"/p/{token}/thread").status_code == 200
    h.client.app.state.engine.dispose()  # type: ignore[attr-defined]
    recs = _records(base)
    posts = [r for r in recs if r["kind"] == "post" and r["path"] == "/p/…/post"]
    assert len(posts) == 1
    post = posts[0]
    labels = _labels(post)
    # the order of a post's phases: its seat, its form, the game's lock, the commit, its floor, the reply
    want = ["app", "do:seat", "did:seat", "body", "do:submit", "lock", "locked", "commit", "did:submit"]
    want += ["do:floor", "did:floor", "start", "end"]
    assert [x for x in labels if x in want] == want
    assert not any(x.startswith(("hop:", "run:", "ran:", "back:")) for x in labels)  # no worker thread
    assert {m[2] for m in post["marks"]} == {"L"}
    times = [m[1] for m in post["marks"]]
    assert times == sorted(times) and post["ms"] == times[-1]
    assert post["sql_n"] > 0 and post["sql_ms"] > 0 and post["cpu_ms"] > 0
    pages = [r for r in recs if r["kind"] == "page"]
    assert pages and all("do:page" in _labels(r) and r["render_ms"] > 0 for r in pages)
    assert all({m[2] for m in r["marks"]} == {"L"} for r in pages)


def test_garbage_collections_are_logged_beside_the_timelines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every collection's pause, one JSON line in `<file>-gc.<pid>` (the slow requests' cause at
    50 games, issue 26): its generation, how long, when it ended."""
    base = tmp_path / "timeline"
    monkeypatch.setenv(timeline.ENV, str(base))
    h = _harness(tmp_path)
    with h.client:
        assert h.client.get("/login").status_code == 200
        before = time.time()
        gc.collect()
    h.client.app.state.engine.dispose()  # type: ignore[attr-defined]
    lines = [json.loads(x) for f in tmp_path.glob("timeline-gc.*") for x in f.read_text().splitlines()]
    full = [r for r in lines if r["gen"] == 2 and r["end"] >= before]
    assert full and all(r["ms"] >= 0 for r in full)
    assert not [r for r in _records(base) if "gen" in r]  # the request timelines stay apart


def test_hop_marks_a_worker_threads_hand_offs() -> None:
    import asyncio

    async def main() -> list[tuple[str, str]]:
        tl = timeline.Timeline()
        token = timeline.CURRENT.set(tl)
        try:
            assert await timeline.hop("x", lambda a, b: a + b, 2, 3) == 5
            with pytest.raises(ZeroDivisionError):  # an error in the thread reaches the caller
                await timeline.hop("y", lambda: 1 // 0)
        finally:
            timeline.CURRENT.reset(token)
        return [(m[0], m[2]) for m in tl.marks]

    got = asyncio.run(main())
    assert got == [
        ("hop:x", "L"),
        ("run:x", "W"),
        ("ran:x", "W"),
        ("back:x", "L"),
        ("hop:y", "L"),
        ("run:y", "W"),
        ("ran:y", "W"),
        ("back:y", "L"),
    ]


def test_the_protocol_marks_accept_recv_and_headers(tmp_path: Path) -> None:
    """A real `banshe serve`: the HTTP protocol adds the marks before the application runs."""
    base = tmp_path / "timeline"
    port = free_port()
    env = dict(os.environ, BANSHE_TIMELINE=str(base))
    db = f"sqlite:///{tmp_path / 'srv.sqlite3'}"
    cmd = [sys.executable, "-m", "banshe", "serve", "--port", str(port), "--database-url", db, "--log-level", "warning"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        for _ in range(300):
            try:
                httpx.get(f"http://127.0.0.1:{port}/login", timeout=1)
                break
            except httpx.HTTPError:
                assert proc.poll() is None, "banshe serve exited"
                time.sleep(0.1)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as c:  # one connection, two requests
            assert c.get("/login").status_code == 200
            assert c.get("/static/htmx.min.js").status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    recs = sorted(_records(base), key=lambda r: r["end"])
    assert [r["kind"] for r in recs[-2:]] == ["other", "static"]
    first, second = recs[-2:]
    assert _labels(first)[:4] == ["accept", "recv", "headers", "app"]  # a new connection
    assert _labels(second)[:3] == ["recv", "headers", "app"]  # the same connection: no accept
    assert _labels(first)[-2:] == ["start", "end"]


def test_a_feed_step_of_posts_only_reuses_the_digests(tmp_path: Path) -> None:
    """Issue 26: a step that only adds posts changes no viewer's digest (shared with the previous
    step); a vote is a command: its step computes them again."""
    h = _harness(tmp_path)
    with h.client:
        game, links = _first_day(h)
        live = h.client.app.state.live  # type: ignore[attr-defined]
        feed = Feed(live, game)
        feed.viewers["包子"] = 1
        feed._advance()
        assert h.post(links["饺子"], "第一帖")[0] == 303
        feed._advance()
        assert feed.steps[-1]._digests is feed.steps[-2]._digests
        assert h.post(links["饺子"], "投票对象：包子\n投票理由：测试")[0] == 303
        feed._advance()
        assert feed.steps[-1]._digests is not feed.steps[-2]._digests
        assert "包子" in feed.steps[-1]._digests  # decided for the viewer when the step came
    h.client.app.state.engine.dispose()  # type: ignore[attr-defined]
