"""The service's own 公示 lines: what the schedule or the director's records decide that the engine
never announces (a day lengthened by 延时, a 替补). Each is a thread post by the director marked by
its `vote_kind`, so it is stored, exported and imported with the thread and shown there as a 公示.

Like the engine's 公示 it goes through the director's review (issue 24): it waits as
NOTICE_PENDING (or NOTICE_WITHHELD when he holds it back), seen by the director alone, until he
publishes it; its floor's time is then the publication's. A game with 公示自动发布 publishes it
at once (NOTICE_KIND)."""

from __future__ import annotations

import logging

from sqlalchemy import BindParameter, Integer, bindparam, func, select
from sqlalchemy.orm import Session

from ..engine.commands import DIRECTOR
from .models import Post

NOTICE_KIND = "notice"  # published
NOTICE_PENDING = "notice-pending"  # waiting for the director's review
NOTICE_WITHHELD = "notice-held"  # kept back by the director (扣留)
UNPUBLISHED_NOTICES = (NOTICE_PENDING, NOTICE_WITHHELD)
NOTICE_KINDS = (NOTICE_KIND, *UNPUBLISHED_NOTICES)
# a post the director writes himself (rule clarifications): author DIRECTOR, not a vote, no 潜水 count
DIRECTOR_POST_KIND = "director"
log = logging.getLogger("banshe.service")


def notice(game_id: int, phase: str, text: str, at: float, published: bool = True) -> Post:
    """A 公示 line of the service (`published`: at once, for a game whose 公示 are published
    without review; else it waits for the director)."""
    log.info("game %s %s: %s", game_id, phase, text)
    return Post(
        game_id=game_id,
        author=DIRECTOR,
        phase=phase,
        text=text,
        vote_kind=NOTICE_KIND if published else NOTICE_PENDING,
        vote_target=None,
        by_director=True,
        created_at=at,
    )


def publish_notices(s: Session, game_id: int, now: float, created_by: float | None = None) -> int:
    """Publish the pending (not withheld) notices, those created by `created_by` only when given
    (发布到此条: the notices that came before the chosen 公示); their floors take the time `now`."""
    query = select(Post).where(Post.game_id == game_id, Post.vote_kind == NOTICE_PENDING)
    if created_by is not None:
        query = query.where(Post.created_at <= created_by)
    rows = list(s.scalars(query))
    for row in rows:
        row.vote_kind, row.created_at = NOTICE_KIND, now
    return len(rows)


_GAME: BindParameter[int] = bindparam("game_id", type_=Integer)
_PUBLISHED_NOTICES = select(func.count(Post.id)).where(Post.game_id == _GAME, Post.vote_kind == NOTICE_KIND)


def published_notices(s: Session, game_id: int) -> int:
    return int(s.scalar(_PUBLISHED_NOTICES, {"game_id": game_id}) or 0)
