"""The thread by page and by day, the pickers, near-miss vote names, the one BBCode renderer, the
service's notices through review, and the director's-day details (issue 24), through the pages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import insert, select

from banshe.engine import DIRECTOR, Command
from banshe.engine.commands import CARD_RED, CLOSE_PHASE
from banshe.rulesets import get_ruleset
from banshe.service import bbcode
from banshe.service.models import Post
from banshe.service.thread import near_name
from banshe.service.views import PAGE_SIZE, day_tab, director_page

from .conftest import PINMING_SEATS, FakeClock, Harness, make_harness, shanghai
from .test_director_pages import _close, _day_one, _vote

OPTION = re.compile(r"<option(?: [^>]*)?>([^<]+)</option>")


@pytest.fixture
def lite(tmp_path: Path) -> Iterator[Harness]:
    """A harness on SQLite only (the tests here are about pages, not the database)."""
    h = make_harness(f"sqlite:///{tmp_path / 'pages.sqlite3'}", FakeClock(shanghai(2026, 12, 1, 10)))
    with h.client:
        yield h
    h.client.app.state.engine.dispose()  # type: ignore[attr-defined]


def _form(page: str, form_id: str) -> str:
    return page.split(f'id="{form_id}"', 1)[1].split("</form>", 1)[0]


def _options(html: str) -> list[str]:
    return [o for o in OPTION.findall(html) if o != "请选择"]


def test_a_700_floor_thread_by_page_and_by_day(lite: Harness) -> None:
    h = lite
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    _day_one(h, game, links)  # 14 votes on 第1天 (and the 开局 公示)
    names = list(PINMING_SEATS)
    start = h.clock.now
    with h.service.sessions() as s:  # 700 more floors, as many posts as a long forum day has
        rows = [
            {
                "game_id": game,
                "author": names[i % 14],
                "phase": "第1天",
                "text": f"第{i + 1}条：" + "我觉得今天的票型很有意思，大家怎么看？" * 3,
                "vote_kind": None,
                "vote_target": None,
                "by_director": False,
                "created_at": start + 1 + i,
                "reply_to": None,
            }
            for i in range(700)
        ]
        s.execute(insert(Post), rows)
        s.commit()
    h.clock.now = start + 800
    token = links["饺子"]
    latest = h.client.get(f"/p/{token}/thread")
    assert latest.status_code == 200
    assert len(latest.content) < 100_000, len(latest.content)  # the newest page only
    print(f"\n700 楼讨论帖最新一页：{len(latest.content)} 字节")
    floors = [int(x) for x in re.findall(r'id="floor-(\d+)"', latest.text)]
    total = max(int(i["floor"]) for i in h.state(token)["thread"])  # type: ignore[union-attr,index]
    assert total > 714  # the posts, the votes and the 公示 so far
    assert floors[-1] == total and len(floors) == total - (total - 1) // PAGE_SIZE * PAGE_SIZE
    assert 'id="post-form"' in latest.text and latest.text.index('id="thread"') < latest.text.index('id="post-form"')
    assert 'data-append="1"' in latest.text  # live floors go to this page
    first = h.client.get(f"/p/{token}/thread?page=1").text
    assert 'id="floor-1"' in first and f'id="floor-{PAGE_SIZE + 1}"' not in first
    assert 'data-append="0"' in first and 'id="post-form"' not in first and "到最新一页发帖" in first
    # 第N天 tabs: 开局's 公示 on its own, 第1天 from its first page
    assert day_tab("第3夜") == "第3天" and day_tab("开局") == "开局"
    tabs = latest.text.split('aria-label="按天查看讨论帖"', 1)[1].split("</nav>", 1)[0]
    assert "最新" in tabs and "第1天" in tabs
    day = h.client.get(f"/p/{token}/thread?day=第1天").text
    assert 'aria-current="page">1<' in day
    # a floor's address: the page that holds it, scrolled to it
    r = h.client.get(f"/p/{token}/thread?floor=30", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].endswith("?page=2#floor-30")
    # a new post lands on its own floor (the newest page)
    code, _ = h.post(token, "刚刚看完七百楼")
    assert code == 303
    data = {"csrf": h.player_csrf(token), "text": "再说一句"}
    r = h.client.post(f"/p/{token}/post", data=data, follow_redirects=False)
    pages = -(-(total + 2) // PAGE_SIZE)
    assert r.status_code == 303 and f"page={pages}" in r.headers["location"]
    assert r.headers["location"].endswith(f"#floor-{total + 2}")


def test_the_vote_picker_offers_what_the_rules_allow_and_posts_the_forum_format(lite: Harness) -> None:
    h = lite
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    h.service.submit(game, Command("年糕", "recognize", ("饺子",)))
    # 开局: no vote yet; the 混血儿's replacement choices are what 认亲 accepts (never himself)
    page = h.client.get(f"/p/{links['年糕']}").text
    assert "已提交：认亲 → 饺子" in page and "你提交了：认亲 → 饺子" in page
    form = page.split('data-skill="recognize"', 1)[1].split("</form>", 1)[0]
    assert "年糕" not in _options(form) and "饺子" in _options(form)
    assert 'id="vote-form"' not in h.client.get(f"/p/{links['饺子']}/thread").text
    _close(h, game)
    token = links["饺子"]
    picker = _form(h.client.get(f"/p/{token}/thread").text, "vote-form")
    assert _options(picker) == [*PINMING_SEATS, "弃权"]
    data = {"csrf": h.player_csrf(token), "target": "汤圆", "reason": "昨晚发言可疑"}
    r = h.client.post(f"/p/{token}/vote", data=data, follow_redirects=False)
    assert r.status_code == 303 and "#floor-" in r.headers["location"]
    assert h.service.read(game)[1].votes["饺子"] == "汤圆"
    page = h.client.get(f"/p/{token}/thread").text
    assert "投票对象：汤圆\n投票理由：昨晚发言可疑" in page
    assert "你提交了：投票 → 汤圆" in h.client.get(f"/p/{token}").text  # no "饺子：投票 汤圆"
    # the picker now changes the vote, replying to the voter's own vote floor (品茗's rule)
    picker = _form(page, "vote-form")
    assert "改票对象" in picker
    data = {"csrf": h.player_csrf(token), "target": "月饼", "reason": ""}
    assert h.client.post(f"/p/{token}/vote", data=data, follow_redirects=False).status_code == 303
    assert h.service.read(game)[1].votes["饺子"] == "月饼"
    thread = h.state(token)["thread"]
    change = next(i for i in thread if i["text"].startswith("改票对象：月饼"))  # type: ignore[union-attr,index]
    assert change["quote"]["text"].startswith("投票对象：汤圆")  # type: ignore[index]
    # a refused pick keeps the choice and says why (one change only)
    data = {"csrf": h.player_csrf(token), "target": "汤圆", "reason": "再改"}
    r = h.client.post(f"/p/{token}/vote", data=data)
    assert r.status_code == 400
    assert 'id="vote-error"' not in r.text or "改票" in r.text
    # the director's 代投: each voter with the targets the engine accepts from him
    god = h.client.get(f"/d/g/{game}").text
    proxy = _form(god, "proxy-form")
    assert 'data-filter-by="#proxy-player"' in proxy
    assert "饺子" not in _options(proxy.split('id="proxy-target"')[0])  # he has changed his vote once


def test_a_near_miss_name_is_offered_never_applied(lite: Harness) -> None:
    assert near_name("雨打芭焦", ["雨打芭蕉", "糖醋排骨"]) == "雨打芭蕉"
    assert near_name("雨打", ["雨打芭蕉", "糖醋排骨"]) == "雨打芭蕉"
    assert near_name("西瓜", ["雨打芭蕉", "糖醋排骨"]) is None
    assert near_name("饺", ["饺子", "饺饼"]) is None  # two as close: no guess
    h = lite
    h.login()
    seats = {("雨打芭蕉" if n == "汤圆" else n): r for n, r in PINMING_SEATS.items()}
    game = h.create_pinming(seats=seats)
    links = h.links(game)
    h.service.submit(game, Command("年糕", "recognize", ("饺子",)))
    _close(h, game)
    token = links["饺子"]
    data = {"csrf": h.player_csrf(token), "text": "投票对象：雨打芭焦\n投票理由：口误"}
    r = h.client.post(f"/p/{token}/post", data=data)
    assert r.status_code == 400
    assert "你是不是想投：<strong>雨打芭蕉</strong>？" in r.text
    assert "饺子" not in h.service.read(game)[1].votes  # nothing applied
    suggestion = r.text.split('id="suggest"', 1)[1].split("</form>", 1)[0]
    corrected = re.search(r"<textarea name=\"text\" hidden data-keep>(.*?)</textarea>", suggestion, re.S)
    assert corrected is not None and corrected.group(1) == "投票对象：雨打芭蕉\n投票理由：口误"
    assert "投票对象：雨打芭焦" in r.text.split('id="post-form"', 1)[1]  # the typed text is kept too
    data = {"csrf": h.player_csrf(token), "text": corrected.group(1)}
    assert h.client.post(f"/p/{token}/post", data=data, follow_redirects=False).status_code == 303
    assert h.service.read(game)[1].votes["饺子"] == "雨打芭蕉"
    # a name far from every one: the plain refusal, no guess
    data = {"csrf": h.player_csrf(links["包子"]), "text": "投票对象：西瓜\n投票理由：无"}
    r = h.client.post(f"/p/{links['包子']}/post", data=data)
    assert r.status_code == 400 and "不是本局的角色" in r.text and 'id="suggest"' not in r.text


def test_one_bbcode_style_per_ruleset_with_the_tally(lite: Harness) -> None:
    pinming, chenji = get_ruleset("pinming"), get_ruleset("chenji")
    assert bbcode.announcement(pinming, "第2天", "乙出局。") == (
        "[size=6][color=#FF0000][b]【第2天公示】[/b][/color][/size]\n[color=#FF0000]乙出局。[/color]"
    )
    assert bbcode.announcement(chenji, "第2天", "乙出局。").endswith("\n[size=6]乙出局。[/size]")
    h = lite
    h.login()
    game = h.create_pinming(auto_publish=False)
    links = h.links(game)
    _day_one(h, game, links)
    _close(h, game)
    # the day's result waits with its 票型 in the preview and in its BBCode
    pending = director_page(h.service, game)["pending"]
    result = next(p for p in pending if "投票结束" in p["text"])
    assert "票型：饺子→饺子" in result["shown"] and "票型：饺子→饺子" in result["bbcode"]
    assert "票型" not in result["text"]  # the edit box holds the wording alone
    assert h.director(game, "publish", upto=str(pending[-1]["idx"]))[0] == 303
    god = h.client.get(f"/d/g/{game}").text
    codes = re.findall(r'class="day-bbcode"[^>]*>(.*?)</textarea>', god, re.S)
    day1 = next(c for c in codes if "【第1天公示】" in c)
    assert "票型：饺子→饺子" in day1 and "[color=#0000FF]" not in god
    # the forum desk copies the same text in the same style
    desk = h.client.get(f"/d/g/{game}/forum").text
    assert "[color=#FF0000]第1天投票结束" in desk and "票型：饺子→饺子" in desk


def test_a_substitute_notice_goes_through_review_into_the_days_bbcode(lite: Harness) -> None:
    h = lite
    h.login()
    game = h.create_pinming(auto_publish=False)
    links = h.links(game)
    _day_one(h, game, links)
    assert h.director(game, "substitute", player="米糕", person="小王")[0] == 303
    notice = next(p for p in director_page(h.service, game)["pending"] if p["kind"] == "notice")
    assert notice["text"] == "米糕更换替补。"

    def shown(name: str) -> list[dict[str, object]]:
        thread = h.state(links[name])["thread"]
        return [i for i in thread if "更换替补" in i["text"]]  # type: ignore[union-attr,index,misc]

    assert not shown("豆花")  # waiting for the director
    path = f"notices/{notice['key']}"
    assert h.director(game, path, action="edit", text="米糕更换替补，请大家欢迎。")[0] == 303
    h.clock.advance(60)
    _close(h, game)  # 第1天's result comes after it
    last = director_page(h.service, game)["pending"][-1]
    assert last["kind"] == "announce"
    assert h.director(game, "publish", upto=str(last["idx"]))[0] == 303  # 发布到此条: the notice too
    got = shown("豆花")
    assert got and got[0]["kind"] == "announce" and got[0]["text"] == "米糕更换替补，请大家欢迎。" and got[0]["floor"]
    code, page = h.director(game, path, action="publish")
    assert code == 400 and "已经发布" in page
    god = h.client.get(f"/d/g/{game}").text
    codes = re.findall(r'class="day-bbcode"[^>]*>(.*?)</textarea>', god, re.S)
    assert any("[color=#FF0000]米糕更换替补，请大家欢迎。[/color]" in c for c in codes)
    # a withheld notice stays behind when the 公示 after it go out, until published alone
    links = h.links(game)
    assert h.director(game, "substitute", player="馄饨", person="小李")[0] == 303
    held = next(p for p in director_page(h.service, game)["pending"] if p["kind"] == "notice")
    assert h.director(game, f"notices/{held['key']}", action="withhold")[0] == 303
    h.clock.advance(60)
    _close(h, game, dawn=False)  # the night's 公示 (the dawn: publishing it starts 第2天)
    last = director_page(h.service, game)["pending"][-1]
    assert h.director(game, "publish", upto=str(last["idx"]))[0] == 303
    assert not [i for i in shown("豆花") if "馄饨" in str(i["text"])]
    assert h.director(game, f"notices/{held['key']}", action="publish")[0] == 303
    assert [i for i in shown("豆花") if "馄饨" in str(i["text"])]


def test_the_directors_day(lite: Harness) -> None:
    h = lite
    h.login()
    # a seat name with a space: refused as such, not as an unknown identity
    lines = "\n".join(f"{n} {r}" for n, r in PINMING_SEATS.items()).replace("饺子 预言家", "饺 子 预言家")
    data = {"csrf": h.csrf, "ruleset": "pinming", "seats": lines, "seed": "7"}
    r = h.client.post("/d/new", data=data)
    assert r.status_code == 400 and "角色名不能含空格" in r.text
    names_only = "\n".join(PINMING_SEATS).replace("饺子", "雨打 芭蕉")
    r = h.client.post("/d/new", data={**data, "seats": names_only})
    assert r.status_code == 400 and "“芭蕉”不是本规则的身份；角色名不能含空格" in r.text
    game = h.create_pinming()
    links = h.links(game)
    _day_one(h, game, links)
    # one copy button per player link; the links box stays for all at once
    god = h.client.get(f"/d/g/{game}").text
    assert god.count('class="copy-link"') == 14 and 'data-copy="#link-lines"' in god
    # a 红牌 by day: 罚下 after the vote; meanwhile the seat says so (not a bare 存活)
    h.service.director_command(game, Command(DIRECTOR, CARD_RED, ("油条",)), note="场外")
    row = h.client.get(f"/d/g/{game}").text.split('data-seat="油条"', 1)[1].split("</tr>", 1)[0]
    assert "红牌（本日投票结算后罚下）" in row
    assert "红牌（本日投票结算后罚下）" in h.client.get(f"/p/{links['油条']}").text
    # 潜水: a day closed early is not judged; one that ran its length is, each flag unticked
    _close(h, game)
    _close(h, game)  # the night
    assert "潜水记录" not in h.client.get(f"/d/g/{game}").text
    _vote(h, game, links, "汤圆")
    with h.service.sessions() as s:
        due = h.service.current_deadline(s, game)
        assert due is not None and due.skill == CLOSE_PHASE
        h.clock.now = due.due_at
    assert h.service.fire_due() == 1
    god = h.client.get(f"/d/g/{game}").text
    flags = god.split('id="flag-form"', 1)[1].split("</form>", 1)[0]
    boxes = re.findall(r'<input type="checkbox" name="flag"[^>]*>', flags)
    assert boxes and not [b for b in boxes if "checked" in b]
    assert 'id="flags-all"' in flags and 'id="flags-none"' in flags
    # over: no 结算中 next to 已结束; the wolves' chat with its times in the 复盘; stage names
    assert h.director(game, "status", action="end")[0] == 303
    god = h.client.get(f"/d/g/{game}").text
    assert "（结算中）" not in god.split('id="now"', 1)[1].split("</section>", 1)[0]


def test_the_review_lists_every_line_in_order_with_tallies_chats_and_stage_names(lite: Harness) -> None:
    h = lite
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    _day_one(h, game, links)
    h.service.group_post(game, "汤圆", "wolves", "今晚刀谁？")
    _close(h, game)  # 第1天 → 第1夜 (饺子 警长)
    h.service.director_command(game, Command(DIRECTOR, "close_stage"))
    # 第1夜's stages closed by the director name the stage they closed
    _close(h, game)
    _vote(h, game, links, "锅贴")  # the 白痴 is voted out: 装傻 (a forced 公示)
    _close(h, game)
    page = h.client.get(f"/d/g/{game}/review").text
    assert "第1夜 导演 关闭夜晚阶段〈预言家行动〉" in page
    timeline = page.split('id="timeline"', 1)[1].split("</section>", 1)[0]
    assert "发动装傻" in timeline  # the 公示 are in the timeline now
    assert "本日票数：锅贴 14票" in timeline and "票数：饺子 14票" in page
    chats = page.split('id="chats"', 1)[1].split("</section>", 1)[0]
    assert "今晚刀谁？" in chats and "汤圆" in chats and re.search(r"\d\d-\d\d \d\d:\d\d", chats)
    # a player's 复盘 waits for the end
    assert h.client.get(f"/p/{links['豆花']}/review").status_code == 403


def test_the_wolves_see_their_own_stage_and_the_heading_follows_the_phase(lite: Harness) -> None:
    h = lite
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    _day_one(h, game, links)
    thread = h.client.get(f"/p/{links['汤圆']}/thread").text
    assert "<h1>讨论帖 · 第1天</h1>" in thread.split('id="live"', 1)[1]  # inside the live area
    _close(h, game)  # → 第1夜·预言家行动
    # the wolves act in their own stage (open with the night): its deadline, not the seer's
    page = h.client.get(f"/p/{links['汤圆']}").text
    assert "当前时限：第1夜·狼人行动" in page and 'data-skill="kill"' in page
    seer = h.client.get(f"/p/{links['饺子']}").text
    assert "当前时限：第1夜·预言家行动" in seer and 'data-skill="check"' in seer
    # the 女巫's stage opens later: she is told so, and that the running deadline is not hers
    witch = h.client.get(f"/p/{links['包子']}").text
    assert "〈毒药〉在〈女巫行动〉阶段" in witch and "（还没轮到你）" in witch
    # the wolves' chat shows each message's time
    h.service.group_post(game, "汤圆", "wolves", "我先说")
    chat = h.client.get(f"/p/{links['月饼']}").text.split('id="chat-wolves"', 1)[1].split("</div></div>", 1)[0]
    assert re.search(r"\d\d-\d\d \d\d:\d\d · 第1夜", chat)


def test_the_many_target_picker_offers_one_list_per_place(lite: Harness) -> None:
    from .test_e2e_chenji import SEATS, SEED

    h = lite
    h.login()
    seats = "\n".join(f"{n} {r}" for n, r in SEATS.items())
    data = {"csrf": h.csrf, "ruleset": "chenji", "seats": seats, "seed": str(SEED), "auto_publish": "on"}
    r = h.client.post("/d/new", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    game = int(r.headers["location"].rsplit("/", 1)[1])
    links = h.links(game)
    cupid = next(n for n, role in SEATS.items() if role == "丘比特")
    page = h.client.get(f"/p/{links[cupid]}").text
    form = page.split('data-skill="arrow"', 1)[1].split("</form>", 1)[0]
    places = form.split('name="targets"')[1:]
    assert len(places) == 2  # 爱神之箭: two characters (itself allowed, seed ruling)
    assert all(_options(p.split("</select>", 1)[0]) == list(SEATS) for p in places)
    pair = [n for n in SEATS if n != cupid][:2]
    form = {"csrf": h.player_csrf(links[cupid]), "skill": "arrow", "targets": pair}
    r = h.client.post(f"/p/{links[cupid]}/act", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert f"爱神之箭 → {pair[0]}、{pair[1]}" in h.client.get(f"/p/{links[cupid]}").text
    # the forum desk's 代投: skill and target lists keyed by who may use them
    desk = h.client.get(f"/d/g/{game}/forum").text
    act = _form(desk, "forum-act")
    assert 'id="desk-skill" data-filter-by="#desk-player"' in act
    assert 'name="targets"' not in act or 'data-filter-by="#desk-player #desk-skill"' in act
    with h.service.sessions() as s:
        assert s.scalar(select(Post.id).where(Post.game_id == game)) is None


def test_a_post_by_the_pages_script_is_answered_with_json_and_the_floor_comes_by_push(lite: Harness) -> None:
    """static/app.js posts by fetch (issue 26): the answer is the flash, the next form key and the
    day's post count — no page is rendered; a refusal answers its reason (the script then sends
    the form the ordinary way); ?mine=1 leads to the page holding one's newest floor."""
    h = lite
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    h.service.submit(game, Command("年糕", "recognize", ("饺子",)))
    _close(h, game)
    token = links["饺子"]
    by_script = {"Accept": "application/json"}
    data = {"csrf": h.player_csrf(token), "idem": "k" * 20, "text": "第一帖"}
    r = h.client.post(f"/p/{token}/post", data=data, headers=by_script, follow_redirects=False)
    assert r.status_code == 200, r.text
    done = r.json()
    assert done["ok"] == "已发言" and done["post_count"] == 1 and done["idem"] != data["idem"]
    # the same form key again: stored once, the first answer back
    r = h.client.post(f"/p/{token}/post", data=data, headers=by_script, follow_redirects=False)
    assert r.status_code == 200 and r.json()["post_count"] == 1
    vote = {"csrf": h.player_csrf(token), "idem": done["idem"], "text": "投票对象：汤圆\n投票理由：可疑"}
    r = h.client.post(f"/p/{token}/post", data=vote, headers=by_script, follow_redirects=False)
    assert r.status_code == 200 and r.json() == {**r.json(), "ok": "投票已记录", "post_count": 2}
    # the count is the one his page shows
    assert "今日已发 <span id=\"post-count\">2</span> 帖" in h.client.get(f"/p/{token}/thread").text
    with h.service.sessions() as s:
        stored = len(s.scalars(select(Post).where(Post.game_id == game)).all())
    bad = {"csrf": h.player_csrf(token), "idem": "m" * 20, "text": "投票對象：包子\n投票理由：可疑"}
    r = h.client.post(f"/p/{token}/post", data=bad, headers=by_script, follow_redirects=False)
    assert r.status_code >= 400 and "投票" in r.json()["error"]
    with h.service.sessions() as s:
        assert len(s.scalars(select(Post).where(Post.game_id == game)).all()) == stored  # nothing stored
    newest = max(int(n) for n in re.findall(r'id="floor-(\d+)"', h.client.get(f"/p/{token}/thread").text))
    r = h.client.get(done["mine"], follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].endswith(f"#floor-{newest}")  # his vote, the newest
    page = h.client.get(r.headers["location"])
    assert "已发言" in page.text  # the signed flash travels with the address
    assert 'id="post-form" data-fetch' in page.text
