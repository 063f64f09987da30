"""Deadlines as data: each ruleset's default schedule, and the clock arithmetic (pure).

Times are epoch seconds (UTC); clock times such as "21:00" are read in the game's time zone.
A night stage's entry is either minutes after the previous stage's deadline (the first stage
counts from the night's start) or a clock time "HH:MM" (the next such time after it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..engine.ruleset import Ruleset

DEFAULT_TIMEZONE = "Asia/Shanghai"
_CLOCK = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
_MINUTES = re.compile(r"^\+?(\d{1,4})(?:分钟|min|m)?$")
# every schedule field is bounded, so no game's deadline can leave the calendar (a year 10**9
# hours away made every scheduler tick raise): (low, high, unit)
BOUNDS: dict[str, tuple[int, int, str]] = {
    "start_minutes": (0, 7 * 24 * 60, "分钟"),
    "min_day_hours": (0, 14 * 24, "小时"),
    "prompt_minutes_day": (1, 24 * 60, "分钟"),
    "prompt_minutes_night": (1, 24 * 60, "分钟"),
}
MAX_STAGE_MINUTES = 24 * 60


@dataclass(frozen=True, slots=True)
class Policy:
    """How the service runs a ruleset's thread (forum conventions the engine does not model)."""

    vote_visibility: str = "open"  # open: votes show as posted; half_public: hidden until the day closes
    no_change_minutes: int = 0  # no 改票 / 代投 in the last N minutes of a day
    lurk_min_posts: int = 0  # 潜水: fewer posts than this on a day that was not accelerated
    lurk_three_day_posts: int = 0  # 潜水: three such days in a row under this many posts
    lurk_no_vote: bool = False  # 潜水: no vote on a day that was not accelerated
    lurk_card: str = "card_yellow"
    request_cutoff_minutes: int = 0  # 加速/延时 requests count until N minutes before the day ends


POLICIES: dict[str, Policy] = {
    # seed 002: 关门前一小时不允许改票或代投; 潜水 (1)(2)(3) 固定判罚一张黄牌; 申请在讨论日结束三个小时前
    "品茗": Policy("open", 60, 5, 10, True, "card_yellow", 180),
    # 沉寂与取酒 counts half-publicly: vote posts hidden while voting
    "沉寂与取酒": Policy(vote_visibility="half_public"),
}

# seed 002 行动时限: 混血儿 — 一定时间内; 预言家/狼队 — 关门后一个小时; 女巫 — 通灵反馈后半小时;
# 猎人、白痴、警长被投票出局者 — 关门十分钟内; 最后一枪 — 收到反馈后半小时. 讨论日 ends 21:00.
# seed 000 (沉寂与取酒): 最后一枪/装傻 21:40, night stages 21:45 … 22:45. seed 003 (感染): the day runs
# 09:30 to the next day's 21:30, each night stage lasts 10 minutes.
# "stages" is a list (used when it has one entry per night stage) or one value for every stage;
# deadlines a ruleset declares on its NightStage data take precedence.
DEFAULT_SCHEDULES: dict[str, dict[str, Any]] = {
    "品茗": {
        "start_minutes": 60,
        "day_end": "21:00",
        "min_day_hours": 12,
        "stages": [60, 0, 30],
        "prompt_minutes_day": 10,
        "prompt_minutes_night": 30,
    },
    "沉寂与取酒": {
        "start_minutes": 60,
        "day_end": "21:30",
        "min_day_hours": 12,
        "stages": ["21:45", "22:00", "22:15", "22:30", "22:45"],
        "prompt_minutes_day": 10,
        "prompt_minutes_night": 30,
    },
    "感染": {
        "start_minutes": 60,
        "day_end": "21:30",
        "min_day_hours": 30,
        "stages": 10,
        "prompt_minutes_day": 10,
        "prompt_minutes_night": 10,
    },
}
_FALLBACK: dict[str, Any] = {
    "start_minutes": 30,
    "day_end": "21:00",
    "min_day_hours": 12,
    "stages": 30,
    "prompt_minutes_day": 10,
    "prompt_minutes_night": 30,
}
# a clock-time deadline up to this long before the previous one is taken as already due (a late
# close at 21:50 makes a 21:45 stage due at once, not tomorrow)
_LOOKBACK = 6 * 3600


def policy_for(rs: Ruleset) -> Policy:
    return POLICIES.get(rs.name, POLICIES.get(rs.id, Policy()))


