"""A whole 品茗 game through the HTTP routes, with the scheduler's deadlines fired by a fake clock."""

from __future__ import annotations

import json

from sqlalchemy import select

from banshe.engine import Command, apply_in_place
from banshe.rulesets import new_game
from banshe.service.models import CommandRow, Deadline, LurkFlag

from .conftest import PINMING_SEATS, WOLVES, Harness, shanghai


def _open_deadline(h: Harness, game_id: int) -> Deadline:
    with h.service.sessions() as s:
        row = h.service.current_deadline(s, game_id)
        assert row is not None
        return row


def test_whole_game_through_the_pages(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    assert set(links) == set(PINMING_SEATS)

    # 开局: the 混血儿 recognizes; the deadline is an hour after creation
    assert _open_deadline(h, game).due_at == shanghai(2026, 12, 1, 11)
    code, _ = h.act(links["年糕"], "recognize", target="饺子")
    assert code == 303
    # a second submission before the deadline replaces the first
    code, _ = h.act(links["年糕"], "recognize", target="包子")
    assert code == 303
    # 开局 closes at 11:00; its settling window runs ten minutes, then day 1 opens
    assert h.run_until(shanghai(2026, 12, 1, 11)) == 1
    assert h.state(links["米糕"])["view"]["phase"] == "开局"  # type: ignore[index]
    assert h.run_until(shanghai(2026, 12, 1, 11, 10)) == 1
    me = h.state(links["米糕"])
    assert me["view"]["phase"] == "第1天"  # type: ignore[index]
    texts = [e["text"] for e in me["view"]["events"]]  # type: ignore[index]
    assert "混血儿的认亲对象是包子。" in texts

    # day 1 closes at the first 21:00 at least 12 hours after it started
    assert _open_deadline(h, game).due_at == shanghai(2026, 12, 2, 21)

    # votes are posts; full-width and half-width punctuation alike
    assert h.post(links["包子"], "投票对象：饺子\n投票理由：跳预言家")[0] == 303
    assert h.post(links["烧麦"], "投票对象:饺子 投票理由:同上")[0] == 303
    assert h.post(links["锅贴"], "投票对象：饺子投票理由：")[0] == 303
    code, page = h.post(links["馄饨"], "投票对象 饺子\n投票理由：无")
    assert code == 400 and "格式有误" in page
    code, page = h.post(links["馄饨"], "投票对象：小明\n投票理由：无")
    assert code == 400 and "不是本局的角色" in page
    assert h.post(links["馄饨"], "投票对象：汤圆\n投票理由：无")[0] == 303
    assert h.change(links["馄饨"], "改票对象：饺子\n改票理由：改主意")[0] == 303
    code, page = h.change(links["馄饨"], "改票对象：汤圆\n改票理由：再改")
    assert code == 400 and "改票只允许进行一次" in page
    code, page = h.change(links["油条"], "改票对象：汤圆\n改票理由：再改")
    assert code == 400 and "还没有有效投票" in page
    for name in ["油条", "豆花", "汤圆"]:
        assert h.post(links[name], "我觉得今天大家都很可疑。")[0] == 303
    thread = h.state(links["豆花"])["thread"]
    assert any(i["vote"] == "投票 → 饺子" and i["author"] == "包子" for i in thread)  # type: ignore[union-attr]

    # the last hour: no 改票 (品茗), a plain vote is still fine
    h.clock.now = shanghai(2026, 12, 2, 20, 30)
    assert h.post(links["汤圆"], "投票对象：弃权\n投票理由：无")[0] == 303
    code, page = h.change(links["汤圆"], "改票对象：饺子\n改票理由：无")
    assert code == 400 and "关门前1小时不允许改票" in page

    assert h.run_until(shanghai(2026, 12, 2, 21)) == 1
    view = h.state(links["饺子"])["view"]
    assert view["phase"] == "第1天" and view["settling"] and view["sheriff"] is None  # type: ignore[index]
    assert h.run_until(shanghai(2026, 12, 2, 21, 10)) == 1  # the settling window: the night opens
    view = h.state(links["饺子"])["view"]
    assert view["phase"] == "第1夜" and view["sheriff"] == "饺子"  # type: ignore[index]
    with h.service.sessions() as s:
        flags = list(s.scalars(select(LurkFlag).where(LurkFlag.game_id == game)))
    lurkers = {f.player for f in flags}
    assert "米糕" in lurkers and "饺子" in lurkers  # no posts, no vote
    assert all("不足5帖" in f.reason or "未投票" in f.reason for f in flags)
    no_vote = next(f for f in flags if f.player == "米糕" and "未投票" in f.reason)
    assert h.director(game, f"flags/{no_vote.id}", action="issue")[0] == 303
    assert h.director(game, f"flags/{no_vote.id}", action="issue")[0] == 400

    # night 1: 预言 replaced before its deadline, then refused after it
    assert h.act(links["饺子"], "check", target="汤圆")[0] == 303
    assert h.act(links["饺子"], "check", target="月饼")[0] == 303
    assert h.act(links["汤圆"], "kill", target="馄饨")[0] == 303
    code, page = h.act(links["包子"], "antidote", target="馄饨")
    assert code == 400 and "尚未轮到" in page
    assert h.run_until(shanghai(2026, 12, 2, 22, 10)) == 2  # 预言家 and 狼人 stages share the deadline
    code, page = h.act(links["饺子"], "check", target="春卷")
    assert code == 400
    seer = h.state(links["饺子"])["view"]
    assert "你预言了月饼：非村民阵营。" in [e["text"] for e in seer["events"]]  # type: ignore[index]
    assert "你预言了汤圆" not in json.dumps(seer, ensure_ascii=False)
    witch = h.state(links["包子"])
    assert "今晚被指杀的角色：馄饨。" in [e["text"] for e in witch["view"]["events"]]  # type: ignore[index]
    assert {a["skill"] for a in witch["actions"]} == {"antidote", "poison"}  # type: ignore[union-attr]
    assert h.run_until(shanghai(2026, 12, 2, 22, 40)) == 1  # the night closes: its window runs half an hour
    assert h.state(links["馄饨"])["view"]["phase"] == "第1夜"  # type: ignore[index]
    assert h.run_until(shanghai(2026, 12, 2, 23, 10)) == 1
    view = h.state(links["馄饨"])["view"]
    assert view["phase"] == "第2天" and view["me"]["alive"] is False  # type: ignore[index]

    # out characters cannot post (诈尸) but may leave 遗言
    code, page = h.post(links["馄饨"], "我是好人！")
    assert code == 400 and "诈尸" in page
    # the right to 遗言 is a private item on the page (可以留下遗言的角色会收到可以留下遗言的通知)
    assert "你可以留下遗言" in h.client.get(f"/p/{links['馄饨']}").text
    code, page = h.act(links["馄饨"], "last_words", text="[b]我是村民[/b]")
    assert code == 400 and "禁止使用Discuz!代码" in page  # 遗言中禁止使用Discuz!代码
    assert h.act(links["馄饨"], "last_words", text="我是村民，汤圆踩我。")[0] == 303

    # the wolves talk in their group; others cannot
    assert (
        h.client.post(
            f"/p/{links['汤圆']}/group",
            data={"csrf": h.player_csrf(links["汤圆"]), "group": "wolves", "text": "投降吧"},
        ).status_code
        == 200
    )
    r = h.client.post(
        f"/p/{links['饺子']}/group",
        data={"csrf": h.player_csrf(links["饺子"]), "group": "wolves", "text": "我也来"},
        follow_redirects=False,
    )
    assert r.status_code == 400 and "不在这个群" in r.text
    assert "投降吧" in h.client.get(f"/p/{links['月饼']}").text
    assert "投降吧" not in h.client.get(f"/p/{links['饺子']}").text

    # the wolves surrender: the village wins
    code, page = h.act(links["饺子"], "surrender")
    assert code == 400
    for wolf in WOLVES:
        assert h.act(links[wolf], "surrender")[0] == 303
    final = h.state(links["豆花"])["view"]
    assert final["winner"] == "村民阵营"  # type: ignore[index]
    assert h.client.get(f"/p/{links['豆花']}/review").status_code == 200
    assert h.post(links["豆花"], "赢了")[0] == 400

    # the stored commands replay to the same result in a bare engine
    export = h.client.get(f"/d/g/{game}/export.json").json()
    state = new_game("品茗", list(PINMING_SEATS), dict(PINMING_SEATS), {}, export["seed"])
    for entry in export["commands"]:
        if not entry["superseded"]:
            apply_in_place(state, Command.from_json(entry["command"]))
    assert state.winner == "village" and export["result"]["winner"] == "村民阵营"
    sources = {e["source"] for e in export["commands"]}
    assert sources == {"player", "director", "scheduler"}
    with h.service.sessions() as s:
        superseded = s.scalars(select(CommandRow).where(CommandRow.game_id == game, CommandRow.superseded)).all()
    assert {(c.actor, c.skill) for c in superseded} == {("年糕", "recognize"), ("饺子", "check")}

    # and the export imports back as a new game with the same result
    r = h.client.post("/d/import", data={"csrf": h.csrf, "data": json.dumps(export)}, follow_redirects=False)
    assert r.status_code == 303
    imported = int(r.headers["location"].rsplit("/", 1)[1])
    assert h.client.get(f"/d/g/{imported}").status_code == 200
    assert h.service.export(imported)["result"] == export["result"]
