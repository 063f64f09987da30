"""The `banshe` command line (also `python -m banshe`).

Program output goes to stdout (JSON with `json`, tables with Rich); diagnostics go to the
`banshe` logger, which `main` shows on stderr as `banshe: …` lines in Chinese. Packages of an
extra (`banshe[service]`, `banshe[report]`, `banshe[postgres]`) are imported only by the
subcommand that needs them, after `_need` has checked that they are installed.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

log = logging.getLogger("banshe")

# the import names each extra of pyproject.toml provides (what `_need` checks)
EXTRAS: dict[str, tuple[str, ...]] = {
    "service": ("fastapi", "uvicorn", "sqlalchemy", "alembic", "jinja2", "python_multipart", "argon2", "icu"),
    "postgres": ("psycopg",),
    "report": ("matplotlib", "jinja2"),
}


class MissingExtra(Exception):
    """A subcommand needs an optional extra that is not installed."""


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _need(extra: str, what: str) -> None:
    """Raise MissingExtra (Chinese) unless every package of `extra` can be imported."""
    missing = [m for m in EXTRAS[extra] if not _installed(m)]
    if missing:
        raise MissingExtra(
            f"{what}需要安装 banshe[{extra}]（缺少 {'、'.join(missing)}）：pip install 'banshe[{extra}]'"
            "，或运行 bash scripts/setup.sh 安装全部依赖"
        )


class _StderrHandler(logging.Handler):
    """Writes to whatever `sys.stderr` is at the time (pytest's capture replaces it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


class _Formatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.exc_info and record.levelno >= logging.ERROR:
            text += "\n" + self.formatException(record.exc_info)
        prefix = "banshe: 警告：" if record.levelno == logging.WARNING else "banshe: "
        return prefix + text


def setup_logging() -> None:
    """Show the `banshe` logger's warnings and errors on stderr (once per process)."""
    if not any(isinstance(h, _StderrHandler) for h in log.handlers):
        handler = _StderrHandler()
        handler.setFormatter(_Formatter())
        log.addHandler(handler)
    if log.level == logging.NOTSET:
        log.setLevel(logging.INFO)


def _console() -> Console:
    from rich.console import Console

    # stdout as it is now (tests capture it); no markup or highlighting of names like [狼人]
    return Console(file=sys.stdout, highlight=False, markup=False, emoji=False)


def _run_scenario(args: argparse.Namespace) -> int:
    from .scenario import ScenarioError, run_file

    try:
        result = run_file(args.file)
    except ScenarioError as exc:
        log.error("%s", exc)
        return 2
    json.dump(result, sys.stdout, ensure_ascii=False, indent=None if args.compact else 2)
    sys.stdout.write("\n")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    try:
        text = run_demo(args.ruleset, seed=args.seed, players=args.players)
    except (KeyError, ValueError) as exc:
        log.error("%s", exc)
        return 2
    sys.stdout.write(text)
    return 0


def _review(args: argparse.Namespace) -> int:
    from .scenario import ScenarioError, load, play

    try:
        scenario = load(args.file)
        state, _records = play(scenario)
    except ScenarioError as exc:
        log.error("%s", exc)
        return 2
    lines = scenario.ruleset.review(state, scenario.review)
    if not state.over:
        log.error("对局尚未结束，没有复盘表")
        return 1
    # the ruleset formats its own 复盘 lines (`Ruleset.review`); they are printed as they are
    print("\n".join(lines) if lines else f"{scenario.ruleset.name}没有复盘表")
    return 0


def _forum_error(exc: Exception) -> int:
    """One line on stderr, exit 2 (a fetch failure adds its cause: this is the user's own machine)."""
    from .forum.fetch import FetchError

    text = f"{exc}（{exc.detail}）" if isinstance(exc, FetchError) else str(exc)
    print(f"banshe: {text}".replace("\n", " "), file=sys.stderr)
    return 2


def _forum_password(name: str) -> str:
    """BANSHE_FORUM_PASSWORD, or asked on a terminal (never an argument: it would show in `ps`)."""
    import getpass

    from .forum.discuz import ForumError

    password = os.environ.get("BANSHE_FORUM_PASSWORD")
    if password:
        return password
    if sys.stdin.isatty():
        password = getpass.getpass(f"论坛账号“{name}”的密码：")
        if password:
            return password
    raise ForumError(f"需要论坛账号“{name}”的密码：请设置环境变量 BANSHE_FORUM_PASSWORD（或在终端中运行）")


def _forum_count(args: argparse.Namespace) -> int:
    from .forum.count import CountError, Options, count, load_game, parse_close
    from .forum.discuz import ForumError, read_thread
    from .forum.remote import ForumSession
    from .service.schedule import zone

    try:
        zone(args.tz)
        options = Options(
            day=args.day,
            close=parse_close(args.close) if args.close else None,
            director=args.director,
            accelerated=args.accelerated,
        )
        game = load_game(args.game)
        if args.login:
            urls = [t for t in args.thread if t.startswith(("http://", "https://"))]
            if not urls:
                raise ForumError("--login 只用于帖子地址（保存的页面按原样读取）")
            password = _forum_password(args.login)
            with ForumSession.command_line() as session:
                session.login(urls[0], args.login, password)
                thread = read_thread(args.thread, session.read_thread)
        else:
            thread = read_thread(args.thread)
        result = count(game, thread, options)
    except (CountError, ForumError, ValueError) as exc:
        return _forum_error(exc)
    if args.table:
        from .forum.table import print_table

        print_table(result)
        return 0
    json.dump(result, sys.stdout, ensure_ascii=False, indent=None if args.compact else 2)
    sys.stdout.write("\n")
    return 0


def _forum_post(args: argparse.Namespace) -> int:
    from .forum.discuz import ForumError
    from .forum.remote import ForumSession

    try:
        if not args.thread_url.startswith(("http://", "https://")):
            raise ForumError(f"THREAD_URL 应是 http(s):// 帖子地址：{args.thread_url}")
        if args.file is not None:
            try:
                text = Path(args.file).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ForumError(f"{args.file}：无法读取（{exc}）") from None
        else:
            text = args.text
        password = _forum_password(args.login)
        with ForumSession.command_line() as session:
            session.login(args.thread_url, args.login, password)
            reply = session.reply(args.thread_url, text)
    except ForumError as exc:
        return _forum_error(exc)
    json.dump(reply.to_json(), sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def _rulesets(args: argparse.Namespace) -> int:
    from rich.table import Table

    from .rulesets.registry import all_rulesets

    table = Table(title="规则与选项", show_lines=True)
    table.add_column("规则", no_wrap=True)
    table.add_column("别名", overflow="fold")
    table.add_column("人数", no_wrap=True, justify="right")
    table.add_column("选项", no_wrap=True)
    table.add_column("默认", no_wrap=True)
    table.add_column("含义", overflow="fold", ratio=1)
    for rs in all_rulesets():
        head = (f"{rs.id}\n{rs.name}", "、".join(rs.aliases), f"{rs.min_players}–{rs.max_players}")
        specs = list(rs.options.values())
        if not specs:
            table.add_row(*head, "—", "", "")
        for i, o in enumerate(specs):
            table.add_row(*(head if i == 0 else ("", "", "")), o.name, str(o.default), o.description)
    _console().print(table)
    return 0


def _boards(args: argparse.Namespace) -> int:
    """`banshe boards` (list), `banshe boards show NAME`, `banshe boards check FILE`, `banshe boards roles`."""
    from .boards import BoardError, board_text, list_boards, load_file

    if args.action == "show":
        if not args.name:
            log.error("banshe boards show 需要板子的名字（banshe boards 列出全部）")
            return 2
        try:
            sys.stdout.write(board_text(args.name))
        except KeyError:
            log.error("没有名为“%s”的板子（banshe boards 列出全部）", args.name)
            return 2
        return 0
    if args.action == "roles":
        from rich.table import Table

        from .library import LIBRARY

        library = Table(title="角色库（板子 roles 中的 library）", show_lines=True)
        library.add_column("角色", no_wrap=True)
        library.add_column("技能", overflow="fold")
        library.add_column("参数（缺省）", overflow="fold", ratio=1)
        for lib in LIBRARY.values():
            skills = "、".join(f"{s.name}（{s.intent}）" if s.intent else s.name for s in lib.skills) or "—"
            params = "\n".join(f"{k}：{p.description}（{_default(p.default)}）" for k, p in lib.params.items()) or "—"
            library.add_row(f"{lib.name}\n{lib.id}", skills, params)
        _console().print(library)
        return 0
    if args.action == "check":
        if not args.name:
            log.error("banshe boards check 需要板子文件的路径")
            return 2
        try:
            rs = load_file(args.name)
        except BoardError as exc:
            log.error("%s", exc)
            return 2
        roles = "、".join(rs.role_names.values())
        sys.stdout.write(f"{args.name}：板子“{rs.name}”（{rs.id}）没有问题。身份：{roles}。\n")
        return 0
    from rich.table import Table

    table = Table(title="板子", show_lines=True)
    # every column folds (a board loaded from a long path must not squeeze the names out)
    table.add_column("板子", overflow="fold", min_width=10)
    table.add_column("别名", overflow="fold", min_width=8)
    table.add_column("配置", overflow="fold", ratio=1, min_width=12)
    table.add_column("来源", overflow="fold", max_width=24)
    for info in list_boards():
        rs = info.ruleset
        counts: dict[str, int] = {}
        for r in rs.deck:
            counts[r] = counts.get(r, 0) + 1
        deck = "、".join(rs.role_name(r) + (f"×{n}" if n > 1 else "") for r, n in counts.items())
        deck = f"{len(rs.deck)}人：{deck}" if rs.deck else "按人数发身份"
        table.add_row(f"{rs.id}\n{rs.name}", "、".join(rs.aliases), deck, info.source)
    _console().print(table)
    return 0


def _default(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


def _database_url(args: argparse.Namespace, what: str) -> str:
    """The database URL, after checking the extras it needs (service; postgres for PostgreSQL)."""
    import os

    _need("service", what)
    from .service.app import DEFAULT_DATABASE_URL

    url = str(args.database_url or os.environ.get("BANSHE_DATABASE_URL") or DEFAULT_DATABASE_URL)
    if url.startswith(("postgresql", "postgres:")):
        _need("postgres", "PostgreSQL 数据库")
    return url


def _serve(args: argparse.Namespace) -> int:
    import secrets

    url = _database_url(args, "banshe serve（导演服务）")
    if args.workers < 1:
        log.error("--workers 至少为 1")
        return 2
    if args.workers > 1 and not url.startswith(("postgresql", "postgres:")):
        # SQLite has one writer and the live pages' notifications stay in one process
        log.error("SQLite 只能用一个进程：--workers 大于 1 需要 PostgreSQL（--database-url postgresql://…）")
        return 2

    import os

    from sqlalchemy import func, select

    from .service import auth, serving
    from .service.app import Settings, create_app
    from .service.models import Director

    app = create_app(Settings(database_url=url))
    sessions = app.state.service.sessions
    with sessions() as s:
        if not s.scalar(select(func.count(Director.id))):
            password = secrets.token_urlsafe(12)
            auth.create_director(s, "admin", password)
            s.commit()
            print(f"已创建导演账号：用户名 admin，密码 {password}（只显示这一次，请妥善保存）", flush=True)
    print(f"banshe 导演服务：http://{args.host}:{args.port}/ （数据库 {url.split('@')[-1]}）", flush=True)
    if args.workers == 1:
        # the guarded protocol: header/body timeouts, connections per client (service/serving.py)
        serving.run(app, args.host, args.port, args.log_level)
        return 0
    # several processes on one PostgreSQL database: each builds its own app from the environment;
    # the games' order is kept by the database (pgsync.py), their live pages by LISTEN/NOTIFY
    app.state.engine.dispose()
    os.environ["BANSHE_DATABASE_URL"] = url
    print(f"{args.workers} 个进程", flush=True)
    serving.run("banshe.service.app:create_app", args.host, args.port, args.log_level, args.workers, factory=True)
    return 0


def _admin(args: argparse.Namespace) -> int:
    import getpass
    import os

    url = _database_url(args, "banshe admin（导演账号）")
    from .service import auth
    from .service.db import make_engine, migrate, session_factory

    engine = make_engine(url)
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
            log.error("%s", exc)
            return 2
        s.commit()
    print(("已创建导演账号：" if args.action == "create" else "已修改密码：") + args.username)
    return 0


def _parse_option(text: str) -> tuple[str, object]:
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise ValueError(f"选项格式应为 名称=值：{text}")
    value: object = raw
    if raw.lower() in ("true", "是", "yes"):
        value = True
    elif raw.lower() in ("false", "否", "no"):
        value = False
    else:
        with contextlib.suppress(ValueError):
            value = int(raw)
    return key, value


def _simulate(args: argparse.Namespace) -> int:
    from .rulesets.registry import find_ruleset
    from .sim.runner import SimConfig, default_player_count, parse_player_counts, simulate

    try:
        if args.report:  # before any game is played
            _need("report", "--report（HTML 报告）")
        rs = find_ruleset(args.ruleset)
        counts = parse_player_counts(args.players) if args.players else (default_player_count(rs.id),)
        options = tuple(_parse_option(o) for o in args.option)
        role_policies = []
        for item in args.role_policy:
            role_name, sep, spec = item.partition("=")
            role = rs.role_id(role_name.strip())
            if not sep or role is None or not spec:
                roles = "、".join(rs.role_names.values())
                raise ValueError(f"--role-policy 格式应为 身份=策略（{rs.name}的身份：{roles}）")
            role_policies.append((role, spec.strip()))
        # a board file by its path: the workers compile it again (its id may be known only here)
        named = str(Path(args.ruleset).resolve()) if Path(args.ruleset).is_file() else rs.id
        config = SimConfig(
            ruleset=named,
            games=args.games,
            players=counts,
            policy=args.policy,
            seed=args.seed,
            options=options,
            max_phases=args.max_phases,
            role_policies=tuple(role_policies),
        )
        if args.jobs is not None and args.jobs < 1:
            raise ValueError("--jobs 至少为 1")
        jobs = args.jobs if args.jobs is not None else (1 if args.backend == "local" else 0)
        progress = sys.stderr.isatty() if args.progress is None else args.progress
        result = simulate(config, jobs=jobs, backend=args.backend, address=args.address, progress=progress)
    except KeyError as exc:
        log.error("未知的规则 %s", exc)
        return 2
    except (ValueError, RuntimeError) as exc:
        log.error("%s", exc)
        return 2
    data = result.to_json()
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=1)
            fh.write("\n")
    if args.report:
        from .sim.report import write_report

        write_report(data, args.report)
    _print_summary(data)
    if result.errors:
        samples = [s for entry in data["by_players"].values() for s in entry["summary"]["error_samples"]]
        lines = [f"{result.errors} 局因异常中止（未计入统计），例如："]
        lines += [f"  {s['players']}人 第{s['game']}局（--seed {config.seed}）：{s['error']}" for s in samples[:5]]
        log.warning("%s", "\n".join(lines))
    return 130 if result.interrupted else 0


def _summary_title(data: dict[str, Any]) -> str:
    run = data["run"]
    role_policies = data.get("role_policies") or {}
    return (
        f"【{data['ruleset_name']}】策略 {data['policy']}"
        + "".join(f"，{role}={spec}" for role, spec in role_policies.items())
        + f"，完成 {data['games']:,} 局"
        + ("（已中断）" if data["interrupted"] else "")
        + f"，用时 {run['elapsed_s']} 秒，{run['games_per_s']} 局/秒（{run['backend']}，{run['jobs']} 进程）"
    )


def _print_summary(data: dict[str, Any]) -> None:
    """The run in one line, then a table: per player count, each camp's win rate (95% CI)."""
    from rich import box
    from rich.table import Table

    console = _console()
    console.print(_summary_title(data), soft_wrap=True)
    rows = [(n, entry["summary"]) for n, entry in data["by_players"].items() if entry["summary"]["games"]]
    if not rows:
        return
    table = Table(title="胜率 %（下行：95% 置信区间）", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    table.add_column("人数", justify="right", no_wrap=True)
    table.add_column("对局", justify="right", no_wrap=True)
    for r in rows[0][1]["win_rates"]:
        table.add_column(r["name"], justify="right", overflow="fold")
    table.add_column("平均天数", justify="right", overflow="fold")
    for n, s in rows:
        rates = [f"{100 * r['rate']:.1f}\n{100 * r['ci95'][0]:.1f}–{100 * r['ci95'][1]:.1f}" for r in s["win_rates"]]
        table.add_row(f"{n}人", f"{s['games']:,}", *rates, f"{s['days']['mean']:.2f}")
    console.print(table)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="banshe", description="版杀自动导演 (automated forum werewolf director)")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run-scenario", help="play a scenario file and print its JSON transcript")
    p.add_argument("file")
    p.add_argument("--compact", action="store_true", help="one-line JSON")
    p.set_defaults(func=_run_scenario)
    d = sub.add_parser("demo", help="deal a game, play it with the sparing random policy, print the thread and 复盘")
    d.add_argument("--ruleset", default="品茗", help="规则或板子：id、中文名、别名，或板子文件的路径")
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--players", type=int, default=None)
    d.set_defaults(func=_demo)
    v = sub.add_parser("review", help="play a finished scenario and print the ruleset's 复盘 table (成就与金币)")
    v.add_argument("file")
    v.set_defaults(func=_review)
    s = sub.add_parser("simulate", help="play many games with bots and report win rates (平衡模拟)")
    s.add_argument("--ruleset", default="品茗", help="规则或板子：id、中文名、别名，或板子文件的路径")
    s.add_argument("--games", type=int, default=1000, help="每个玩家人数的对局数")
    s.add_argument("--players", default=None, help="玩家人数：14、20..30 或 20,22,24（默认：规则的标准人数）")
    s.add_argument(
        "--policy",
        default="random",
        help=(
            "random、sparing（随机，但规则声明为罕用的技能很少用：演示所用）、heuristic，"
            "或外部智能体 模块:名称 / 文件.py:名称（工厂签名 (seat, role, ruleset, rng)）"
        ),
    )
    s.add_argument(
        "--role-policy",
        action="append",
        default=[],
        metavar="身份=策略",
        help="某一身份改用另一策略（如 狼人=random），可重复",
    )
    s.add_argument(
        "--jobs", type=int, default=None, help="本地进程数（默认 1）；ray 后端：本地 Ray 实例的 CPU 数（默认全部）"
    )
    s.add_argument("--backend", choices=["local", "ray"], default="local")
    s.add_argument("--address", default=None, help="Ray 集群地址（ray.init(address=...)）；缺省时启动本地实例")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--option", action="append", default=[], metavar="名称=值", help="规则选项，可重复")
    s.add_argument("--max-phases", type=int, default=200, help="每局最多阶段数（超出记为未结束）")
    s.add_argument("--out", default=None, help="把原始汇总写成 JSON")
    s.add_argument("--report", default=None, help="写出自包含的 HTML 报告")
    s.add_argument("--progress", dest="progress", action="store_true", default=None, help="显示进度条")
    s.add_argument("--no-progress", dest="progress", action="store_false")
    s.set_defaults(func=_simulate)
    fo = sub.add_parser(
        "forum", help="the forum bridge: count a Discuz! thread's day, post as the director (论坛计票、发帖)"
    )
    fsub = fo.add_subparsers(dest="forum_command", required=True)
    fc = fsub.add_parser("count", help="count one day of a Discuz! thread by the rules; JSON (or --table)")
    fc.add_argument("game", metavar="GAME", help="场景文件，或导演服务导出的对局 JSON")
    fc.add_argument(
        "thread", metavar="THREAD", nargs="+", help="保存的帖子页面（按页序）、其文件夹，或 http(s):// 帖子地址"
    )
    fc.add_argument("--day", type=int, default=None, help="统计第几天（默认：GAME 最后一个阶段之后的讨论日）")
    fc.add_argument("--close", default=None, help='关门时间 "YYYY-MM-DD HH:MM"（默认不限）')
    fc.add_argument("--tz", default="Asia/Shanghai", help="--close 与论坛时间所用的时区")
    fc.add_argument("--director", default=None, help="导演的论坛账号（默认：1楼作者）")
    fc.add_argument("--accelerated", action="store_true", help="当日执行加速（不可改票，不判潜水）")
    fc.add_argument("--table", action="store_true", help="在终端中以表格显示（楼层、作者、判定、原因）")
    fc.add_argument("--compact", action="store_true", help="one-line JSON")
    fc.add_argument(
        "--login",
        metavar="NAME",
        default=None,
        help="以论坛账号 NAME（导演）登录后读取帖子地址；密码取自 BANSHE_FORUM_PASSWORD 或在终端输入",
    )
    fc.set_defaults(func=_forum_count)
    fp = fsub.add_parser("post", help="reply in a Discuz! thread as the director (论坛发帖); JSON {url, pid, floor}")
    fp.add_argument("thread_url", metavar="THREAD_URL", help="帖子地址 http(s)://…")
    fp.add_argument(
        "--login", metavar="NAME", required=True, help="发帖的论坛账号；密码取自 BANSHE_FORUM_PASSWORD 或在终端输入"
    )
    body = fp.add_mutually_exclusive_group(required=True)
    body.add_argument("--text", default=None, help="回复内容（BBCode）")
    body.add_argument("--file", default=None, help="从 UTF-8 文件读取回复内容（BBCode）")
    fp.set_defaults(func=_forum_post)
    r = sub.add_parser("rulesets", help="list the rulesets and their options")
    r.set_defaults(func=_rulesets)
    b = sub.add_parser(
        "boards", help="the boards (板子): list them, show one's file, check a board file, list the role library"
    )
    b.add_argument("action", nargs="?", choices=["list", "show", "check", "roles"], default="list")
    b.add_argument("name", nargs="?", default=None, metavar="NAME|FILE", help="show：板子名；check：板子文件")
    b.set_defaults(func=_boards)
    sv = sub.add_parser("serve", help="run the director service (web) on SQLite or BANSHE_DATABASE_URL")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=8000)
    sv.add_argument("--database-url", default=None, help="default: BANSHE_DATABASE_URL or sqlite:///banshe.sqlite3")
    sv.add_argument("--log-level", default="info")
    sv.add_argument("--workers", type=int, default=1, help="processes (PostgreSQL only; SQLite: 1)")
    sv.set_defaults(func=_serve)
    ad = sub.add_parser("admin", help="director accounts: create one, or set a password")
    ad.add_argument("action", choices=["create", "password"])
    ad.add_argument("--username", default="admin")
    ad.add_argument("--password", default=None, help="default: BANSHE_ADMIN_PASSWORD or a prompt")
    ad.add_argument("--database-url", default=None)
    ad.set_defaults(func=_admin)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    setup_logging()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except MissingExtra as exc:
        log.error("%s", exc)
        return 2


if __name__ == "__main__":
    sys.exit(main())