def default_schedule(rs: Ruleset) -> dict[str, Any]:
    """The ruleset's default schedule (see DEFAULT_SCHEDULES), one stage entry per night stage."""
    known = DEFAULT_SCHEDULES.get(rs.name) or DEFAULT_SCHEDULES.get(rs.id) or _FALLBACK
    out = dict(known)
    count = len(rs.night_stages)
    given = known["stages"]
    if isinstance(given, list) and len(given) == count:
        stages: list[int | str] = list(given)
    else:
        each = given if not isinstance(given, list) else _FALLBACK["stages"]
        stages = [each] * count
    for i, stage in enumerate(rs.night_stages):
        declared = stage.deadline.strip()
        if declared and parse_stage(declared) is not None:
            stages[i] = declared
    out["stages"] = stages
    return out


def parse_stage(value: int | str) -> int | tuple[int, int] | None:
    """Minutes (int) or a clock time (hour, minute); None when unreadable."""
    if isinstance(value, int):
        return value if value >= 0 else None
    text = str(value).strip()
    m = _CLOCK.match(text)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = _MINUTES.match(text)
    if m:
        return int(m.group(1))
    return None


def zone(name: str) -> ZoneInfo:
    if not isinstance(name, str) or len(name) > 64 or "\x00" in name:
        raise ValueError(f"未知的时区：{str(name)[:64]}")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise ValueError(f"未知的时区：{name}") from exc


def validate_schedule(rs: Ruleset, schedule: dict[str, Any]) -> dict[str, Any]:
    """A complete, checked schedule (Chinese ValueError when something is unreadable)."""
    base = default_schedule(rs)
    out = {**base, **{k: v for k, v in schedule.items() if v is not None}}
    for key, (low, high, unit) in BOUNDS.items():
        value = out[key]
        if isinstance(value, str) and len(value) > 12:
            raise ValueError(f"时间表“{key}”必须是整数")
        try:
            out[key] = int(value)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"时间表“{key}”必须是整数") from None
        if out[key] < 0:
            raise ValueError(f"时间表“{key}”不能为负数")
        if not low <= out[key] <= high:
            raise ValueError(f"时间表“{key}”应在{low}到{high}{unit}之间")
    if not _CLOCK.match(str(out["day_end"])):
        raise ValueError(f"讨论日结束时间格式应为 HH:MM：{str(out['day_end'])[:20]}")
    if not isinstance(out["stages"], list | tuple | int | str):
        raise ValueError("时间表“stages”应为每个夜晚阶段的时限列表")
    given = list(out["stages"]) if isinstance(out["stages"], list | tuple) else [out["stages"]] * len(rs.night_stages)
    stages = [base["stages"][i] if i < len(base["stages"]) and v in (None, "") else v for i, v in enumerate(given)]
    if len(stages) != len(rs.night_stages):
        raise ValueError(f"{rs.name}每夜有{len(rs.night_stages)}个阶段，时间表给了{len(stages)}个")
    for i, value in enumerate(stages):
        if isinstance(value, bool) or not isinstance(value, int | str) or parse_stage(value) is None:
            raise ValueError(f"夜晚阶段“{rs.night_stages[i].name}”的时限无法识别：{str(value)[:20]}（分钟数或 HH:MM）")
        parsed = parse_stage(value)
        if isinstance(parsed, int) and parsed > MAX_STAGE_MINUTES:
            raise ValueError(f"夜晚阶段“{rs.night_stages[i].name}”的时限应在0到{MAX_STAGE_MINUTES}分钟之间")
    out["stages"] = stages
    return out


def next_clock(after: float, hour: int, minute: int, tz: ZoneInfo) -> float:
    """The first moment strictly after `after` whose local time is hour:minute."""
    local = datetime.fromtimestamp(after, tz)
    candidate = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if candidate.timestamp() <= after:
        candidate = (local + timedelta(days=1)).replace(hour=hour, minute=minute, second=0, microsecond=0)
    return candidate.timestamp()


def day_close(started: float, schedule: dict[str, Any], tz: ZoneInfo) -> float:
    """A day closes at the first day_end at least min_day_hours after it started."""
    h, m = (int(x) for x in str(schedule["day_end"]).split(":"))
    earliest = started + int(schedule["min_day_hours"]) * 3600
    return next_clock(earliest - 1, h, m, tz)


def stage_deadlines(night_start: float, schedule: dict[str, Any], tz: ZoneInfo) -> list[float]:
    """Each night stage's deadline, in order."""
    out: list[float] = []
    prev = night_start
    for value in schedule["stages"]:
        parsed = parse_stage(value)
        if isinstance(parsed, tuple):
            prev = max(prev, next_clock(prev - _LOOKBACK, parsed[0], parsed[1], tz))
        elif parsed is not None:
            prev = prev + parsed * 60
        out.append(prev)
    return out


def local_text(ts: float, tz: ZoneInfo) -> str:
    return datetime.fromtimestamp(ts, tz).strftime("%Y-%m-%d %H:%M")
