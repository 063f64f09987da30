"""Tables of the forum desk (issue 14): a day counted from a Discuz! thread, the director's overrides."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Boolean, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base


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
