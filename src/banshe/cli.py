"""The `banshe` command line (also `python -m banshe`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence


def _run_scenario(args: argparse.Namespace) -> int:
    from .scenario import ScenarioError, run_file

    try:
        result = run_file(args.file)
    except ScenarioError as exc:
        print(f"banshe: {exc}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, ensure_ascii=False, indent=None if args.compact else 2)
    sys.stdout.write("\n")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    try:
        text = run_demo(args.ruleset, seed=args.seed, players=args.players)
    except (KeyError, ValueError) as exc:
        print(f"banshe: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


def _review(args: argparse.Namespace) -> int:
    from .scenario import ScenarioError, load, play

    try:
        scenario = load(args.file)
        state, _records = play(scenario)
    except ScenarioError as exc:
        print(f"banshe: {exc}", file=sys.stderr)
        return 2
    lines = scenario.ruleset.review(state, scenario.review)
    if not state.over:
        print("banshe: 对局尚未结束，没有复盘表", file=sys.stderr)
        return 1
    print("\n".join(lines) if lines else f"{scenario.ruleset.name}没有复盘表")
    return 0


def _rulesets(args: argparse.Namespace) -> int:
    from .engine.registry import all_rulesets

    for rs in all_rulesets():
        print(f"{rs.id}\t{rs.name}\t别名：{'、'.join(rs.aliases)}")
        for spec in rs.options.values():
            print(f"  选项 {spec.name}（默认 {spec.default}）：{spec.description}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="banshe", description="版杀自动导演 (automated forum werewolf director)")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run-scenario", help="play a scenario file and print its JSON transcript")
    p.add_argument("file")
    p.add_argument("--compact", action="store_true", help="one-line JSON")
    p.set_defaults(func=_run_scenario)
    d = sub.add_parser("demo", help="deal a game, play it with random legal bots, print the thread and 复盘")
    d.add_argument("--ruleset", default="品茗")
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--players", type=int, default=None)
    d.set_defaults(func=_demo)
    v = sub.add_parser("review", help="play a finished scenario and print the ruleset's 复盘 table (成就与金币)")
    v.add_argument("file")
    v.set_defaults(func=_review)
    r = sub.add_parser("rulesets", help="list the rulesets and their options")
    r.set_defaults(func=_rulesets)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
