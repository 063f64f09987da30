"""How a ruleset's thread is run by a director: forum conventions the engine does not model.

Each ruleset package declares one `ThreadPolicy` (pure data: no web, database or clock) in its
`service_policy` module; the director service (`banshe.service.schedule`) reads it by ruleset id.
A ruleset that declares none gets `ThreadPolicy()` (open votes, no 潜水 checks, the generic
schedule).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

OPEN = "open"  # vote posts show as posted
HALF_PUBLIC = "half_public"  # vote posts hidden until the day closes
# the font the rules reserve for the director's 公示 (its BBCode body): red #FF0000 (品茗 违规判定
# 6(1): players may use neither red nor size 6), or size 6 where players may write in red (沉寂与取酒)
DIRECTOR_RED = "red"
DIRECTOR_LARGE = "large"


@dataclass(frozen=True)
class ThreadPolicy:
    vote_visibility: str = OPEN
    no_change_minutes: int = 0  # no 改票 / 代投 in the last N minutes of a day
    change_vote_reply: bool = False  # a 改票 must reply to the voter's own vote floor
    tally_in_result: bool = False  # the day's vote result 公示 lists the 票型 (who voted whom)
    lurk_min_posts: int = 0  # 潜水: fewer posts than this on a day that was not accelerated
    lurk_three_day_posts: int = 0  # 潜水: three such days in a row under this many posts
    lurk_no_vote: bool = False  # 潜水: no vote on a day that was not accelerated
    lurk_card: str = "card_yellow"
    request_cutoff_minutes: int = 0  # 加速/延时 requests count until N minutes before the day ends
    director_font: str = DIRECTOR_RED  # the 公示's BBCode body (DIRECTOR_RED or DIRECTOR_LARGE)
    # night windows (沉寂与取酒 rulings of 2026-12-04): the ids of the night stages whose skills may
    # be posted from the night's start until their own deadline; one posted before its stage opens
    # is held and applied when it opens, in arrival order (the night settles in deadline order).
    # A stage that waits (not opening with the night, not listed) opens when the earlier deadline
    # passes or once every input of the earlier stages is in. Empty: stage by stage.
    night_windows: tuple[str, ...] = ()
    # the default schedule's entries (see banshe.service.schedule): start_minutes, day_end,
    # min_day_hours, stages (a list, one per night stage, or one value for all), prompt_minutes_day,
    # prompt_minutes_night, weekend_extra_day, auto_accelerate_below; a missing key takes the
    # service's generic value, and a deadline a NightStage declares takes precedence over stages
    schedule: Mapping[str, Any] = field(default_factory=dict)


_DECLARED: dict[str, ThreadPolicy] = {}


def declare(ruleset_id: str, policy: ThreadPolicy) -> ThreadPolicy:
    """Record `policy` as the thread policy of the ruleset `ruleset_id` (once per package import)."""
    _DECLARED[ruleset_id] = policy
    return policy


def declared(ruleset_id: str) -> ThreadPolicy | None:
    return _DECLARED.get(ruleset_id)
