"""Deadlines as data: each ruleset's default schedule, and the clock arithmetic (pure).

Times are epoch seconds (UTC); clock times such as "21:00" are read in the game's time zone.
A night stage's entry is either minutes after the previous stage's deadline (the first stage
counts from the night's start) or a clock time "HH:MM". Every close is followed by its settling
window (`window_minutes`); a night that starts after its evening's day_end is shifted whole
(`stage_deadlines`); a stage that waits for the earlier ones and opens late gets its full length
from the moment it opens (`stage_due`). A stage always runs its whole time: whether its holders
are out is never judged from what players do not know. See docs/rulings.md, 导演服务的时限.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..engine.model import DAY, NIGHT, GameState
from ..engine.ruleset import Ruleset
from ..rulesets import thread_policy
from ..rulesets.thread_policy import ThreadPolicy

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
FIELD_NAMES = {  # the new-game form's labels, for error messages
    "start_minutes": "开局行动时限",
    "min_day_hours": "讨论日最短时长",
    "prompt_minutes_day": "白天回应时限",
    "prompt_minutes_night": "夜间回应时限",
}


# A ruleset's thread conventions and default schedule are declared by the ruleset itself
# (banshe/rulesets/<name>/service_policy.py); this module reads them by ruleset id.
Policy = ThreadPolicy
_GENERIC = ThreadPolicy()
_FALLBACK: dict[str, Any] = {
    "start_minutes": 30,
    "day_end": "21:00",
    "min_day_hours": 12,
    "stages": 30,
    "prompt_minutes_day": 10,
    "prompt_minutes_night": 30,
    "weekend_extra_day": False,  # a day that would close on a Saturday or Sunday lasts one day more
    "auto_accelerate_below": 0,  # 加速 at the start of a day with fewer alive characters (0: never)
    # with review on, a dawn's 公示 is published at this clock time if the director has not
    # published it by then ("": only when he does; issue 22, the dawn follows the 公示)
    "dawn_publish": "",
}
# a night belongs to the evening of the day_end clock time nearest its start: one that starts up
# to 12 hours after it (a day closed at 23:10, or at 03:00) runs late and is shifted whole
_NIGHT_WINDOW = 12 * 3600
_YES = {"1", "true", "on", "yes", "是"}
_NO = {"0", "false", "off", "no", "否", ""}


def policy_for(rs: Ruleset) -> ThreadPolicy:
    """The thread policy `rs` declares (banshe.rulesets.thread_policy), or the generic one."""
    return thread_policy.declared(rs.id) or _GENERIC


def default_schedule(rs: Ruleset) -> dict[str, Any]:
    """The ruleset's default schedule (its ThreadPolicy's, over the generic one), one stage entry
    per night stage."""
    known = {**_FALLBACK, **policy_for(rs).schedule}
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
        label = FIELD_NAMES.get(key, key)
        if isinstance(value, str) and len(value) > 12:
            raise ValueError(f"时间表“{label}”必须是整数")
        try:
            out[key] = int(value)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"时间表“{label}”必须是整数") from None
        if out[key] < 0:
            raise ValueError(f"时间表“{label}”不能为负数")
        if not low <= out[key] <= high:
            raise ValueError(f"时间表“{label}”应在{low}到{high}{unit}之间")
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
    _check_day_options(rs, out)
    return out


def _check_day_options(rs: Ruleset, out: dict[str, Any]) -> None:
    """The weekend and automatic-加速 options, checked in place (Chinese ValueError)."""
    weekend = out.get("weekend_extra_day", False)
    if isinstance(weekend, str):
        word = weekend.strip().lower()
        if word not in _YES | _NO:
            raise ValueError(f"时间表“周末延长一天”应为 是 或 否：{weekend}")
        weekend = word in _YES
    out["weekend_extra_day"] = bool(weekend)
    try:
        below = int(out.get("auto_accelerate_below") or 0)
    except (TypeError, ValueError):
        raise ValueError("时间表“自动加速人数”必须是整数") from None
    if below < 0 or below > rs.max_players:
        raise ValueError(f"时间表“自动加速人数”应在 0 到 {rs.max_players} 之间（0 为不自动加速）")
    out["auto_accelerate_below"] = below
    dawn = str(out.get("dawn_publish") or "").strip()
    if dawn and not _CLOCK.match(dawn):
        raise ValueError(f"时间表“黎明公示自动发布时间”格式应为 HH:MM（留空为导演手动发布）：{dawn[:20]}")
    out["dawn_publish"] = dawn


def next_clock(after: float, hour: int, minute: int, tz: ZoneInfo) -> float:
    """The first moment strictly after `after` whose local time is hour:minute."""
    local = datetime.fromtimestamp(after, tz)
    candidate = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if candidate.timestamp() <= after:
        candidate = (local + timedelta(days=1)).replace(hour=hour, minute=minute, second=0, microsecond=0)
    return candidate.timestamp()


def _hm(text: object) -> tuple[int, int]:
    h, m = (int(x) for x in str(text).split(":"))
    return h, m


def day_close_info(started: float, schedule: dict[str, Any], tz: ZoneInfo) -> tuple[float, bool]:
    """When a day closes, and whether the weekend lengthened it: the first day_end at least
    min_day_hours after it started; with weekend_extra_day, a close that falls on a Saturday or a
    Sunday moves one day on (seed 002: 一般讨论日持续一天，每逢周末时讨论日延长一天)."""
    h, m = _hm(schedule["day_end"])
    earliest = started + int(schedule["min_day_hours"]) * 3600
    close = next_clock(earliest - 1, h, m, tz)
    if schedule.get("weekend_extra_day") and datetime.fromtimestamp(close, tz).weekday() >= 5:
        return next_clock(close, h, m, tz), True
    return close, False


def day_close(started: float, schedule: dict[str, Any], tz: ZoneInfo) -> float:
    return day_close_info(started, schedule, tz)[0]


def _walk(start: float, entries: list[int | tuple[int, int] | None], tz: ZoneInfo) -> list[float]:
    out: list[float] = []
    prev = start
    for entry in entries:
        if isinstance(entry, tuple):
            prev = next_clock(prev - 1, entry[0], entry[1], tz)  # this clock time, or the next one
        elif entry is not None:
            prev = prev + entry * 60
        out.append(prev)
    return out


def window_minutes(schedule: dict[str, Any], closed_kind: str) -> int:
    """The settling window after a phase of kind `closed_kind` closes: every prompt the close
    raises (最后一枪, 装傻, 殉职, 指认) is answered inside it, and nothing of the settlement reaches
    the players before it ends, whether a prompt is pending or not (issue 22)."""
    key = "prompt_minutes_night" if closed_kind == NIGHT else "prompt_minutes_day"
    return int(schedule[key])


def stage_deadlines(
    night_start: float, schedule: dict[str, Any], tz: ZoneInfo, closed_at: float | None = None
) -> list[float]:
    """The night's plan: each stage's deadline when every stage runs its full length.

    `night_start` is when the night opens to the players (the day's close plus its settling
    window), `closed_at` when the day closed (default: `night_start`). Minute entries count from
    the night's start. Clock times belong to the evening whose day_end is nearest the close; a
    day that closed after that day_end (at 23:10, or at 03:00) shifts the night whole: the gaps
    between deadlines are kept and the first stage keeps its length from the day_end, so no stage
    passes in zero time. A day that closed earlier keeps the clock times; if the settling window
    would run past the first clock time, the night moves on by the window too."""
    closed = night_start if closed_at is None else closed_at
    entries = [parse_stage(v) for v in schedule["stages"]]
    if not any(isinstance(e, tuple) for e in entries):
        return _walk(night_start, entries, tz)
    h, m = _hm(schedule["day_end"])
    evening = next_clock(closed - _NIGHT_WINDOW, h, m, tz)
    shift = max(0.0, closed - evening)
    plan = [t + shift for t in _walk(evening, entries, tz)]
    if plan and plan[0] <= night_start:
        late = night_start - closed
        plan = [t + late for t in plan]
    return plan


def stage_due(plan: list[float], index: int, opened: float, waits: bool) -> float:
    """The deadline of night stage `index`, which opened at `opened`: its planned one; a stage
    that waits for the earlier ones and opened late gets its full length from the moment it
    opened (seed 002: 女巫<通灵>…收到反馈后半小时), never less than the plan."""
    planned = plan[min(max(index, 0), len(plan) - 1)]
    if index <= 0 or index >= len(plan) or not waits:
        return planned
    return max(planned, opened + (plan[index] - plan[index - 1]))


def auto_accelerate(schedule: dict[str, Any], state: GameState) -> bool:
    """加速 is due at the start of this day: fewer alive characters than the director's number
    (seed 002: 未出局角色减少到一定程度时，导演将自动执行加速; the seed names no number)."""
    below = int(schedule.get("auto_accelerate_below") or 0)
    if not below or state.over or state.phase.kind != DAY or state.settling or state.accelerated:
        return False
    return len(state.alive_names()) < below


def night_preview(rs: Ruleset, schedule: dict[str, Any], closed_at: float, tz: ZoneInfo) -> list[tuple[str, float]]:
    """Each night stage's name and planned deadline for a day closing at `closed_at` (what the
    director sees before closing the day): the night opens once the settling window has run."""
    night_start = closed_at + window_minutes(schedule, DAY) * 60
    plan = stage_deadlines(night_start, schedule, tz, closed_at)
    return [(stage.name, due) for stage, due in zip(rs.night_stages, plan, strict=False)]


def dawn_due(schedule: dict[str, Any], after: float, tz: ZoneInfo) -> float | None:
    """When a dawn 公示 pending since `after` is published by itself (the schedule's
    `dawn_publish` clock time, the first one after `after`); None: only by the director."""
    text = str(schedule.get("dawn_publish") or "")
    if not _CLOCK.match(text):
        return None
    h, m = _hm(text)
    return next_clock(after, h, m, tz)


def parse_local(text: str, tz: ZoneInfo) -> float:
    """A local date and time typed by the director ("2026-12-05 20:00" or the browser's
    "2026-12-05T20:00") as epoch seconds (Chinese ValueError when unreadable)."""
    raw = text.strip().replace("T", " ")
    for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"):
        try:
            return datetime.strptime(raw, fmt).replace(tzinfo=tz).timestamp()
        except ValueError:
            continue
    raise ValueError(f"时间格式应为 YYYY-MM-DD HH:MM：{raw[:30]}")


def local_text(ts: float, tz: ZoneInfo) -> str:
    return datetime.fromtimestamp(ts, tz).strftime("%Y-%m-%d %H:%M")
