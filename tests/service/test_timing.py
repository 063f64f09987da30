"""The load benchmark's server-side timings (service/timing.py): off by default; with
BANSHE_TIMING_FILE each finished request is one `<kind> <ms> <epoch>` line, streams not timed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from banshe.service import timing
from banshe.service.app import Settings, create_app


def test_route_kinds() -> None:
    assert timing.kind_of("POST", "/p/abcdefgh12/post") == "post"
    assert timing.kind_of("GET", "/p/abcdefgh12") == "page"
    assert timing.kind_of("GET", "/p/abcdefgh12/thread") == "page"
    assert timing.kind_of("GET", "/p/abcdefgh12/events") is None
    assert timing.kind_of("GET", "/static/htmx.min.js") == "static"
    assert timing.kind_of("GET", "/login") == "other"


def test_requests_are_timed_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'b.sqlite3'}"
    settings = Settings(database_url=url, start_scheduler=False, sse_max_seconds=0)
    with TestClient(create_app(settings)) as client:
        assert client.get("/static/htmx.min.js").status_code == 200
    assert list(tmp_path.glob("timing*")) == []
    monkeypatch.setenv(timing.ENV, str(tmp_path / "timing"))
    app = create_app(settings)
    with TestClient(app) as client:
        assert client.get("/static/htmx.min.js").status_code == 200
        assert client.get("/login").status_code == 200
    app.state.engine.dispose()
    out = tmp_path / f"timing.{os.getpid()}"
    lines = [line.split() for line in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []
    assert [kind for kind, _ms, _at in lines] == ["static", "other"]
    assert all(float(ms) >= 0 for _kind, ms, _at in lines)
