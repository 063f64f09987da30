"""The discussion thread and the player pages (issue 12 "The thread", "Players"), through the
HTTP API on SQLite and PostgreSQL: floors, replies and the 改票 reply rule, refused posts keep
their text, director posts, the 票型, near-miss vote labels, camps, the pack's target."""

from __future__ import annotations

import html
import json
import re

from sqlalchemy import func, select

from banshe.service.models import CommandRow, Post

from .conftest import Harness, shanghai


def _day_one(h: Harness, recognize: str | None = None) -> tuple[int, dict[str, str]]:
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    if recognize:
        assert h.act(links["年糕"], "recognize", target=recognize)[0] == 303
    assert h.run_until(shanghai(2026, 12, 1, 11, 10)) == 2  # 开局 closes; day 1 opens after its window
    return game, links


def _thread(h: Harness, token: str) -> list[dict[str, object]]:
    return h.state(token)["thread"]  # type: ignore[return-value]


def _textarea(page: str, form_id: str) -> str:
    m = re.search(rf'<form[^>]*id="{form_id}".*?<textarea[^>]*>(.*?)</textarea>', page, re.S)
    assert m is not None
    return html.unescape(m.group(1))


def test_a_refused_post_keeps_its_text_and_says_why(harness: Harness) -> None:
    h = harness
    _game, links = _day_one(h)
    text = "投票對象：包子\n投票理由：他昨天很可疑"
    code, page = h.post(links["饺子"], text)
    assert code == 400
    assert "“投票對象”应写作“投票对象”" in page and 'id="post-error"' in page
    assert _textarea(page, "post-form") == text  # nothing typed is lost
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(Post.id))) == 0  # a near-miss is no ordinary post either
    # the kept text does not travel through the redirect's query string
    assert "他昨天很可疑" not in h.client.get(f"/p/{links['饺子']}/thread").text


def test_every_post_has_its_floor_and_time_and_can_quote_a_floor(harness: Harness) -> None:
    h = harness
    _game, links = _day_one(h)
    assert h.post(links["饺子"], "我是预言家。")[0] == 303
    assert h.post(links["包子"], "我不信。")[0] == 303
    thread = _thread(h, links["烧麦"])
    floors = [i["floor"] for i in thread]
    assert floors == list(range(1, len(thread) + 1))  # the opening 公示 is 1楼
    first = next(i for i in thread if i["author"] == "饺子")
    assert first["time"] == "2026-12-01 11:10"
    assert h.post(links["烧麦"], "同意楼上", reply_to=int(first["post_id"]))[0] == 303  # type: ignore[call-overload]
    reply = _thread(h, links["油条"])[-1]
    assert reply["quote"] == {"floor": first["floor"], "author": "饺子", "text": "我是预言家。"}
    page = h.client.get(f"/p/{links['油条']}/thread").text
    assert f"回复 {first['floor']}楼 饺子" in page and f"{first['floor']}楼" in page
    code, page = h.post(links["烧麦"], "回复不存在的楼", reply_to=999999)
    assert code == 400 and "回复的楼层不存在" in page


def test_a_change_of_vote_must_reply_to_the_own_vote_floor(harness: Harness) -> None:
    h = harness
    _game, links = _day_one(h)
    assert h.post(links["饺子"], "投票对象：包子\n投票理由：x")[0] == 303
    assert h.post(links["包子"], "投票对象：饺子\n投票理由：x")[0] == 303
    others = next(i for i in _thread(h, links["饺子"]) if i["author"] == "包子")
    code, page = h.post(links["饺子"], "改票对象：烧麦\n改票理由：y")
    assert code == 400 and "改票需回复原投票楼层" in page
    code, page = h.post(links["饺子"], "改票对象：烧麦\n改票理由：y", reply_to=int(others["post_id"]))  # type: ignore[call-overload]
    assert code == 400 and "改票需回复原投票楼层" in page
    # the page offers the reply on the own vote only, and prefills the 改票 format
    page = h.client.get(f"/p/{links['饺子']}/thread").text
    assert page.count("data-change-vote=") == 1
    own = int(re.findall(r'data-change-vote="(\d+)"', page)[0])
    form = h.client.get(f"/p/{links['饺子']}/thread?reply={own}&change=1").text
    assert f'name="reply_to" value="{own}"' in form and "改票对象：\n改票理由：" in _textarea(form, "post-form")
    assert h.post(links["饺子"], "改票对象：烧麦\n改票理由：y", reply_to=own)[0] == 303
    assert "data-change-vote=" not in h.client.get(f"/p/{links['饺子']}/thread").text  # one change only
    _g, state = h.service.read(_g_id(h))
    assert state.votes["饺子"] == "烧麦"
    # a refused 改票 keeps its reply too
    code, page = h.post(links["包子"], "改票对象：不存在\n改票理由：z", reply_to=own)
    assert code == 400 and f'name="reply_to" value="{own}"' in page


def _g_id(h: Harness) -> int:
    return h.games[-1]


