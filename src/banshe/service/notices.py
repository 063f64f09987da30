"""The service's own 公示 lines: what the schedule decides that the engine never announces
(a day lengthened by 延时). Each is a thread post by the director marked `vote_kind == NOTICE_KIND`,
so it is stored, exported and imported with the thread and shown there as a 公示."""

from __future__ import annotations

import logging

from ..engine.commands import DIRECTOR
from .models import Post

NOTICE_KIND = "notice"
# a post the director writes himself (rule clarifications): author DIRECTOR, not a vote, no 潜水 count
DIRECTOR_POST_KIND = "director"
log = logging.getLogger("banshe.service")


def notice(game_id: int, phase: str, text: str, at: float) -> Post:
    """A 公示 line of the service (published at once: it states a schedule fact)."""
    log.info("game %s %s: %s", game_id, phase, text)
    return Post(
        game_id=game_id,
        author=DIRECTOR,
        phase=phase,
        text=text,
        vote_kind=NOTICE_KIND,
        vote_target=None,
        by_director=True,
        created_at=at,
    )
