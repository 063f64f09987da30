"""Two worlds that differ only in hidden facts (issue 22): the same game, dealt two ways or played
with one hidden input changed, in two services on two databases that share one fake clock. What a
player told nothing of the difference receives — his page, thread page, state.json, live-stream
messages, deadline labels and the phase he sees — must be byte-identical in both, once the
per-database secrets (link tokens, CSRF tokens, form keys) are written as placeholders.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import create_engine, text

from banshe.engine.events import PUBLIC
from banshe.engine.view import legal_commands, view
from banshe.service.live import Feed

from .conftest import FakeClock, Harness, _find_pg, make_harness, shanghai

CSRF_VALUE = re.compile(r'(name="csrf(?:-token)?" (?:value|content)=")[^"]+(")')
IDEM_VALUE = re.compile(r'(name="idem" value=")[^"]+(")')


def twin_urls(kind: str, tmp: Any) -> Iterator[tuple[str, str]]:
    """Two fresh databases of one kind (sqlite files, or PostgreSQL databases made and dropped)."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp / 'world-a.sqlite3'}", f"sqlite:///{tmp / 'world-b.sqlite3'}"
        return
    import uuid

    import pytest

    admin = _find_pg()
    if admin is None:
        pytest.skip("PostgreSQL 不可用")
    names = [f"banshe_world_{uuid.uuid4().hex[:8]}_{x}" for x in "ab"]
    eng = create_engine(admin, isolation_level="AUTOCOMMIT")
    with eng.connect() as conn:
        for n in names:
            conn.execute(text(f'CREATE DATABASE "{n}"'))
    base = admin.rsplit("/", 1)[0]
    try:
        yield f"{base}/{names[0]}", f"{base}/{names[1]}"
    finally:
        with eng.connect() as conn:
            for n in names:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)'))
        eng.dispose()


@dataclass
class World:
    """One of the two worlds: a harness (its own database) and the game it plays."""

    h: Harness
    game: int = 0
    links: dict[str, str] = field(default_factory=dict)
    feed: Feed | None = None
    pushed_at: int = 0

    def create(self, ruleset: str, seats: dict[str, str], auto_publish: bool = True, seed: int = 7) -> None:
        data = {
            "csrf": self.h.csrf,
            "ruleset": ruleset,
            "seats": "\n".join(f"{n} {r}" for n, r in seats.items()),
            "seed": str(seed),
            "custom_board": "on",
        }
        if auto_publish:
            data["auto_publish"] = "on"
        r = self.h.client.post("/d/new", data=data, follow_redirects=False)
        assert r.status_code == 303, r.text[-400:]
        self.game = int(r.headers["location"].rsplit("/", 1)[1])
        self.links = self.h.links(self.game)
        self.feed = Feed(self.h.client.app.state.live, self.game)  # type: ignore[attr-defined]
        self.feed.viewers = {name: 1 for name in self.links}
        self.feed._advance()
        self.pushed_at = self.feed.latest

    def normalize(self, body: str) -> str:
        for name, token in self.links.items():
            body = body.replace(token, f"<{name}>")
        body = CSRF_VALUE.sub(r"\1CSRF\2", body)
        return IDEM_VALUE.sub(r"\1KEY\2", body)

    def pushed(self) -> dict[str, str]:
        """What the live feed pushed each player since the last call (messages, in order)."""
        assert self.feed is not None
        self.feed._advance()
        steps = range(self.pushed_at + 1, self.feed.latest + 1)
        self.pushed_at = self.feed.latest
        return {name: "".join(m for i in steps for m in self.feed.decide(i, name)) for name in self.links}

    def observe_state(self, name: str) -> str:
        got = self.h.client.get(f"/p/{self.links[name]}/state.json")
        assert got.status_code == 200
        return self.normalize(got.text)

    def observe_page(self, name: str, which: str) -> str:
        path = f"/p/{self.links[name]}" + ("/thread" if which == "thread" else "")
        return self.normalize(self.h.client.get(path).text)

    def observe(self, name: str) -> dict[str, str]:
        """Everything `name` receives now, with the database's secrets written as placeholders."""
        token = self.links[name]
        state = self.h.client.get(f"/p/{token}/state.json")
        assert state.status_code == 200
        return {
            "page": self.normalize(self.h.client.get(f"/p/{token}").text),
            "thread": self.normalize(self.h.client.get(f"/p/{token}/thread").text),
            "state": self.normalize(state.text),
        }

    def told(self, name: str) -> str:
        """What the rules tell `name` in this world (his private events and legal moves, as the
        engine has them): two worlds where this differs told him something."""
        _game, state = self.h.service.read(self.game)
        mine = view(state, name)
        private = [e for e in mine["events"] if not (e["kind"] == "announce" or _public_vote(e))]
        moves = sorted(
            (c.skill, c.targets, c.text, c.answer)
            for c in legal_commands(state, name)
            if c.skill not in ("vote", "change_vote")
        )
        return json.dumps([private, mine["me"], moves], ensure_ascii=False, sort_keys=True, default=str)

    def timeline(self, name: str) -> tuple[Any, ...]:
        data = self.h.state(self.links[name])
        v: dict[str, Any] = data["view"]  # type: ignore[assignment]
        return (v["phase"], v["settling"], json.dumps(data["deadline"], ensure_ascii=False, sort_keys=True))

    def public_texts(self) -> list[str]:
        """The 公示 the players have (the engine's texts of the published rows)."""
        _game, state = self.h.service.read(self.game)
        anns = [e.text for e in state.log if e.kind == "announce" and e.audience.kind == PUBLIC]
        with self.h.service.sessions() as s:
            from banshe.service.models import Announcement

            rows = s.query(Announcement).filter(Announcement.game_id == self.game).order_by(Announcement.idx).all()
            return [r.text or anns[r.idx] for r in rows if r.published_at is not None and r.idx < len(anns)]