def test_the_director_posts_in_the_thread_marked_as_his(harness: Harness) -> None:
    h = harness
    game, links = _day_one(h)
    code, _page = h.director(game, "thread-post", text="规则解释：弃权票不计入。")
    assert code == 303
    item = _thread(h, links["饺子"])[-1]
    assert item["author"] == "导演" and item["director_post"] is True and item["text"] == "规则解释：弃权票不计入。"
    assert "导演发言" in h.client.get(f"/p/{links['饺子']}/thread").text
    code, page = h.director(game, "thread-post", text="   ")
    assert code == 400 and "发言内容不能为空" in page
    # not a player's post: no 潜水 count, and export/import keeps it
    export = h.client.get(f"/d/g/{game}/export.json").json()
    assert any(p["vote_kind"] == "director" for p in export["posts"])


def test_the_day_result_lists_who_voted_whom(harness: Harness) -> None:
    h = harness
    game, links = _day_one(h)
    assert h.post(links["饺子"], "投票对象：包子\n投票理由：x")[0] == 303
    assert h.post(links["包子"], "投票对象：饺子\n投票理由：x")[0] == 303
    assert h.post(links["烧麦"], "投票对象：包子\n投票理由：x")[0] == 303
    h.close(game)
    day = [i for i in _thread(h, links["馄饨"]) if i["kind"] == "announce" and i["phase"] == "第1天"]
    assert "票型：饺子→包子，包子→饺子，烧麦→包子。" in str(day[-1]["text"])
    assert sum("票型" in str(i["text"]) for i in day) == 1


def test_a_reply_survives_export_and_import(harness: Harness) -> None:
    h = harness
    game, links = _day_one(h)
    assert h.post(links["饺子"], "投票对象：包子\n投票理由：x")[0] == 303
    assert h.change(links["饺子"], "改票对象：烧麦\n改票理由：x")[0] == 303
    export = h.client.get(f"/d/g/{game}/export.json").json()
    r = h.client.post("/d/import", data={"csrf": h.csrf, "data": json.dumps(export)}, follow_redirects=False)
    assert r.status_code == 303
    copy = int(r.headers["location"].rsplit("/", 1)[1])
    with h.service.sessions() as s:  # closed at once (an open one holds locks the next test's reset waits on)
        copied = {p.text: p for p in s.scalars(select(Post).where(Post.game_id == copy))}
    change = copied["改票对象：烧麦\n改票理由：x"]
    assert change.reply_to == copied["投票对象：包子\n投票理由：x"].id


def test_the_halfblood_and_the_yandere_see_their_camp_after_recognition(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    assert "尚未告知" in h.client.get(f"/p/{links['年糕']}").text  # before 认亲
    assert h.act(links["年糕"], "recognize", target="汤圆")[0] == 303
    assert h.run_until(shanghai(2026, 12, 1, 11, 10)) == 2
    camp = re.compile(r'id="camp">([^<]*)<')
    assert camp.findall(h.client.get(f"/p/{links['年糕']}").text) == ["狼人阵营"]
    assert camp.findall(h.client.get(f"/p/{links['米糕']}").text) == ["村民阵营"]
    assert camp.findall(h.client.get(f"/p/{links['饺子']}").text) == ["村民阵营"]
    # nobody else's page names the 混血儿's camp
    assert "认亲结束" not in h.client.get(f"/p/{links['饺子']}").text


def test_wolves_see_the_pack_target_and_declarations_others_do_not(harness: Harness) -> None:
    h = harness
    game, links = _day_one(h)
    h.close(game)  # 第1夜
    assert h.act(links["汤圆"], "kill", target="馄饨")[0] == 303
    assert h.act(links["月饼"], "kill", target="油条")[0] == 303
    page = h.client.get(f"/p/{links['春卷']}").text
    assert "杀人：油条（月饼提交）" in page and "杀人：馄饨" not in page  # the last submission
    assert h.act(links["麻花"], "surrender")[0] == 303
    assert "麻花已投降（本阶段）" in h.client.get(f"/p/{links['春卷']}").text
    villager = h.client.get(f"/p/{links['馄饨']}").text
    assert "油条（月饼提交）" not in villager and "投降" not in villager


def test_target_lists_start_empty_and_irreversible_actions_ask(harness: Harness) -> None:
    h = harness
    game, links = _day_one(h)
    h.close(game)  # 第1夜
    page = h.client.get(f"/p/{links['汤圆']}").text
    kill = re.search(r'data-skill="kill".*?</form>', page, re.S)
    assert kill is not None and '<option value="" selected disabled>请选择</option>' in kill.group()
    surrender = re.search(r'<form[^>]*data-skill="surrender"[^>]*>', page)
    assert surrender is not None and "data-confirm=" in surrender.group()
    assert "data-confirm" not in kill.group().split(">", 1)[0]
    # the page asks because the skill declares it (`SkillSpec.irreversible`), not by its name
    from banshe.rulesets.registry import get_ruleset

    skills = get_ruleset("pinming").skills
    assert skills["surrender"].irreversible and not skills["kill"].irreversible
    with h.service.sessions() as s:
        before = s.scalar(select(func.count(CommandRow.id)))
    code, page = h.act(links["汤圆"], "kill", target="")  # the placeholder, sent anyway
    assert code == 400 and 'id="error"' in page
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(CommandRow.id))) == before
