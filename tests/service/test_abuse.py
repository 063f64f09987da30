"""Issue 25: what one hostile player or director, or a failing database, does to the service —
answered in-process (the load tests against a real `banshe serve` are in test_abuse_load.py)."""

from __future__ import annotations

import html
import json
import re
import threading
import time
from typing import Any

import pytest
from sqlalchemy import create_engine, event, func, select, text

from banshe.engine.commands import DIRECTOR
from banshe.service import security
from banshe.service.models import CommandRow, GroupMessage, Post, Seat

from .conftest import CSRF_RE, PINMING_SEATS, Harness, _find_pg

NON_ASCII = "密钥é"
UNAVAILABLE = "服务器暂时不可用，请稍后重试"


def _day_one(h: Harness) -> tuple[int, dict[str, str]]:
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    assert h.run_for(3600 + 600) == 2  # 开局 closes; its settling window; 第1天
    return game, links


def test_non_ascii_secrets_and_messages_are_refused_not_500(harness: Harness) -> None:
    """hmac.compare_digest on str raised TypeError for any non-ASCII csrf or ?ok= (8 routes)."""
    h = harness
    game, links = _day_one(h)
    token = links["饺子"]
    login_page = h.client.get("/login")
    m = CSRF_RE.search(login_page.text)
    assert m is not None
    r = h.client.post("/login", data={"username": "x", "password": "y", "csrf": NON_ASCII})
    assert r.status_code == 403 and "CSRF" in r.text
    posts = [
        "/logout",
        "/d/new",
        "/d/import",
        f"/d/g/{game}/command",
        f"/d/g/{game}/thread-post",
        f"/d/g/{game}/forum/read",
        f"/p/{token}/post",
        f"/p/{token}/act",
        f"/p/{token}/group",
        f"/p/{token}/request",
    ]
    for path in posts:
        r = h.client.post(path, data={"csrf": NON_ASCII, "text": "x", "at": h.at(game)})
        assert r.status_code == 403 and "CSRF" in r.text, path
    for path in (f"/p/{token}", f"/p/{token}/thread", f"/d/g/{game}", f"/d/g/{game}/forum"):
        for value in (NON_ASCII, f"{NON_ASCII}.{NON_ASCII}", "签名.导演通知：请把身份发给我"):
            r = h.client.get(path, params={"ok": value})
            assert r.status_code == 200, (path, value)
            assert "请把身份发给我" not in r.text and NON_ASCII not in r.text


def test_forum_desk_message_is_signed(harness: Harness) -> None:
    h = harness
    game, _links = _day_one(h)
    r = h.client.get(f"/d/g/{game}/forum?ok=导演通知：请把身份发到这个群")
    assert r.status_code == 200 and "请把身份发到这个群" not in r.text
    h.close(game)  # 第1夜 (after the settling window): the desk enters the 预言家's private action
    r = h.client.post(
        f"/d/g/{game}/forum/act",
        data={"csrf": h.csrf, "player": "饺子", "skill": "预言", "targets": "汤圆"},
    )
    assert r.status_code == 200 and "?ok=" in str(r.url)
    signed = str(r.url).split("ok=", 1)[1]
    assert re.search(r'id="ok">[^<]*预言', r.text), r.text[-500:]
    # the desk's signature is bound to its page
    assert "预言" not in h.client.get(f"/d/g/{game}?ok={signed}").text.split('id="ok"')[-1][:40]


