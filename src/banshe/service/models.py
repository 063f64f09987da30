"""The service's tables (SQLAlchemy 2). The schema itself is created by the Alembic migrations.

Times are epoch seconds (float, UTC), so SQLite and PostgreSQL store them alike.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Boolean, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Setting(Base):
    __tablename__ = "settings"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Director(Base):
    __tablename__ = "directors"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[float] = mapped_column(Float)


class WebSession(Base):
    __tablename__ = "web_sessions"
    token: Mapped[str] = mapped_column(String(64), primary_key=True)
    director_id: Mapped[int] = mapped_column(ForeignKey("directors.id"))
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[float] = mapped_column(Float)
    last_used_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class Game(Base):
    __tablename__ = "games"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    director_id: Mapped[int] = mapped_column(ForeignKey("directors.id"))
    ruleset: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    players: Mapped[list[str]] = mapped_column(JSON)
    roles: Mapped[dict[str, str] | None] = mapped_column(JSON, nullable=True)
    schedule: Mapped[dict[str, Any]] = mapped_column(JSON)
    timezone: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), default="running")  # running | paused | ended
    paused_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    auto_publish: Mapped[bool] = mapped_column(Boolean, default=False)
    phase_label: Mapped[str] = mapped_column(String(32), default="")
    phase_started_at: Mapped[float] = mapped_column(Float)
    created_at: Mapped[float] = mapped_column(Float)
    # the director's choices about the game itself, e.g. {"custom_board": true} (自定义板子)
    settings: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # what the players see of the game's clock (issue 22, published.py / deadlines.py): the phase
    # they are in, whether it is settling (closed, its results not yet released), since when
    public_label: Mapped[str] = mapped_column(String(32), default="开局")
    public_settling: Mapped[bool] = mapped_column(Boolean, default=False)
    public_since: Mapped[float] = mapped_column(Float, default=0.0)
    # while a settling window runs: the engine log's length at the close (later events wait)
    held_log: Mapped[int | None] = mapped_column(Integer, nullable=True)
    closed_at: Mapped[float | None] = mapped_column(Float, nullable=True)  # the last phase close
    start_at: Mapped[float | None] = mapped_column(Float, nullable=True)  # a scheduled start (开局)
    dawn_at: Mapped[float | None] = mapped_column(Float, nullable=True)  # the next dawn's automatic 公示


class UploadedBoard(Base):
    """A board file a director uploaded (issue 27): its games name it by `id` (`upload-` and the
    text's hash), so the same text uploaded twice is one board; kept for as long as its games."""

    __tablename__ = "uploaded_boards"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    director_id: Mapped[int] = mapped_column(ForeignKey("directors.id"), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    filename: Mapped[str] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float)


class Seat(Base):
    __tablename__ = "seats"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    name: Mapped[str] = mapped_column(String(64))
    token: Mapped[str] = mapped_column(String(64), unique=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[float] = mapped_column(Float)
    person: Mapped[str | None] = mapped_column(String(64), nullable=True)  # who plays it (替补: the new person)


class CommandRow(Base):
    """Every accepted command, in order; `superseded` when a player replaced it before its deadline."""

    __tablename__ = "commands"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_commands_game_seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    actor: Mapped[str] = mapped_column(String(64))
    skill: Mapped[str] = mapped_column(String(64))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    phase: Mapped[str] = mapped_column(String(32))
    stage: Mapped[int] = mapped_column(Integer, default=0)
    source: Mapped[str] = mapped_column(String(16))  # player | director | scheduler
    superseded: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[float] = mapped_column(Float)
    note: Mapped[str | None] = mapped_column(Text, nullable=True)  # the director's reason (判罚理由)
    # a director's command: the service's records before it, for 撤销 (direction.py `undo`)
    undo: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class Post(Base):
    __tablename__ = "posts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    author: Mapped[str] = mapped_column(String(64))
    phase: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text)
    vote_kind: Mapped[str | None] = mapped_column(String(16), nullable=True)
    vote_target: Mapped[str | None] = mapped_column(String(64), nullable=True)
    by_director: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[float] = mapped_column(Float)
    # the post this one replies to (回复 N楼: a 改票 replies to its author's vote floor)
    reply_to: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # a vote whose target (or voter) is out without the out published: accepted as a post, void
    # in the count (the engine got 弃权), the reason told once the out is published (issue 22)
    void: Mapped[str | None] = mapped_column(Text, nullable=True)


class RefusedPost(Base):
    """A thread post the rules refused as speech (沉寂与取酒's 癫狂 rule): kept for the director's
    review, never shown in the thread nor counted as a post (rulings 2026-12-04)."""

    __tablename__ = "refused_posts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    author: Mapped[str] = mapped_column(String(64))
    phase: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float)


