"""No hidden information escapes through the service: deadline labels, versions, SSE (issue 11)."""

from __future__ import annotations

import json
import re
import threading
import time

from fastapi.testclient import TestClient

from banshe.service.app import Settings, create_app

from .conftest import FakeClock, Harness, shanghai


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


VERSION_RE = re.compile(r'data-version="([^"]+)"')


def _version(h: Harness, token: str, page: str = "") -> str:
    m = VERSION_RE.search(h.client.get(f"/p/{token}{page}").text)
    assert m is not None
    return m.group(1)


def _stream_harness(db_url: str, seconds: float) -> Harness:
    clock = FakeClock(shanghai(2026, 12, 1, 10))
    app = create_app(Settings(database_url=db_url, start_scheduler=False, sse_max_seconds=seconds), clock=clock)
    return Harness(TestClient(app), app.state.service, clock, db_url)


def test_hidden_actions_change_nothing_a_villager_receives(db_url: str) -> None:
    h = _stream_harness(db_url, 3.0)
    with h.client:
        h.login()
        game = h.create_pinming()
        links = h.links(game)
        villager, wolf = links["馄饨"], links["汤圆"]
        before = (_version(h, villager), _version(h, villager, "/thread"))
        # 开局: the 混血儿's night-style submission is hidden from the villager
        assert h.act(links["年糕"], "recognize", target="饺子")[0] == 303
        assert (_version(h, villager), _version(h, villager, "/thread")) == before
        h.clock.now = shanghai(2026, 12, 1, 11)
        assert h.service.fire_due() == 1
        day = _version(h, villager)
        assert day != before[0]  # the day began: he sees that
        wolf_version = _version(h, wolf)

        def later() -> None:
            time.sleep(0.3)
            for i in range(5):
                h.service.group_post(game, "汤圆", "wolves", f"狼队第{i}条")
            time.sleep(1.2)
            h.service.post(game, "饺子", "大家好")

        t = threading.Thread(target=later)
        t.start()
        stream = h.client.get(f"/p/{villager}/events").text
        t.join()
        updates = [line for line in stream.splitlines() if line.startswith("data:")]
        assert len(updates) == 2, stream  # his view at the start, then the public post — no wolf message
        assert updates[0] == f"data: {day}"
        assert _version(h, villager) == updates[1][len("data: ") :]
        assert _version(h, wolf) != wolf_version  # the wolves' own pages do change
        # night: the wolves' kill and the seer's check change nothing the villager receives
        assert h.director(game, "command", skill="close_phase")[0] == 303
        night = _version(h, villager)
        assert h.act(wolf, "kill", target="馄饨")[0] == 303
        assert h.act(links["饺子"], "check", target="汤圆")[0] == 303
        h.service.group_post(game, "月饼", "wolves", "好")
        assert _version(h, villager) == night
    h.client.app.state.engine.dispose()  # type: ignore[attr-defined]


def test_a_stream_opened_with_a_link_ends_when_the_link_dies(db_url: str) -> None:
    h = _stream_harness(db_url, 8.0)
    with h.client:
        h.login()
        game = h.create_pinming()
        old = h.links(game)["馄饨"]

        def substitute() -> None:
            time.sleep(0.5)
            h.service.substitute(game, "馄饨")

        t = threading.Thread(target=substitute)
        t.start()
        started = time.monotonic()
        stream = h.client.get(f"/p/{old}/events").text
        t.join()
        assert time.monotonic() - started < 6  # ended by the 替补, not by sse_max_seconds
        assert "event: gone" in stream
        assert h.client.get(f"/p/{old}/events").status_code == 404
    h.client.app.state.engine.dispose()  # type: ignore[attr-defined]
