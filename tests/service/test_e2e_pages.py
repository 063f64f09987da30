"""Every page kind the service serves, on a phone (390×844) and on a desk (1280×800), in headless
Chromium (issues 12 and 24): the login page, the director's home, the new-game form, the god view,
the director's thread, the 复盘 (the director's and a player's), a player's page at night (with
the pickers and the wolves' chat), the thread, the message page a dead link gets, and the forum
desk. For each page at each size: no horizontal scrolling, every control at least 44 px tall and
wide (links inside a sentence excepted, as WCAG 2.5.8 does), every input's text at least 16 px
(iOS zooms into smaller ones), and no serious or critical axe-core violation. A screenshot of each
goes to test-artifacts/e2e/pages/{kind}-{phone|desk}.png.

The same game also checks the thread on a phone: a player posts and sees his own floor on the
screen without scrolling (the newest page, the post box below the newest floors)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from .e2e_helpers import (  # noqa: F401 (fixtures, skip mark)
    ARTIFACTS,
    Browser,
    Page,
    _post,
    _submit,
    browser,
    create_pinming,
    director_login,
    expect,
    player_links,
    publish_all,
    pytestmark,
    server,
)

axe_sync = pytest.importorskip("axe_playwright_python.sync_playwright", reason="axe-playwright-python（dev 依赖）")

PAGES = ARTIFACTS / "pages"
PHONE = {"width": 390, "height": 844}
DESK = {"width": 1280, "height": 800}
SIZES = {"phone": PHONE, "desk": DESK}
KINDS = (
    "login",
    "director-home",
    "new-game",
    "god-view",
    "god-thread",
    "review",
    "player-review",
    "player",
    "thread",
    "message",
    "forum-desk",
)
PNG = b"\x89PNG\r\n\x1a\n"
TAP = 44  # px, the smallest touch target
MIN_FONT = 16  # px, the smallest input text (iOS zooms into smaller)

# what the page itself measures (run in the page by Playwright, outside its CSP)
MEASURE = """() => {
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none";
  };
  const describe = (el) => {
    const r = el.getBoundingClientRect();
    const text = (el.innerText || el.value || el.getAttribute("aria-label") || "").trim().slice(0, 30);
    const where = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "");
    return `${where} "${text}" ${Math.round(r.width)}x${Math.round(r.height)}`;
  };
  // a link inside running text (a sentence) is exempt, as WCAG 2.5.8 exempts inline targets
  const inline = (el) => {
    if (el.tagName !== "A") return false;
    const parent = el.parentElement;
    if (!parent) return false;
    const own = (el.textContent || "").trim().length;
    return (parent.textContent || "").trim().length > own + 4 && getComputedStyle(el).display === "inline";
  };
  const small = [];
  document.querySelectorAll("a[href], button, select, textarea, summary, input:not([type=hidden])").forEach((el) => {
    let target = el;
    if (el.type === "checkbox" || el.type === "radio") target = el.closest("label") || el;
    if (!visible(target) || inline(el)) return;
    const r = target.getBoundingClientRect();
    if (r.height < 44 - 0.5 || r.width < 44 - 0.5) small.push(describe(target));
  });
  const tiny = [];
  const fields = "input:not([type=hidden]):not([type=checkbox]):not([type=radio]), select, textarea";
  document.querySelectorAll(fields).forEach((el) => {
    if (visible(el) && parseFloat(getComputedStyle(el).fontSize) < 16) tiny.push(describe(el));
  });
  const doc = document.documentElement;
  return {overflow: doc.scrollWidth - window.innerWidth, small: small, tiny: tiny};
}"""


def _check(page: Page, kind: str, size: str, axe: Any, found: dict[str, list[str]]) -> None:
    """Measure the page as it stands, run axe-core on it and save its screenshot."""
    page.wait_for_load_state("domcontentloaded")
    got = page.evaluate(MEASURE)
    problems = []
    if got["overflow"] > 1:
        problems.append(f"横向溢出 {got['overflow']}px")
    problems += [f"触控目标过小：{x}" for x in got["small"]]
    problems += [f"输入框字号小于16px：{x}" for x in got["tiny"]]
    results = axe.run(page)
    for v in results.response["violations"]:
        if v["impact"] in ("serious", "critical"):
            nodes = "；".join(", ".join(n["target"]) for n in v["nodes"][:3])
            problems.append(f"axe {v['id']}（{v['impact']}）：{v['help']} @ {nodes}")
    if problems:
        found[f"{kind}-{size}"] = problems
    page.screenshot(path=str(PAGES / f"{kind}-{size}.png"), full_page=True)


def _at_both_sizes(page: Page, kind: str, axe: Any, found: dict[str, list[str]]) -> None:
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.reload()
        _check(page, kind, size, axe, found)
    page.set_viewport_size(PHONE)


def test_every_page_kind_on_a_phone_and_a_desk(server: str, browser: Browser) -> None:  # noqa: F811
    started = time.monotonic()
    PAGES.mkdir(parents=True, exist_ok=True)
    for old in PAGES.glob("*.png"):
        old.unlink()  # only this run's screenshots count below
    axe = axe_sync.Axe()
    found: dict[str, list[str]] = {}

    def context_page() -> Page:
        page = browser.new_context(locale="zh-CN", viewport=PHONE, has_touch=True).new_page()
        page.on("dialog", lambda dialog: dialog.accept())
        return page

    visitor = context_page()
    visitor.goto(f"{server}/login")
    expect(visitor.locator("input[name=username]")).to_be_visible()
    _at_both_sizes(visitor, "login", axe, found)

    d = director_login(browser, server)
    d.on("dialog", lambda dialog: dialog.accept())
    d.set_viewport_size(PHONE)
    d.goto(f"{server}/d/new?ruleset=品茗")
    expect(d.locator("#player-counts")).to_contain_text("品茗的标准配置为14人")
    _at_both_sizes(d, "new-game", axe, found)
    god = create_pinming(d, 11, auto_publish=False)
    links = player_links(d, server)
    d.goto(f"{server}/d")
    expect(d.locator("main")).to_contain_text("品茗（14人）")
    _at_both_sizes(d, "director-home", axe, found)
    d.goto(god)
    _submit(d, "#close-phase")  # 开局 → 第1天 (after its settling window)
    publish_all(d, god)
    expect(d.locator("#phase")).to_contain_text("第1天")

    # 第1天 on a phone: enough floors for two pages, then a post lands on its own floor
    player = context_page()
    names = list(links)[:6]
    tokens = {}
    for name in names:
        player.goto(links[name])
        tokens[name] = player.locator("meta[name=csrf-token]").get_attribute("content") or ""
    for i in range(24):
        name = names[i % len(names)]
        form = {"csrf": tokens[name], "text": f"第{i + 1}条发言：" + "闲聊" * 20}
        assert player.request.post(links[name] + "/post", form=form, max_redirects=0).status == 303
    player.goto(links["饺子"] + "/thread")
    expect(player.locator("nav.pager").first).to_be_visible()
    player.locator("#vote-form select[name=target]").select_option("汤圆")
    player.fill("#vote-form input[name=reason]", "手机上投票")
    before = int(player.locator("#post-count").inner_text())
    _post(player, "#vote-submit")  # by fetch: the floor comes by the live push, brought into view
    mine = player.locator("#thread article.post").last
    expect(mine).to_contain_text("投票对象：汤圆")
    expect(player.locator("#post-count")).to_have_text(str(before + 1))
    player.wait_for_function(
        "() => { const r = [...document.querySelectorAll('#thread article.post')].pop()"
        ".getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight - 40; }"
    )
    box = mine.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 200) <= PHONE["height"], box
    player.fill("#post-form textarea", "手机发帖：我是预言家")
    _post(player, "#post")
    assert player.locator("#post-form textarea").input_value() == ""  # posted: the box is empty again
    mine = player.locator("#thread article.post").last
    expect(mine).to_contain_text("手机发帖：我是预言家")
    box = mine.bounding_box()
    assert box is not None and 0 <= box["y"] < PHONE["height"] - 40, box
    _at_both_sizes(player, "thread", axe, found)

    # 替补 (its notice waits for review), then the night: the seer's picker, the wolves' chat
    d.goto(god)
    d.locator('tr[data-seat="米糕"] details summary').click()
    d.fill('tr[data-seat="米糕"] input[name=person]', "新来的")
    _submit(d, 'tr[data-seat="米糕"] button.substitute')
    expect(d.locator("#pending")).to_contain_text("米糕更换替补")
    _submit(d, "#close-phase")
    wolf = context_page()
    wolf.goto(links["汤圆"])
    wolf.fill(".group-form textarea", "今晚先刀谁？")
    _submit(wolf, ".group-form button")
    expect(wolf.locator("#chat-wolves")).to_contain_text("今晚先刀谁？")
    _at_both_sizes(wolf, "player", axe, found)
    d.goto(god)
    _at_both_sizes(d, "god-view", axe, found)
    d.goto(god + "/thread")
    _at_both_sizes(d, "god-thread", axe, found)
    d.goto(god + "/forum")
    expect(d.locator("#forum-read")).to_be_visible()
    _at_both_sizes(d, "forum-desk", axe, found)

    visitor.goto(f"{server}/p/no-such-link")
    expect(visitor.locator("main")).to_contain_text("链接无效或已停用")
    _at_both_sizes(visitor, "message", axe, found)

    # the game ends: the 复盘 for the director and for a player
    d.goto(god)
    _submit(d, "form[data-confirm] button.danger")
    d.goto(god + "/review")
    expect(d.locator("#identities")).to_contain_text("复盘")
    _at_both_sizes(d, "review", axe, found)
    player.goto(links["饺子"] + "/review")
    expect(player.locator("#chats")).to_contain_text("今晚先刀谁？")  # the wolves' chat, after the game
    _at_both_sizes(player, "player-review", axe, found)

    for kind in KINDS:
        for size in SIZES:
            path = PAGES / f"{kind}-{size}.png"
            assert path.is_file(), path
            data = path.read_bytes()
            assert data.startswith(PNG) and len(data) > 2_000, path
    assert not found, "\n".join(f"{page}: {p}" for page, problems in found.items() for p in problems)
    print(f"\n每种页面两种尺寸的检查与截图：{time.monotonic() - started:.1f} 秒")
