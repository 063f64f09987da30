"""The compiled build (.venv-fast, made by scripts/setup-fast.sh) plays exactly the games the
pure-Python engine plays: same seeds, same aggregates, every ruleset, both policies, and the
same scenario transcripts. Skipped where .venv-fast has not been built (scripts/test.sh builds it)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from banshe.rulesets.registry import all_rulesets
from banshe.scenario import run_file
from banshe.sim.runner import SimConfig, simulate
from tests.conftest import GOLDEN, ROOT

FAST = ROOT / ".venv-fast" / "bin"
pytestmark = pytest.mark.skipif(not (FAST / "banshe").exists(), reason="编译版未构建（bash scripts/setup-fast.sh）")


def _games_only(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "run"}


def test_the_rules_core_is_compiled() -> None:
    names = ["banshe.engine.core", "banshe.engine.view", "banshe.rulesets.pinming.rules", "banshe.sim.env"]
    probe = f"import importlib; print(all(importlib.import_module(n).__file__.endswith('.so') for n in {names!r}))"
    out = subprocess.run([str(FAST / "python"), "-c", probe], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "True"


# the seeds at their pinned sizes, and every other registered board (the standard boards …)
SEEDS = [("pinming", 300), ("chenji", 12), ("ganran", 12)]
BOARDS = SEEDS + [(rs.id, 60) for rs in all_rulesets() if rs.id not in dict(SEEDS)]


@pytest.mark.parametrize(("ruleset", "games"), BOARDS)
@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_compiled_simulation_equals_pure(ruleset: str, games: int, policy: str, tmp_path: Path) -> None:
    out = tmp_path / "fast.json"
    cmd = [str(FAST / "banshe"), "simulate", "--ruleset", ruleset, "--games", str(games)]
    cmd += ["--policy", policy, "--seed", "11", "--no-progress", "--out", str(out)]
    subprocess.run(cmd, check=True, capture_output=True)
    fast = json.loads(out.read_text(encoding="utf-8"))
    players = tuple(fast["players"])
    pure = simulate(SimConfig(ruleset, games, players, policy=policy, seed=11)).to_json()
    assert fast["games"] == games and fast["errors"] == 0
    assert _games_only(fast) == json.loads(json.dumps(_games_only(pure), ensure_ascii=False))


SCENARIOS = sorted(GOLDEN.glob("*/*.yaml"))[::6]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_compiled_scenario_transcript_equals_pure(path: Path) -> None:
    done = subprocess.run([str(FAST / "banshe"), "run-scenario", str(path)], capture_output=True, text=True)
    pure = run_file(path)
    assert json.loads(done.stdout) == json.loads(json.dumps(pure, ensure_ascii=False))


def test_the_compiled_build_plays_an_uncompiled_board_file(tmp_path: Path) -> None:
    """A board is data: a file outside the package, compiled onto the (compiled) library."""
    from tests.test_boards import MY_BOARD

    board = tmp_path / "board.yaml"
    board.write_text(MY_BOARD.replace("test_guard_board", "compiled_probe").replace("测试守卫局", "编译版探针"))
    out = tmp_path / "fast.json"
    cmd = [str(FAST / "banshe"), "simulate", "--ruleset", str(board), "--games", "40", "--seed", "5"]
    cmd += ["--policy", "heuristic", "--option", "狼王局=true", "--no-progress", "--out", str(out)]
    subprocess.run(cmd, check=True, capture_output=True)
    fast = json.loads(out.read_text(encoding="utf-8"))
    pure = simulate(SimConfig(str(board), 40, (12,), policy="heuristic", seed=5, options=(("狼王局", True),)))
    assert fast["games"] == 40 and fast["errors"] == 0
    assert _games_only(fast) == json.loads(json.dumps(_games_only(pure.to_json()), ensure_ascii=False))
