"""Deadline arithmetic and default schedules (pure)."""

from __future__ import annotations

import pytest

from banshe.engine.registry import find_ruleset
from banshe.engine.ruleset import NightStage, Ruleset
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


def test_other_rulesets_get_their_seed_defaults_whatever_their_stage_count() -> None:
    assert sched.default_schedule(_fake("感染", 6))["stages"] == [10] * 6
    assert sched.default_schedule(_fake("沉寂与取酒", 5))["stages"] == ["21:45", "22:00", "22:15", "22:30", "22:45"]
    assert sched.default_schedule(_fake("沉寂与取酒", 3))["stages"] == [30, 30, 30]
    assert sched.default_schedule(_fake("别的", 2, ("22:10", "")))["stages"] == ["22:10", 30]


def test_clock_time_stages() -> None:
    schedule = {**sched.default_schedule(_fake("沉寂与取酒", 5))}
    on_time = sched.stage_deadlines(shanghai(2026, 12, 2, 21, 30), schedule, SHANGHAI)
    assert on_time[0] == shanghai(2026, 12, 2, 21, 45) and on_time[-1] == shanghai(2026, 12, 2, 22, 45)
    # a late close makes a passed stage due at once, not tomorrow
    late = sched.stage_deadlines(shanghai(2026, 12, 2, 21, 50), schedule, SHANGHAI)
    assert late[0] == shanghai(2026, 12, 2, 21, 50) and late[1] == shanghai(2026, 12, 2, 22)


def test_day_close() -> None:
    schedule = sched.default_schedule(find_ruleset("品茗"))
    assert sched.day_close(shanghai(2026, 12, 1, 8), schedule, SHANGHAI) == shanghai(2026, 12, 1, 21)
    assert sched.day_close(shanghai(2026, 12, 1, 11), schedule, SHANGHAI) == shanghai(2026, 12, 2, 21)
    infection = sched.default_schedule(_fake("感染", 1))
    assert sched.day_close(shanghai(2026, 12, 1, 9, 30), infection, SHANGHAI) == shanghai(2026, 12, 2, 21, 30)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"day_end": "9点"}, "HH:MM"),
        ({"stages": [60, "明早"]}, "个阶段"),
        ({"stages": [60, 0, "明早"]}, "无法识别"),
        ({"start_minutes": -5}, "不能为负数"),
        ({"min_day_hours": "许久"}, "必须是整数"),
    ],
)
def test_bad_schedules_are_refused(change: dict[str, object], reason: str) -> None:
    with pytest.raises(ValueError) as err:
        sched.validate_schedule(find_ruleset("品茗"), change)
    assert reason in str(err.value)
