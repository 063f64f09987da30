"""No night is skipped, no submission stored twice, one game cannot stop the scheduler (issue 11)."""

from __future__ import annotations

import logging
import re
import threading

import pytest
from sqlalchemy import func, select

from banshe.service.models import CommandRow, Game, GroupMessage, Post, Submission

from .conftest import PINMING_SEATS, Harness, shanghai


def _closes(h: Harness, game: int) -> list[tuple[str, str]]:
    with h.service.sessions() as s:
        rows = s.scalars(
            select(CommandRow).where(CommandRow.game_id == game, CommandRow.skill.in_(["close_phase", "close_stage"]))
        )
        return [(r.phase, r.skill) for r in rows]


def test_two_directors_pressing_close_together_close_one_phase(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    assert h.run_until(shanghai(2026, 12, 1, 11, 10)) == 2  # 第1天 (after 开局's settling window)
    at = h.at(game)
    assert at == "第1天|close"
    results: list[tuple[int, str]] = []
    barrier = threading.Barrier(2)

    def close() -> None:
        barrier.wait()
        results.append(h.director(game, "command", skill="close_phase", at=at))

    threads = [threading.Thread(target=close) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = sorted(code for code, _ in results)
    assert codes == [303, 409], codes
    refused = next(text for code, text in results if code == 409)
    assert "游戏已经进入第1夜" in refused and "未执行" in refused
    assert _closes(h, game) == [("开局", "close_phase"), ("第1天", "close_phase")]
    _game, state = h.service.read(game)
    assert state.phase.label == "第1夜" and state.stage == 0
    # a stale page's 关闭当前夜晚阶段 is refused too, and names where the game is
    code, text = h.director(game, "command", skill="close_stage", at="第1天|close")
    assert code == 409 and "第1夜·" in text


def test_the_scheduler_and_the_director_closing_together_close_one_phase(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    assert h.run_until(shanghai(2026, 12, 1, 11, 10)) == 2
    at = h.at(game)  # the director's page shows 第1天 …
    assert h.run_until(shanghai(2026, 12, 2, 21)) == 1  # … the scheduler closes it first …
    code, text = h.director(game, "command", skill="close_phase", at=at)  # … then the director presses
    assert code == 409 and "未执行" in text
    _game, state = h.service.read(game)
    assert state.phase.label == "第1夜" and state.stage == 0
    # and the other way round: the director closes the night stage, the scheduler's stale deadline
    # for it is dropped (the same position rule), so the next stage is not closed unseen
    assert h.director(game, "command", skill="close_stage")[0] == 303
    h.run_until(shanghai(2026, 12, 2, 22, 10))
    _game, state = h.service.read(game)
    assert [c for c in _closes(h, game) if c[0] == "第1夜"][:1] == [("第1夜", "close_stage")]
    # every director form names its position: a form without one is refused and changes nothing
    before = len(_closes(h, game))
    r = h.client.post(f"/d/g/{game}/command", data={"csrf": h.csrf, "skill": "close_phase"}, follow_redirects=False)
    assert r.status_code == 400 and "缺少阶段标记" in r.text
    assert len(_closes(h, game)) == before
    for path, fields in [
        ("extend", {"minutes": "30"}),
        ("status", {"action": "pause"}),
        ("substitute", {"player": "馄饨"}),
        ("proxy-vote", {"player": "馄饨", "target": "饺子"}),
    ]:
        assert h.director(game, path, at="第1天|close", **fields)[0] == 409, path


def test_one_failing_game_does_not_stop_the_other_games_deadlines(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    h = harness
    h.login()
    broken = h.create_pinming()
    fine = h.create_pinming()
    with h.service.sessions() as s:  # a game stored before schedules were bounded
        game = s.get(Game, broken)
        assert game is not None
        game.schedule = {**game.schedule, "min_day_hours": 1_000_000_000}
        s.commit()
    h.clock.now = shanghai(2026, 12, 1, 11)
    assert h.service.fire_due() == 2  # both games' 开局 close
    h.clock.now = shanghai(2026, 12, 1, 11, 10)
    with caplog.at_level(logging.ERROR, logger="banshe.scheduler"):
        assert h.service.fire_due() == 1  # the fine game's day opens; the broken one's is skipped
    assert f"game {broken}" in caplog.text
    assert h.service.read(fine)[0].public_label == "第1天"
    assert h.service.read(broken)[0].public_label == "开局"
    assert h.service.fire_due() == 0  # skipped for a while, not retried every tick


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("min_day_hours", "1000000000", "讨论日最短时长”应在0到336小时之间"),
        ("start_minutes", "99999999999999999999999", "开局行动时限”必须是整数"),
        ("prompt_minutes_day", "0", "白天回应时限”应在1到1440分钟之间"),
        ("stage_0", "9999", "时限应在0到1440分钟之间"),
        ("timezone", "Asia/" + "x" * 1024, "未知的时区"),
    ],
    ids=["day-hours", "huge-int", "prompt-zero", "stage", "timezone"],
)
def test_schedule_fields_are_bounded_at_creation(harness: Harness, field: str, value: str, reason: str) -> None:
    h = harness
    h.login()
    lines = "\n".join(f"{n} {r}" for n, r in PINMING_SEATS.items())
    r = h.client.post("/d/new", data={"csrf": h.csrf, "ruleset": "pinming", "seats": lines, field: value})
    assert r.status_code == 400 and reason in r.text, r.text[-300:]
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(Game.id))) == 0


