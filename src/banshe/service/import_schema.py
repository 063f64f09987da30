"""The structure an imported game file must have (pydantic, checked before anything is replayed).

Every string is bounded and free of NUL bytes (PostgreSQL refuses them), every number fits its
column, every list is bounded; a file that does not match is refused with the field named.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

MAX_IMPORT_BYTES = 8 * 1024 * 1024
MAX_ROWS = 100_000


def _no_nul(text: str) -> str:
    if "\x00" in text:
        raise ValueError("NUL")
    return text


def _finite(value: float | None) -> float | None:
    if value is not None and not math.isfinite(value):
        raise ValueError("not finite")
    return value


def Text(limit: int) -> Any:  # noqa: N802 - a type factory
    return Annotated[str, Field(max_length=limit), AfterValidator(_no_nul)]


Time = Annotated[float | None, AfterValidator(_finite)]
Scalar = bool | int | str | float | None


class _Row(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=False)


class CommandPayload(_Row):
    """A command as `Command.to_json` writes it: checked for every entry, the superseded ones too
    (they are stored and shown in the log even though they are not replayed)."""

    actor: Text(64)  # type: ignore[valid-type]
    skill: Text(64)  # type: ignore[valid-type]
    targets: list[Text(64)] | None = Field(None, max_length=100)  # type: ignore[valid-type]
    text: Text(5000) | None = None  # type: ignore[valid-type]
    answer: bool | None = None
    amount: int | None = Field(None, ge=-(2**31), lt=2**31)


class CommandEntry(_Row):
    seq: int | None = Field(None, ge=0, lt=2**31)
    command: CommandPayload
    phase: Text(32) = ""  # type: ignore[valid-type]
    stage: int = Field(0, ge=0, lt=1000)
    source: Text(16) = "import"  # type: ignore[valid-type]
    superseded: bool = False
    at: Time = None
    note: Text(500) | None = None  # type: ignore[valid-type]  # a penalty's reason


class SeatEntry(_Row):
    """Who played a character (a 替补 adds a second entry for the same name)."""

    name: Text(64)  # type: ignore[valid-type]
    person: Text(64) | None = None  # type: ignore[valid-type]
    active: bool = True
    at: Time = None


class AnnouncementEntry(_Row):
    """A 公示 with its times (its place among the posts), the director's edit and withholding."""

    idx: int = Field(0, ge=0, lt=2**31)
    phase: Text(32) = ""  # type: ignore[valid-type]
    created_at: Time = None
    published_at: Time = None
    withheld: bool = False
    text: Text(5000) | None = None  # type: ignore[valid-type]
    original: Text(5000) | None = None  # type: ignore[valid-type]


class PostEntry(_Row):
    author: Text(64)  # type: ignore[valid-type]
    phase: Text(32)  # type: ignore[valid-type]
    text: Text(5000)  # type: ignore[valid-type]
    vote_kind: Text(16) | None = None  # type: ignore[valid-type]
    vote_target: Text(64) | None = None  # type: ignore[valid-type]
    by_director: bool = False
    at: Time = None
    reply_to: int | None = Field(None, ge=0, lt=MAX_ROWS)  # the replied post's index in `posts`
    void: Text(500) | None = None  # type: ignore[valid-type]  # a vote taken void (an unpublished out)


class GroupEntry(_Row):
    group: Text(64)  # type: ignore[valid-type]
    author: Text(64)  # type: ignore[valid-type]
    phase: Text(32)  # type: ignore[valid-type]
    text: Text(5000)  # type: ignore[valid-type]
    at: Time = None


class RefusedEntry(_Row):
    author: Text(64)  # type: ignore[valid-type]
    phase: Text(32)  # type: ignore[valid-type]
    text: Text(5000)  # type: ignore[valid-type]
    reason: Text(1000)  # type: ignore[valid-type]
    at: Time = None


class HeldEntry(_Row):
    """A night skill the engine has not taken (held for its stage, void, refused when it opened)."""

    command: CommandPayload
    phase: Text(32)  # type: ignore[valid-type]
    stage: int = Field(0, ge=0, lt=1000)
    status: Literal["held", "void", "applied", "refused", "replaced"]
    reason: Text(1000) | None = None  # type: ignore[valid-type]
    at: Time = None
    settled_at: Time = None


class NoticeEntry(_Row):
    """A private notice from the director to one character (a card and its reason)."""

    player: Text(64)  # type: ignore[valid-type]
    phase: Text(32)  # type: ignore[valid-type]
    text: Text(1000)  # type: ignore[valid-type]
    at: Time = None


class ClockEntry(_Row):
    """What the players saw of the game's clock when it was exported."""

    public_label: Text(32) = "开局"  # type: ignore[valid-type]
    public_settling: bool = False
    public_since: Time = None
    held_log: int | None = Field(None, ge=0, lt=2**31)
    closed_at: Time = None
    start_at: Time = None
    dawn_at: Time = None


class ExportFile(_Row):
    format: Literal["banshe-game"]
    version: int = Field(1, ge=1, le=1)
    title: Text(100) = ""  # type: ignore[valid-type]
    ruleset: Text(64)  # type: ignore[valid-type]
    # an uploaded board's file (issue 27): the import registers it before replaying
    board: str | None = Field(None, max_length=64 * 1024)
    seed: int = Field(ge=0, lt=2**31)
    options: dict[Text(64), Scalar] = Field(default_factory=dict, max_length=100)  # type: ignore[valid-type]
    players: list[Text(64)] = Field(max_length=100)  # type: ignore[valid-type]
    roles: dict[Text(64), Text(64)] | None = Field(None, max_length=100)  # type: ignore[valid-type]
    schedule: dict[Text(64), Any] = Field(default_factory=dict, max_length=20)  # type: ignore[valid-type]
    timezone: Text(64) = "Asia/Shanghai"  # type: ignore[valid-type]
    settings: dict[Text(64), Scalar] = Field(default_factory=dict, max_length=20)  # type: ignore[valid-type]
    seats: list[SeatEntry] = Field(default_factory=list, max_length=1000)
    announcements: list[AnnouncementEntry] = Field(default_factory=list, max_length=MAX_ROWS)
    commands: list[CommandEntry] = Field(max_length=MAX_ROWS)
    posts: list[PostEntry] = Field(default_factory=list, max_length=MAX_ROWS)
    group_messages: list[GroupEntry] = Field(default_factory=list, max_length=MAX_ROWS)
    refused_posts: list[RefusedEntry] = Field(default_factory=list, max_length=MAX_ROWS)
    held_commands: list[HeldEntry] = Field(default_factory=list, max_length=MAX_ROWS)
    player_notices: list[NoticeEntry] = Field(default_factory=list, max_length=MAX_ROWS)
    clock: ClockEntry | None = None
    result: dict[str, Any] | None = None


def parse(data: Any) -> dict[str, Any]:
    """The file's content, checked (ValueError in Chinese naming the first wrong field)."""
    if not isinstance(data, dict) or data.get("format") != "banshe-game":
        raise ValueError("导入失败：不是 banshe 导出的对局文件")
    try:
        return ExportFile.model_validate(data).model_dump()
    except ValidationError as exc:
        errors = exc.errors()
        missing = ["“" + ".".join(str(p) for p in e["loc"]) + "”" for e in errors if e["type"] == "missing"]
        if missing:
            raise ValueError(f"导入失败：文件结构有误，缺少字段{'、'.join(missing[:10])}") from None
        where = ".".join(str(p) for p in errors[0]["loc"]) or "（顶层）"
        raise ValueError(f"导入失败：文件结构有误，字段“{where}”不合要求（共{len(errors)}处）") from None
