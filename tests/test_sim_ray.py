"""The Ray backend on a real local Ray instance: identical results to the local backend."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from banshe.cli import main
from banshe.sim.runner import SimConfig, ray_available, simulate

pytestmark = pytest.mark.skipif(
    not ray_available(), reason="ray 未安装（pip install 'banshe[ray]'）：跳过 Ray 后端测试"
)


def _games_only(data: dict[str, Any]) -> dict[str, Any]:
    out = dict(data)
    out.pop("run")
    return out


def test_ray_backend_matches_local(tmp_path: Path) -> None:
    # `banshe simulate --backend ray` starts a local Ray instance (2 CPUs), runs the slices as
    # Ray tasks in worker processes (each with its own hash seed), and shuts the instance down
    out = tmp_path / "ray.json"
    args = ["simulate", "--games", "16", "--policy", "heuristic", "--seed", "12", "--out", str(out)]
    assert main([*args, "--backend", "ray", "--jobs", "2"]) == 0
    remote = json.loads(out.read_text(encoding="utf-8"))
    assert remote["run"]["backend"] == "ray" and remote["games"] == 16
    local = simulate(SimConfig("pinming", 16, (14,), policy="heuristic", seed=12), jobs=1).to_json()
    assert _games_only(remote) == _games_only(local)
