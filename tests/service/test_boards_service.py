"""Boards through the director service as it is: a built-in standard board and a board file
registered from its text (`banshe.boards.register_text`, what an upload will call) are created from
the new-game form by name, then played by deadlines through the pages."""

from __future__ import annotations

import pytest

from banshe import boards
from banshe.demo import DEMO_NAMES
from banshe.rulesets import registry

from ..test_boards import MY_BOARD
from .conftest import Harness


def _play(h: Harness, ruleset: str, count: int) -> None:
    names = DEMO_NAMES[:count]
    data = {"csrf": h.csrf, "ruleset": ruleset, "seats": "\n".join(names), "seed": "7", "title": ruleset}
    data["auto_publish"] = "on"
    r = h.client.post("/d/new", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    game = int(r.headers["location"].rsplit("/", 1)[1])
    links = h.links(game)
    assert set(links) == set(names)
    assert h.client.get(f"/d/g/{game}").status_code == 200
    for name, token in links.items():
        seats = h.state(token)["view"]["seats"]  # type: ignore[index]
        assert [s["name"] for s in seats if "role" in s] == [name]
    for _ in range(10):
        view = h.state(next(iter(links.values())))["view"]
        if view["winner"]:  # type: ignore[index]
            break
        code, page = h.director(game, "command", skill="close_phase")
        assert code in (200, 303, 400), page
        h.settle(game)
    assert h.state(links[names[0]])["view"]["phase"] != "开局"  # type: ignore[index]
    for token in links.values():
        assert h.client.get(f"/p/{token}").status_code == 200


@pytest.mark.parametrize("board", ["预女猎守", "狼王守卫"])
def test_a_standard_board_runs_through_the_service(harness: Harness, board: str) -> None:
    harness.login()
    _play(harness, board, 12)


def test_an_uploaded_board_runs_through_the_service(harness: Harness) -> None:
    text = MY_BOARD.replace("test_guard_board", "service_upload").replace("测试守卫局", "服务上传局")
    boards.register_text(text, "服务上传局.yaml")
    try:
        harness.login()
        _play(harness, "服务上传局", 12)
    finally:
        registry.unregister("service_upload")
        boards._BOARDS.pop("service_upload", None)


def test_a_night_first_board_opens_night_1_after_the_start_through_the_service(harness: Harness) -> None:
    text = MY_BOARD.replace("test_guard_board", "service_night_first").replace("测试守卫局", "服务夜晚开局")
    boards.register_text(text.replace("first: 白天", "first: 夜晚"), "服务夜晚开局.yaml")
    try:
        harness.login()
        names = DEMO_NAMES[:12]
        data = {"csrf": harness.csrf, "ruleset": "服务夜晚开局", "seats": "\n".join(names), "seed": "7"}
        data.update(title="夜晚开局", auto_publish="on")
        r = harness.client.post("/d/new", data=data, follow_redirects=False)
        assert r.status_code == 303, r.text
        game = int(r.headers["location"].rsplit("/", 1)[1])
        token = next(iter(harness.links(game).values()))
        seen = [harness.state(token)["view"]["phase"]]  # type: ignore[index]
        for _ in range(3):
            code, page = harness.director(game, "command", skill="close_phase")
            assert code in (200, 303, 400), page
            harness.settle(game)
            seen.append(harness.state(token)["view"]["phase"])  # type: ignore[index]
        assert seen == ["开局", "第1夜", "第1天", "第2夜"]
    finally:
        registry.unregister("service_night_first")
        boards._BOARDS.pop("service_night_first", None)