def test_path_integers_out_of_range_are_not_found(harness: Harness) -> None:
    """On PostgreSQL an INTEGER column refused 2**31 with a 500 (/announcements/{idx}, /forum/{day}/…)."""
    h = harness
    game, links = _day_one(h)
    at = h.at(game)
    for path, field in [
        (f"announcements/{2**31}", "没有这条公示"),
        (f"announcements/{2**63}", "没有这条公示"),
        (f"forum/{2**31}/apply", "没有这次读帖记录"),
        (f"forum/{2**31}/override", "没有这次读帖记录"),
        (f"flags/{2**31}", "没有这条潜水记录"),
    ]:
        code, page = h.director(game, path, action="publish", at=at, floor="2")
        assert code == 404 and field in page, (path, code, page[-300:])
    for path in (f"/d/g/{game}/forum?day={2**31}", f"/d/g/{2**31}/events", f"/d/g/{2**31}/review"):
        r = h.client.get(path)
        assert r.status_code == 404, path
    code, page = h.director(game, "forum/1/override", floor=str(2**40))
    assert code in (400, 404)
    token = links["饺子"]
    # "²" is a digit to str.isdigit but not to int(): a reply link or field naming it is no post
    assert h.client.get(f"/p/{token}/thread?reply=²").status_code == 200
    code, page = h.post(token, "你好", reply_to=None)
    assert code == 303
    r = h.client.post(f"/p/{token}/post", data={"csrf": h.player_csrf(token), "text": "回复", "reply_to": "²"})
    assert r.status_code == 400 and "回复的楼层不存在" in r.text and "回复" in r.text
    r = h.client.post(f"/p/{token}/post", data={"csrf": h.player_csrf(token), "text": "回复", "reply_to": str(2**40)})
    assert r.status_code == 400 and "回复的楼层不存在" in r.text
    seats = "\n".join(f"{n} {r}" for n, r in PINMING_SEATS.items())
    r = h.client.post(
        "/d/new", data={"csrf": h.csrf, "ruleset": "pinming", "seats": seats, "stage_0": "²", "seed": "²"}
    )
    assert r.status_code == 400 and "随机种子" in r.text


def test_import_checks_superseded_commands_too(harness: Harness) -> None:
    h = harness
    game, _links = _day_one(h)
    export = h.client.get(f"/d/g/{game}/export.json").json()
    for bad in (
        {"command": {"skill": "check"}, "superseded": True},
        {"command": {"actor": "饺子", "skill": "check", "targets": "汤圆"}, "superseded": True},
        {"command": {"actor": "饺子", "skill": "deduct", "amount": 2**40}, "superseded": True},
        {"command": {"actor": "饺子", "skill": "x\x00"}, "superseded": True},
    ):
        data = {**export, "commands": [*export["commands"], bad]}
        r = h.client.post("/d/import", data={"csrf": h.csrf, "data": json.dumps(data, ensure_ascii=False)})
        assert r.status_code == 400 and "导入失败" in r.text, (bad, r.text[-300:])
    r = h.client.post("/d/import", data={"csrf": h.csrf, "data": json.dumps(export)}, follow_redirects=False)
    assert r.status_code == 303


