"""A whole 沉寂与取酒 game with 20 seats in headless Chromium (issue 12): the director creates it
on /d/new with a hand-entered table (the one seed 195 deals for 20 seats), every character acts
through his own page, votes go in the thread, the director closes stages and phases and
approves each 公示, until the village wins on 第3天. Screenshots go to test-artifacts/e2e/.

The game: 丘比特 pairs 白狼 and 吹笛者 (情侣阵营, so 白狼阵营 and 吹笛者阵营 are not in the game);
第1天 the 刺客 行刺s the 白狼 (a wolf: the 刺客 lives) and the 吹笛者 follows (殉情); 第1夜 the
黑狼 kills the 猎人, the 女巫 poisons the 黑狼, who names the 狼使 heir (指认), and the 猎人's
最后一枪 takes the 头狼; 第2天 the 狼使 is voted out and names the 修女; 第2夜 the 修女 kills a
良民; 第3天 the 修女 is voted out and 狼人阵营 loses: 村民阵营胜利.
"""

from __future__ import annotations

from typing import Any

from .e2e_helpers import (  # noqa: F401 (fixtures, skip mark)
    ARTIFACTS,
    Browser,
    Table,
    browser,
    create_game,
    director_login,
    expect,
    pytestmark,
    replay,
    server,
)

SEED = 195  # deals 猎人、刺客、死士、白痴、替罪羊、诽谤者 as the six 普通身份 for 20 seats
SEATS = {
    "甲子": "预言家",
    "乙丑": "女巫",
    "丙寅": "长老",
    "丁卯": "守卫",
    "戊辰": "猎人",
    "己巳": "刺客",
    "庚午": "死士",
    "辛未": "白痴",
    "壬申": "替罪羊",
    "癸酉": "诽谤者",
    "甲戌": "良民",
    "乙亥": "良民",
    "丙子": "乱民",
    "丁丑": "白狼",
    "戊寅": "头狼",
    "己卯": "黑狼",
    "庚辰": "狼使",
    "辛巳": "修女",
    "壬午": "吹笛者",
    "癸未": "丘比特",
}
NIGHT_STAGES = 5  # 21:45 守卫 … 22:45 纯真与救赎


def test_a_twenty_seat_chenji_game_in_the_browser(server: str, browser: Browser) -> None:  # noqa: F811
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    d = director_login(browser, server)
    god = create_game(d, "chenji", SEATS, SEED)
    t = Table(browser, server, d, god)
    assert set(t.links) == set(SEATS)
    assert t.text("丁丑", "#role") == "白狼"

    # 开局: 爱神之箭 (two targets), then the director closes and approves the 公示
    t.act("癸未", "arrow", targets=["丁丑", "壬午"])
    t.close_phase()
    assert "你与壬午成为情侣。" in t.text("丁丑", "#private")
    assert t.text("壬午", "#camp") == "情侣阵营"
    assert "狼群成员：戊寅、己卯、庚辰、辛巳" in t.text("己卯", "#private")

    # 第1天: 行刺 (asks first) the 白狼; his lover follows; the village elects 甲子
    page = t.act("己巳", "stab", "丁丑")
    expect(page.locator("#status")).to_contain_text("存活")
    t.vote(["乙丑", "丙寅", "丁卯", "戊辰", "甲戌", "乙亥"], "甲子")
    t.vote(["戊寅", "己卯"], "庚辰")
    t.publish()  # the 行刺's 公示 waits for the director's approval
    thread = t.open("甲子", "/thread").locator("#thread").inner_text()
    assert "刺客己巳发动行刺，丁丑出局。" in thread
    assert "已出局" in t.text("壬午", "#status")
    t.close_phase()
    assert "第1天投票结束，甲子当选警长。" in t.text("庚午", "#thread", "/thread")

    # 第1夜, stage by stage: 守卫 → (吹笛者 out) → 预言 and 杀人 → 女巫 (told the target) → 纯真
    t.act("丁卯", "shield", "甲子")
    t.close_stages(2)
    t.act("甲子", "check", "己卯")
    t.act("己卯", "kill", "戊辰")
    t.close_stages(1)
    assert "今晚被指杀的角色：戊辰。" in t.text("乙丑", "#private")
    assert "你预言了己卯：狼人。" in t.text("甲子", "#private")
    t.act("乙丑", "poison", "己卯")
    t.close_stages(1)
    t.director("#close-phase")
    # the night's outs ask their prompts in turn, inside the settling window: the 黑狼's 指认,
    # then the 猎人's 最后一枪; the others learn the results when the window ends
    t.act("己卯", "heir", "庚辰")
    assert "你获得了【杀人】。" not in t.text("庚辰", "#private")
    t.act("戊辰", "shoot", "戊寅")
    t.publish()
    assert "你获得了【杀人】。" in t.text("庚辰", "#private")
    opening = t.text("癸酉", "#thread", "/thread")
    assert "第2天讨论日开始。昨夜出局：己卯、戊辰、戊寅。" in opening

    # 第2天: the 狼使 is voted out and names the 修女
    t.vote(["甲子", "乙丑", "丙寅", "丁卯", "甲戌", "乙亥"], "庚辰")
    t.vote(["庚辰", "辛巳"], "乙亥")
    t.director("#close-phase")
    t.act("庚辰", "heir", "辛巳")
    t.publish()
    assert "庚辰被投票出局。" in t.text("丙寅", "#thread", "/thread")

    # 第2夜: the 修女 kills a 良民 in the 22:15 stage
    t.close_stages(2)
    t.act("辛巳", "kill", "甲戌")
    t.close_stages(NIGHT_STAGES - 3)
    t.close_phase()
    assert "昨夜出局：甲戌。" in t.text("丙寅", "#thread", "/thread")

    # 第3天: the last wolf is voted out — the final 公示 names the result
    t.vote(["甲子", "乙丑", "丙寅", "丁卯", "乙亥"], "辛巳")
    t.close_phase()
    page = t.open("乙亥", "/thread")
    final = page.locator("#thread").inner_text()
    assert "辛巳被投票出局。" in final and "游戏结束，村民阵营胜利！" in final
    assert "村民阵营胜利" in page.locator("#winner").inner_text()
    page.screenshot(path=str(ARTIFACTS / "chenji-thread.png"), full_page=True)
    assert "村民阵营胜利" in t.text("辛巳", "#winner")

    # 复盘: identities and camps, the timeline with each out's cause, the votes of each day
    page = t.open("甲戌", "/review")
    assert "村民阵营胜利" in page.locator("#winner").inner_text()
    piper = page.locator("#seats tr", has_text="壬午").inner_text()
    assert "吹笛者" in piper and "情侣阵营" in piper and "出局（第1天·殉情）" in piper
    timeline = page.locator("#timeline").text_content() or ""
    for out in ("丁丑出局（行刺）", "己卯出局（毒药）", "戊寅出局（最后一枪）", "辛巳出局（投票）"):
        assert out in timeline, (out, timeline)
    assert "庚辰 → 乙亥" in page.locator("#day-votes").inner_text()
    d.goto(god + "/review")
    d.screenshot(path=str(ARTIFACTS / "chenji-review.png"), full_page=True)

    # the result matches the engine's replay of what the service stored
    export: dict[str, Any] = d.request.get(god + "/export.json").json()
    state = replay("沉寂与取酒", SEATS, export)
    assert state.winner == "village" and "村民阵营" in export["result"]["winner"]
    assert state.sheriff == "甲子"
