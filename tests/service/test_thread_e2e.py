"""Client-side behaviour of the thread and player pages in headless Chromium (issue 12): a
refused post keeps its text, the 改票 link replies to the own vote floor, 投降 asks first (and
a dismissed dialog submits nothing), and the wolves' chat keeps a half-typed message while a
live update shows a new one. Screenshots go to test-artifacts/e2e/."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .e2e_helpers import (  # noqa: F401
    ARTIFACTS,
    _post,
    _submit,
    browser,
    create_pinming,
    director_login,
    publish_all,
    pytestmark,
    server,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

expect = pytest.importorskip("playwright.sync_api").expect
__all__ = ["pytestmark"]


def test_thread_and_player_pages_in_the_browser(server: str, browser: Browser) -> None:  # noqa: F811
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    d = director_login(browser, server)
    god = create_pinming(d, 11, auto_publish=True)
    links = {
        a.get_attribute("data-player") or "": server + (a.get_attribute("href") or "")
        for a in d.locator("a.player-link").all()
    }

    def page_of(name: str) -> Page:
        page = browser.new_context(locale="zh-CN").new_page()
        page.goto(links[name])
        return page

    # 开局: the target list starts on 请选择, which the browser will not submit
    hb = page_of("年糕")
    form = 'form.action[data-skill="recognize"]'
    assert hb.locator(f"{form} select[name=target]").input_value() == ""
    hb.locator(f"{form} button").click()
    assert hb.url == links["年糕"]  # nothing sent (required, empty placeholder)
    hb.locator(f"{form} select[name=target]").select_option("汤圆")
    _submit(hb, f"{form} button")
    d.goto(god)
    _submit(d, "#close-phase")
    publish_all(d, god)  # the settling window ends: day 1
    hb.goto(links["年糕"])
    assert hb.locator("#camp").inner_text() == "狼人阵营"

    # 第1天: a refused post keeps its text and says why; then a vote and its 改票 by reply
    me = page_of("饺子")
    me.goto(links["饺子"] + "/thread")
    me.fill("#post-form textarea", "投票對象：包子\n投票理由：可疑")
    with me.expect_navigation():
        me.locator("#post").click()
    expect(me.locator("#post-error")).to_contain_text("投票對象")
    assert me.locator("#post-form textarea").input_value() == "投票對象：包子\n投票理由：可疑"
    me.fill("#post-form textarea", "投票对象：包子\n投票理由：可疑")
    _post(me, "#post")
    with me.expect_navigation():
        me.locator("a.change-vote").click()
    expect(me.locator("#replying")).to_contain_text("楼 饺子")
    me.fill("#post-form textarea", "改票对象：烧麦\n改票理由：改主意")
    _post(me, "#post")
    expect(me.locator("#thread .quote")).to_contain_text("投票对象：包子")
    d.goto(god)
    d.fill("#director-post-form textarea", "规则解释：改票请回复自己的投票楼层。")
    _submit(d, "#director-post")
    me.goto(links["饺子"] + "/thread")
    expect(me.locator("#thread .director-post")).to_contain_text("规则解释")
    me.screenshot(path=str(ARTIFACTS / "thread-floors.png"), full_page=True)

    # 投降 asks first: dismissed, nothing is sent
    wolf, pack = page_of("汤圆"), page_of("月饼")
    asked: list[str] = []

    def dismiss(dialog: object) -> None:
        asked.append(dialog.message)  # type: ignore[attr-defined]
        dialog.dismiss()  # type: ignore[attr-defined]

    wolf.once("dialog", dismiss)
    wolf.locator('form.action[data-skill="surrender"] button').click()
    wolf.wait_for_timeout(300)
    assert asked and "投降" in asked[0] and wolf.url == links["汤圆"]
    # the pack chat: a half-typed message survives a live update that shows a new message
    wolf.fill(".group-form textarea", "我先打一半")
    pack.fill(".group-form textarea", "今晚刀谁？")
    _submit(pack, ".group-form button")
    expect(wolf.locator("#chat-wolves")).to_contain_text("今晚刀谁？", timeout=30_000)
    assert wolf.locator(".group-form textarea").input_value() == "我先打一半"
    wolf.screenshot(path=str(ARTIFACTS / "player-wolf.png"), full_page=True)