def _public_vote(e: dict[str, Any]) -> bool:
    return e["kind"] == "accepted" and e["data"]["command"].get("skill") in ("vote", "change_vote")


class Twins:
    """Two worlds on one clock; every step is done in both."""

    def __init__(self, urls: tuple[str, str], start: float | None = None) -> None:
        self.clock = FakeClock(start or shanghai(2026, 12, 1, 10))
        self.worlds = [World(make_harness(url, self.clock)) for url in urls]
        self._last: dict[str, str] = {}

    def __enter__(self) -> Twins:
        for w in self.worlds:
            w.h.client.__enter__()
            w.h.login()
        return self

    def __exit__(self, *exc: object) -> None:
        for w in self.worlds:
            w.h.client.__exit__(None, None, None)
            w.h.client.app.state.engine.dispose()  # type: ignore[attr-defined]

    @property
    def a(self) -> World:
        return self.worlds[0]

    @property
    def b(self) -> World:
        return self.worlds[1]

    def run_until(self, until: float) -> None:
        """Both services' schedulers up to `until`, each deadline at its own time in both."""
        for _ in range(1000):
            dues = [d for d in (w.h.service.next_due() for w in self.worlds) if d is not None and d <= until]
            if not dues:
                break
            self.clock.now = max(self.clock.now, min(dues))
            for w in self.worlds:
                w.h.service.fire_due()
        self.clock.now = max(self.clock.now, until)

    def run_for(self, seconds: float) -> None:
        self.run_until(self.clock.now + seconds)

    def same(self, names: list[str], where: str = "", pages: bool = True) -> None:
        """What each of `names` receives is byte-identical in both worlds: his state.json and live
        messages always; his page and thread page too unless `pages` is False and his state.json
        did not change since they were last compared (they are rendered from the same context)."""
        pushed = [w.pushed() for w in self.worlds]
        for name in names:
            one, two = self.a.observe_state(name), self.b.observe_state(name)
            assert one == two, (where, name, "state.json", _diff(one, two))
            if pages or self._last.get(name) != one:
                self._last[name] = one
                for key in ("page", "thread"):
                    x, y = self.a.observe_page(name, key), self.b.observe_page(name, key)
                    assert x == y, (where, name, key, _diff(x, y))
            assert pushed[0][name] == pushed[1][name], (
                where,
                name,
                "pushed",
                pushed[0][name][:300],
                pushed[1][name][:300],
            )


def _diff(x: str, y: str) -> str:
    """Where two bodies first differ (for an assertion message)."""
    i = next((k for k, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), min(len(x), len(y)))
    return f"…{x[max(0, i - 120) : i + 120]!r} ≠ …{y[max(0, i - 120) : i + 120]!r}"
