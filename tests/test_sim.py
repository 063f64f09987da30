"""The balance lab: seeds, determinism across --jobs, interval arithmetic, agents, CLI."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from banshe.cli import main
from banshe.engine.commands import ABSTAIN, VOTE, Command
from banshe.engine.view import view
from banshe.sim.agents import Observation, RandomAgent, load_policy
from banshe.sim.env import GameEnv, play_game
from banshe.sim.runner import (
    SimConfig,
    default_player_count,
    game_seed,
    parse_player_counts,
    seat_names,
    simulate,
)
from banshe.sim.stats import Z95, Stats, wilson_interval

ROOT = Path(__file__).resolve().parent.parent


def _games_only(data: dict[str, Any]) -> dict[str, Any]:
    out = dict(data)
    out.pop("run")
    return out


# -- confidence intervals -------------------------------------------------------------------------
def test_wilson_known_values() -> None:
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.236593, abs=1e-6)
    assert hi == pytest.approx(0.763407, abs=1e-6)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0
    assert hi == pytest.approx(Z95**2 / (10 + Z95**2), abs=1e-12)  # 0.277533
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0
    assert lo == pytest.approx(10 / (10 + Z95**2), abs=1e-12)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


@pytest.mark.parametrize(("k", "n"), [(1, 3), (37, 100), (512, 1000), (99_990, 100_000)])
def test_wilson_bounds_solve_the_score_equation(k: int, n: int) -> None:
    # the Wilson bounds are the p with (k/n - p)^2 = z^2 p (1-p) / n
    lo, hi = wilson_interval(k, n)
    phat = k / n
    assert lo < phat < hi
    for p in (lo, hi):
        assert (phat - p) ** 2 == pytest.approx(Z95**2 * p * (1 - p) / n, rel=1e-9)
    # and, for large n, the interval narrows like 1/sqrt(n)
    if n >= 100:
        lo4, hi4 = wilson_interval(4 * k, 4 * n)
        assert (hi4 - lo4) == pytest.approx((hi - lo) / 2, rel=0.05)


# -- seeds and configuration ----------------------------------------------------------------------
def test_game_seeds_are_fixed_and_distinct() -> None:
    seeds = {game_seed(1, 14, i) for i in range(10_000)}
    assert len(seeds) == 10_000
    assert all(0 <= s < 2**63 for s in seeds)
    assert game_seed(1, 14, 0) == game_seed(1, 14, 0)
    assert game_seed(1, 14, 0) != game_seed(2, 14, 0) != game_seed(1, 15, 0)
    # pinned: a change here silently changes every published figure
    assert game_seed(1, 14, 0) == 0x140E0FB65DAA7E8B
    assert game_seed(7, 20, 123) == 0x2DB343EFC95AB740


def test_parse_player_counts() -> None:
    assert parse_player_counts("14") == (14,)
    assert parse_player_counts("20..23") == (20, 21, 22, 23)
    assert parse_player_counts("20,22，24") == (20, 22, 24)
    for bad in ("", "x", "30..20", "0"):
        with pytest.raises(ValueError):
            parse_player_counts(bad)
    assert default_player_count("品茗") == 14
    with pytest.raises(ValueError):
        SimConfig("pinming", 10, (13,)).check()  # 品茗 deals exactly 14
    with pytest.raises(ValueError):
        SimConfig("pinming", 10, (14,), policy="nonsense").check()


# -- the environment and agents -------------------------------------------------------------------
def test_observation_is_the_seats_own_view() -> None:
    env = GameEnv("pinming", seat_names(14), seed=5)
    agent_rng = random.Random(1)
    got: dict[str, list[Any]] = {seat: [] for seat in env.seats}
    checked_view = False
    for seat in env.agent_iter():
        obs = env.last()
        assert obs.seat == seat and obs.role == env.state.chars[seat].role
        assert obs.legal and all(c.actor == seat for c in obs.legal)
        got[seat].extend(obs.new_events())
        if env.state.phase.number == 2 and not checked_view:
            assert obs.view() == view(env.state, seat)
            checked_view = True
        env.step(RandomAgent(seat, obs.role, obs.ruleset, agent_rng).act(obs))
    assert env.finished and checked_view
    # new_events() delivered, chunk by chunk, exactly the events the view shows that seat
    for seat in env.seats:
        got[seat].extend(env.new_events(seat))
        visible = [e for e in env.state.log if e.audience.includes(seat)]
        assert got[seat] == visible
        assert len(visible) == len(view(env.state, seat)["events"])
        assert any(e.audience.kind != "public" for e in visible)  # its identity notice at least
        assert len(visible) < len(env.state.log)


def test_random_game_is_deterministic_and_finishes() -> None:
    a = play_game("pinming", seat_names(14), 11, RandomAgent)
    b = play_game("pinming", seat_names(14), 11, RandomAgent)
    assert a.finished and a.refused == 0
    assert a.state.commands == b.state.commands
    assert a.state.winner == b.state.winner


class _AbstainVoter:
    """Abstains every vote and does nothing else: an agent written outside banshe."""

    def __init__(self, seat: str, role: str, ruleset: str, rng: random.Random) -> None:
        self.seat = seat

    def act(self, obs: Observation) -> Command | None:
        for c in obs.legal:
            if c.skill == VOTE and c.targets == (ABSTAIN,):
                return c
        return None


def test_interrupt_reports_finished_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}

    class Stopper(RandomAgent):
        def act(self, obs: Observation) -> Command | None:
            calls["n"] += 1
            if calls["n"] > 1500:
                raise KeyboardInterrupt
            return super().act(obs)

    monkeypatch.setitem(sys.modules[__name__].__dict__, "Stopper", Stopper)
    config = SimConfig("pinming", 40, (14,), policy=f"{__name__}:Stopper")
    result = simulate(config, jobs=1, slice_size=5)
    assert result.interrupted
    assert 0 < result.games < 40
    assert result.games % 5 == 0  # whole slices only


# -- determinism across --jobs --------------------------------------------------------------------
def test_same_results_whatever_jobs() -> None:
    config = SimConfig("pinming", 24, (14,), policy="random", seed=3)
    one = simulate(config, jobs=1, slice_size=24).to_json()
    two = simulate(config, jobs=2, slice_size=5).to_json()
    assert _games_only(one) == _games_only(two)
    assert one["games"] == 24
    other = simulate(SimConfig("pinming", 24, (14,), policy="random", seed=4), jobs=1).to_json()
    assert _games_only(other)["by_players"] != _games_only(one)["by_players"]


def test_heuristic_results_do_not_depend_on_hash_seed(tmp_path: Path) -> None:
    # worker processes of another backend have their own PYTHONHASHSEED: set order must not matter
    outs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"h{hash_seed}.json"
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        cmd = [sys.executable, "-m", "banshe", "simulate", "--policy", "heuristic", "--games", "6", "--out", str(out)]
        subprocess.run(cmd, check=True, env=env, capture_output=True, cwd=tmp_path)
        outs.append(_games_only(json.loads(out.read_text(encoding="utf-8"))))
    assert outs[0] == outs[1]


# -- stats ----------------------------------------------------------------------------------------
def test_stats_merge_and_json_round_trip() -> None:
    a, b, both = Stats(), Stats(), Stats()
    for i in range(6):
        env = play_game("pinming", seat_names(14), game_seed(9, 14, i), RandomAgent)
        (a if i % 2 else b).add_game(env.state, env.refused)
        both.add_game(env.state, env.refused)
    a.merge(b)
    assert a.to_json() == both.to_json()
    assert Stats.from_json(json.loads(json.dumps(a.to_json()))).to_json() == a.to_json()
    assert a.games == 6 and sum(a.wins.values()) + a.unfinished == 6
    assert sum(a.seats.values()) == 6 * 14
    assert sum(a.days.values()) == 6


# -- the CLI, external agents, the report ---------------------------------------------------------
def test_cli_external_agent_from_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agent_file = tmp_path / "my_agent.py"
    agent_file.write_text(
        "from banshe.engine.commands import ABSTAIN, VOTE\n"
        "class Abstainer:\n"
        "    def __init__(self, seat, role, ruleset, rng):\n"
        "        self.seat = seat\n"
        "    def act(self, obs):\n"
        "        for c in obs.legal:\n"
        "            if c.skill == VOTE and c.targets == (ABSTAIN,):\n"
        "                return c\n"
        "        return None\n",
        encoding="utf-8",
    )
    out = tmp_path / "r.json"
    policy = f"{agent_file}:Abstainer"
    code = main(["simulate", "--games", "3", "--policy", policy, "--out", str(out), "--max-phases", "12"])
    assert code == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    raw = data["by_players"]["14"]["raw"]
    # nobody kills, checks or votes for anyone: only abstentions, and nobody wins in 12 phases
    assert set(raw["skill_uses"]) <= {"vote", "close_phase", "close_stage", "prompt_timeout"}
    assert raw["skill_uses"]["vote"] > 0
    assert raw["unfinished"] == 3
    assert "品茗" in capsys.readouterr().out


def test_cli_module_policy_equals_builtin(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["simulate", "--games", "4", "--policy", "random", "--out", str(a), "--no-progress"]) == 0
    assert main(["simulate", "--games", "4", "--policy", "banshe.sim.agents:RandomAgent", "--out", str(b)]) == 0
    da, db = _games_only(json.loads(a.read_text("utf-8"))), _games_only(json.loads(b.read_text("utf-8")))
    da.pop("policy"), db.pop("policy")
    assert da == db
    assert load_policy("random") is RandomAgent
    with pytest.raises(ValueError):
        load_policy("no.such.module:Agent")


def test_cli_errors_are_reported(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "2", "--players", "13"]) == 2
    assert main(["simulate", "--ruleset", "不存在", "--games", "2"]) == 2
    assert main(["simulate", "--games", "2", "--policy", "nope"]) == 2
    err = capsys.readouterr().err
    assert "14" in err and "策略" in err


def test_report_holds_tables_and_embedded_charts(tmp_path: Path) -> None:
    import base64
    import re

    report, out = tmp_path / "report.html", tmp_path / "out.json"
    assert main(["simulate", "--games", "8", "--report", str(report), "--out", str(out)]) == 0
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    for cls in ("wins", "endings", "days", "survival", "skills", "effects"):
        assert f'<table class="{cls}">' in page
    assert "村民阵营" in page and "狼人阵营" in page and "预言家" in page
    images = re.findall(r'<img alt="[^"]*" src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 3
    for b64 in images:
        assert base64.b64decode(b64).startswith(b"\x89PNG\r\n\x1a\n")
    assert "http://" not in page and "https://" not in page  # self-contained
    data = json.loads(out.read_text(encoding="utf-8"))
    rates = [r["rate"] for r in data["overall"]["win_rates"]]
    assert math.isclose(sum(rates) + data["overall"]["unfinished"] / 8, 1.0)


def test_interrupted_cli_run_reports_what_finished(tmp_path: Path) -> None:
    import re
    import signal
    import threading
    import time

    out = tmp_path / "partial.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "banshe", "simulate", "--games", "100000", "--jobs", "2", "--out", str(out)]
        + ["--progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        text=True,
        # Ctrl-C as in a terminal's foreground job: a shell starts background jobs (`cmd &`, as
        # a CI runner may start this suite) with SIGINT ignored, and Python keeps it ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stderr is not None
    seen: list[str] = []

    def read() -> None:
        assert proc.stderr is not None
        while chunk := proc.stderr.read(1):
            seen.append(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + 60
    # wait until the progress bar shows finished games, then press Ctrl-C
    while time.monotonic() < deadline and not re.search(r"[1-9][\d,]*/100,000 局", "".join(seen)):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    stdout, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["interrupted"] and 0 < data["games"] < 100000
    assert "已中断" in stdout


def test_pinming_effect_counters_read_the_log() -> None:
    from banshe.engine.commands import CLOSE_PHASE, CLOSE_STAGE, DIRECTOR
    from banshe.engine.core import apply_in_place
    from banshe.rulesets import new_game

    names = seat_names(14)
    deck = ["预言家", "女巫", "猎人", "白痴", *["村民"] * 4, *["狼人"] * 4, "混血儿", "病娇"]
    state = new_game("pinming", names, roles=dict(zip(names, deck, strict=True)), seed=1)

    def do(actor: str, skill: str, *targets: str) -> None:
        apply_in_place(state, Command(actor, skill, tuple(targets)))

    do("13号", "recognize", "1号")
    do(DIRECTOR, CLOSE_PHASE)  # 开局 -> 第1天
    do("5号", "vote", "1号")
    do(DIRECTOR, CLOSE_PHASE)  # 竞岗: 1号 is sheriff -> 第1夜
    do("9号", "kill", "5号")
    do("1号", "check", "9号")
    do(DIRECTOR, CLOSE_STAGE)
    do(DIRECTOR, CLOSE_STAGE)
    do("2号", "antidote", "5号")  # the 女巫 saves the 狼刀 target
    do(DIRECTOR, CLOSE_PHASE)  # -> 第2天, nobody out
    assert state.phase.label == "第2天" and state.is_alive("5号")
    stats = Stats()
    stats.add_game(state)
    effects = {k.replace("\t", "："): v for k, v in stats.effects.items()}
    assert effects["品茗：救药：救下狼刀目标"] == 1
    assert effects["品茗：首任警长：村民阵营"] == 1
    assert effects["反馈：预言：非村民阵营"] == 1
    assert "品茗：狼刀：未被救药" not in effects
    assert not any(k.startswith("出局") for k in effects)
    assert stats.unfinished == 1 and stats.skill_uses["antidote"] == 1


def test_player_count_sweep_and_its_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 品茗 deals exactly 14; let it deal 14–15 (extra 村民) to exercise a sweep like 沉寂与取酒's 20..30
    from banshe.rulesets.pinming import rules

    def deal(count: int, rng: random.Random, options: Mapping[str, Any]) -> list[str]:
        if count < 14:
            raise ValueError("too few")
        return list(rules.STANDARD_DECK) + [rules.VILLAGER] * (count - 14)

    monkeypatch.setattr(rules.PINMING, "dealer", deal)
    report, out = tmp_path / "sweep.html", tmp_path / "sweep.json"
    args = ["simulate", "--players", "14..15", "--games", "5", "--report", str(report), "--out", str(out)]
    assert main(args) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["players"] == [14, 15] and data["games"] == 10
    assert {n: data["by_players"][n]["summary"]["games"] for n in ("14", "15")} == {"14": 5, "15": 5}
    seats = data["by_players"]["15"]["raw"]["seats"]
    assert seats["villager"] == 5 * 5 and data["overall"]["games"] == 10
    page = report.read_text(encoding="utf-8")
    assert '<table class="sweep">' in page and "按玩家人数" in page


def test_progress_bar_shows_games_rate_and_eta() -> None:
    import io

    from banshe.sim.runner import Progress

    stream = io.StringIO()
    bar = Progress(200, True, stream)
    bar.update(50, force=True)
    bar.update(200, force=True)
    bar.close()
    text = stream.getvalue()
    assert "50/200 局" in text and "200/200 局" in text and "局/秒" in text and "剩余" in text
    # Rich draws the bar; the last frame stays on its own line
    last = text.rstrip("\n\x1b[?25h").rsplit("\r", 1)[-1]
    assert "━" in text and "200/200 局" in last and "\n" in text
    quiet = io.StringIO()
    off = Progress(10, False, quiet)
    off.update(5, force=True)
    off.close()
    assert quiet.getvalue() == ""


def test_report_is_written_without_a_cjk_font(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from banshe.sim import report as report_module

    monkeypatch.setattr(report_module, "CJK_FONTS", ["No Such Font For Banshe"])
    result = simulate(SimConfig("pinming", 3, (14,)), jobs=1).to_json()
    result["policy"] = "my<agent>.py:A&B"  # the template escapes what it is given
    page = report_module.render_report(result)
    assert page.count("data:image/png;base64,") == 3
    assert "未找到中文字体" in page and '<table class="wins">' in page
    assert "策略：my&lt;agent&gt;.py:A&amp;B" in page and "<agent>" not in page


class _BrokenSeer(RandomAgent):
    """Raises whenever the 预言家 sits in seat 3: a buggy agent in some games only."""

    def act(self, obs: Observation) -> Command | None:
        if obs.seat == "3号" and obs.role == "seer":
            raise RuntimeError("broken agent")
        return super().act(obs)


def test_a_game_that_raises_is_counted_not_fatal(capsys: pytest.CaptureFixture[str]) -> None:
    config = SimConfig("pinming", 30, (14,), policy=f"{__name__}:_BrokenSeer")
    one = simulate(config, jobs=1, slice_size=7)
    two = simulate(config, jobs=2, slice_size=4)
    assert one.errors > 0 and one.games + one.errors == 30
    data = one.to_json()
    samples = data["by_players"]["14"]["summary"]["error_samples"]
    assert samples and all(s["error"] == "RuntimeError: broken agent" for s in samples)
    assert [s["game"] for s in samples] == sorted(s["game"] for s in samples)
    assert _games_only(data) == _games_only(two.to_json())
    assert main(["simulate", "--games", "10", "--policy", f"{__name__}:_BrokenSeer"]) == 0
    assert "异常" in capsys.readouterr().err


def test_role_policy_overrides_one_identity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mixed.json"
    policy = f"{__name__}:_AbstainVoter"
    args = ["simulate", "--games", "6", "--policy", "heuristic", "--role-policy", f"狼人={policy}", "--out", str(out)]
    assert main(args) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["role_policies"] == {"狼人": policy}
    uses = data["by_players"]["14"]["raw"]["skill_uses"]
    assert "kill" not in uses and "check" in uses  # the wolves only abstain; the 预言家 still checks
    assert "狼人=" in capsys.readouterr().out
    assert main(["simulate", "--games", "2", "--role-policy", "狼=random"]) == 2
