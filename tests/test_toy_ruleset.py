"""A made-up ruleset (tests/toy_ruleset: 玩具村) added as one declaration, without touching the
engine: registered, played by the simulator's bots (random and heuristic), run through
`banshe run-scenario`, and its declared prompt, night stages and settlement steps at work."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from banshe.cli import main
from banshe.engine.commands import DIRECTOR, PROMPT_TIMEOUT, Command, IllegalCommand
from banshe.engine.core import apply_in_place
from banshe.engine.ruleset import Ruleset
from banshe.rulesets import find_ruleset, new_game
from banshe.rulesets.registry import unregister
from banshe.scenario import parse, play, transcript
from banshe.sim.env import play_random_game
from banshe.sim.runner import SimConfig, simulate
from tests.toy_ruleset import GOOD, TOY, WOLVES, register_toy

SCENARIO = Path(__file__).parent / "toy_ruleset" / "scenario.yaml"
SEATS = ["甲", "乙", "丙", "丁", "戊", "己"]


@pytest.fixture(autouse=True)
def toy() -> Iterator[Ruleset]:
    yield register_toy()
    unregister(TOY.id)


def test_registered_from_its_declaration() -> None:
    assert find_ruleset("玩具村") is TOY
    # the engine derived the stage of each skill, the holders and the settlement steps
    assert [sorted(st.skills) for st in TOY.night_stages] == [["kill"], ["save"]]
    assert TOY.stage_of("save") == 1
    assert TOY.skill_holders() == {"kill": {"wolf"}, "save": {"doctor"}, "shoot": {"hunter"}}
    assert sorted(TOY.task_table) == ["night", "vote"]


def test_run_scenario_transcript(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run-scenario", str(SCENARIO)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["winner"] == "好人阵营"
    assert out["ended_in"] == "第2天"
    assert out["outs"] == [
        {"player": "丁", "phase": "第1天", "cause": "投票"},
        {"player": "甲", "phase": "第1天", "cause": "开枪"},  # the declared prompt answer
        {"player": "乙", "phase": "第2天", "cause": "投票"},
    ]
    night = next(p for p in out["phases"] if p["phase"] == "第1夜")
    # the second stage's 救人 came after the first stage closed: the 医生 knew the target
    assert night["private"] == {"丙": [{"skill": "救人", "target": "戊", "result": "戊"}]}
    assert night["announcements"] == ["昨夜平安。"]
    assert night["rejected"] == [{"index": 0, "input": ["丙", "救人", "丙"], "reason": "医生不能救自己"}]


def test_unanswered_prompt_takes_its_declared_default() -> None:
    doc = {
        "ruleset": "toy",
        "players": SEATS,
        "roles": dict(zip(SEATS, ["狼人", "狼人", "医生", "猎人", "村民", "村民"], strict=True)),
        "phases": [{"phase": "第1天", "inputs": [["甲", "投票", "丁"], ["乙", "投票", "丁"]]}],
    }
    state, records = play(parse(doc))
    day = transcript(state, records)["phases"][1]
    assert day["announcements"] == ["丁被投票出局。", "猎人丁没有开枪。"]
    assert [o.player for o in state.outs] == ["丁"]
    assert state.commands[-1] == Command(DIRECTOR, PROMPT_TIMEOUT)


def test_a_prompt_answer_is_refused_by_its_check() -> None:
    state = new_game("toy", SEATS, dict(zip(SEATS, ["狼人", "狼人", "医生", "猎人", "村民", "村民"], strict=True)))
    apply_in_place(state, Command(DIRECTOR, "close_phase"))  # 开局
    for voter in ("甲", "乙"):
        apply_in_place(state, Command(voter, "vote", ("丁",)))
    apply_in_place(state, Command(DIRECTOR, "close_phase"))
    assert state.prompts and state.prompts[0].actor == "丁"
    with pytest.raises(IllegalCommand, match="丙今天没有投票给猎人"):
        apply_in_place(state, Command("丁", "shoot", ("丙",)))
    TOY.check_answer(state, state.prompts[0], Command("丁", "shoot", ("甲",)))  # accepted
    apply_in_place(state, Command("丁", "shoot", ("乙",)))
    assert not state.is_alive("乙") and not state.prompts


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_the_bots_play_it_to_an_end(policy: str) -> None:
    games = 40
    stats = simulate(SimConfig("toy", games=games, players=(6,), policy=policy)).by_players[6]
    assert (stats.games, stats.errors, stats.unfinished) == (games, 0, 0)
    assert sum(stats.wins.values()) == games
    assert set(stats.wins) <= {GOOD, WOLVES}
    assert stats.skill_uses["save"] > 0  # the 医生 acted in the second stage
    # the ruleset's own effect counter ran on every game with a 救人
    saved = sum(v for k, v in stats.effects.items() if k.startswith("玩具村\t救人"))
    assert 0 < saved <= stats.skill_uses["save"]


def test_random_games_end_with_a_declared_win() -> None:
    winners = {play_random_game("toy", SEATS, seed).winner for seed in range(30)}
    assert winners == {GOOD, WOLVES}
