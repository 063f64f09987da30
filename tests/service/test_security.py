"""Safe on the open internet: headers, no user text in script, accounts, bounded input (issue 11)."""

from __future__ import annotations

import json
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


def _seats_with(name: str, other: str | None = None) -> str:
    seats = dict(PINMING_SEATS)
    seats[name] = seats.pop("馄饨")
    if other is not None:
        seats[other] = seats.pop("油条")
    return "\n".join(f"{n} {r}" for n, r in seats.items())


def test_seat_names_are_checked_alike_at_creation_and_import(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    export = h.client.get(f"/d/g/{game}/export.json").json()
    cases = [
        ("导演", None, "保留词"),
        ("弃权", None, "保留词"),
        ("x" * 33, None, "角色名过长"),
        ("饺\x07子", None, "控制字符"),
        ("馄饨\u200b", None, "不可见字符"),
        ("\u200b", None, "不可见字符"),
        ("Ａ", "A", "无法区分"),
        ("ｋｋ", "kk", "无法区分"),
    ]
    for name, other, reason in cases:
        r = h.client.post("/d/new", data={"csrf": h.csrf, "ruleset": "pinming", "seats": _seats_with(name, other)})
        assert r.status_code == 400 and reason in r.text, (name, r.text[-400:])
        bad = dict(export)
        players = list(export["players"])
        players[players.index("馄饨")] = name
        if other is not None:
            players[players.index("油条")] = other
        bad["players"] = players
        bad["roles"] = {({"馄饨": name, "油条": other or "油条"}).get(k, k): v for k, v in export["roles"].items()}
        r = h.client.post("/d/import", data={"csrf": h.csrf, "data": json.dumps(bad, ensure_ascii=False)})
        assert r.status_code == 400 and reason in r.text, (name, r.text[-400:])
    # invisible characters in the seat list of a creation: "饺子" and "饺子\u200b" are refused above
    # as a name, so a vote can only ever be read as one name
    assert h.service.read(game)[0].players == export["players"]
