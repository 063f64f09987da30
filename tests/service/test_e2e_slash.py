"""品茗's 决战 and 拍刀 in headless Chromium (issue 12): the 女巫 spends her 救药 on 第1夜, the
village votes a 村民 out on 第2天, and on 第2夜 the four wolves post 决战 from their pages (each
asked first); the thread closes and the pack is told how many 拍刀 targets to give; one wolf
submits four, the 女巫's 毒药 takes one knife away, and the three that land finish the 村民
(屠边): 狼人阵营胜利. Screenshots go to test-artifacts/e2e/.
"""

from __future__ import annotations

from typing import Any

from .conftest import PINMING_SEATS, WOLVES
from .e2e_helpers import (  # noqa: F401 (fixtures, skip mark)
    ARTIFACTS,
    Browser,
    Table,
    browser,
    create_pinming,
    director_login,
    pytestmark,
    replay,
    server,
)


def test_the_wolves_slash_after_a_duel_in_the_browser(server: str, browser: Browser) -> None:  # noqa: F811
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    d = director_login(browser, server)
    god = create_pinming(d, 11)
    t = Table(browser, server, d, god)
    asked: list[str] = []

    # 开局 and 第1天 (the 预言家 is elected)
    t.act("年糕", "recognize", "饺子")
    t.close_phase()
    t.vote(["包子", "烧麦", "锅贴", "馄饨"], "饺子")
    t.close_phase()
    # 第1夜: the wolves kill 馄饨, the 女巫 saves him with her 救药
    t.act("饺子", "check", "汤圆")
    t.act("汤圆", "kill", "馄饨")
    t.close_stages(2)
    assert "今晚被指杀的角色：馄饨。" in t.text("包子", "#private")
    t.act("包子", "antidote", "馄饨")
    t.close_phase()
    assert "昨夜无人出局" in t.text("馄饨", "#thread", "/thread")
    # 第2天: a 村民 is voted out
    t.vote(["汤圆", "月饼", "春卷", "麻花", "年糕"], "油条")
    t.close_phase()
    assert "油条被投票出局。" in t.text("馄饨", "#thread", "/thread")

    # 第2夜: every wolf posts 决战 (an irreversible skill: the page asks first)
    t.page.on("dialog", lambda dialog: asked.append(dialog.message))
    for wolf in WOLVES:
        t.act(wolf, "duel")
    assert len(asked) == len(WOLVES) and all("决战" in m for m in asked)
    pack = t.open("春卷")
    assert "请提交4个拍刀目标（按顺序）。" in pack.locator("main").inner_text()
    assert pack.locator('form.action[data-skill="slash"]').count() == 1
    pack.screenshot(path=str(ARTIFACTS / "slash-wolf.png"), full_page=True)
    t.publish()
    thread = t.open("豆花", "/thread")
    assert "狼人全员同意决战，进入拍刀环节，讨论帖关闭。狼人马甲：汤圆、月饼、春卷、麻花。" in (
        thread.locator("#thread").inner_text()
    )
    # one picker per knife; a 拍刀 naming a target twice is refused with the reason
    page = t.open("汤圆")
    pickers = page.locator('form.action[data-skill="slash"] select[name=targets]')
    assert pickers.count() == 4
    for i, name in enumerate(["馄饨", "馄饨", "豆花", "粽子"]):
        pickers.nth(i).select_option(name)
    with page.expect_navigation():
        page.locator('form.action[data-skill="slash"] button').click()
    assert "拍刀目标不能重复" in page.locator("#error").inner_text()
    # the four targets, in order: the 毒药 takes one knife, three land
    t.act("汤圆", "slash", targets=["馄饨", "豆花", "粽子", "饺子"])
    t.publish()
    final = t.thread_text("饺子")  # every page of the thread
    page = t.open("饺子", "/thread")
    for name in ("馄饨", "豆花", "粽子"):
        assert f"拍刀：{name}出局。" in final
    assert "拍刀：饺子出局。" not in final and "游戏结束，狼人阵营胜利！" in final
    assert "狼人阵营胜利" in page.locator("#winner").inner_text()
    page.screenshot(path=str(ARTIFACTS / "slash-thread.png"), full_page=True)

    d.goto(god + "/review")
    assert "狼人阵营胜利" in d.locator("#winner").inner_text()
    assert "饺子" in d.locator("#seats tr", has_text="饺子").inner_text()
    assert "出局（第2夜·拍刀）" in d.locator("#seats tr", has_text="粽子").inner_text()
    export: dict[str, Any] = d.request.get(god + "/export.json").json()
    state = replay("品茗", PINMING_SEATS, export)
    assert state.winner == "wolf" and "狼人阵营" in export["result"]["winner"]
    assert state.is_alive("饺子") and not state.is_alive("粽子")
