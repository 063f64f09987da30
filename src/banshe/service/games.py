"""The director service's core, `GameService`: one object made of the parts below (mixins over
`store.Store`), so callers keep one name for it.

- store.py: transactions under a per-game lock, the cached state replayed from the stored
  commands, the one write path, creating games, the position mark (`at`), lookups;
- deadlines.py: the players' clock (settling windows, the dawn 公示, a scheduled start), the
  timetable's rows and the scheduler's firing (a long outage pauses the game), 延长 and moving one
  deadline, 申请加速 / 延时;
- holding.py: a player's skill through the players' gate, night windows (held skills), void
  skills aimed at a character whose out is not yet published;
- published.py (pure): what the players may see — every page, JSON and SSE message reads it;
- thread.py: the 讨论帖 (posts, votes, 改票 replies, the director's posts), group chats, 公示;
- direction.py: the director's commands, 潜水 flags, 替补, pause / resume / end;
- transfer.py: export and import.
"""

from __future__ import annotations

from .board import board_counts, check_board, counts_text
from .direction import Direction
from .errors import Conflict, NotFound, ServiceError
from .holding import Holding
from .store import MAX_NOTE, MAX_TEXT, MAX_TITLE, public_announcements
from .thread import Thread
from .transfer import Transfer

__all__ = [
    "MAX_NOTE",
    "MAX_TEXT",
    "MAX_TITLE",
    "Conflict",
    "GameService",
    "NotFound",
    "ServiceError",
    "board_counts",
    "check_board",
    "counts_text",
    "public_announcements",
]


class GameService(Thread, Holding, Direction, Transfer):
    """Every game's store, deadlines, thread, direction and transfer (see the modules above)."""
