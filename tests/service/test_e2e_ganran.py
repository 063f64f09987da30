"""A whole 感染 game in headless Chromium (issue 12): the director creates it with a hand-entered
12-seat table, the characters act through their own pages, the director closes the six night
stages and each phase and approves each 公示 (auto-publish off).

The game: 爱神 adores a 村民 (第零晚); 第1天 the village elects the 先知; 第1夜 the 穆图 bites one
村民 and the 该隐 sucks another — each infected page tells its new kind (游离 狼人 / 吸血鬼, no
camp), the 先知 checks the 穆图, the 女巫 is told the targets; 第2天 the 猎人's 银色子弹 takes
the 穆图 (狼人阵营 has no member left) and the village votes the 该隐 out: 村民阵营胜利.
Screenshots go to test-artifacts/e2e/.
"""

from __future__ import annotations

from typing import Any

from banshe.rulesets.ganran.state import seat as ganran_seat

from .e2e_helpers import (  # noqa: F401 (fixtures, skip mark)
    ARTIFACTS,
    Browser,
    Table,
    browser,
    create_game,
    director_login,
    pytestmark,
    replay,
    server,
)

SEATS = {
    "青椒": "先知",
    "茄子": "女巫",
    "土豆": "守卫",
    "白菜": "长老",
    "萝卜": "猎人",
    "南瓜": "教士",
    "冬瓜": "爱神",
    "黄瓜": "穆图",
    "丝瓜": "该隐",
    "豆角": "村民",
    "芹菜": "村民",
    "菠菜": "村民",
}
NIGHT_STAGES = 6  # 守卫 → 穆图/该隐 → 狼人/吸血鬼 → 先知 → 长老 → 女巫


def test_a_ganran_game_with_infections_in_the_browser(server: str, browser: Browser) -> None:  # noqa: F811
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    d = director_login(browser, server)
    god = create_game(d, "ganran", SEATS, 7)
    t = Table(browser, server, d, god)
    assert set(t.links) == set(SEATS)

    # 第零晚: 爱慕
    t.act("冬瓜", "adore", "豆角")
    t.close_phase()
    assert "你们成为了情侣" in t.text("豆角", "main")
    assert t.text("黄瓜", "#camp") == "狼人阵营"

    # 第1天: the 先知 is elected (the vote only chooses the sheriff)
    t.vote(["茄子", "土豆", "白菜", "萝卜", "芹菜"], "青椒")
    t.close_phase()
    assert "青椒当选警长" in t.text("南瓜", "#thread", "/thread")

    # 第1夜, stage by stage
    t.act("土豆", "shield", "青椒")
    t.close_stages(1)
    t.act("黄瓜", "bite", "芹菜")
    t.act("丝瓜", "suck", "菠菜")
    t.close_stages(1)
    # the infected pages tell the new kind, and the camp they now have (none while 游离)
    wolf = t.open("芹菜")
    assert "你现在是游离状态的狼人（无阵营）。" in wolf.locator("#private").inner_text()
    assert "你被黄瓜咬噬，成为游离状态的狼人；穆图是黄瓜。" in wolf.locator("#private").inner_text()
    assert wolf.locator("#camp").inner_text() == "无阵营（游离）"
    wolf.screenshot(path=str(ARTIFACTS / "ganran-infected.png"), full_page=True)
    vampire = t.open("菠菜")
    assert "你现在是游离状态的吸血鬼（无阵营）。" in vampire.locator("#private").inner_text()
    assert vampire.locator("#camp").inner_text() == "无阵营（游离）"
    assert "你咬噬芹菜成功。" in t.text("黄瓜", "#private")
    t.close_stages(1)
    t.act("青椒", "check", "黄瓜")
    t.close_stages(2)
    assert "你预言了黄瓜：狼人阵营。" in t.text("青椒", "#private")
    assert "今晚成为咬噬、吸血、杀人目标的角色：芹菜、菠菜。" in t.text("茄子", "#private")
    t.close_phase()
    assert "昨夜无人出局" in t.text("萝卜", "#thread", "/thread")

    # 第2天: 银色子弹 (a wolf: no forced vote), then the 该隐 is voted out
    t.act("萝卜", "bullet", "黄瓜")
    t.publish()
    assert "【银色子弹】已发动，黄瓜出局。黄瓜为狼人。" in t.text("青椒", "#thread", "/thread")
    t.vote(["青椒", "茄子", "土豆", "白菜", "冬瓜", "豆角"], "丝瓜")
    t.vote(["菠菜"], "青椒")
    t.close_phase()
    page = t.open("芹菜", "/thread")
    final = page.locator("#thread").inner_text()
    assert "丝瓜被投票出局。" in final and "游戏结束，村民阵营胜利！" in final
    assert "村民阵营胜利" in page.locator("#winner").inner_text()
    page.screenshot(path=str(ARTIFACTS / "ganran-thread.png"), full_page=True)

    # 复盘: the infected characters' kinds and camps, the infection chain, each out's cause
    d.goto(god + "/review")
    assert "村民阵营胜利" in d.locator("#winner").inner_text()
    timeline = d.locator("#timeline").text_content() or ""
    assert "黄瓜<咬噬>芹菜，芹菜成为游离状态的狼人" in timeline
    assert "丝瓜<吸血>菠菜，菠菜成为游离状态的吸血鬼" in timeline
    assert "黄瓜出局（银色子弹）" in timeline and "丝瓜出局（投票）" in timeline
    assert "无阵营" in d.locator("#seats tr", has_text="芹菜").inner_text()
    d.screenshot(path=str(ARTIFACTS / "ganran-review.png"), full_page=True)

    # the result matches the engine's replay of what the service stored
    export: dict[str, Any] = d.request.get(god + "/export.json").json()
    state = replay("感染", SEATS, export)
    assert state.winner == "village" and "村民阵营" in export["result"]["winner"]
    assert ganran_seat(state.char("芹菜")).kind == "wolf" and ganran_seat(state.char("菠菜")).kind == "vampire"
