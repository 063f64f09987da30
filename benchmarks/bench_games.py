"""Benchmark: complete random-legal games per second in one process, and peak memory.

    .venv/bin/python benchmarks/bench_games.py --ruleset 品茗 --games 500
    .venv/bin/python benchmarks/bench_games.py --ruleset 沉寂与取酒 --players 20 --games 100

Prints games/s, phases and commands per game, and the peak resident memory. A figure to
read, not a test: these machines are shared and noisy. `--replay` plays the games first
(untimed) and times only `replay` of each (the engine alone, no bots); `--repeat N` times N
runs and prints each.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from banshe.demo import DEMO_NAMES
from banshe.engine.core import replay
from banshe.engine.model import GameState
from banshe.rulesets.registry import find_ruleset
from banshe.sim.env import play_random_game


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ruleset", default="品茗")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--replay", action="store_true", help="time replaying finished games (no bots)")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    rs = find_ruleset(args.ruleset)
    count = args.players or (14 if rs.id == "pinming" else rs.min_players)
    names = DEMO_NAMES[:count]
    played: list[GameState] = []
    if args.replay:
        played = [play_random_game(rs.id, names, args.seed + i) for i in range(args.games)]
    mode = "replay" if args.replay else "bots"
    print(f"ruleset={rs.name} players={count} games={args.games} mode={mode}")
    for _ in range(args.repeat):
        commands = 0
        phases = 0
        started = time.perf_counter()
        if args.replay:
            for game in played:
                state = replay(game)
                commands += len(state.commands)
                phases += state.phase.ordinal
        else:
            for i in range(args.games):
                state = play_random_game(rs.id, names, args.seed + i)
                commands += len(state.commands)
                phases += state.phase.ordinal
        elapsed = time.perf_counter() - started
        print(f"games/s={args.games / elapsed:.1f}  elapsed={elapsed:.2f}s")
    print(f"commands/game={commands / args.games:.1f}  phases/game={phases / args.games:.1f}")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS={peak_mb:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
