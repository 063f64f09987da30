"""End to end in a real headless Chromium (Debian's /usr/bin/chromium driven by Playwright).

A director logs in and creates a 品茗 game; fourteen players open their secret links in
separate browser contexts and play it to the end through the pages; the result shown matches
the engine's replay of the stored commands. Screenshots go to test-artifacts/e2e/.
"""

from __future__ import annotations

from typing import Any

from banshe.engine import Command, apply_in_place
from banshe.rulesets import new_game

from .conftest import PINMING_SEATS, WOLVES
from .e2e_helpers import (  # noqa: F401 (fixtures, skip mark; re-exported for older imports)
    ARTIFACTS,
    Browser,
    Page,
    _post,
    _submit,
    browser,
    create_pinming,
    director_login,
    expect,
    publish_all,
    pytestmark,
    server,
)


def test_a_director_and_fourteen_players_play_pinming_in_the_browser(server: str, browser: Browser) -> None:  # noqa: F811
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    d = director_login(browser, server)
    d.goto(f"{server}/d/new?ruleset=品茗")
    assert "品茗的标准配置为14人" in d.locator("#player-counts").inner_text()
    d.screenshot(path=str(ARTIFACTS / "new-game.png"), full_page=True)
    god = create_pinming(d, 11)
    links = {
        a.get_attribute("data-player") or "": server + (a.get_attribute("href") or "")
        for a in d.locator("a.player-link").all()
    }
    assert set(links) == set(PINMING_SEATS)

    players: dict[str, Page] = {}
    for name, link in links.items():
        page = browser.new_context(locale="zh-CN").new_page()
        page.on("dialog", lambda dialog: dialog.accept())  # 投降 asks for confirmation
        page.goto(link)
        assert page.locator("#role").inner_text() == PINMING_SEATS[name]
        players[name] = page

    def act(name: str, skill: str, target: str | None = None) -> None:
        page = players[name]
        page.goto(links[name])
        form = f'form.action[data-skill="{skill}"]'
        if target is not None:
            page.locator(f"{form} select[name=target]").select_option(target)
        _submit(page, f"{form} button")

    def director(button: str) -> None:
        d.goto(god)
        _submit(d, button)

    def publish() -> None:
        publish_all(d, god)  # the settling window ends first, then every 公示 waiting goes out

    def post(name: str, text: str) -> None:
        page = players[name]
        page.goto(links[name] + "/thread")
        page.fill("#post-form textarea", text)
        _post(page, "#post")

    # 开局: the 混血儿 recognizes, the director closes and approves the 公示
    act("年糕", "recognize", "饺子")
    director("#close-phase")
    publish()
    # 第1天: everyone votes in the thread (full- and half-width formats)
    for i, name in enumerate(PINMING_SEATS):
        target = "饺子" if i % 3 else "包子"
        post(name, f"投票对象：{target}\n投票理由：第{i}位" if i % 2 else f"投票对象:{target} 投票理由:跟票")
    director("#close-phase")
    publish()
    # 替补 (once per character, with the new person's name): the old link dies, the new one works
    d.goto(god)
    d.locator('tr[data-seat="米糕"] details summary').click()
    d.fill('tr[data-seat="米糕"] input[name=person]', "新来的")
    _submit(d, 'tr[data-seat="米糕"] button.substitute')
    assert "（已换过替补）" in d.locator('tr[data-seat="米糕"]').inner_text()
    fresh = server + (d.locator('a.player-link[data-player="米糕"]').get_attribute("href") or "")
    assert fresh != links["米糕"] and f"米糕：{fresh}" in d.locator("#link-lines").input_value()
    # the old link's open page hears its stream end (event: gone) and reloads onto the refusal
    # (a locator wait, not wait_for_function: the page's CSP forbids eval in its own world)
    players["米糕"].locator("main", has_text="链接无效或已停用").wait_for(timeout=60_000)
    players["米糕"].goto(links["米糕"])  # and the old link stays dead
    assert "链接无效或已停用" in players["米糕"].locator("main").inner_text()
    players["米糕"].goto(fresh)
    assert players["米糕"].locator("#role").inner_text() == "病娇"
    # 第1夜: a 红牌 with its reason (罚下 at once by night), then 预言, 杀人, 毒药, stage by stage
    d.goto(god)
    d.locator("#penalty-form select[name=skill]").select_option("card_red")
    d.locator("#penalty-form select[name=target]").select_option("油条")
    d.fill("#penalty-form input[name=reason]", "夜间在讨论帖发言")
    _submit(d, "#penalty-submit")
    assert "蓝0 黄0 红1" in d.locator('tr[data-seat="油条"]').inner_text()
    assert "导演 给 油条 红牌：夜间在讨论帖发言" in d.locator("#log").inner_text()
    assert "导演 为 米糕 换上替补：新来的" in d.locator("#log").inner_text()
    d.screenshot(path=str(ARTIFACTS / "god-page.png"), full_page=True)
    act("饺子", "check", "汤圆")
    act("汤圆", "kill", "馄饨")
    director("#close-stage")
    director("#close-stage")
    act("包子", "poison", "月饼")
    director("#close-phase")
    publish()
    seer = players["饺子"]
    seer.goto(links["饺子"])
    assert "你预言了汤圆：非村民阵营。" in seer.locator("#private").inner_text()
    seer.screenshot(path=str(ARTIFACTS / "player-page.png"), full_page=True)
    # 第2天: the out character cannot post; the wolves surrender (the out one too)
    out = players["馄饨"]
    out.goto(links["馄饨"] + "/thread")
    assert "已出局" in out.locator("main").inner_text()
    # live updates: a thread page left open shows a new post without reloading (SSE + htmx)
    watcher = players["粽子"]
    watcher.goto(links["粽子"] + "/thread")
    post("豆花", "狼人快投降吧")
    expect(watcher.locator("#thread")).to_contain_text("狼人快投降吧", timeout=30_000)
    for wolf in WOLVES:
        act(wolf, "surrender")

    thread = players["豆花"]
    thread.goto(links["豆花"] + "/thread")
    shown = thread.locator("#winner").inner_text()
    assert "村民阵营胜利" in shown
    thread.goto(links["豆花"] + "/thread?day=第2天")  # the thread by day: 第2天's first page
    assert "第2天讨论日开始" in thread.locator("#thread").inner_text()
    thread.screenshot(path=str(ARTIFACTS / "thread.png"), full_page=True)
    d.goto(god)
    d.screenshot(path=str(ARTIFACTS / "director.png"))

    # the result matches the engine's replay of what the service stored
    export: dict[str, Any] = d.request.get(god + "/export.json").json()
    state = new_game("品茗", list(PINMING_SEATS), dict(PINMING_SEATS), {}, export["seed"])
    for entry in export["commands"]:
        if not entry["superseded"]:
            apply_in_place(state, Command.from_json(entry["command"]))
    assert state.winner == "village"
    assert export["result"]["winner"] in shown
    assert state.sheriff == "饺子"
    review = players["馄饨"]
    review.goto(links["馄饨"] + "/review")
    assert "村民阵营胜利" in review.locator("#winner").inner_text()
    red = [c for c in export["commands"] if c["command"]["skill"] == "card_red"]
    assert [c["note"] for c in red] == ["夜间在讨论帖发言"]
    assert [x["person"] for x in export["seats"] if x["name"] == "米糕"] == [None, "新来的"]
    d.goto(god + "/review")
    assert "油条出局（" in (d.locator("#timeline").text_content() or "")  # in a closed <details>
    assert "第2天 汤圆 发动〈投降〉" in d.locator("#timeline").inner_text()
    d.screenshot(path=str(ARTIFACTS / "review.png"), full_page=True)
