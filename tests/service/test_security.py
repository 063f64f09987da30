"""Safe on the open internet: headers, no user text in script, accounts, bounded input (issue 11)."""

from __future__ import annotations

import re

from .conftest import PINMING_SEATS, Harness

EVENT_ATTR = re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE)
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>", re.IGNORECASE)
XSS_NAME = "'+alert(1)+'"


def _pages(h: Harness, game: int) -> list[str]:
    links = h.links(game)
    token = next(iter(links.values()))
    paths = ["/d", "/d/new", f"/d/g/{game}", f"/d/g/{game}/review", f"/p/{token}", f"/p/{token}/thread", "/login"]
    return [h.client.get(p).text for p in paths]


def test_no_user_text_in_script_and_a_strict_policy(harness: Harness) -> None:
    h = harness
    h.login()
    seats = dict(PINMING_SEATS)
    seats[XSS_NAME] = seats.pop("馄饨")
    game = h.create_pinming(seats=seats)
    for page in _pages(h, game):
        assert not EVENT_ATTR.search(page), EVENT_ATTR.search(page)
        assert not INLINE_SCRIPT.search(page)
    god = h.client.get(f"/d/g/{game}")
    # the name reaches the confirmation only as escaped attribute data, read by /static/app.js
    assert 'data-confirm="为&#39;+alert(1)+&#39;换上替补？旧链接将失效"' in god.text
    csp = god.headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["script-src"] == "'self'" and "unsafe" not in csp
    assert directives["frame-ancestors"] == "'none'"
    assert god.headers["x-frame-options"] == "DENY"
    assert god.headers["x-content-type-options"] == "nosniff"
    assert god.headers["referrer-policy"] == "no-referrer"
    for path in ("/login", "/static/app.js", "/p/forged"):
        assert h.client.get(path).headers["content-security-policy"] == csp
    js = h.client.get("/static/app.js").text
    assert "dataset.confirm" in js and "data-autosubmit" in js
