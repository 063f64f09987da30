"""感染's thread conventions for the director service (seed 003), as data."""

from __future__ import annotations

from ..thread_policy import OPEN, ThreadPolicy, declare
from .rules import GANRAN

THREAD_POLICY = declare(
    GANRAN.id,
    ThreadPolicy(
        vote_visibility=OPEN,
        tally_in_result=True,  # votes are open posts: the result may list who voted whom
        # 白天 09:30 ~ 次日 21:30, 夜晚 21:30 ~ 次日 09:30; each night stage 10 minutes (declared on
        # the NightStage data). 如遇到节假日，游戏日可能有所延长: holidays, not weekends — the
        # director's call, so the weekend option stays off
        schedule={
            "start_minutes": 60,
            "day_end": "21:30",
            "min_day_hours": 30,
            "stages": 10,
            "prompt_minutes_day": 10,
            "prompt_minutes_night": 10,
            "weekend_extra_day": False,
            "auto_accelerate_below": 0,
        },
    ),
)
