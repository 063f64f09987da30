"""Mass simulation: deterministic seeds, slices of games, local processes or a Ray cluster.

Game `i` at player count `n` is dealt with `game_seed(seed, n, i)`, whatever process plays
it, and a slice's aggregates are integer counters whose merge is order-free, so the results
are identical for any `--jobs`, any slice size and either backend.
"""

from __future__ import annotations

import gc
import importlib
import math
import multiprocessing as mp
import os
import random
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..rulesets.registry import find_ruleset
from .agents import Agent, AgentFactory, load_policy
from .env import play_game
from .stats import Stats, summarize

MASK64 = (1 << 64) - 1


def _splitmix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def game_seed(base: int, players: int, index: int) -> int:
    """The seed of game `index` at `players` seats in a run with base seed `base` (63 bits)."""
    return _splitmix64(_splitmix64(_splitmix64(base & MASK64) ^ players) ^ index) >> 1


def seat_names(count: int) -> list[str]:
    # interned: every slice's games then share the very strings of the engine's remembered
    # commands, and dict lookups by seat name hit on identity
    return [sys.intern(f"{i}号") for i in range(1, count + 1)]


def parse_player_counts(text: str) -> tuple[int, ...]:
    """`14`, `20..30` (inclusive) or `20,22,24`. Raises ValueError (Chinese)."""
    counts: list[int] = []
    try:
        for part in text.replace("，", ",").split(","):
            part = part.strip()
            if ".." in part:
                lo, _, hi = part.partition("..")
                a, b = int(lo), int(hi)
                if a > b:
                    raise ValueError
                counts.extend(range(a, b + 1))
            elif part:
                counts.append(int(part))
    except ValueError:
        raise ValueError(f"玩家人数格式错误：“{text}”（例：14、20..30、20,22,24）") from None
    if not counts or any(c <= 0 for c in counts):
        raise ValueError(f"玩家人数格式错误：“{text}”")
    return tuple(dict.fromkeys(counts))


def default_player_count(ruleset: str) -> int:
    """The smallest count the ruleset can deal at random (品茗: its standard 14)."""
    rs = find_ruleset(ruleset)
    for n in range(rs.min_players, rs.max_players + 1):
        try:
            rs.deal(n, random.Random(0))
        except (ValueError, NotImplementedError):
            continue
        return n
    raise ValueError(f"{rs.name}无法随机发身份")


@dataclass(frozen=True, slots=True)
class SimConfig:
    """What to simulate. `games` is per player count."""

    ruleset: str
    games: int
    players: tuple[int, ...]
    policy: str = "random"
    seed: int = 1
    options: tuple[tuple[str, Any], ...] = ()
    max_phases: int = 200
    role_policies: tuple[tuple[str, str], ...] = ()  # (role id, policy) overriding `policy` for that identity

    def check(self) -> None:
        """Raise ValueError (Chinese) for a configuration that cannot run, before any worker starts."""
        rs = find_ruleset(self.ruleset)
        if self.games <= 0:
            raise ValueError("对局数必须为正整数")
        load_policy(self.policy)
        for role, spec in self.role_policies:
            if role not in rs.role_names:
                raise ValueError(f"{rs.name}没有身份“{role}”")
            load_policy(spec)
        for n in self.players:
            if not rs.min_players <= n <= rs.max_players:
                raise ValueError(f"{rs.name}需要{rs.min_players}到{rs.max_players}名玩家，不能模拟{n}人局")
            rs.deal(n, random.Random(0))
        for key, _value in self.options:
            if key not in rs.options:
                raise ValueError(f"{rs.name}没有选项“{key}”")


Task = tuple[SimConfig, int, int, int]  # config, player count, first game index, end index


_FACTORIES: dict[str, AgentFactory] = {}


def _factory(spec: str) -> AgentFactory:
    factory = _FACTORIES.get(spec)
    if factory is None:
        factory = _FACTORIES[spec] = load_policy(spec)
    return factory