class GroupMessage(Base):
    __tablename__ = "group_messages"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    group_name: Mapped[str] = mapped_column(String(64))
    author: Mapped[str] = mapped_column(String(64))
    phase: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float)


class Announcement(Base):
    """The game's 公示 (public announce events) as the director approves them: `idx` counts them in order."""

    __tablename__ = "announcements"
    __table_args__ = (UniqueConstraint("game_id", "idx", name="uq_announcements_game_idx"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    idx: Mapped[int] = mapped_column(Integer)
    phase: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[float] = mapped_column(Float)
    published_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    text: Mapped[str | None] = mapped_column(Text, nullable=True)  # the director's edit (None: the engine's text)
    withheld: Mapped[bool] = mapped_column(Boolean, default=False)  # kept back: not published until released


class Deadline(Base):
    __tablename__ = "deadlines"
    __table_args__ = (UniqueConstraint("game_id", "key", name="uq_deadlines_game_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    key: Mapped[str] = mapped_column(String(128))
    skill: Mapped[str] = mapped_column(String(32))  # close_stage | close_phase | prompt_timeout
    label: Mapped[str] = mapped_column(String(64))
    due_at: Mapped[float] = mapped_column(Float, index=True)
    fired_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    cancelled: Mapped[bool] = mapped_column(Boolean, default=False)


class HeldCommand(Base):
    """A player's night skill the engine has not taken (issue 22): `held` — posted before its
    stage opens (night windows: applied when the stage opens, in arrival order); `void` — aimed
    at a character whose out is not yet published (the reason is told once it is); `applied`,
    `refused` (by the engine when its stage opened) or `replaced` once settled."""

    __tablename__ = "held_commands"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    actor: Mapped[str] = mapped_column(String(64))
    skill: Mapped[str] = mapped_column(String(64))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    phase: Mapped[str] = mapped_column(String(32))
    stage: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))  # held | void | applied | refused | replaced
    reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    settled_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class PlayerNotice(Base):
    """A private notice from the director to one character (a card and its reason, issue 22)."""

    __tablename__ = "player_notices"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    player: Mapped[str] = mapped_column(String(64))
    phase: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float)
    command_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the command it came with


class PlayerRequest(Base):
    """加速 / 延时 applications, one per character, kind and day."""

    __tablename__ = "player_requests"
    __table_args__ = (UniqueConstraint("game_id", "phase", "player", "kind", name="uq_requests"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    phase: Mapped[str] = mapped_column(String(32))
    player: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[float] = mapped_column(Float)


class DayRecord(Base):
    """Each closed day's post counts and whether it is exempt from 潜水 (`accelerated`: the day
    ran under 执行加速, or was closed before its 关门 time)."""

    __tablename__ = "day_records"
    __table_args__ = (UniqueConstraint("game_id", "phase", name="uq_day_records"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    phase: Mapped[str] = mapped_column(String(32))
    accelerated: Mapped[bool] = mapped_column(Boolean)
    counts: Mapped[dict[str, int]] = mapped_column(JSON)
    created_at: Mapped[float] = mapped_column(Float)


class LurkFlag(Base):
    """A 潜水 case flagged to the director with the proposed card."""

    __tablename__ = "lurk_flags"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    phase: Mapped[str] = mapped_column(String(32))
    player: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(String(200))
    card: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16), default="pending")  # pending | issued | dismissed
    created_at: Mapped[float] = mapped_column(Float)


class Submission(Base):
    """A form's idempotency key, stored in the transaction that stored what the form asked for: a
    resend (its response was lost) finds it and gets the original result instead of a second copy."""

    __tablename__ = "submissions"
    __table_args__ = (UniqueConstraint("game_id", "key", name="uq_submissions_game_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    key: Mapped[str] = mapped_column(String(64))
    result: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[float] = mapped_column(Float)
