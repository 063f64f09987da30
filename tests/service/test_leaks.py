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
    # 开局, day 1 and night 1 pass with no actions (each close followed by its settling window)
    assert h.run_until(shanghai(2026, 12, 2, 23, 10)) == 8
    for name in ["饺子", "包子", "锅贴"]:
        assert h.post(links[name], "投票对象：烧麦\n投票理由：像狼")[0] == 303
    assert h.run_until(shanghai(2026, 12, 3, 21)) == 1
    return game, links


def test_a_pending_prompt_is_named_only_to_its_player_and_the_director(harness: Harness) -> None:
    h = harness
    game, links = _hunter_prompted(h)
    window = {
        "label": "第2天结算",
        "due": shanghai(2026, 12, 3, 21, 10),
        "local": "2026-12-03 21:10",
        "skill": "window",
    }
    for name in ["馄饨", "汤圆", "饺子"]:
        token = links[name]
        for path in (f"/p/{token}", f"/p/{token}/thread", f"/p/{token}/state.json"):
            body = h.client.get(path).text
            assert "烧麦的" not in body and "最后一枪" not in body, (name, path)
        state = h.state(token)
        # the settling window: the same label and time whether a prompt is pending or not
        assert state["deadline"] == window
    hunter = h.state(links["烧麦"])
    assert hunter["deadline"]["label"] == "烧麦的<最后一枪>"  # type: ignore[index]
    assert hunter["deadline"]["due"] == window["due"]  # type: ignore[index]
    assert "烧麦的&lt;最后一枪&gt;" in h.client.get(f"/p/{links['烧麦']}").text
    assert "烧麦的&lt;最后一枪&gt;" in h.client.get(f"/d/g/{game}").text
    assert "最后一枪" not in json.dumps(h.state(links["馄饨"]), ensure_ascii=False)


VERSION_RE = re.compile(r'data-version="([^"]+)"')


def _version(h: Harness, token: str, page: str = "") -> str:
    m = VERSION_RE.search(h.client.get(f"/p/{token}{page}").text)
    assert m is not None
    return m.group(1)


class _Any:
    def __eq__(self, other: object) -> bool:
        return True


ANY = _Any()


def _events(stream: str) -> list[tuple[str, str]]:
    """An SSE body's messages: (event, data with its lines joined)."""
    out: list[tuple[str, str]] = []
    for block in stream.split("\n\n"):
        lines = block.split("\n")
        kind = next((x[len("event: ") :] for x in lines if x.startswith("event: ")), "")
        data = "\n".join(x[len("data: ") :] for x in lines if x.startswith("data: "))
        if kind:
            out.append((kind, data))
    return out


def _stream_harness(db_url: str, seconds: float) -> Harness:
    clock = FakeClock(shanghai(2026, 12, 1, 10))
    app = create_app(Settings(database_url=db_url, start_scheduler=False, sse_max_seconds=seconds), clock=clock)
    return Harness(TestClient(app), app.state.service, clock, db_url)


def test_hidden_actions_change_nothing_a_villager_receives(db_url: str) -> None:
    h = _stream_harness(db_url, 10.0)
    with h.client:
        h.login()
        game = h.create_pinming()
        links = h.links(game)
        villager, wolf = links["馄饨"], links["汤圆"]
        before = (_version(h, villager), _version(h, villager, "/thread"))
        # 开局: the 混血儿's night-style submission is hidden from the villager
        assert h.act(links["年糕"], "recognize", target="饺子")[0] == 303
        assert (_version(h, villager), _version(h, villager, "/thread")) == before
        assert h.run_until(shanghai(2026, 12, 1, 11, 10)) == 2  # 开局 closes; its window; day 1
        day = _version(h, villager)
        assert day != before[0]  # the day began: he sees that
        wolf_version = _version(h, wolf)

        def later() -> None:
            feeds = h.client.app.state.live.feeds  # type: ignore[attr-defined]
            while len(feeds.get(game).viewers if game in feeds else ()) < 2:  # both streams are open
                time.sleep(0.05)
            time.sleep(1.0)  # their versions are sent (a busy machine: the streams last 10 s)
            for i in range(5):
                h.service.group_post(game, "汤圆", "wolves", f"狼队第{i}条")
            time.sleep(1.2)
            h.service.post(game, "饺子", "大家好")

        streams: dict[str, str] = {}

        def watch(name: str, token: str) -> None:
            streams[name] = h.client.get(f"/p/{token}/events?v={shown[name]}").text

        shown = {"馄饨": day, "月饼": _version(h, links["月饼"])}  # a wolf who does not write
        watchers = [threading.Thread(target=watch, args=(n, links[n])) for n in shown]
        for w in watchers:
            w.start()
        t = threading.Thread(target=later)
        t.start()
        t.join()
        for w in watchers:
            w.join()
        stream = streams["馄饨"]
        # his version at the start (the page's: no reload), then the public post pushed as a floor —
        # nothing for the wolves' five messages, not even an empty message
        assert _events(stream) == [("version", day), ("post", ANY)], stream
        assert "大家好" in stream and "狼队" not in stream and "reload" not in stream
        post = _events(stream)[1][1]
        assert 'id="floor-' in post and "饺子" in post
        # the wolf's own stream: the pack's five messages (as chat fragments), then the post
        wolf_events = [kind for kind, _ in _events(streams["月饼"])]
        assert wolf_events[0] == "version" and wolf_events[-6:] == ["chat"] * 5 + ["post"], streams["月饼"]
        assert "reload" not in wolf_events
        assert all(f"狼队第{i}条" in streams["月饼"] for i in range(5))
        assert _version(h, wolf) != wolf_version  # the wolves' own pages do change
        # night: the wolves' kill and the seer's check change nothing the villager receives
        assert h.director(game, "command", skill="close_phase")[0] == 303
        h.run_for(600)  # the settling window: then the night opens
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