def _mixed(default: AgentFactory, by_role: dict[str, AgentFactory]) -> AgentFactory:
    """One factory that hands each identity its own policy (`--role-policy`)."""

    def factory(seat: str, role: str, ruleset: str, rng: random.Random) -> Agent:
        return by_role.get(role, default)(seat, role, ruleset, rng)

    return factory


def run_task(task: Task) -> tuple[int, Stats]:
    """Play games [start, end) at one player count; return their aggregates."""
    from . import effects  # noqa: F401  (registers the per-ruleset effect counters)

    config, count, start, end = task
    factory = _factory(config.policy)
    if config.role_policies:
        factory = _mixed(factory, {role: _factory(spec) for role, spec in config.role_policies})
    rs_id = find_ruleset(config.ruleset).id
    names = seat_names(count)
    options = dict(config.options) or None
    stats = Stats()
    # a game makes thousands of short-lived objects and almost no reference cycles: collect
    # cycles less often while playing (3% of the time at the default threshold)
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 50_000), *threshold[1:])
    try:
        for i in range(start, end):
            try:
                env = play_game(rs_id, names, game_seed(config.seed, count, i), factory, options, config.max_phases)
            except Exception as exc:  # an engine or agent bug in one game must not lose the whole run
                stats.add_error(count, i, exc)
                continue
            stats.add_game(env.state, env.refused)
    finally:
        gc.set_threshold(*threshold)
    return count, stats


def make_tasks(config: SimConfig, slice_size: int) -> list[Task]:
    tasks: list[Task] = []
    for count in config.players:
        for start in range(0, config.games, slice_size):
            tasks.append((config, count, start, min(config.games, start + slice_size)))
    return tasks


def auto_slice(total: int, jobs: int) -> int:
    """Slices small enough for a live progress bar and balanced workers, big enough to be cheap."""
    return max(1, min(50, math.ceil(total / max(1, jobs * 24))))


class Progress:
    """A one-line Rich progress bar on `stream` (stderr): games done, games/s and time left.

    Refreshed by `update` itself (at most five times a second), never by a background thread:
    the local backend forks worker processes while the bar is shown."""

    def __init__(self, total: int, enabled: bool, stream: TextIO | None = None) -> None:
        self.total = total
        self.enabled = enabled
        self.started = time.perf_counter()
        self._last = 0.0
        self._bar: Any = None
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import BarColumn, TextColumn
        from rich.progress import Progress as RichProgress

        # the caller decided to show it (a terminal, or --progress): draw it even into a pipe
        console = Console(file=stream or sys.stderr, force_terminal=True, highlight=False)
        self._bar = RichProgress(
            BarColumn(bar_width=24),
            TextColumn("{task.completed:,}/{task.total:,} 局", markup=False),
            TextColumn("{task.fields[rate]} 局/秒", markup=False),
            TextColumn("剩余 {task.fields[eta]}", markup=False),
            console=console,
            auto_refresh=False,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._task = self._bar.add_task("simulate", total=total, rate="0", eta="--:--")
        self._bar.start()

    def update(self, done: int, force: bool = False) -> None:
        if self._bar is None:
            return
        now = time.perf_counter()
        if not force and now - self._last < 0.2:
            return
        self._last = now
        elapsed = max(now - self.started, 1e-9)
        rate = done / elapsed
        eta = (self.total - done) / rate if rate > 0 else float("inf")
        eta_text = "--:--" if math.isinf(eta) else time.strftime("%H:%M:%S", time.gmtime(eta))
        self._bar.update(self._task, completed=done, rate=f"{rate:,.0f}", eta=eta_text)
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


@dataclass(slots=True)
class SimResult:
    config: SimConfig
    by_players: dict[int, Stats] = field(default_factory=dict)
    interrupted: bool = False
    elapsed_s: float = 0.0
    jobs: int = 1
    backend: str = "local"

    @property
    def games(self) -> int:
        return sum(s.games for s in self.by_players.values())

    @property
    def errors(self) -> int:
        return sum(s.errors for s in self.by_players.values())

    def overall(self) -> Stats:
        total = Stats()
        for s in self.by_players.values():
            total.merge(s)
        return total

    def to_json(self) -> dict[str, Any]:
        """The raw aggregates and their summaries. Everything but `run` depends only on the games."""
        rs = find_ruleset(self.config.ruleset)
        counts = sorted(self.by_players)
        out: dict[str, Any] = {
            "ruleset": rs.id,
            "ruleset_name": rs.name,
            "policy": self.config.policy,
            "role_policies": {rs.role_name(r): p for r, p in self.config.role_policies},
            "seed": self.config.seed,
            "options": dict(self.config.options),
            "players": counts,
            "games_requested": self.config.games * len(self.config.players),
            "games": self.games,
            "errors": self.errors,
            "interrupted": self.interrupted,
            "by_players": {
                str(n): {"summary": summarize(self.by_players[n], rs.id), "raw": self.by_players[n].to_json()}
                for n in counts
            },
            "overall": summarize(self.overall(), rs.id),
            "run": {
                "jobs": self.jobs,
                "backend": self.backend,
                "elapsed_s": round(self.elapsed_s, 3),
                "games_per_s": round(self.games / self.elapsed_s, 1) if self.elapsed_s > 0 else None,
            },
        }
        return out


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_local(tasks: Sequence[Task], jobs: int, on_result: Callable[[tuple[int, Stats]], None]) -> None:
    if jobs <= 1:
        for task in tasks:
            on_result(run_task(task))
        return
    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else methods[0])
    pool = ctx.Pool(jobs, initializer=_ignore_sigint)
    try:
        for result in pool.imap_unordered(run_task, tasks):
            on_result(result)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def ray_available() -> bool:
    try:
        importlib.import_module("ray")
    except ImportError:
        return False
    return True


