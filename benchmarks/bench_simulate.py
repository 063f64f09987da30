"""Benchmark: complete games per second of `banshe simulate`, counted over the whole process.

    .venv/bin/python benchmarks/bench_simulate.py                       # 品茗, random, 1 process
    .venv/bin/python benchmarks/bench_simulate.py --policy heuristic --games 500
    .venv/bin/python benchmarks/bench_simulate.py --profile             # where one process spends its time
    .venv/bin/python benchmarks/bench_simulate.py --python .venv-fast/bin/python   # the compiled build

Runs `python -m banshe simulate` as a child process and times it from start to exit
(interpreter start-up, imports, dealing, playing, aggregating, writing the JSON), then
prints games/s and the child's peak resident memory. `--profile` instead plays in this
process under cProfile and splits the time between the engine calls the simulator makes
(`legal_actions`, `apply_legal`/`apply_in_place`, `new_game`) and the simulator's own work.
A figure to read, not a test: these machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_cli(
    ruleset: str, games: int, policy: str, jobs: int, backend: str, seed: int, python: str = sys.executable
) -> dict[str, float]:
    """Time one `banshe simulate` process; return games/s and peak RSS (MB) of the child(ren)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        cmd = [
            python,
            "-m",
            "banshe",
            "simulate",
            "--ruleset",
            ruleset,
            "--games",
            str(games),
            "--policy",
            policy,
            "--jobs",
            str(jobs),
            "--backend",
            backend,
            "--seed",
            str(seed),
            "--no-progress",
            "--out",
            str(out),
        ]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        data = json.loads(out.read_text(encoding="utf-8"))
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {
        "games": float(data["games"]),
        "wall_s": wall,
        "games_per_s": data["games"] / wall,
        "inner_games_per_s": float(data["run"]["games_per_s"] or 0.0),
        "cpu_s": cpu,
        "games_per_cpu_s": data["games"] / cpu if cpu > 0 else 0.0,
        "peak_rss_mb": peak_mb,
    }


def profile(ruleset: str, games: int, policy: str, seed: int) -> None:
    from banshe.rulesets.registry import find_ruleset
    from banshe.sim.runner import SimConfig, default_player_count, run_task

    rs = find_ruleset(ruleset)
    config = SimConfig(rs.id, games, (default_player_count(rs.id),), policy=policy, seed=seed)
    prof = cProfile.Profile()
    started = time.perf_counter()
    prof.enable()
    run_task((config, config.players[0], 0, games))
    prof.disable()
    wall = time.perf_counter() - started
    stats = pstats.Stats(prof)
    table = stats.stats  # type: ignore[attr-defined]
    total = sum(v[2] for v in table.values())  # total internal time
    parts = {"legal_actions": 0.0, "apply": 0.0, "new_game": 0.0, "Stats.add_game": 0.0}
    for (filename, _line, name), v in table.items():
        cum = v[3]
        if name == "legal_actions" and filename.endswith("actions.py"):
            parts["legal_actions"] += cum
        elif name in ("apply_in_place", "apply_legal") and filename.endswith("core.py"):
            parts["apply"] += cum
        elif name == "new_game" and filename.endswith("core.py"):
            parts["new_game"] += cum
        elif name == "add_game" and filename.endswith("stats.py"):
            parts["Stats.add_game"] += cum
    print(f"profiled {games} games ({policy}) in {wall:.2f}s under cProfile: {games / wall:.1f} games/s")
    for name, t in parts.items():
        print(f"  {name:<16} {t:7.2f}s  {100 * t / total:5.1f}%  (cumulative)")
    own = sum(v[2] for (filename, _l, _n), v in table.items() if "/banshe/sim/" in filename.replace("\\", "/"))
    print(f"  {'sim/ own code':<16} {own:7.2f}s  {100 * own / total:5.1f}%  (internal time of banshe.sim functions)")
    print("top functions by internal time:")
    stats.sort_stats("tottime").print_stats(12)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ruleset", default="品茗")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--policy", default="random")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--backend", default="local")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--python", default=sys.executable, help="whose banshe to time (.venv-fast/bin/python: compiled)")
    args = ap.parse_args(argv)
    if args.profile:
        profile(args.ruleset, args.games, args.policy, args.seed)
        return 0
    r = run_cli(args.ruleset, args.games, args.policy, args.jobs, args.backend, args.seed, args.python)
    games = int(r["games"])
    probe = "import banshe.engine.core as m; print('compiled' if m.__file__.endswith('.so') else 'pure')"
    build = subprocess.run(
        [args.python, "-c", probe],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    print(f"ruleset={args.ruleset} policy={args.policy} games={games} jobs={args.jobs}", end=" ")
    print(f"backend={args.backend} build={build}")
    inner = r["inner_games_per_s"]
    print(f"whole process: {r['wall_s']:.2f}s  {r['games_per_s']:.1f} games/s  (inside simulate: {inner})")
    print(f"CPU time of the process tree: {r['cpu_s']:.2f}s = {r['games_per_cpu_s']:.1f} games per CPU-second")
    print(f"peak RSS of the largest child process: {r['peak_rss_mb']:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
