"""Deadline arithmetic and default schedules (pure)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from banshe.engine.ruleset import NightStage, Ruleset
from banshe.rulesets.registry import find_ruleset
from banshe.service import schedule as sched

from .conftest import SHANGHAI, shanghai


def _fake(name: str, stages: int, deadlines: tuple[str, ...] = ()) -> Ruleset:
    night = tuple(
        NightStage(f"s{i}", f"阶段{i}", frozenset(), deadline=deadlines[i] if i < len(deadlines) else "")
        for i in range(stages)
    )
    return Ruleset(id=f"fake{stages}", name=name, night_stages=night)


def test_pinming_defaults_follow_the_seed() -> None:
    schedule = sched.default_schedule(find_ruleset("品茗"))
    assert schedule["stages"] == [60, 0, 30]
    assert schedule["day_end"] == "21:00" and schedule["prompt_minutes_day"] == 10
    night = shanghai(2026, 12, 2, 21)
    assert sched.stage_deadlines(night, schedule, SHANGHAI) == [
        shanghai(2026, 12, 2, 22),
        shanghai(2026, 12, 2, 22),
        shanghai(2026, 12, 2, 22, 30),
    ]


def test_each_ruleset_declares_its_policy_and_defaults() -> None:
    pinming = sched.policy_for(find_ruleset("品茗"))
    assert (pinming.no_change_minutes, pinming.lurk_min_posts, pinming.request_cutoff_minutes) == (60, 5, 180)
    assert sched.policy_for(find_ruleset("沉寂与取酒")).vote_visibility == "half_public"
    assert sched.policy_for(find_ruleset("感染")).vote_visibility == "open"
    assert sched.default_schedule(find_ruleset("感染"))["stages"] == ["10分钟"] * 6
    assert sched.default_schedule(find_ruleset("沉寂与取酒"))["stages"] == ["21:45", "22:00", "22:15", "22:30", "22:45"]
    assert sched.default_schedule(find_ruleset("品茗"))["weekend_extra_day"] is True  # 每逢周末时讨论日延长一天
    assert sched.default_schedule(find_ruleset("沉寂与取酒"))["weekend_extra_day"] is False
    # the policy is looked up by ruleset id, never by a Chinese name
    assert sched.policy_for(_fake("品茗", 3)) == sched.Policy()
    assert sched.default_schedule(_fake("沉寂与取酒", 3))["stages"] == [30, 30, 30]
    assert sched.default_schedule(_fake("别的", 2, ("22:10", "")))["stages"] == ["22:10", 30]


def test_the_rulesets_policies_are_pure_data() -> None:
    code = "import sys, banshe.rulesets; bad = {'fastapi', 'sqlalchemy', 'starlette'} & set(sys.modules); print(bad)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "set()"


def test_clock_time_stages() -> None:
    schedule = sched.default_schedule(find_ruleset("沉寂与取酒"))
    on_time = sched.stage_deadlines(shanghai(2026, 12, 2, 21, 30), schedule, SHANGHAI)
    assert on_time == [
        shanghai(2026, 12, 2, 21, 45 + 15 * i) if i == 0 else shanghai(2026, 12, 2, 22, 15 * (i - 1)) for i in range(5)
    ]
    # an early close keeps the clock times
    early = sched.stage_deadlines(shanghai(2026, 12, 2, 15), schedule, SHANGHAI)
    assert early[0] == shanghai(2026, 12, 2, 21, 45) and early[-1] == shanghai(2026, 12, 2, 22, 45)


@pytest.mark.parametrize(
    ("closed", "first"),
    [
        ((2026, 12, 2, 23, 10), (2026, 12, 2, 23, 25)),  # late in the evening
        ((2026, 12, 3, 3, 0), (2026, 12, 3, 3, 15)),  # early in the morning
        ((2026, 12, 2, 21, 50), (2026, 12, 2, 22, 5)),  # just after the first stage's clock time
    ],
)
def test_a_late_night_is_shifted_whole(closed: tuple[int, ...], first: tuple[int, ...]) -> None:
    schedule = sched.default_schedule(find_ruleset("沉寂与取酒"))
    start = shanghai(*closed)
    plan = sched.stage_deadlines(start, schedule, SHANGHAI)
    # the first stage keeps its 15 minutes (21:30 → 21:45), every gap is kept
    assert plan == [shanghai(*first) + 15 * 60 * i for i in range(5)]
    assert all(due > start for due in plan)


def test_a_waiting_stage_gets_its_length_from_when_it_opens() -> None:
    pinming = find_ruleset("品茗")
    schedule = sched.default_schedule(pinming)
    night = shanghai(2026, 12, 2, 21, 10)  # the day closed at 21:00; its settling window ran ten minutes
    plan = sched.stage_deadlines(night, schedule, SHANGHAI, shanghai(2026, 12, 2, 21))
    assert plan == [shanghai(2026, 12, 2, 22, 10), shanghai(2026, 12, 2, 22, 10), shanghai(2026, 12, 2, 22, 40)]
    # the 预言家 and 狼人 stages open with the night: their planned deadlines
    assert sched.stage_due(plan, 0, night, waits=False) == shanghai(2026, 12, 2, 22, 10)
    assert sched.stage_due(plan, 1, shanghai(2026, 12, 2, 21, 30), waits=False) == shanghai(2026, 12, 2, 22, 10)
    # the 女巫: 收到反馈后半小时 — half an hour after the 狼人 stage closed late …
    late = shanghai(2026, 12, 2, 22, 50)
    assert sched.stage_due(plan, 2, late, waits=True) == shanghai(2026, 12, 2, 23, 20)
    # … and never before the plan when it closed early: the night's end never moves earlier
    early = shanghai(2026, 12, 2, 21, 20)
    assert sched.stage_due(plan, 2, early, waits=True) == shanghai(2026, 12, 2, 22, 40)
    # 沉寂与取酒: a waiting clock-time stage gets its 15 minutes, never closing before its clock time
    chenji = find_ruleset("沉寂与取酒")
    cs = sched.default_schedule(chenji)
    cplan = sched.stage_deadlines(shanghai(2026, 12, 2, 21, 40), cs, SHANGHAI, shanghai(2026, 12, 2, 21, 30))
    assert cplan[0] == shanghai(2026, 12, 2, 21, 45) and cplan[-1] == shanghai(2026, 12, 2, 22, 45)
    assert sched.stage_due(cplan, 2, shanghai(2026, 12, 2, 22, 20), waits=True) == shanghai(2026, 12, 2, 22, 35)
    assert sched.stage_due(cplan, 2, shanghai(2026, 12, 2, 21, 50), waits=True) == shanghai(2026, 12, 2, 22, 15)


def test_the_settling_window_never_swallows_the_first_clock_time() -> None:
    chenji = find_ruleset("沉寂与取酒")
    cs = {**sched.default_schedule(chenji), "prompt_minutes_day": 20}
    # a window of twenty minutes after a 21:30 close passes 21:45: the night moves on by it
    plan = sched.stage_deadlines(shanghai(2026, 12, 2, 21, 50), cs, SHANGHAI, shanghai(2026, 12, 2, 21, 30))
    assert plan[0] == shanghai(2026, 12, 2, 22, 5) and plan[-1] == shanghai(2026, 12, 2, 23, 5)
    assert sched.window_minutes(cs, "day") == 20 and sched.window_minutes(cs, "night") == 30


def test_preview_of_the_night() -> None:
    rs = find_ruleset("沉寂与取酒")
    plan = sched.night_preview(rs, sched.default_schedule(rs), shanghai(2026, 12, 2, 23, 10), SHANGHAI)
    assert [name for name, _ in plan] == [stage.name for stage in rs.night_stages]
    assert plan[0][1] == shanghai(2026, 12, 2, 23, 25) and plan[-1][1] == shanghai(2026, 12, 3, 0, 25)


def test_day_close() -> None:
    schedule = sched.default_schedule(find_ruleset("品茗"))
    assert sched.day_close(shanghai(2026, 12, 1, 8), schedule, SHANGHAI) == shanghai(2026, 12, 1, 21)
    assert sched.day_close(shanghai(2026, 12, 1, 11), schedule, SHANGHAI) == shanghai(2026, 12, 2, 21)
    infection = sched.default_schedule(find_ruleset("感染"))
    assert sched.day_close(shanghai(2026, 12, 1, 9, 30), infection, SHANGHAI) == shanghai(2026, 12, 2, 21, 30)


def test_weekend_days_last_a_day_longer() -> None:
    schedule = sched.default_schedule(find_ruleset("品茗"))
    # 2026-12-04 is a Friday: the day would close on Saturday and closes on Sunday instead
    assert sched.day_close_info(shanghai(2026, 12, 4, 22, 30), schedule, SHANGHAI) == (shanghai(2026, 12, 6, 21), True)
    # a day that would close on a Sunday closes on Monday
    assert sched.day_close_info(shanghai(2026, 12, 5, 22, 30), schedule, SHANGHAI) == (shanghai(2026, 12, 7, 21), True)
    # weekdays, and the option off
    assert sched.day_close_info(shanghai(2026, 12, 3, 22, 30), schedule, SHANGHAI) == (shanghai(2026, 12, 4, 21), False)
    off = {**schedule, "weekend_extra_day": False}
    assert sched.day_close(shanghai(2026, 12, 4, 22, 30), off, SHANGHAI) == shanghai(2026, 12, 5, 21)
    # a schedule stored before the option existed keeps its old length
    old = {k: v for k, v in schedule.items() if k != "weekend_extra_day"}
    assert sched.day_close(shanghai(2026, 12, 4, 22, 30), old, SHANGHAI) == shanghai(2026, 12, 5, 21)


def test_day_options_are_read_and_checked() -> None:
    rs = find_ruleset("品茗")
    assert sched.validate_schedule(rs, {})["auto_accelerate_below"] == 0
    out = sched.validate_schedule(rs, {"weekend_extra_day": "0", "auto_accelerate_below": "7"})
    assert out["weekend_extra_day"] is False and out["auto_accelerate_below"] == 7
    assert sched.validate_schedule(rs, {"weekend_extra_day": "是"})["weekend_extra_day"] is True


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"day_end": "9点"}, "HH:MM"),
        ({"stages": [60, "明早"]}, "个阶段"),
        ({"stages": [60, 0, "明早"]}, "无法识别"),
        ({"start_minutes": -5}, "不能为负数"),
        ({"min_day_hours": "许久"}, "必须是整数"),
        ({"weekend_extra_day": "周末"}, "是 或 否"),
        ({"auto_accelerate_below": "几个"}, "必须是整数"),
        ({"auto_accelerate_below": -1}, "0 到"),
        ({"auto_accelerate_below": 999}, "0 到"),
    ],
)
def test_bad_schedules_are_refused(change: dict[str, object], reason: str) -> None:
    with pytest.raises(ValueError) as err:
        sched.validate_schedule(find_ruleset("品茗"), change)
    assert reason in str(err.value)
