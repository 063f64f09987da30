"""A director's own board in a real browser, phone size (issue 27): a bad file is refused with its
line, the corrected file uploaded, the board chosen on the new-game form, its game created and
a seat's page opened; axe finds no serious accessibility problem on the form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from banshe.boards import board_text

from .e2e_helpers import (  # noqa: F401 (fixtures, skip mark)
    ARTIFACTS,
    _submit,
    browser,
    director_login,
    player_links,
    pytestmark,
    server,
)

axe_sync = pytest.importorskip("axe_playwright_python.sync_playwright", reason="axe-playwright-python（dev 依赖）")
SEATS = ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛", "壬", "癸", "子", "丑"]


def test_a_board_file_uploaded_from_a_phone_plays(server: str, browser: Any, tmp_path: Path) -> None:  # noqa: F811
    text = (
        board_text("预女猎守")
        .replace("board: 预女猎守", "board: 手机上传的板子", 1)
        .replace("id: yunvlieshou", "id: phone", 1)
    )
    bad = tmp_path / "坏板子.yaml"
    bad.write_text(text.replace("library: 守卫", "library: 骑士团长", 1), encoding="utf-8")
    good = tmp_path / "板子.yaml"
    good.write_text(text, encoding="utf-8")

    d = director_login(browser, server)
    d.set_viewport_size({"width": 390, "height": 844})
    d.goto(f"{server}/d/new")
    d.locator("#board-upload summary").click()
    d.set_input_files("#upload-board input[name=board_file]", str(bad))
    with d.expect_navigation():
        d.locator("#upload").click()
    error = d.locator("#error").inner_text()
    assert "坏板子.yaml" in error and "骑士团长" in error and "行" in error, error

    if not d.locator("#upload").is_visible():  # the form's <details> opens again for a new file
        d.locator("#board-upload summary").click()
    d.set_input_files("#upload-board input[name=board_file]", str(good))
    _submit(d, "#upload")
    assert d.locator("select[name=ruleset] option:checked").inner_text() == "手机上传的板子"
    assert d.locator("#board-file").count() == 1
    violations = axe_sync.Axe().run(d).response["violations"]
    serious = [v["id"] for v in violations if v.get("impact") in ("serious", "critical")]
    assert not serious, serious
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    d.screenshot(path=str(ARTIFACTS / "board-upload-phone.png"), full_page=True)

    d.fill("textarea[name=seats]", "\n".join(SEATS))
    d.fill("input[name=seed]", "3")
    _submit(d, "#create")
    assert "手机上传的板子" in d.locator("body").inner_text()
    links = player_links(d, server)
    assert sorted(links) == sorted(SEATS)
    p = browser.new_context(locale="zh-CN", viewport={"width": 390, "height": 844}).new_page()
    p.goto(links["甲"])
    assert "手机上传的板子" in p.locator("body").inner_text()
