"""No hidden information escapes through the service: deadline labels, versions, SSE (issue 11)."""

from __future__ import annotations

import json

from .conftest import Harness, shanghai


def _hunter_prompted(h: Harness) -> tuple[int, dict[str, str]]:
    """A 品茗 game where the day-2 vote sends out the hunter 烧麦: his <最后一枪> is pending."""
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    h.clock.now = shanghai(2026, 12, 1, 11)
    assert h.service.fire_due() == 1
    h.clock.now = shanghai(2026, 12, 2, 21)
    assert h.service.fire_due() == 1
    h.clock.now = shanghai(2026, 12, 2, 22, 30)
    assert h.service.fire_due() == 3
    for name in ["饺子", "包子", "锅贴"]:
        assert h.post(links[name], "投票对象：烧麦\n投票理由：像狼")[0] == 303
    h.clock.now = shanghai(2026, 12, 3, 21)
    assert h.service.fire_due() == 1
    return game, links


def test_a_pending_prompt_is_named_only_to_its_player_and_the_director(harness: Harness) -> None:
    h = harness
    game, links = _hunter_prompted(h)
    for name in ["馄饨", "汤圆", "饺子"]:
        token = links[name]
        for path in (f"/p/{token}", f"/p/{token}/thread", f"/p/{token}/state.json"):
            body = h.client.get(path).text
            assert "烧麦的" not in body and "最后一枪" not in body, (name, path)
        state = h.state(token)
        assert state["deadline"] == {"label": "等待结算", "due": None, "local": "", "skill": ""}
    hunter = h.state(links["烧麦"])
    assert hunter["deadline"]["label"] == "烧麦的<最后一枪>"  # type: ignore[index]
    assert "烧麦的&lt;最后一枪&gt;" in h.client.get(f"/p/{links['烧麦']}").text
    assert "烧麦的&lt;最后一枪&gt;" in h.client.get(f"/d/g/{game}").text
    assert "最后一枪" not in json.dumps(h.state(links["馄饨"]), ensure_ascii=False)