def _run_ray(
    tasks: Sequence[Task], jobs: int, address: str | None, on_result: Callable[[tuple[int, Stats]], None]
) -> None:
    try:
        ray: Any = importlib.import_module("ray")
    except ImportError:
        raise RuntimeError("Ray 后端需要安装 ray：pip install 'banshe[ray]'") from None
    started_here = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
        if address:
            ray.init(address=address, **kwargs)
        else:
            ray.init(num_cpus=jobs if jobs > 0 else None, **kwargs)
        started_here = True
    remote = ray.remote(num_cpus=1)(run_task)
    pending = [remote.remote(task) for task in tasks]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                on_result(ray.get(ref))
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    finally:
        if started_here:
            ray.shutdown()


def simulate(
    config: SimConfig,
    jobs: int = 1,
    backend: str = "local",
    address: str | None = None,
    progress: bool = False,
    slice_size: int | None = None,
    stream: TextIO | None = None,
) -> SimResult:
    """Play `config.games` games at each player count. Ctrl-C stops and returns what finished.

    `jobs`: local processes; for Ray, the CPUs of a local instance (0: all of this machine's)."""
    config.check()
    total = config.games * len(config.players)
    tasks = make_tasks(config, slice_size or auto_slice(total, jobs or (os.cpu_count() or 1)))
    result = SimResult(config, {n: Stats() for n in config.players}, jobs=jobs, backend=backend)
    bar = Progress(total, progress, stream)
    started = time.perf_counter()

    def on_result(item: tuple[int, Stats]) -> None:
        count, stats = item
        result.by_players[count].merge(stats)
        bar.update(result.games + result.errors)

    try:
        if backend == "local":
            _run_local(tasks, jobs, on_result)
        elif backend == "ray":
            _run_ray(tasks, jobs, address, on_result)
        else:
            raise ValueError(f"未知的后端“{backend}”（local 或 ray）")
    except KeyboardInterrupt:
        result.interrupted = True
    result.elapsed_s = time.perf_counter() - started
    bar.update(result.games + result.errors, force=True)
    bar.close()
    return result
