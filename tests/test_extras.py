"""`pip install banshe` is the pure engine and the CLI: nothing of the extras (service, postgres,
report) is imported by the engine, the rulesets, the scenario runner or the simulator, and a
subcommand that needs a missing extra says which one, in Chinese, before doing anything.

Each check runs in a fresh interpreter whose sitecustomize (via PYTHONPATH) blocks the extras'
packages on `sys.meta_path`, as if they were not installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "tests" / "scenarios" / "pinming" / "09_sheriff_vote_counts_1_5.yaml"
EXTRA_PACKAGES = ["fastapi", "starlette", "uvicorn", "sqlalchemy", "alembic", "jinja2", "multipart", "python_multipart"]
EXTRA_PACKAGES += ["argon2", "psycopg", "matplotlib", "ray"]

BLOCKER = """
import sys

BLOCKED = set({blocked!r})


class _Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)", name=name)
        return None


sys.meta_path.insert(0, _Blocker())
"""


def _run(tmp_path: Path, blocked: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCKER.format(blocked=sorted(blocked)), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(site))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=tmp_path)


PURE = f"""
import sys
try:
    import fastapi  # noqa: F401
except ImportError:
    pass
else:
    raise SystemExit("the blocker does not block")

import banshe.engine, banshe.rulesets, banshe.scenario
from banshe.engine.core import apply_in_place, new_game
from banshe.scenario import run_file
from banshe.sim.runner import SimConfig, simulate

result = run_file({str(SCENARIO)!r})
assert result["outs"] == [{{"player": "九", "phase": "第2天", "cause": "投票"}}], result["outs"]
sim = simulate(SimConfig("ganran", 2, (10,), policy="heuristic"), jobs=1)
assert sim.games + sim.errors == 2 and not sim.errors

from banshe.cli import main
assert main(["run-scenario", "--compact", {str(SCENARIO)!r}]) == 0
assert main(["simulate", "--games", "2", "--no-progress", "--out", "out.json"]) == 0
assert main(["rulesets"]) == 0
loaded = sorted(m for m in sys.modules if m.partition(".")[0] in {EXTRA_PACKAGES!r})
assert not loaded, loaded
print("PURE OK")
"""


def test_engine_rulesets_scenarios_and_simulator_need_no_extra(tmp_path: Path) -> None:
    run = _run(tmp_path, EXTRA_PACKAGES, "-c", PURE)
    assert run.returncode == 0, run.stderr
    assert "PURE OK" in run.stdout
    assert (tmp_path / "out.json").exists()


@pytest.mark.parametrize(
    ("blocked", "args", "extra"),
    [
        (["fastapi"], ["serve", "--database-url", "sqlite:///x.sqlite3"], "service"),
        (
            ["sqlalchemy"],
            ["admin", "create", "--password", "long enough", "--database-url", "sqlite:///x.sqlite3"],
            "service",
        ),
        (["psycopg"], ["serve", "--database-url", "postgresql://nobody@127.0.0.1:1/none"], "postgres"),
        (["matplotlib"], ["simulate", "--games", "2", "--report", "r.html", "--out", "r.json"], "report"),
        (["jinja2"], ["simulate", "--games", "2", "--report", "r.html", "--out", "r.json"], "report"),
    ],
)
def test_a_subcommand_names_its_missing_extra(tmp_path: Path, blocked: list[str], args: list[str], extra: str) -> None:
    if extra == "postgres":  # the service extra is checked first (.venv-fast has only banshe[report])
        for module in ("fastapi", "uvicorn", "sqlalchemy", "alembic", "jinja2", "python_multipart", "argon2"):
            pytest.importorskip(module, reason="needs banshe[service] installed")
    run = _run(tmp_path, blocked, "-m", "banshe", *args)
    assert run.returncode == 2, (run.stdout, run.stderr)
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("banshe: ") and f"需要安装 banshe[{extra}]" in lines[0], run.stderr
    assert f"pip install 'banshe[{extra}]'" in lines[0]
    assert run.stdout == ""
    # it stopped before doing anything: no database, no games, no files
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
