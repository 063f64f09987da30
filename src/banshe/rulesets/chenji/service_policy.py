"""沉寂与取酒's thread conventions for the director service (seed 000), as data."""

from __future__ import annotations

from ..thread_policy import DIRECTOR_LARGE, HALF_PUBLIC, ThreadPolicy, declare
from .rules import CHENJI

THREAD_POLICY = declare(
    CHENJI.id,
    ThreadPolicy(
        vote_visibility=HALF_PUBLIC,  # counted half-publicly: vote posts hidden while voting
        director_font=DIRECTOR_LARGE,  # players may write in red: the 公示 body is set in size 6
        # 特权行使时间: each skill from the night's start until its own deadline (21:45 守卫, 22:00
        # 吹笛者/修女卫道, 22:15 预言…); 女巫 (22:30) and 纯真/救赎 (22:45) answer the 指杀 and wait
        night_windows=("2145", "2200", "2215"),
        # 特权行使时间: 最后一枪/装傻 21:40 之前, night stages 21:45 … 22:45 (declared on the
        # NightStage data); the seed gives no weekend rule and no automatic 加速
        schedule={
            "start_minutes": 60,
            "day_end": "21:30",
            "min_day_hours": 12,
            "prompt_minutes_day": 10,
            "prompt_minutes_night": 30,
            "weekend_extra_day": False,
            "auto_accelerate_below": 0,
        },
    ),
)
