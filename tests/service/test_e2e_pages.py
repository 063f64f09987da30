"""A screenshot of every page kind the service serves (issue 12), in headless Chromium, saved as
test artifacts under test-artifacts/e2e/pages/: the login page, the director's home, the
new-game form, the god view, the 复盘, a player's page, the thread, a group chat, the
message page a dead link gets, and the forum desk. The test checks each page shows what it is
for, then that every listed kind left a non-empty PNG."""

from __future__ import annotations

from .e2e_helpers import (  # noqa: F401 (fixtures, skip mark)
    ARTIFACTS,
    Browser,
    Page,
    _submit,
    browser,
    create_pinming,
    director_login,
    expect,
    player_links,
    pytestmark,
    server,
)

PAGES = ARTIFACTS / "pages"
KINDS = (
    "login",
    "director-home",
    "new-game",
    "god-view",
    "review",
    "player",
    "thread",
    "group-chat",
    "message",
    "forum-desk",
)
PNG = b"\x89PNG\r\n\x1a\n"


def _shot(page: Page, kind: str) -> None:
    assert kind in KINDS
    page.screenshot(path=str(PAGES / f"{kind}.png"), full_page=True)


def test_a_screenshot_of_every_page_kind(server: str, browser: Browser) -> None:  # noqa: F811
    PAGES.mkdir(parents=True, exist_ok=True)
    for old in PAGES.glob("*.png"):
        old.unlink()  # only this run's screenshots count below
    visitor = browser.new_context(locale="zh-CN").new_page()
    visitor.goto(f"{server}/login")
    expect(visitor.locator("input[name=username]")).to_be_visible()
    _shot(visitor, "login")

    d = director_login(browser, server)
    d.goto(f"{server}/d/new?ruleset=品茗")
    expect(d.locator("#player-counts")).to_contain_text("品茗的标准配置为14人")
    _shot(d, "new-game")
    god = create_pinming(d, 11, auto_publish=True)
    links = player_links(d, server)
    d.goto(f"{server}/d")
    expect(d.locator("main")).to_contain_text("品茗（14人）")
    _shot(d, "director-home")
    d.goto(god)
    _submit(d, "#close-phase")  # 开局 → 第1天
    expect(d.locator("#phase")).to_contain_text("第1天")

    player = browser.new_context(locale="zh-CN").new_page()
    player.goto(links["饺子"] + "/thread")
    player.fill("#post-form textarea", "投票对象：汤圆\n投票理由：截图")
    _submit(player, "#post")
    expect(player.locator("#thread")).to_contain_text("投票对象：汤圆")
    _shot(player, "thread")
    player.goto(links["饺子"])
    expect(player.locator("#role")).to_have_text("预言家")
    _shot(player, "player")

    wolf = browser.new_context(locale="zh-CN").new_page()
    wolf.goto(links["汤圆"])
    wolf.fill(".group-form textarea", "今晚先刀谁？")
    _submit(wolf, ".group-form button")
    chat = wolf.locator("section.group", has_text="狼群")
    expect(chat).to_contain_text("今晚先刀谁？")
    chat.screenshot(path=str(PAGES / "group-chat.png"))

    visitor.goto(f"{server}/p/no-such-link")
    expect(visitor.locator("main")).to_contain_text("链接无效或已停用")
    _shot(visitor, "message")

    d.goto(god)
    expect(d.locator("#roles")).to_contain_text("汤圆")
    _shot(d, "god-view")
    _submit(d, "#review-link")
    expect(d.locator("#identities")).to_contain_text("复盘")
    _shot(d, "review")
    d.goto(god)
    _submit(d, "#forum-desk")
    expect(d.locator("#forum-read")).to_be_visible()
    _shot(d, "forum-desk")

    for kind in KINDS:
        path = PAGES / f"{kind}.png"
        assert path.is_file(), kind
        data = path.read_bytes()
        assert data.startswith(PNG) and len(data) > 2_000, kind
