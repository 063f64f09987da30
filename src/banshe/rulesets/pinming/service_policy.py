"""品茗's thread conventions for the director service (seed 002), as data."""

from __future__ import annotations

from banshe.engine.commands import CARD_YELLOW

from ..thread_policy import OPEN, ThreadPolicy, declare
from .rules import PINMING

THREAD_POLICY = declare(
    PINMING.id,
    ThreadPolicy(
        vote_visibility=OPEN,
        no_change_minutes=60,  # 关门前一小时不允许改票或代投
        change_vote_reply=True,  # 【改票格式】改票需回复原投票楼层
        tally_in_result=True,  # votes are open posts: the result may list who voted whom
        # 潜水 (1) 未执行加速的讨论日不足五帖 (2) 连续三个…均不足十帖 (3) 未投票: 固定判罚一张黄牌
        lurk_min_posts=5,
        lurk_three_day_posts=10,
        lurk_no_vote=True,
        lurk_card=CARD_YELLOW,
        request_cutoff_minutes=180,  # 当日申请人数在讨论日结束三个小时前
        # 行动时限: 混血儿 一定时间内; 预言家/狼队 关门后一个小时; 女巫<通灵> 收到反馈后半小时;
        # 猎人、白痴、警长被投票出局者 关门十分钟内; 最后一枪 收到反馈后半小时.
        # 讨论日长短: 一般讨论日持续一天，每逢周末时讨论日延长一天; 未出局角色减少到一定程度时，
        # 导演将自动执行加速 (no number given: off until the director sets one)
        schedule={
            "start_minutes": 60,
            "day_end": "21:00",
            "min_day_hours": 12,
            "stages": [60, 0, 30],
            "prompt_minutes_day": 10,
            "prompt_minutes_night": 30,
            "weekend_extra_day": True,
            "auto_accelerate_below": 0,
        },
    ),
)
