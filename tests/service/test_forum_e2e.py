"""In a real headless Chromium: a director attaches a saved Discuz! thread to a 品茗 game,
reviews the verdicts, overrides one, applies the votes, and the result matches the engine's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from banshe.engine import Command, apply_in_place
from banshe.rulesets import new_game

from .conftest import PINMING_SEATS
from .e2e_helpers import (  # noqa: F401 (fixtures, skip mark)
    ARTIFACTS,
    _submit,
    browser,
    create_pinming,
    director_login,
    publish_all,
    pytestmark,
    server,
)
from .test_forum_desk import _thread


def test_a_director_counts_a_forum_day_in_the_browser(server: str, browser: Any, tmp_path: Path) -> None:  # noqa: F811
    saved = tmp_path / "第1天讨论帖.html"
    saved.write_bytes(_thread())
    d = director_login(browser, server)
    god = create_pinming(d, 5)
    _submit(d, "#close-phase")  # 开局 → 第1天
    publish_all(d, god)  # after its settling window, the dawn 公示 (the day begins)

    _submit(d, "#forum-desk")
    d.set_input_files("#forum-read input[name=pages]", str(saved))
    _submit(d, "#read-thread")
    assert "没有“汤园”这名角色" in d.locator("#floor-8").inner_text()
    assert "编辑" in d.locator("#floor-9").inner_text()
    assert "有效 → 饺子" in d.locator("#floor-2").inner_text()

    d.fill("#forum-override input[name=floor]", "8")
    d.select_option("#forum-override select[name=verdict]", "accept")
    d.select_option("#forum-override select[name=target]", "汤圆")  # a picker, not a typed name
    d.fill("#forum-override input[name=note]", "错字，导演认定投汤圆")
    _submit(d, "#forum-override button")
    assert "有效 → 汤圆" in d.locator("#floor-8").inner_text()
    assert "8楼：馄饨 投票 汤圆" in d.locator("#forum-inputs").inner_text()
    _submit(d, "#forum-apply button")
    assert "已录入7张票" in d.locator("#ok").inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    d.screenshot(path=str(ARTIFACTS / "forum-desk.png"), full_page=True)

    d.goto(god)
    _submit(d, "#close-phase")
    export: dict[str, Any] = d.request.get(god + "/export.json").json()
    state = new_game("品茗", list(PINMING_SEATS), dict(PINMING_SEATS), {}, export["seed"])
    for entry in export["commands"]:
        if not entry["superseded"]:
            apply_in_place(state, Command.from_json(entry["command"]))
    assert state.sheriff == "汤圆"  # 饺子 3, 汤圆 4 with the director's override
    assert [e["source"] for e in export["commands"]].count("forum") == 7