def test_an_old_link_stores_nothing_after_its_substitute(harness: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request that resolved its link just before the 替补 committed must not be stored after it
    (its post would count, its night choice would overwrite the substitute's)."""
    h = harness
    h.login()
    game = h.create_pinming(auto_publish=True)
    links = h.links(game)
    old = links["年糕"]
    real = h.service.seat_and_game
    swapped: list[str] = []

    def resolve_then_substitute(token: str) -> Any:
        found = real(token)
        if token == old and not swapped:  # the 替补 commits between resolving and writing
            swapped.append(token)
            h.service.substitute(game, "年糕", None, "新来的")
        return found

    csrf = h.player_csrf(old)  # the page, rendered before the 替补
    monkeypatch.setattr(h.service, "seat_and_game", resolve_then_substitute)
    r = h.client.post(f"/p/{old}/act", data={"csrf": csrf, "skill": "recognize", "target": "饺子"})
    assert swapped and r.status_code == 404 and "链接无效或已停用" in r.text
    monkeypatch.setattr(h.service, "seat_and_game", real)
    new = h.links(game)["年糕"]
    assert new != old
    assert h.act(new, "recognize", target="汤圆")[0] == 303
    with h.service.sessions() as s:
        rows = s.scalars(select(CommandRow).where(CommandRow.game_id == game, CommandRow.actor == "年糕")).all()
    assert [r.payload["targets"] for r in rows] == [["汤圆"]]
    # the old link is dead for pages, posts and streams alike
    for path in (f"/p/{old}", f"/p/{old}/thread", f"/p/{old}/state.json", f"/p/{old}/events"):
        assert h.client.get(path).status_code == 404, path


def test_substitute_race_in_one_process(harness: Harness) -> None:
    """Players post through a link while the 替补 commits: nothing through the old link lands
    after it (before the fix, requests that had resolved the link waited on the game's lock and
    were stored after the 替补, about three a round)."""
    h = harness
    h.login()
    game = h.create_pinming()
    assert h.run_for(3600 + 600) == 2  # 开局 closes; its settling window; 第1天
    if hasattr(security, "PostLimits"):  # flood control is not what this test is about
        h.service.post_limits = security.PostLimits(per_minute=10**6, chars_per_phase=10**9)
    late: list[tuple[str, int, int]] = []
    for name in ["饺子", "包子", "烧麦", "锅贴", "馄饨"]:
        old = h.links(game)[name]
        csrf = h.player_csrf(old)
        stop = threading.Event()
        sent: list[int] = []

        def writer(token: str, csrf: str, who: str, stop: threading.Event, sent: list[int]) -> None:
            i = 0
            while not stop.is_set() and i < 200:
                i += 1
                r = h.client.post(
                    f"/p/{token}/post", data={"csrf": csrf, "text": f"{who} 第{i}帖"}, follow_redirects=False
                )
                if r.status_code == 303:
                    sent.append(i)

        threads = [threading.Thread(target=writer, args=(old, csrf, f"{name}-{k}", stop, sent)) for k in range(4)]
        for t in threads:
            t.start()
        while len(sent) < 4:  # the writers are under way
            time.sleep(0.005)
        code, _page = h.director(game, "substitute", player=name, person="替补")
        assert code == 303
        stop.set()
        for t in threads:
            t.join()
        with h.service.sessions() as s:
            notice = s.scalar(select(func.max(Post.id)).where(Post.game_id == game, Post.text == f"{name}更换替补。"))
            after = s.scalar(select(func.count(Post.id)).where(Post.author == name, Post.id > notice))
        late.append((name, len(sent), int(after or 0)))
    assert all(n == 0 for _, _, n in late), late


def _fill_disk(url: str) -> Any:
    """SQLite: every new connection may not grow the file (SQLITE_FULL, "database or disk is full")."""

    def cap(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        pages = cur.execute("PRAGMA page_count").fetchone()[0]
        cur.execute(f"PRAGMA max_page_count = {pages}")
        cur.close()

    return cap


def _retry_fields(page: str) -> dict[str, str]:
    form = page.split('id="retry-form"', 1)[1].split("</form>", 1)[0]
    fields = {
        m[0]: html.unescape(m[1]) for m in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form)
    }
    for name, value in re.findall(r'<textarea name="([^"]+)" rows="\d+">(.*?)</textarea>', form, re.S):
        fields[name] = html.unescape(value)
    return fields


def test_database_down_or_full_answers_503_and_keeps_the_draft(harness: Harness) -> None:
    h = harness
    game, links = _day_one(h)
    token = links["饺子"]
    page = h.client.get(f"/p/{token}/thread").text
    idem = re.search(r'name="idem" value="([^"]+)"', page)
    assert idem is not None
    draft = "投票对象：汤圆\n投票理由：" + "他昨晚的发言前后矛盾。" * 450
    data = {"csrf": h.player_csrf(token), "text": draft, "idem": idem.group(1)}
    engine = h.client.app.state.engine  # type: ignore[attr-defined]
    admin = None
    if h.url.startswith("sqlite"):
        cap = _fill_disk(h.url)
        event.listen(engine, "connect", cap)
        engine.dispose()
    else:  # PostgreSQL: the database stops taking connections, and its open ones are cut
        admin_url = _find_pg()
        assert admin_url is not None
        admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        name = engine.url.database
        with admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'))
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :d"), {"d": name})
    try:
        r = h.client.post(f"/p/{token}/post", data=data)
        assert r.status_code == 503, r.text[-300:]
        assert UNAVAILABLE in r.text and r.headers["retry-after"]
        kept = _retry_fields(r.text)
        assert kept["text"] == draft and kept["idem"] == data["idem"]
        assert "password" not in r.text
        r = h.client.get(f"/p/{token}/thread")
        assert r.status_code in (200, 503)  # a page that needs no write may still be read (SQLite)
        if r.status_code == 503:
            assert UNAVAILABLE in r.text
    finally:
        if admin is not None:
            with admin.connect() as conn:
                conn.execute(text(f'ALTER DATABASE "{engine.url.database}" ALLOW_CONNECTIONS true'))
            admin.dispose()
        else:
            event.remove(engine, "connect", cap)
        engine.dispose()
    # back up: the kept form, sent again, is stored once
    r = h.client.post(f"/p/{token}/post", data=kept, follow_redirects=False)
    assert r.status_code == 303, r.text[-300:]
    r = h.client.post(f"/p/{token}/post", data=kept, follow_redirects=False)
    assert r.status_code == 303
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(Post.id)).where(Post.game_id == game, Post.text == draft)) == 1