IDEM_RE = re.compile(r'name="idem" value="([^"]+)"')


def test_a_resent_submission_is_stored_once_and_gets_the_original_result(harness: Harness) -> None:
    h = harness
    h.login()
    game = h.create_pinming()
    links = h.links(game)
    assert h.run_until(shanghai(2026, 12, 1, 11, 10)) == 2
    token = links["饺子"]
    keys = IDEM_RE.findall(h.client.get(f"/p/{token}/thread").text)
    assert len(keys) == len(set(keys)) >= 3  # one fresh key per rendered form
    vote = {"csrf": h.player_csrf(token), "text": "投票对象：包子\n投票理由：x", "idem": keys[0]}
    first = h.client.post(f"/p/{token}/post", data=vote, follow_redirects=False)
    again = h.client.post(f"/p/{token}/post", data=vote, follow_redirects=False)
    assert first.status_code == again.status_code == 303
    assert first.headers["location"] == again.headers["location"]
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(Post.id)).where(Post.game_id == game)) == 1
        assert s.scalar(select(func.count(CommandRow.id)).where(CommandRow.game_id == game)) == 2
    # a wolf's group message, and a director's close, resent
    wolf = links["汤圆"]
    key = IDEM_RE.findall(h.client.get(f"/p/{wolf}").text)[0]
    msg = {"csrf": h.player_csrf(wolf), "group": "wolves", "text": "今晚刀谁", "idem": key}
    for _ in range(2):
        assert h.client.post(f"/p/{wolf}/group", data=msg, follow_redirects=False).status_code == 303
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(GroupMessage.id)).where(GroupMessage.game_id == game)) == 1
    god = h.client.get(f"/d/g/{game}").text
    key = IDEM_RE.findall(god)[1]  # the 立即关门结算 form
    close = {"csrf": h.csrf, "at": h.at(game), "skill": "close_phase", "idem": key}
    first = h.client.post(f"/d/g/{game}/command", data=close, follow_redirects=False)
    again = h.client.post(f"/d/g/{game}/command", data=close, follow_redirects=False)
    assert first.status_code == again.status_code == 303
    assert first.headers["location"] == again.headers["location"]
    assert _closes(h, game) == [("开局", "close_phase"), ("第1天", "close_phase")]
    # a refused submission stores no key: the same form may be sent again once it can pass
    bad = {"csrf": h.player_csrf(token), "text": "投票对象：无名氏\n投票理由：x", "idem": keys[1]}
    assert h.client.post(f"/p/{token}/post", data=bad, follow_redirects=False).status_code == 400
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(Submission.id)).where(Submission.game_id == game)) == 3
