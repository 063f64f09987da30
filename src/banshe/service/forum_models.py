"""Tables of the forum desk: a day counted from a Discuz! thread, the director's overrides (issue 14);
a game played on a forum thread and the 公示 posted there (issue 23)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Boolean, Float, ForeignKey, Integer, String, Text, UniqueConstraint, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from ..engine.commands import CLOSE_PHASE, CLOSE_STAGE
from ..engine.model import DAY, GameState
from .models import Base, Game


class ForumDay(Base):
    """One reading of a thread for one day: banshe forum count's result, kept as it was read."""

    __tablename__ = "forum_days"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    phase: Mapped[str] = mapped_column(String(32))
    source: Mapped[str] = mapped_column(Text)  # the address, or the uploaded pages' names
    result: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[float] = mapped_column(Float)
    applied_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    # manual (pages or an address read by hand) | live (the desk's re-reading of a forum game's
    # day, updated in place) | final (read at the day's deadline, for review)
    mode: Mapped[str] = mapped_column(String(16), default="manual", server_default="manual")


class ForumOverride(Base):
    """The director's verdict on one floor, with the note kept in the log."""

    __tablename__ = "forum_overrides"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    forum_day_id: Mapped[int] = mapped_column(ForeignKey("forum_days.id"), index=True)
    floor: Mapped[int] = mapped_column(Integer)
    accept: Mapped[bool] = mapped_column(Boolean)
    kind: Mapped[str] = mapped_column(String(16))  # 投票 | 改票
    target: Mapped[str] = mapped_column(String(64), default="")
    note: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float)


class ForumLink(Base):
    """A game played on a forum thread (issue 23): the thread, the director's forum account (its
    password sealed with the server's key, never shown, logged or exported), how often the desk
    re-reads the thread, and the day whose deadline passed while its count waits for review."""

    __tablename__ = "forum_links"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), unique=True)
    thread_url: Mapped[str] = mapped_column(Text)
    account: Mapped[str] = mapped_column(String(64))
    sealed_password: Mapped[str] = mapped_column(Text)
    poll_minutes: Mapped[int] = mapped_column(Integer, default=3)
    auto_close: Mapped[bool] = mapped_column(Boolean, default=False)  # close the day without review
    created_at: Mapped[float] = mapped_column(Float)
    read_at: Mapped[float | None] = mapped_column(Float, nullable=True)  # the last reading (or attempt)
    read_error: Mapped[str | None] = mapped_column(Text, nullable=True)  # its failure, shown on the desk
    claimed_until: Mapped[float | None] = mapped_column(Float, nullable=True)  # a poller is reading
    held_phase: Mapped[str | None] = mapped_column(String(32), nullable=True)  # the day waiting for review
    held_close: Mapped[float | None] = mapped_column(Float, nullable=True)  # its deadline


class ForumPublication(Base):
    """One 公示 posted to the forum thread by the service: claimed before posting (unique per
    公示), so a second click never posts it twice; the forum's own post is kept."""

    __tablename__ = "forum_publications"
    __table_args__ = (UniqueConstraint("game_id", "idx", name="uq_forum_publications_game_idx"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    idx: Mapped[int] = mapped_column(Integer)  # Announcement.idx
    status: Mapped[str] = mapped_column(String(16))  # posting | posted | failed
    url: Mapped[str | None] = mapped_column(Text, nullable=True)
    pid: Mapped[int | None] = mapped_column(Integer, nullable=True)
    floor: Mapped[int | None] = mapped_column(Integer, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    posted_at: Mapped[float | None] = mapped_column(Float, nullable=True)


# -- what the rest of the service asks of a forum game (deadlines.py, direction.py) -------------
def forum_link(s: Session, game_id: int) -> ForumLink | None:
    return s.scalar(select(ForumLink).where(ForumLink.game_id == game_id))


def hold_day_close(s: Session, game: Game, state: GameState, skill: str, due: float) -> bool:
    """The scheduler's day close in a forum game: the day waits for the thread's count (read at
    the deadline by the poller) and the director's review, instead of closing with banshe's own
    (empty) thread. Returns True when the close is held."""
    if skill not in (CLOSE_PHASE, CLOSE_STAGE) or state.phase.kind != DAY or state.settling or state.prompts:
        return False
    link = forum_link(s, game.id)
    if link is None:
        return False
    link.held_phase = state.phase.label
    link.held_close = due
    link.read_at = None  # read it now, with the deadline as the close
    return True


def forum_day_counts(s: Session, game_id: int, phase: str) -> tuple[dict[str, int], list[tuple[str, str]]] | None:
    """A forum game's closing day: the post counts and the 潜水 cases of the thread's count (the
    reading applied, else the latest one), or None for a game not played on a forum. A forum
    game with no reading of the day has no counts and no 潜水 cases."""
    if forum_link(s, game_id) is None:
        return None
    days = s.scalars(
        select(ForumDay).where(ForumDay.game_id == game_id, ForumDay.phase == phase).order_by(ForumDay.id.desc())
    ).all()
    chosen = next((d for d in days if d.applied_at is not None), days[0] if days else None)
    if chosen is None:
        return {}, []
    result = chosen.result
    lurk = [(str(f["player"]), str(f["detail"])) for f in result.get("flags", []) if f.get("rule") == "潜水"]
    return {str(k): int(v) for k, v in result.get("post_counts", {}).items()}, lurk