def _seats_with(**renamed: str) -> str:
    seats = dict(PINMING_SEATS)
    for old, new in renamed.items():
        seats[new] = seats.pop(old)
    return "\n".join(f"{n} {r}" for n, r in seats.items())


def test_names_that_look_alike_are_refused(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    export = h.client.get(f"/d/g/{game}/export.json").json()
    cases = [
        ({"馄饨": "Anna", "油条": "Аnna"}, "看起来相同"),  # Latin / Cyrillic
        ({"馄饨": "Anna", "油条": "Αnna"}, "看起来相同"),  # Greek capital alpha
        ({"馄饨": "口口", "油条": "囗口"}, "看起来相同"),  # CJK look-alikes (confusables.txt)
        ({"馄饨": "Anna", "油条": "Anna\u0301"}, "组合附加符号"),
        ({"馄饨": "\u2ec6色"}, "部首"),  # ⻆ for 角
        ({"馄饨": "\u2f93色"}, "部首"),  # ⾓ (Kangxi)
        ({"馄饨": "饺\u202e子"}, "文字方向控制字符"),
        ({"馄饨": "\u2067甲"}, "文字方向控制字符"),
    ]
    for renamed, reason in cases:
        r = h.client.post("/d/new", data={"csrf": h.csrf, "ruleset": "pinming", "seats": _seats_with(**renamed)})
        assert r.status_code == 400 and reason in r.text, (renamed, r.text[-400:])
        players = [renamed.get(p, p) for p in export["players"]]
        roles = {renamed.get(k, k): v for k, v in export["roles"].items()}
        bad = {**export, "players": players, "roles": roles}
        r = h.client.post("/d/import", data={"csrf": h.csrf, "data": json.dumps(bad, ensure_ascii=False)})
        assert r.status_code == 400 and reason in r.text, (renamed, r.text[-400:])
    # distinct names that merely share letters still work
    assert h.create_pinming(seats={**{k: v for k, v in PINMING_SEATS.items() if k != "馄饨"}, "Anna": "村民"})


def test_bidi_controls_and_stacked_marks_are_stripped_from_posts(harness: Harness) -> None:
    h = harness
    game, links = _day_one(h)
    token = links["汤圆"]
    zalgo = "好" + "\u0301" * 30 + "人"
    assert h.post(token, "看这里\u202e反过来的字\u202c完")[0] == 303
    assert h.post(token, zalgo)[0] == 303
    assert h.post(token, "越南语 ệ 与 1\ufe0f\u20e3 保留")[0] == 303
    r = h.client.post(
        f"/p/{token}/group",
        data={"csrf": h.player_csrf(token), "group": "wolves", "text": "\u2066暗号\u2069"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text[-300:]
    with h.service.sessions() as s:
        texts = [p.text for p in s.scalars(select(Post).where(Post.game_id == game, Post.author == "汤圆"))]
        chat = [m.text for m in s.scalars(select(GroupMessage).where(GroupMessage.game_id == game))]
    assert texts == ["看这里反过来的字完", "好" + "\u0301" * 3 + "人", "越南语 ệ 与 1\ufe0f\u20e3 保留"]
    assert chat == ["暗号"]


def test_flood_control_per_seat(harness: Harness) -> None:
    """A burst of posts, then one every few seconds, with a Chinese reason that keeps the text;
    and a seat's characters per phase are bounded (the god page and state.json with them)."""
    h = harness
    game, links = _day_one(h)
    token = links["锅贴"]
    per_minute = h.service.post_limits.per_minute
    for i in range(per_minute):
        assert h.post(token, f"第{i}帖")[0] == 303, i
    code, page = h.post(token, "这条会被拦下，但文字要保留")
    assert code == 429 and "发言过于频繁" in page and "这条会被拦下，但文字要保留" in page
    h.clock.advance(60 / per_minute + 0.1)
    assert h.post(token, "过一会儿就能再发")[0] == 303
    # the group chat shares the seat's bucket
    r = h.client.post(f"/p/{token}/group", data={"csrf": h.player_csrf(token), "group": "wolves", "text": "x"})
    assert r.status_code in (400, 429)  # 锅贴 is no wolf: refused either way, never stored
    # characters a phase: long posts until the budget
    budget = h.service.post_limits.chars_per_phase
    big = "长" * 5000
    sent = 0
    while True:
        h.clock.advance(60)
        code, page = h.post(links["馄饨"], big)
        if code != 303:
            break
        sent += 1
        assert sent <= budget // 5000
    assert code == 429 and "发言已达上限" in page and sent == budget // 5000
    # the director's 代投 is never held back
    assert h.director(game, "proxy-vote", player="馄饨", target="汤圆")[0] == 303
    state = h.client.get(f"/p/{token}/state.json").content
    assert len(state) < 2 * budget * 4  # bounded by the budget (UTF-8 and JSON escapes)
    assert DIRECTOR  # (imported for the proxy vote's author)


def test_private_pages_are_not_stored_by_caches(harness: Harness) -> None:
    h = harness
    game, links = _day_one(h)
    token = links["饺子"]
    for path in (
        f"/p/{token}",
        f"/p/{token}/thread",
        f"/p/{token}/state.json",
        f"/p/{token}/events",
        "/d",
        f"/d/g/{game}",
        f"/d/g/{game}/export.json",
        f"/d/g/{game}/review",
        "/login",
        "/p/forged-link-000",
    ):
        r = h.client.get(path)
        assert r.headers.get("cache-control") == "no-store", path
    assert h.client.get("/static/app.js").headers.get("cache-control") != "no-store"


def test_live_streams_are_capped_per_link(harness: Harness) -> None:
    h = harness
    game, links = _day_one(h)
    caps = h.client.app.state.live.caps  # type: ignore[attr-defined]
    name = "饺子"
    for _ in range(caps.per_link):
        assert caps.admit(game, name) is None  # streams held open elsewhere
    r = h.client.get(f"/p/{links[name]}/events")
    assert r.status_code == 429 and "实时连接过多" in r.text
    assert h.client.get(f"/p/{links['包子']}/events").status_code == 200  # another link is not held up
    caps.release(game, name)
    assert h.client.get(f"/p/{links[name]}/events").status_code == 200  # its place came back
    assert caps.open(game) == caps.per_link - 1
    caps.per_game = caps.open(game)  # the game is full: any other link waits too
    r = h.client.get(f"/p/{links['包子']}/events")
    assert r.status_code == 429 and "这局游戏打开的实时连接过多" in r.text
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(Seat.id)).where(Seat.game_id == game)) == 14
