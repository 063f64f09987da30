"""What a character is told of its camp, and the night that ends the game (issue 12).

- 品茗 (seed 002 认亲 / 因爱生恨): the 混血儿 and the 病娇 are told the camp they joined once 认亲
  settles; `view(state, viewer)["me"]["camp"]` shows the last camp a character was told, never
  the engine's own (possibly secret) camp.
- 感染: an infected character is told its new kind (游离, no camp).
- A game that ends in a night announces that night's outs with the result.
"""

from __future__ import annotations

import pytest

from banshe.demo import DEMO_NAMES
from banshe.engine.events import ANNOUNCE, OUT, WIN
from banshe.engine.model import NIGHT
from banshe.engine.view import view
from banshe.rulesets.ganran.state import seat as ganran_seat
from banshe.sim.env import play_random_game
from tests.helpers import close, pinming, post


@pytest.mark.parametrize(
    ("target", "halfblood", "yandere"),
    [("九", "狼人阵营", "村民阵营"), ("一", "村民阵营", "狼人阵营"), ("十四", "村民阵营", "狼人阵营")],
)
def test_halfblood_and_yandere_are_told_their_camp(target: str, halfblood: str, yandere: str) -> None:
    state = pinming()
    assert view(state, "十三")["me"]["camp"] is None  # before 认亲 nobody knows
    assert view(state, "十四")["me"]["camp"] is None
    assert view(state, "一")["me"]["camp"] == "村民阵营"
    assert view(state, "九")["me"]["camp"] == "狼人阵营"
    post(state, "十三", "recognize", target)
    close(state)
    assert view(state, "十三")["me"]["camp"] == halfblood
    assert view(state, "十四")["me"]["camp"] == yandere
    told = [e["text"] for e in view(state, "十三")["events"] if e["kind"] == "notice"]
    assert f"认亲结束，你的阵营是{halfblood}。" in told
    # nobody else learns the 混血儿's camp
    assert all("认亲结束" not in e["text"] for e in view(state, "一")["events"])


def _ganran_infected_game() -> tuple[object, str]:
    for seed in range(60):
        state = play_random_game("ganran", DEMO_NAMES[:14], seed)
        infected = [c.name for c in state.chars.values() if ganran_seat(c).infected_by is not None]
        if infected:
            return state, infected[0]
    raise AssertionError("no random 感染 game with an infection")


def test_infected_character_is_told_its_new_kind() -> None:
    state, name = _ganran_infected_game()
    v = view(state, name)  # type: ignore[arg-type]
    notes = [e for e in v["events"] if e["kind"] == "notice" and "游离状态" in e["text"]]
    assert notes, "the infected character was not told its new kind"
    assert notes[0]["data"]["camp"] == "none"


@pytest.mark.parametrize(("ruleset", "players"), [("pinming", 14), ("chenji", 20), ("ganran", 14)])
def test_the_night_that_ends_the_game_is_announced(ruleset: str, players: int) -> None:
    checked = 0
    for seed in range(40):
        state = play_random_game(ruleset, DEMO_NAMES[:players], seed)
        if state.ended_in is None or state.ended_in.kind != NIGHT:
            continue
        label = state.ended_in.label
        outs = [e.data["player"] for e in state.log if e.kind == OUT and e.phase == label]
        posts = [e.text for e in state.log if e.kind == ANNOUNCE and e.phase == label]
        win_at = next(i for i, e in enumerate(state.log) if e.kind == WIN)
        closing = [e.text for e in state.log[:win_at] if e.kind == ANNOUNCE and e.phase == label]
        assert closing, f"seed {seed}: {label} ended the game without a 公示 of its outs"
        for name in outs:
            assert any(name in text and "出局" in text for text in posts), f"seed {seed}: {name}'s out not announced"
        checked += 1
    assert checked, f"no random {ruleset} game ended at night"


@pytest.mark.parametrize(("ruleset", "players"), [("ganran", 14)])
def test_a_camp_change_nobody_is_told_never_shows(ruleset: str, players: int) -> None:
    """The page's camp is what the character was told: in random 感染 games, some characters' camps
    change silently (a lover into 情侣阵营 later, a 长老 turned 特殊, 游离 lifting); their
    `me.camp` keeps the told one and never names the engine's secret camp."""
    from banshe.engine.events import CAMP, NOTICE
    from banshe.rulesets.registry import get_ruleset

    rs = get_ruleset(ruleset)
    secret = 0
    for seed in range(30):
        state = play_random_game(ruleset, DEMO_NAMES[:players], seed)
        state.winner, state.ended_in = None, None  # as during the game (the 复盘 reveals all)
        for name, c in state.chars.items():
            told = [e for e in state.log if e.kind == NOTICE and e.audience.members == (name,) and "camp" in e.data]
            shown = view(state, name)["me"]["camp"]
            if not told:
                assert shown is None
                continue
            last = str(told[-1].data["camp"])
            assert shown == (rs.camp_name(last) if last in rs.camp_names else last)
            changed = [e for e in state.log if e.kind == CAMP and e.data.get("player") == name]
            if changed and rs.camp_name(c.camp) != shown:
                secret += 1
    assert secret, f"no silent camp change in the random {ruleset} games"
