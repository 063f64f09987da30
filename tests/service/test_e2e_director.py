"""The director's safety and the night windows in a real headless Chromium (issue 22): every
irreversible command asks first naming its effect (dismissed, nothing happens), the last command
is undone with what changed, each deadline of the timetable moves on its own, and a 沉寂与取酒
预言家 posts at the night's start and is answered when his stage settles. Screenshots go to
test-artifacts/e2e/."""

from __future__ import annotations

import re
from typing import Any

from .conftest import PINMING_SEATS
from .e2e_helpers import (  # noqa: F401 (fixtures, skip mark)
    ARTIFACTS,
    Browser,
    Page,
    Table,
    _submit,
    browser,
    create_game,
    create_pinming,
    director_login,
    end_window,
    expect,
    player_links,
    publish_all,
    pytestmark,
    server,
)
from .test_e2e_chenji import SEATS as CHENJI_SEATS
from .test_e2e_chenji import SEED as CHENJI_SEED


def _confirming(d: Page, answers: list[bool], asked: list[str]) -> None:
    """Answer the page's next confirmations in order (True: accept), noting what each said."""

    def handle(dialog: Any) -> None:
        asked.append(dialog.message)
        if answers and answers.pop(0):
            dialog.accept()
        else:
            dialog.dismiss()

    d.on("dialog", handle)


def test_confirmations_undo_and_the_timetable(server: str, browser: Browser) -> None:  # noqa: F811
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    d = director_login(browser, server, confirm=False)
    answers: list[bool] = []
    asked: list[str] = []
    _confirming(d, answers, asked)
    god = create_pinming(d, 11, auto_publish=True)
    links = player_links(d, server)
    # 立即关门 asks first, naming what it does; dismissed, nothing happens
    d.goto(god)
    answers.append(False)
    d.locator("#close-phase").click()
    assert asked[-1].startswith("立即关门：开局立即结束并结算")
    d.goto(god)
    expect(d.locator("#phase")).to_have_text("开局")
    # accepted: it closes; the players see 开局（结算中） until its settling window ends
    answers.append(True)
    _submit(d, "#close-phase")
    player = browser.new_context(locale="zh-CN").new_page()
    player.goto(links["馄饨"])
    expect(player.locator("#status")).to_contain_text("结算中")
    answers.append(True)
    end_window(d, god)
    assert "立即结束结算窗口" in asked[-1]
    # a card through the penalty form (its confirmation names the target and the card) …
    d.goto(god)
    d.locator("#penalty-form select[name=skill]").select_option("card_yellow")
    d.locator("#penalty-form select[name=target]").select_option("馄饨")
    d.fill("#penalty-form input[name=reason]", "手滑")
    answers.append(True)
    _submit(d, "#penalty-submit")
    assert "判罚馄饨：黄牌" in asked[-1] and "理由：手滑" in asked[-1]
    assert "蓝0 黄1 红0" in d.locator('tr[data-seat="馄饨"]').inner_text()
    player.goto(links["馄饨"])
    expect(player.locator("#private")).to_contain_text("你被导演判罚一张黄牌，理由：手滑。")
    # … undone: the card, its 公示 and the notice are gone, and the page says what changed
    answers.append(True)
    _submit(d, "#undo")
    assert "撤销上一条导演指令" in asked[-1]
    expect(d.locator("#ok")).to_contain_text("已撤销：第1天 导演 给 馄饨 黄牌：手滑")
    expect(d.locator("#ok")).to_contain_text("馄饨被判罚一张黄牌。")
    assert "蓝0 黄0 红0" in d.locator('tr[data-seat="馄饨"]').inner_text()
    expect(d.locator("#undo-none")).to_be_visible()
    player.goto(links["馄饨"])
    expect(player.locator("#private")).not_to_contain_text("黄牌")
    d.screenshot(path=str(ARTIFACTS / "director-undo.png"), full_page=True)
    # the timetable: the night's deadlines, each moved on its own
    answers.extend([True, True])
    _submit(d, "#close-phase")
    end_window(d, god)
    d.goto(god)
    rows = d.locator("#timetable-rows tr[data-deadline]")
    expect(rows).to_have_count(3)
    witch = d.locator("#timetable-rows tr", has_text="第1夜·女巫行动")
    before = witch.locator("td").nth(1).inner_text()
    seer_before = d.locator("#timetable-rows tr", has_text="第1夜·预言家行动").locator("td").nth(1).inner_text()
    witch.locator("input[name=minutes]").fill("20")
    _submit(d, '#timetable-rows tr:has-text("第1夜·女巫行动") button.move-deadline')
    witch = d.locator("#timetable-rows tr", has_text="第1夜·女巫行动")
    after = witch.locator("td").nth(1).inner_text()
    h0, m0 = (int(x) for x in before[-5:].split(":"))
    h1, m1 = (int(x) for x in after[-5:].split(":"))
    assert (h1 * 60 + m1 - h0 * 60 - m0) % (24 * 60) == 20
    assert d.locator("#timetable-rows tr", has_text="第1夜·预言家行动").locator("td").nth(1).inner_text() == seer_before
    d.screenshot(path=str(ARTIFACTS / "director-timetable.png"), full_page=True)
    # every player's page shows his skills' windows for the night
    player.goto(links["饺子"])
    assert re.search(r"预言：\d\d:\d\d 开放，\d\d:\d\d 截止", player.locator("#windows").inner_text())
    assert set(PINMING_SEATS) == set(links)


def test_a_chenji_seer_posts_at_the_night_s_start(server: str, browser: Browser) -> None:  # noqa: F811
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    d = director_login(browser, server)
    god = create_game(d, "chenji", CHENJI_SEATS, CHENJI_SEED, auto_publish=True)
    t = Table(browser, server, d, god)
    t.act("癸未", "arrow", targets=["丁丑", "壬午"])
    t.close_phase()  # 开局 → 第1天
    t.close_phase()  # 第1天 → 第1夜 (its first stage, 守卫, is the current one)
    page = t.open("甲子")
    assert re.search(r"预言：\d\d:\d\d 开放，\d\d:\d\d 截止", page.locator("#windows").inner_text())
    t.act("甲子", "check", "己卯")
    private = t.text("甲子", "#private")
    assert "你提交了：预言 → 己卯（预言、天眼、弄权、诽谤、杀人、撕咬开始时生效，之前可替换）" in private
    page = t.open("甲子")
    page.screenshot(path=str(ARTIFACTS / "chenji-seer-held.png"), full_page=True)
    d.goto(god)
    assert "待其阶段开始时生效" in d.locator("#submissions").inner_text()
    t.close_stages(2)  # 守卫, then 吹笛者与修女卫道: his stage opens and his 预言 is applied
    private = t.text("甲子", "#private")
    assert "你提交了：预言 → 己卯" in private and "开始时生效" not in private
    assert "你预言了" not in private
    t.close_stages(1)  # his stage settles: the answer
    assert "你预言了己卯：狼人。" in t.text("甲子", "#private")
    t.open("甲子").screenshot(path=str(ARTIFACTS / "chenji-seer-answered.png"), full_page=True)
