"""Shared pieces of the browser end-to-end tests (headless Debian Chromium driven by Playwright):
the server and browser fixtures, the director's login and new-game form, and `Table`, which
plays every character through his own page (one shared browser page, `goto` each link)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from banshe.engine import Command, GameState, apply_in_place
from banshe.rulesets import new_game

from .conftest import PINMING_SEATS, free_port, start_server

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

try:
    from playwright.sync_api import Browser, Page, expect, sync_playwright
except ImportError:  # pragma: no cover - scripts/test.sh installs it
    sync_playwright = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(
    sync_playwright is None or not os.path.exists(CHROMIUM),
    reason="端到端测试需要 playwright 与 Debian 的 chromium（bash scripts/test.sh 会安装）",
)

__all__ = ["ARTIFACTS", "Browser", "Page", "expect", "pytestmark"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    db = f"sqlite:///{tmp_path / 'e2e.sqlite3'}"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "banshe",
            "admin",
            "create",
            "--username",
            "导演",
            "--password",
            "e2e-password",
            "--database-url",
            db,
        ],
        check=True,
        capture_output=True,
    )
    port = free_port()
    proc = start_server(db, port)
    yield f"http://127.0.0.1:{port}"
    proc.send_signal(signal.SIGTERM)
    proc.wait()


@pytest.fixture
def browser() -> Iterator[Browser]:
    assert sync_playwright is not None
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _submit(page: Page, selector: str) -> None:
    with page.expect_navigation():
        page.locator(selector).click()
    error = page.locator("#error")
    assert error.count() == 0, error.inner_text()


def _post(page: Page, selector: str) -> None:
    """A post or vote from the thread page: by fetch while its live stream is open (static/app.js:
    no new page), else the ordinary form; either way the page then says it was done (#ok) or
    why not (#error, after the form went again the ordinary way)."""
    page.evaluate("() => ['ok', 'error'].forEach((id) => document.getElementById(id)?.remove())")
    page.locator(selector).click()
    expect(page.locator("#ok, #error").first).to_be_visible(timeout=30_000)
    error = page.locator("#error")
    assert error.count() == 0, error.inner_text()


def director_login(browser: Browser, server: str, confirm: bool = True) -> Page:
    """A director's page, logged in (the `server` fixture's account). `confirm`: every
    confirmation the page asks (关门, 判罚, 发布 … name their effect first) is accepted."""
    d = browser.new_context(locale="zh-CN").new_page()
    if confirm:
        d.on("dialog", lambda dialog: dialog.accept())
    d.goto(f"{server}/d")
    d.fill("input[name=username]", "导演")
    d.fill("input[name=password]", "e2e-password")
    _submit(d, "button[type=submit]")
    return d


def create_game(d: Page, ruleset: str, seats: dict[str, str], seed: int, auto_publish: bool = False) -> str:
    """Fill in and submit the new-game form (a hand-entered identity table); the god page's URL."""
    d.goto(d.url.split("/d", 1)[0] + f"/d/new?ruleset={ruleset}")
    d.fill("textarea[name=seats]", "\n".join(f"{n} {r}" for n, r in seats.items()))
    d.fill("input[name=seed]", str(seed))
    if auto_publish:
        d.check("input[name=auto_publish]")
    _submit(d, "#create")
    return d.url


def create_pinming(d: Page, seed: int, auto_publish: bool = False) -> str:
    """The new-game form for 品茗 with the standard 14 seats; the god page's URL."""
    if "/d/new" not in d.url:
        d.goto(d.url.split("/d", 1)[0] + "/d/new?ruleset=品茗")
    d.fill("textarea[name=seats]", "\n".join(f"{n} {r}" for n, r in PINMING_SEATS.items()))
    d.fill("input[name=seed]", str(seed))
    if auto_publish:
        d.check("input[name=auto_publish]")
    _submit(d, "#create")
    return d.url


def end_window(d: Page, god: str) -> None:
    """The settling window after a close, ended now by the director (立即结束结算窗口), once the
    server's scheduler has fired it (a real clock: the window would run its minutes)."""
    d.goto(god)
    if d.locator("#end-window").count() == 0:
        return
    _submit(d, "#end-window")
    for _ in range(150):
        d.goto(god)
        if d.locator("#end-window").count() == 0:
            return
        d.wait_for_timeout(200)
    raise AssertionError("the scheduler never ended the settling window")


def publish_all(d: Page, god: str) -> None:
    """The settling window ends, then every 公示 waiting is published (the dawn's starts the day)."""
    end_window(d, god)
    d.goto(god)
    if d.locator("#publish-dawn").count():
        _submit(d, "#publish-dawn")
    elif d.locator("button.publish").count():
        _submit(d, "button.publish >> nth=-1")
    assert d.locator("button.publish").count() == 0


def player_links(d: Page, server: str) -> dict[str, str]:
    """Every character's private link, as the god page lists them."""
    return {
        a.get_attribute("data-player") or "": server + (a.get_attribute("href") or "")
        for a in d.locator("a.player-link").all()
    }


def replay(ruleset: str, seats: dict[str, str], export: dict[str, Any]) -> GameState:
    """The engine's replay of the commands the service stored (its export)."""
    state = new_game(ruleset, list(seats), dict(seats), {}, export["seed"])
    for entry in export["commands"]:
        if not entry["superseded"]:
            apply_in_place(state, Command.from_json(entry["command"]))
    return state


class Table:
    """A game played through the pages: the director on the god page, every character on his
    own private page (one browser page shared by all: each action first opens that link)."""

    def __init__(self, browser: Browser, server: str, d: Page, god: str) -> None:
        self.d, self.god, self.server = d, god, server
        self.links = player_links(d, server)
        self.page = browser.new_context(locale="zh-CN").new_page()
        self.page.on("dialog", lambda dialog: dialog.accept())  # 行刺, 决战, 拍刀 … ask first

    def open(self, name: str, path: str = "") -> Page:
        self.page.goto(self.links[name] + path)
        return self.page

    def act(
        self,
        name: str,
        skill: str,
        target: str | None = None,
        *,
        targets: list[str] | None = None,
        answer: bool | None = None,
    ) -> Page:
        """Post a skill (or answer a prompt) with the form on his page."""
        page = self.open(name)
        form = f'form.action[data-skill="{skill}"]'
        assert page.locator(form).count() == 1, f"{name}的页面上没有<{skill}>：{page.locator('#actions').inner_text()}"
        if target is not None:
            page.locator(f"{form} select[name=target]").select_option(target)
        if targets is not None:  # one picker per place (爱神之箭's pair, 拍刀's knives)
            pickers = page.locator(f"{form} select[name=targets]")
            assert pickers.count() == len(targets), f"{name}的<{skill}>有{pickers.count()}个目标选择框"
            for i, t in enumerate(targets):
                pickers.nth(i).select_option(t)
        if answer is not None:
            page.locator(f'{form} input[name=answer][value="{"是" if answer else "否"}"]').check()
        _submit(page, f"{form} button")
        return page

    def post(self, name: str, text: str) -> Page:
        page = self.open(name, "/thread")
        page.fill("#post-form textarea", text)
        _post(page, "#post")
        assert page.locator("#post-error").count() == 0, page.locator("#post-error").inner_text()
        return page

    def vote(self, voters: list[str], target: str) -> None:
        for i, name in enumerate(voters):
            self.post(name, f"投票对象：{target}\n投票理由：第{i + 1}票")

    def director(self, button: str) -> None:
        self.d.goto(self.god)
        _submit(self.d, button)

    def publish(self) -> None:
        """The settling window ends (if one runs), then every 公示 waiting is approved (发布到此条 on
        the last one, or the dawn's: the next day begins)."""
        publish_all(self.d, self.god)

    def close_phase(self) -> None:
        self.director("#close-phase")
        self.publish()

    def close_stages(self, count: int) -> None:
        for _ in range(count):
            self.director("#close-stage")

    def thread_text(self, name: str) -> str:
        """The whole thread as `name`'s pages show it, page by page (20 floors a page)."""
        page = self.open(name, "/thread?page=1")
        parts = [page.locator("#thread").inner_text()]
        while page.locator('nav.pager a[rel="next"]').count():
            page.locator('nav.pager a[rel="next"]').first.click()
            page.wait_for_load_state()
            parts.append(page.locator("#thread").inner_text())
        return "\n".join(parts)

    def text(self, name: str, selector: str, path: str = "") -> str:
        return self.open(name, path).locator(selector).inner_text()
