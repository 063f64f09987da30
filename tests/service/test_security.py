"""Safe on the open internet: headers, no user text in script, accounts, bounded input (issue 11)."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest
from sqlalchemy import func, select

from banshe.service import import_schema
from banshe.service.models import Game

from .conftest import CSRF_RE, PINMING_SEATS, Harness

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
    assert 'data-confirm="为&#39;+alert(1)+&#39;换上替补：旧链接立即失效，不能撤回。"' in god.text
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


def test_hostile_input_gets_a_clear_4xx_never_a_500(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    assert h.run_for(3600 + 600) == 2  # 开局 closes; 第1天 after its settling window
    token = links["饺子"]
    r = h.client.post(f"/p/{token}/post", data={"csrf": h.player_csrf(token), "text": "你好\x00世界"})
    assert r.status_code == 400 and "NUL" in r.text
    r = h.client.post(f"/p/{token}/group", data={"csrf": h.player_csrf(token), "group": "w\x00", "text": "x"})
    assert r.status_code == 400 and "NUL" in r.text
    for path in ("/p/%00", "/p/%00/state.json", "/p/%00/events", "/p/" + "a" * 300):
        r = h.client.get(path)
        assert r.status_code == 404 and "链接无效或已停用" in r.text, path
    r = h.client.get("/login?status=1000&error=<b>骗子</b>")
    assert r.status_code == 200 and "骗子" not in r.text
    for path in (f"/d/g/{2**63}", f"/d/g/{2**31}", f"/d/g/{2**63}/export.json", "/d/g/-1"):
        r = h.client.get(path)
        assert r.status_code == 404 and "没有这局游戏" in r.text, path
    assert h.director(game, f"flags/{2**63}", action="issue")[0] == 404
    code, text = h.director(game, "publish", upto=str(2**63))
    assert code == 400 and "“公示序号”应在" in text
    code, text = h.director(game, "command", skill="deduct", target="饺子", amount=str(2**63))
    assert code == 400 and "分值" in text
    seats = "\n".join(f"{n} {r}" for n, r in PINMING_SEATS.items())
    for fields, reason in [
        ({"seed": str(2**31)}, "“随机种子”应在0到2147483647之间"),
        ({"seed": str(2**63)}, "随机种子"),
        ({"seed": "-1"}, "随机种子"),
        ({"title": "长" * 201}, "对局名称过长"),
        ({"title": "a\x00b"}, "NUL"),
        ({"timezone": "x" * 1024}, "未知的时区"),
    ]:
        r = h.client.post("/d/new", data={"csrf": h.csrf, "ruleset": "pinming", "seats": seats, **fields})
        assert r.status_code == 400 and reason in r.text, (fields, r.text[-300:])
    m = CSRF_RE.search(h.client.get("/login").text)
    assert m is not None
    r = h.client.post("/login", data={"username": "导\x00演", "password": "x", "csrf": m.group(1)})
    assert r.status_code == 400


def test_done_messages_are_signed_not_echoed(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    token = h.links(game)["饺子"]
    r = h.client.get(f"/p/{token}?ok=导演通知：请把身份发到这个群")
    assert "请把身份发到这个群" not in r.text
    assert "请把身份" not in h.client.get(f"/d/g/{game}?ok=请把身份发到这个群").text
    r = h.client.post(f"/d/g/{game}/extend", data={"csrf": h.csrf, "at": h.at(game), "minutes": "30"})
    assert r.status_code == 200 and "开局行动的时限已调整" in r.text  # the redirect's signed message
    signed = str(r.url).split("?ok=", 1)[1]
    # the same signed message does not work on another page
    assert "时限已调整" not in h.client.get(f"/p/{token}?ok={signed}").text


def test_imports_are_checked_against_a_schema_and_bounded(harness: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    export = h.client.get(f"/d/g/{game}/export.json").json()

    def refused(data: object, reason: str) -> None:
        raw = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        r = h.client.post("/d/import", data={"csrf": h.csrf, "data": raw})
        assert r.status_code == 400 and reason in r.text, (reason, r.text[-300:])

    refused([1, 2], "不是 banshe 导出的对局文件")
    refused({**export, "players": "饺子"}, "字段“players”")
    refused({**export, "seed": 2**31}, "字段“seed”")
    refused({**export, "seed": "七"}, "字段“seed”")
    refused({**export, "title": "长" * 201}, "字段“title”")
    refused({**export, "timezone": "x" * 1024}, "字段“timezone”")
    refused({**export, "commands": [{"phase": "开局"}]}, "字段“commands.0.command”")
    refused({**export, "commands": [{"command": {"skill": "check"}}]}, "导入失败")
    refused({**export, "posts": [{"author": "饺子", "phase": "第1天", "text": "a\x00b"}]}, "NUL")
    refused({**export, "posts": [{"author": "饺子", "phase": "第1天", "text": "x", "at": "inf"}]}, "字段“posts.0.at”")
    refused({**export, "options": {"x": [1, 2]}}, "字段“options.x")
    refused("\ufffe{", "不是合法的 JSON")
    monkeypatch.setattr(import_schema, "MAX_IMPORT_BYTES", 1000)
    refused({**export, "title": "x" * 2000}, "文件过大")
    monkeypatch.undo()
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(Game.id))) == 1
    # a good file still imports, and replaying it does not hold up other requests
    real = h.service.import_game

    def slow(director_id: int, data: object) -> Game:
        time.sleep(1.5)
        return real(director_id, data)

    monkeypatch.setattr(h.service, "import_game", slow)
    served: list[float] = []

    def other() -> None:
        time.sleep(0.3)
        started = time.monotonic()
        assert h.client.get("/login").status_code == 200
        served.append(time.monotonic() - started)

    t = threading.Thread(target=other)
    t.start()
    r = h.client.post("/d/import", data={"csrf": h.csrf, "data": json.dumps(export)}, follow_redirects=False)
    t.join()
    assert r.status_code == 303
    assert served and served[0] < 1.0  # served while the import was replaying
