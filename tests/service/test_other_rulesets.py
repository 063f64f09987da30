"""沉寂与取酒 and 感染 run through the same service: create, act, deadlines, pages, 复盘."""

from __future__ import annotations

import pytest

from banshe.demo import DEMO_NAMES

from .conftest import Harness


@pytest.mark.parametrize(("ruleset", "count"), [("沉寂与取酒", 20), ("感染", 12)])
def test_a_game_of_each_ruleset_runs_through_the_pages(harness: Harness, ruleset: str, count: int) -> None:
    h = harness
    h.login()
    names = DEMO_NAMES[:count]
    data = {
        "csrf": h.csrf,
        "ruleset": ruleset,
        "seats": "\n".join(names),
        "seed": "11",
        "title": ruleset,
        "auto_publish": "on",
    }
    r = h.client.post("/d/new", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    game = int(r.headers["location"].rsplit("/", 1)[1])
    links = h.links(game)
    assert set(links) == set(names)
    assert h.client.get(f"/d/g/{game}").status_code == 200
    # every seat sees its own identity and no one else's
    for name, token in links.items():
        view = h.state(token)["view"]
        seats = view["seats"]  # type: ignore[index]
        assert [s["name"] for s in seats if "role" in s] == [name]
    # the director closes phases (deadlines) until the game ends or enough phases have passed
    for _ in range(12):
        view = h.state(next(iter(links.values())))["view"]
        if view["winner"]:  # type: ignore[index]
            break
        code, page = h.director(game, "command", skill="close_phase")
        assert code in (200, 303, 400), page
        code, page = h.director(game, "command", skill="prompt_timeout")
        assert code in (200, 303, 400), page
    view = h.state(links[names[0]])["view"]
    assert view["phase"] != "开局"  # type: ignore[index]
    for token in links.values():
        assert h.client.get(f"/p/{token}").status_code == 200
        assert h.client.get(f"/p/{token}/thread").status_code == 200
