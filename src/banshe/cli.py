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


def _database_url(args: argparse.Namespace) -> str:
    import os

    from .service.app import DEFAULT_DATABASE_URL

    return str(args.database_url or os.environ.get("BANSHE_DATABASE_URL") or DEFAULT_DATABASE_URL)


def _serve(args: argparse.Namespace) -> int:
    import secrets

    import uvicorn
    from sqlalchemy import func, select

    from .service import auth
    from .service.app import Settings, create_app
    from .service.models import Director

    url = _database_url(args)
    app = create_app(Settings(database_url=url))
    sessions = app.state.service.sessions
    with sessions() as s:
        if not s.scalar(select(func.count(Director.id))):
            password = secrets.token_urlsafe(12)
            auth.create_director(s, "admin", password)
            s.commit()
            print(f"已创建导演账号：用户名 admin，密码 {password}（只显示这一次，请妥善保存）", flush=True)
    print(f"banshe 导演服务：http://{args.host}:{args.port}/ （数据库 {url.split('@')[-1]}）", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


def _admin(args: argparse.Namespace) -> int:
    import getpass
    import os

    from .service import auth
    from .service.db import make_engine, migrate, session_factory

    engine = make_engine(_database_url(args))
    migrate(engine)
    password = args.password or os.environ.get("BANSHE_ADMIN_PASSWORD") or ""
    if not password:
        password = getpass.getpass("密码（至少8个字符）：")
    with session_factory(engine)() as s:
        try:
            if args.action == "create":
                auth.create_director(s, args.username, password)
            else:
                auth.set_password(s, args.username, password)
        except ValueError as exc:
            print(f"banshe: {exc}", file=sys.stderr)
            return 2
        s.commit()
    print(("已创建导演账号：" if args.action == "create" else "已修改密码：") + args.username)
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
    sv = sub.add_parser("serve", help="run the director service (web) on SQLite or BANSHE_DATABASE_URL")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=8000)
    sv.add_argument("--database-url", default=None, help="default: BANSHE_DATABASE_URL or sqlite:///banshe.sqlite3")
    sv.add_argument("--log-level", default="info")
    sv.set_defaults(func=_serve)
    ad = sub.add_parser("admin", help="director accounts: create one, or set a password")
    ad.add_argument("action", choices=["create", "password"])
    ad.add_argument("--username", default="admin")
    ad.add_argument("--password", default=None, help="default: BANSHE_ADMIN_PASSWORD or a prompt")
    ad.add_argument("--database-url", default=None)
    ad.set_defaults(func=_admin)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
