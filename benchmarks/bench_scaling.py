"""Benchmark: how `banshe simulate` scales with --jobs, and the Ray backend. One short script.

    .venv/bin/python benchmarks/bench_scaling.py                      # --jobs 1,2,4,8,16 and ray
    .venv/bin/python benchmarks/bench_scaling.py --jobs 1,2 --no-ray  # what a 2-core machine allows

On a fresh machine: `bash scripts/setup.sh && .venv/bin/pip install -q -e '.[ray]'` first.

It first calibrates one process on a few hundred games, then sizes every run to last about
`--seconds` (10 by default), so the whole script takes well under 4 minutes on a 16-core
machine (about 6 runs × (10 s + start-up) + Ray's own start-up). Each run is a separate
`python -m banshe simulate` process, timed from start to exit (pool or Ray start-up
included). Prints a Markdown table: games/s, speed-up over one process, efficiency per
process, and the peak RSS of the largest process. Figures to read, not a test.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_simulate import run_cli  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ruleset", default="品茗")
    ap.add_argument("--policy", default="random")
    ap.add_argument("--jobs", default="1,2,4,8,16", help="comma-separated process counts")
    ap.add_argument("--seconds", type=float, default=10.0, help="target length of each run")
    ap.add_argument("--calibrate", type=int, default=300, help="games in the one-process calibration run")
    ap.add_argument("--ray-jobs", type=int, default=0, help="CPUs of the local Ray instance (default: largest --jobs)")
    ap.add_argument("--no-ray", action="store_true")
    ap.add_argument("--budget", type=float, default=200.0, help="skip the remaining runs after this many seconds")
    args = ap.parse_args(argv)
    jobs_list = [int(j) for j in args.jobs.split(",") if j.strip()]
    cpus = os.cpu_count() or 1
    started = time.perf_counter()
    print(f"# banshe simulate scaling: ruleset={args.ruleset} policy={args.policy} cpus={cpus}", flush=True)
    calib = run_cli(args.ruleset, args.calibrate, args.policy, 1, "local", 1)
    rate1 = calib["games_per_s"]
    wall = calib["wall_s"]
    print(f"calibration: {args.calibrate} games in {wall:.1f}s = {rate1:.1f} games/s (1 process)", flush=True)
    rows: list[tuple[str, int, dict[str, float]]] = []
    for jobs in jobs_list:
        if time.perf_counter() - started > args.budget:
            print(f"  local --jobs {jobs}: skipped (over the {args.budget:.0f}s budget)", flush=True)
            continue
        games = max(50, int(rate1 * min(jobs, cpus) * args.seconds))
        r = run_cli(args.ruleset, games, args.policy, jobs, "local", 1)
        rows.append((f"local --jobs {jobs}", jobs, r))
        print(f"  local --jobs {jobs}: {games} games, {r['wall_s']:.1f}s, {r['games_per_s']:.1f} games/s", flush=True)
    if not args.no_ray:
        if time.perf_counter() - started > args.budget:
            print(f"  ray: skipped (over the {args.budget:.0f}s budget)", flush=True)
        elif importlib.util.find_spec("ray") is None:
            print("  ray: not installed (pip install 'banshe[ray]'), skipped", flush=True)
        else:
            jobs = args.ray_jobs or max(jobs_list)
            games = max(50, int(rate1 * min(jobs, cpus) * args.seconds))
            r = run_cli(args.ruleset, games, args.policy, jobs, "ray", 1)
            rows.append((f"ray (local instance, {jobs} CPUs)", jobs, r))
            print(f"  ray {jobs} CPUs: {games} games, {r['wall_s']:.1f}s, {r['games_per_s']:.1f} games/s", flush=True)
    base = next((r["games_per_s"] for name, j, r in rows if j == 1 and name.startswith("local")), rate1)
    print()
    print("| run | games | wall s | games/s | speed-up | per process | games/CPU-s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, jobs, r in rows:
        speedup = r["games_per_s"] / base
        # Ray's workers are not this process's children: their CPU time is not counted
        per_cpu = "—" if name.startswith("ray") else f"{r['games_per_cpu_s']:,.0f}"
        print(
            f"| {name} | {int(r['games']):,} | {r['wall_s']:.1f} | {r['games_per_s']:,.0f} | "
            f"{speedup:.2f}× | {100 * speedup / jobs:.0f}% | {per_cpu} |"
        )
    peak = max((r["peak_rss_mb"] for _n, _j, r in rows), default=calib["peak_rss_mb"])
    print(f"\npeak RSS of the largest process: {peak:.0f} MB; whole benchmark {time.perf_counter() - started:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
