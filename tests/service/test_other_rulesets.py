"""沉寂与取酒 and 感染 run through the same service: create, act, deadlines, pages, 复盘."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from banshe.demo import DEMO_NAMES
from banshe.service.models import Post, RefusedPost

from .conftest import Harness


@pytest.mark.parametrize(("ruleset", "count"), [("沉寂与取酒", 20), ("感染", 12)])
def test_a_game_of_each_ruleset_runs_through_the_pages(harness: Harness, ruleset: str, count: int) -> None:
    h = harness
    h.login()
    names = DEMO_NAMES[:count]
    data = {
        "csrf": h.csrf,
        "ruleset": ruleset,
        "seats": "\n".join(names),
        "seed": "11",
        "title": ruleset,
        "auto_publish": "on",
    }
    r = h.client.post("/d/new", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    game = int(r.headers["location"].rsplit("/", 1)[1])
    links = h.links(game)
    assert set(links) == set(names)
    assert h.client.get(f"/d/g/{game}").status_code == 200
    # every seat sees its own identity and no one else's
    for name, token in links.items():
        view = h.state(token)["view"]
        seats = view["seats"]  # type: ignore[index]
        assert [s["name"] for s in seats if "role" in s] == [name]
    # the director closes phases (deadlines) until the game ends or enough phases have passed
    for _ in range(12):
        view = h.state(next(iter(links.values())))["view"]
        if view["winner"]:  # type: ignore[index]
            break
        code, page = h.director(game, "command", skill="close_phase")
        assert code in (200, 303, 400), page
        h.settle(game)  # the settling window: prompts lapse, the next phase opens
    view = h.state(links[names[0]])["view"]
    assert view["phase"] != "开局"  # type: ignore[index]
    for token in links.values():
        assert h.client.get(f"/p/{token}").status_code == 200
        assert h.client.get(f"/p/{token}/thread").status_code == 200


def test_the_assassin_and_the_martyr_always_see_their_skills(harness: Harness) -> None:
    """行刺 (游戏日白天) and 死节 (任意时间) are on their pages whenever the rules allow them, not
    only when the random bots' rare sample (10% / 1%) happens to include them (issue 12)."""
    from .test_e2e_chenji import SEATS, SEED

    h = harness
    h.login()
    data = {"csrf": h.csrf, "ruleset": "chenji", "seats": "\n".join(f"{n} {r}" for n, r in SEATS.items())}
    r = h.client.post("/d/new", data={**data, "seed": str(SEED), "auto_publish": "on"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    game = int(r.headers["location"].rsplit("/", 1)[1])
    links = h.links(game)
    assassin = next(n for n, role in SEATS.items() if role == "刺客")
    martyr = next(n for n, role in SEATS.items() if role == "死士")
    h.close(game)  # 开局 → 第1天
    for _ in range(2):  # before and after a post moves the log (the bots' sample's seed) on
        assert 'data-skill="martyrdom"' in h.client.get(f"/p/{links[martyr]}").text
        page = h.client.get(f"/p/{links[assassin]}").text
        form = page.split('data-skill="stab"')[1].split("</form>")[0]
        assert "<option>丁丑</option>" in form and f"<option>{assassin}</option>" not in form
        code, _ = h.post(links[martyr], "过")
        assert code in (200, 303)
    assert h.state(links[assassin])["view"]["phase"] == "第1天"  # type: ignore[index]
    code, _ = h.act(links[assassin], "stab", target="丁丑")
    assert code in (200, 303)
    assert not h.state(links["丁丑"])["view"]["seats"][13]["alive"]  # type: ignore[index]


def test_a_mad_post_is_refused_and_kept_for_the_director_only(harness: Harness) -> None:
    """癫狂 speech (rulings 2026-12-04): emoji, the forum's 表情 and the 16 characters pass; a name
    only as a vote line's target; a refused post is kept for the director, not shown to anyone."""
    from .test_e2e_chenji import SEATS, SEED

    h = harness
    h.login()
    data = {"csrf": h.csrf, "ruleset": "chenji", "seats": "\n".join(f"{n} {r}" for n, r in SEATS.items())}
    r = h.client.post("/d/new", data={**data, "seed": str(SEED), "auto_publish": "on"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    game = int(r.headers["location"].rsplit("/", 1)[1])
    links = h.links(game)
    for _ in range(2):  # 开局 → 第1天 → 第1夜
        h.close(game)
    assert h.act(links["壬午"], "pipe", target="甲戌")[0] == 303  # the 吹笛者 pipes the 良民 甲戌
    h.close(game)  # → 第2天: 甲戌 is 癫狂
    mad = links["甲戌"]
    assert h.state(mad)["view"]["phase"] == "第2天"  # type: ignore[index]
    with h.service.sessions() as s:
        posts_before = s.scalar(select(func.count(Post.id)))
    code, page = h.post(mad, "甲子 甲子 啊啊啊")  # a name outside a vote line
    assert code == 400 and "癫狂" in page
    code, page = h.post(mad, "我是好人")
    assert code == 400 and "癫狂" in page
    h.post(mad, "我是好人")  # a resend of the same text is kept once
    assert h.post(mad, "喵喵 😀 {:2_25:}")[0] == 303
    assert h.post(mad, "投票对象：甲子\n投票理由：嗷嗷")[0] == 303
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(Post.id))) == posts_before + 2  # the refused two are no posts
        kept = [(p.author, p.text) for p in s.scalars(select(RefusedPost).order_by(RefusedPost.id))]
    assert kept == [("甲戌", "甲子 甲子 啊啊啊"), ("甲戌", "我是好人")]
    for token in (links["甲子"], mad):  # no player sees a refused post, nor a gap in the floors
        thread = h.state(token)["thread"]
        assert "我是好人" not in str(thread)
        floors = [i["floor"] for i in thread]  # type: ignore[index]
        assert floors == list(range(1, len(floors) + 1))
    god = h.client.get(f"/d/g/{game}").text
    assert 'id="refused-posts"' in god and "我是好人" in god and "甲子 甲子 啊啊啊" in god
    # the export carries them, and an imported copy keeps them for its director
    export = h.client.get(f"/d/g/{game}/export.json").json()
    assert [x["text"] for x in export["refused_posts"]] == ["甲子 甲子 啊啊啊", "我是好人"]
    r = h.client.post("/d/import", data={"csrf": h.csrf, "data": json.dumps(export)}, follow_redirects=False)
    assert r.status_code == 303, r.text
    copy = int(r.headers["location"].rsplit("/", 1)[1])
    assert "我是好人" in h.client.get(f"/d/g/{copy}").text
