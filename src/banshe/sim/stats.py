"""Aggregates gathered game by game (never the games themselves), and their arithmetic.

`Stats` holds integer counters only, so merging is exact and order-free: the same games give
the same aggregates whichever worker played them. `summarize` turns them into the JSON the
report and `--out` use (rates with Wilson 95% confidence intervals).

Effect counters are generic (outs by cause, private feedback results by skill, camps judged
lost, how games end) plus small per-ruleset extractors registered in `EFFECTS` by ruleset id.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..agents.effects import EFFECTS
from ..agents.effects import EffectExtractor as EffectExtractor  # re-exported (moved to banshe.agents)
from ..agents.effects import register_effects as register_effects  # re-exported
from ..engine.events import ACCEPTED, ANNOUNCE, FEEDBACK, LOST, OUT
from ..engine.model import GameState
from ..engine.ruleset import Ruleset
from ..rulesets.registry import get_ruleset

MAX_ERROR_SAMPLES = 5
Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default).

    Unlike the normal approximation it stays inside [0, 1] and is sensible at 0 or n successes.
    """
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError("successes must lie between 0 and trials")
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)  # exact at the ends
    hi = 1.0 if successes == trials else min(1.0, centre + half)
    return (lo, hi)


@dataclass(slots=True)
class Stats:
    """Counters over finished games of one ruleset at one player count."""

    games: int = 0
    unfinished: int = 0  # games cut off at the phase limit (no winner)
    errors: int = 0  # games stopped by an exception (engine or agent); not in `games`
    error_samples: list[tuple[int, int, str]] = field(default_factory=list)  # (players, index, error)
    refused: int = 0  # commands agents posted that the engine refused
    commands: int = 0
    wins: Counter[str] = field(default_factory=Counter)  # camp id
    endings: Counter[str] = field(default_factory=Counter)  # "camp\treason"
    days: Counter[int] = field(default_factory=Counter)  # the day number the game ended in
    phases: Counter[int] = field(default_factory=Counter)
    seats: Counter[str] = field(default_factory=Counter)  # role id -> dealt
    survived: Counter[str] = field(default_factory=Counter)  # role id -> alive at the end
    role_wins: Counter[str] = field(default_factory=Counter)  # role id -> its camp won
    skill_uses: Counter[str] = field(default_factory=Counter)  # skill id -> accepted commands
    effects: Counter[str] = field(default_factory=Counter)

    def add_game(self, state: GameState, refused: int = 0) -> None:
        """Fold one finished (or cut-off) game in; the state can then be dropped."""
        self.games += 1
        self.refused += refused
        self.commands += len(state.commands)
        winner = state.winner
        if winner is None:
            self.unfinished += 1
        else:
            self.wins[winner] += 1
        ended = state.ended_in or state.phase
        self.days[ended.number] += 1
        self.phases[ended.ordinal] += 1
        for c in state.chars.values():
            role = c.role
            self.seats[role] += 1
            if c.alive:
                self.survived[role] += 1
            if winner is not None and c.camp == winner:
                self.role_wins[role] += 1
        skill_uses = self.skill_uses
        for cmd in state.commands:
            skill_uses[cmd.skill] += 1
        effects = self.effects
        chars = state.chars
        rs: Ruleset = state.rules
        camp_name = rs.camp_name
        for e in state.log:
            kind = e.kind
            if kind in (ACCEPTED, ANNOUNCE):
                continue
            if kind == OUT:
                victim = chars.get(str(e.data.get("player")))
                camp = camp_name(victim.camp) if victim is not None else "?"
                effects["出局\t" + str(e.data.get("cause")) + "\t" + camp] += 1
            elif kind == FEEDBACK:
                result = e.data.get("result")
                if isinstance(result, str):
                    effects["反馈\t" + str(e.data.get("skill")) + "\t" + result] += 1
                elif isinstance(result, bool):
                    effects["反馈\t" + str(e.data.get("skill")) + "\t" + ("是" if result else "否")] += 1
                else:
                    effects["反馈\t" + str(e.data.get("skill"))] += 1
            elif kind == LOST:
                effects["判负\t" + str(e.data.get("camp")) + "\t" + str(e.data.get("reason"))] += 1
            elif kind == "win":
                self.endings[str(e.data.get("camp")) + "\t" + str(e.data.get("reason"))] += 1
        extractor = EFFECTS.get(state.ruleset)
        if extractor is not None:
            extractor(state, effects)

    def add_error(self, players: int, index: int, exc: BaseException) -> None:
        """A game that raised: counted, and the first few kept (by game index) to reproduce it."""
        self.errors += 1
        self.error_samples.append((players, index, f"{type(exc).__name__}: {exc}"[:300]))
        self.error_samples = sorted(self.error_samples)[:MAX_ERROR_SAMPLES]

    def merge(self, other: Stats) -> None:
        self.games += other.games
        self.unfinished += other.unfinished
        self.errors += other.errors
        self.error_samples = sorted(self.error_samples + other.error_samples)[:MAX_ERROR_SAMPLES]
        self.refused += other.refused
        self.commands += other.commands
        self.wins.update(other.wins)
        self.endings.update(other.endings)
        self.days.update(other.days)
        self.phases.update(other.phases)
        self.seats.update(other.seats)
        self.survived.update(other.survived)
        self.role_wins.update(other.role_wins)
        self.skill_uses.update(other.skill_uses)
        self.effects.update(other.effects)

    def to_json(self) -> dict[str, Any]:
        """The raw counters (sorted, so equal stats give equal JSON)."""

        def srt(c: Counter[Any]) -> dict[str, int]:
            return {str(k): v for k, v in sorted(c.items(), key=lambda kv: str(kv[0]))}

        return {
            "games": self.games,
            "unfinished": self.unfinished,
            "errors": self.errors,
            "error_samples": [list(s) for s in self.error_samples],
            "refused": self.refused,
            "commands": self.commands,
            "wins": srt(self.wins),
            "endings": srt(self.endings),
            "days": {str(k): v for k, v in sorted(self.days.items())},
            "phases": {str(k): v for k, v in sorted(self.phases.items())},
            "seats": srt(self.seats),
            "survived": srt(self.survived),
            "role_wins": srt(self.role_wins),
            "skill_uses": srt(self.skill_uses),
            "effects": srt(self.effects),
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Stats:
        s = Stats(
            games=int(data["games"]),
            unfinished=int(data["unfinished"]),
            errors=int(data.get("errors", 0)),
            error_samples=[(int(p), int(i), str(t)) for p, i, t in data.get("error_samples", [])],
            refused=int(data["refused"]),
            commands=int(data["commands"]),
        )
        s.wins.update({k: int(v) for k, v in data["wins"].items()})
        s.endings.update({k: int(v) for k, v in data["endings"].items()})
        s.days.update({int(k): int(v) for k, v in data["days"].items()})
        s.phases.update({int(k): int(v) for k, v in data["phases"].items()})
        s.seats.update({k: int(v) for k, v in data["seats"].items()})
        s.survived.update({k: int(v) for k, v in data["survived"].items()})
        s.role_wins.update({k: int(v) for k, v in data["role_wins"].items()})
        s.skill_uses.update({k: int(v) for k, v in data["skill_uses"].items()})
        s.effects.update({k: int(v) for k, v in data["effects"].items()})
        return s


def summarize(stats: Stats, ruleset_id: str) -> dict[str, Any]:
    """Rates and intervals for one Stats, with the ruleset's Chinese names."""
    rs = get_ruleset(ruleset_id)
    n = stats.games
    camps = rs.playing_camps()
    camps += [c for c in stats.wins if c not in camps]
    win_rows = []
    for camp in camps:
        k = stats.wins.get(camp, 0)
        lo, hi = wilson_interval(k, n)
        win_rows.append(
            {"camp": camp, "name": rs.camp_name(camp), "wins": k, "rate": k / n if n else 0.0, "ci95": [lo, hi]}
        )
    endings = []
    for key, k in sorted(stats.endings.items(), key=lambda kv: (-kv[1], kv[0])):
        camp, _, reason = key.partition("\t")
        endings.append({"camp": camp, "name": rs.camp_name(camp), "reason": reason, "games": k, "rate": k / n})
    if stats.unfinished:
        endings.append(
            {
                "camp": "",
                "name": "（未结束）",
                "reason": "达到阶段上限",
                "games": stats.unfinished,
                "rate": stats.unfinished / n,
            }
        )
    total_days = sum(d * k for d, k in stats.days.items())
    survival = []
    roles = list(rs.role_names) + [r for r in stats.seats if r not in rs.role_names]
    for role in roles:
        seats = stats.seats.get(role, 0)
        if not seats:
            continue
        alive = stats.survived.get(role, 0)
        lo, hi = wilson_interval(alive, seats)
        won = stats.role_wins.get(role, 0)
        survival.append(
            {
                "role": role,
                "name": rs.role_name(role),
                "seats": seats,
                "survived": alive,
                "rate": alive / seats,
                "ci95": [lo, hi],
                "win_rate": won / seats,
            }
        )
    skills = [
        {"skill": sid, "name": rs.skill_name(sid), "uses": k, "per_game": k / n if n else 0.0}
        for sid, k in sorted(stats.skill_uses.items(), key=lambda kv: (-kv[1], kv[0]))
        if not sid.startswith(("close_", "prompt_"))
    ]
    effects = [
        {"effect": key.replace("\t", "："), "count": k, "per_game": k / n if n else 0.0}
        for key, k in sorted(stats.effects.items(), key=lambda kv: kv[0])
    ]
    return {
        "games": n,
        "unfinished": stats.unfinished,
        "errors": stats.errors,
        "error_samples": [{"players": p, "game": i, "error": t} for p, i, t in stats.error_samples],
        "refused": stats.refused,
        "commands_per_game": stats.commands / n if n else 0.0,
        "win_rates": win_rows,
        "endings": endings,
        "days": {
            "mean": total_days / n if n else 0.0,
            "histogram": {str(d): k for d, k in sorted(stats.days.items())},
        },
        "survival": survival,
        "skills": skills,
        "effects": effects,
    }
