"""The forum desk: a 品茗 game whose thread lives on a Discuz! forum, counted, overridden and applied."""

from __future__ import annotations

from sqlalchemy import select

from banshe.service.models import CommandRow, Post

from ..discuz_pages import P, encode, page, vote
from .conftest import Harness


def _thread() -> bytes:
    posts = [
        P("导演", "2026-12-1 11:00", '<font color="Red">【第1天】公示：竞选警长</font>'),
        P("包子", "2026-12-1 12:00", vote("饺子")),  # 2
        P("烧麦", "2026-12-1 12:10", vote("饺子")),  # 3
        P("锅贴", "2026-12-1 12:20", vote("饺子")),  # 4
        P("月饼", "2026-12-1 12:30", vote("汤圆")),  # 5
        P("春卷", "2026-12-1 12:40", vote("汤圆")),  # 6
        P("麻花", "2026-12-1 12:50", vote("汤圆")),  # 7
        P("馄饨", "2026-12-1 13:00", vote("汤园")),  # 8: a typo, refused; the director accepts it
        P("油条", "2026-12-1 13:10", vote("饺子"), edited="2026-12-1 13:20"),  # 9: edited, refused
        P("围观群众", "2026-12-1 13:30", "加油"),  # 10
    ]
    return encode(page(posts, "gbk", subject="[M196]品茗——第1天讨论帖"), "gbk")


def test_read_override_apply_and_the_engine_agrees(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    assert h.act(links["年糕"], "recognize", target="饺子")[0] == 303
    assert h.run_for(3600 + 600) == 2  # 开局 closes: 第1天 (after its settling window)

    r = h.client.get(f"/d/g/{game}")
    assert f'href="/d/g/{game}/forum"' in r.text
    files = [("pages", ("page1.html", _thread(), "text/html"))]
    r = h.client.post(f"/d/g/{game}/forum/read", data={"csrf": h.csrf}, files=files, follow_redirects=False)
    assert r.status_code == 303, r.text
    shown = h.client.get(r.headers["location"]).text
    assert "没有“汤园”这名角色" in shown and "编辑" in shown and 'id="floor-10" class="other"' in shown
    day_id = int(r.headers["location"].split("day=")[1].split("&")[0])

    code, text = h.director(game, f"forum/{day_id}/override", floor="8", verdict="accept", note="")
    assert code == 400 and "理由" in text
    code, _ = h.director(
        game, f"forum/{day_id}/override", floor="8", verdict="accept", target="汤圆", note="错字，导演认定投汤圆"
    )
    assert code == 303
    shown = h.client.get(f"/d/g/{game}/forum?day={day_id}").text
    assert "改判理由：错字，导演认定投汤圆" in shown and "8楼：馄饨 投票 汤圆" in shown

    assert h.director(game, f"forum/{day_id}/apply")[0] == 303
    code, text = h.director(game, f"forum/{day_id}/apply")
    assert code == 400 and "已经录入过了" in text
    with h.service.sessions() as s:
        forum_votes = s.scalars(select(CommandRow).where(CommandRow.game_id == game, CommandRow.source == "forum"))
        assert [(c.actor, c.payload["targets"]) for c in forum_votes] == [
            ("包子", ["饺子"]),
            ("烧麦", ["饺子"]),
            ("锅贴", ["饺子"]),
            ("月饼", ["汤圆"]),
            ("春卷", ["汤圆"]),
            ("麻花", ["汤圆"]),
            ("馄饨", ["汤圆"]),
        ]
        mirrored = list(s.scalars(select(Post).where(Post.game_id == game).order_by(Post.created_at)))
        assert len(mirrored) == 8 and mirrored[0].text.startswith("［论坛2楼］投票对象：饺子")
        assert mirrored[7].author == "油条" and mirrored[7].vote_kind is None

    # 饺子 3, 汤圆 4 (with the override): 汤圆 is sheriff; without it 饺子 would have reached 3 first
    h.close(game)
    _game, state = h.service.read(game)
    assert state.sheriff == "汤圆" and state.phase.label == "第1夜"

    # a night action the 预言家 sent privately, entered from the same page
    code, _ = h.director(game, "forum/act", player="饺子", skill="预言", targets="汤圆")
    assert code == 303
    code, text = h.director(game, "forum/act", player="饺子", skill="飞天", targets="汤圆")
    assert code == 400 and "飞天" in text
    shown = h.client.get(f"/d/g/{game}/forum").text
    assert "[size=6][color=#FF0000][b]【第1天公示】[/b][/color][/size]" in shown


def test_refusals(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    code, text = h.director(game, "forum/read", url="http://127.0.0.1:9/forum.php?mod=viewthread&tid=1")
    assert code == 400 and "内网" in text
    code, text = h.director(game, "forum/read")
    assert code == 400 and "请上传帖子页面" in text
    files = [("pages", ("baidu.html", b"<html><body>hi</body></html>", "text/html"))]
    r = h.client.post(f"/d/g/{game}/forum/read", data={"csrf": h.csrf}, files=files, follow_redirects=False)
    assert r.status_code == 400 and "不是 Discuz! 帖子页面" in r.text
    r = h.client.post(f"/d/g/{game}/forum/read", data={"csrf": "wrong"}, files=files, follow_redirects=False)
    assert r.status_code == 403
    # the game is still at 开局: 第1天's count cannot be applied yet
    files = [("pages", ("page1.html", _thread(), "text/html"))]
    r = h.client.post(f"/d/g/{game}/forum/read", data={"csrf": h.csrf}, files=files, follow_redirects=False)
    assert r.status_code == 303, r.text
    day_id = int(r.headers["location"].split("day=")[1].split("&")[0])
    code, text = h.director(game, f"forum/{day_id}/apply")
    assert code == 400 and "对局当前是开局" in text


def test_bbcode_uses_the_directors_reserved_fonts() -> None:
    from banshe.service.forum_desk import forum_bbcode

    assert forum_bbcode("pinming", "第2天", "乙出局。") == (
        "[size=6][color=#FF0000][b]【第2天公示】[/b][/color][/size]\n[color=#FF0000]乙出局。[/color]"
    )
    assert forum_bbcode("chenji", "第2天", "乙出局。").endswith("\n[size=6]乙出局。[/size]")
