"""Benchmark: the simulator against the plain reference loop, side by side (issue 15).

    .venv/bin/python benchmarks/bench_vs_reference.py                  # 品茗 random, pure Python (+ compiled)
    .venv/bin/python benchmarks/bench_vs_reference.py --ruleset all --rounds 5
    .venv/bin/python benchmarks/bench_vs_reference.py --no-compiled

The reference is `../shared/bench/naive_pywolf.py` (12-player 预女猎白, random agents, no I/O):
a straightforward pure-Python werewolf loop. One process alternates the two, round by round
(reference games for `--seconds`, then banshe games for `--seconds`: `play_game` with the
random policy, the games `banshe simulate --policy random` plays), so both see the same load
on a shared machine; it prints each round's games/s and their ratio (banshe / reference), then
the median and the best ratio. Both are timed in CPU seconds of this process
(`time.process_time`), so other processes on a shared machine count less. With `.venv-fast`
present (scripts/setup-fast.sh) the same is measured again in a child process of the
compiled build (the reference then runs on that build's interpreter). Issue 15's targets:
0.10× pure Python, 0.15× compiled (品茗).
A figure to read, not a test: these machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT.parent / "shared" / "bench" / "naive_pywolf.py"
RULESETS = ("pinming", "chenji", "ganran")


def load_reference(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("naive_pywolf", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the reference loop {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def time_reference(ref: ModuleType, seconds: float, seed: int) -> float:
    """Games/s of the reference loop (its own `main` loop, without the printing)."""
    rng = random.Random(seed)
    n = 0
    started = time.process_time()
    while True:
        ref.Game(rng).play()
        n += 1
        if n % 64 == 0 and time.process_time() - started >= seconds:
            break
    return n / (time.process_time() - started)


def time_banshe(ruleset: str, players: int, seconds: float, seed: int, start: int) -> tuple[float, int]:
    """Games/s of `play_game` with the random policy (as `banshe simulate` plays them, with its
    loosened cycle collection); returns the rate and the next game index."""
    from banshe.sim.agents import RandomAgent
    from banshe.sim.env import play_game
    from banshe.sim.runner import game_seed, seat_names

    names = seat_names(players)
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 50_000), *threshold[1:])
    i = start
    started = time.process_time()
    try:
        while True:
            play_game(ruleset, names, game_seed(seed, players, i), RandomAgent)
            i += 1
            if (i - start) % 16 == 0 and time.process_time() - started >= seconds:
                break
    finally:
        gc.set_threshold(*threshold)
    return (i - start) / (time.process_time() - started), i


def measure(rulesets: list[str], rounds: int, seconds: float, seed: int) -> dict[str, list[tuple[float, float]]]:
    """Per ruleset: (reference games/s, banshe games/s) for each round, alternating."""
    from banshe.sim.runner import default_player_count

    ref = load_reference(REFERENCE)
    out: dict[str, list[tuple[float, float]]] = {r: [] for r in rulesets}
    cursor = dict.fromkeys(rulesets, 0)
    time_reference(ref, min(seconds, 0.5), seed)  # warm-up
    for rs in rulesets:
        time_banshe(rs, default_player_count(rs), min(seconds, 0.5), seed + 1, 10**6)
    for _ in range(rounds):
        for rs in rulesets:
            a = time_reference(ref, seconds, seed)
            b, cursor[rs] = time_banshe(rs, default_player_count(rs), seconds, seed, cursor[rs])
            out[rs].append((a, b))
    return out


def report(label: str, results: dict[str, list[tuple[float, float]]]) -> None:
    print(f"\n## {label}")
    print("| 规则 | 参考循环 局/秒 | banshe 局/秒 | 比值（中位数） | 比值（最好） | 各轮比值 |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for rs, pairs in results.items():
        ratios = [b / a for a, b in pairs]
        ref = statistics.median(a for a, _b in pairs)
        ours = statistics.median(b for _a, b in pairs)
        each = " ".join(f"{r:.3f}" for r in ratios)
        print(f"| {rs} | {ref:,.0f} | {ours:,.0f} | {statistics.median(ratios):.3f} | {max(ratios):.3f} | {each} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ruleset", default="pinming", help="pinming | chenji | ganran | all")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0, help="per side per round")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-compiled", action="store_true", help="skip the .venv-fast child")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)  # print JSON only
    args = ap.parse_args()
    rulesets = list(RULESETS) if args.ruleset == "all" else [args.ruleset]
    if args.worker:
        print(json.dumps(measure(rulesets, args.rounds, args.seconds, args.seed)))
        return
    import banshe.engine.core as core

    compiled_here = (core.__file__ or "").endswith(".so")
    print(f"reference: {REFERENCE}; {args.rounds} rounds of {args.seconds:g} s per side; python {sys.executable}")
    report("编译版" if compiled_here else "纯 Python", measure(rulesets, args.rounds, args.seconds, args.seed))
    fast = ROOT / ".venv-fast" / "bin" / "python"
    if compiled_here or args.no_compiled or not fast.exists():
        return
    cmd = [str(fast), str(Path(__file__).resolve()), "--worker", "--ruleset", args.ruleset]
    cmd += ["--rounds", str(args.rounds), "--seconds", str(args.seconds), "--seed", str(args.seed)]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd="/")
    results = {k: [(a, b) for a, b in v] for k, v in json.loads(done.stdout).items()}
    report("编译版（.venv-fast）", results)


if __name__ == "__main__":
    main()
