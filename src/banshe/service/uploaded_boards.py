"""Boards a director uploads (issue 27): a board file checked by the board compiler, kept in the
database by the hash of its text, registered as a ruleset named `upload-<hash>`.

A game names its ruleset by id; an uploaded board's id is found again after a restart, or in
another worker, by the resolver this module adds to the ruleset registry (it compiles the stored
text once per process). The same text is the same board: its games replay alike everywhere."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import yaml
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from ..boards import BoardError, compile_board
from ..engine.ruleset import Ruleset
from ..rulesets import registry
from .errors import ServiceError
from .models import UploadedBoard

PREFIX = "upload-"
MAX_BOARD_BYTES = 64 * 1024  # a board file is a page of text; the standard boards are ~2 KB


def board_id(text: str) -> str:
    return PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def is_uploaded(ruleset_id: str) -> bool:
    return ruleset_id.startswith(PREFIX)


def find_offered(name: str) -> Ruleset:
    """A ruleset the service offers, by id, Chinese name or alias: the registered rulesets and
    boards, and uploaded boards by id. Never a board file's path: a name from a form or an
    import file must not make the server read its files. Raises KeyError."""
    if "/" in name or "\\" in name or name.endswith((".yaml", ".yml")):
        raise KeyError(name)
    return registry.find_ruleset(name)


def decode(body: bytes) -> str:
    """An uploaded file's bytes as text: UTF-8 (a BOM is dropped), at most MAX_BOARD_BYTES."""
    if len(body) > MAX_BOARD_BYTES:
        raise ServiceError(f"板子文件过大（最多{MAX_BOARD_BYTES // 1024} KB）")
    if not body.strip():
        raise ServiceError("请选择板子文件，或把板子文件的内容粘贴进来")
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ServiceError("板子文件不是 UTF-8 编码的文本") from None
    if "\x00" in text:
        raise ServiceError("板子文件含有 NUL 字符")
    return text


def check_upload(text: str) -> None:
    """What a board file from a director may not hold, before it is compiled: code (a board that
    names Python to import is installed by the server's operator, never uploaded) and YAML
    anchors and aliases (a few lines that expand to millions of fields)."""
    try:
        for token in yaml.scan(text):
            if isinstance(token, yaml.AnchorToken | yaml.AliasToken):
                line = token.start_mark.line + 1
                raise ServiceError(f"板子文件有误：第{line}行：上传的板子不能使用 YAML 的锚点与别名（& 与 *名字）")
            if isinstance(token, yaml.ScalarToken) and token.plain and token.value == "code":
                line = token.start_mark.line + 1
                raise ServiceError(
                    f"板子文件有误：第{line}行：code：上传的板子只能使用角色库的身份，不能指定代码（code）；"
                    "需要代码的板子由服务器管理员安装"
                )
    except yaml.YAMLError:
        return  # not YAML at all: the compiler names the line and the problem


def compile_uploaded(text: str, filename: str) -> Ruleset:
    """The board the text declares, as the ruleset `upload-<hash>` (registered). A bad file is
    refused with the compiler's Chinese line (file, line, field)."""
    rid = board_id(text)
    known = registry.registered(rid)
    if known is not None:
        return known
    check_upload(text)
    try:
        rs = compile_board(text, filename or "上传的板子")
    except BoardError as exc:
        raise ServiceError(f"板子文件有误：{exc}") from None
    object.__setattr__(rs, "id", rid)  # its games name this text, not the board's own id
    object.__setattr__(rs, "aliases", ())
    return registry.register(rs)


class UploadedBoards:
    """The uploaded boards of one service database."""

    def __init__(self, sessions: Callable[[], Session], clock: Callable[[], float]) -> None:
        self.sessions = sessions
        self.clock = clock

    def upload(self, director_id: int, text: str, filename: str) -> Ruleset:
        """Check, keep and register a director's board file; the same text again is the same board."""
        rs = compile_uploaded(text, filename)
        with self.sessions() as s:
            if s.get(UploadedBoard, (rs.id, director_id)) is None:
                name = rs.name[:200]
                s.add(
                    UploadedBoard(
                        id=rs.id,
                        director_id=director_id,
                        name=name,
                        filename=filename[:200],
                        text=text,
                        created_at=self.clock(),
                    )
                )
                try:
                    s.commit()
                except IntegrityError:  # the same upload twice at once: one row is enough
                    s.rollback()
        return rs

    def of_director(self, director_id: int) -> list[Ruleset]:
        """The boards this director uploaded, newest first."""
        with self.sessions() as s:
            rows = s.scalars(
                select(UploadedBoard)
                .where(UploadedBoard.director_id == director_id)
                .order_by(UploadedBoard.created_at.desc())
            ).all()
            texts = [(r.text, r.filename) for r in rows]
        return [compile_uploaded(text, filename) for text, filename in texts]

    def owns(self, director_id: int, ruleset_id: str) -> bool:
        with self.sessions() as s:
            return s.get(UploadedBoard, (ruleset_id, director_id)) is not None

    def resolve(self, ruleset_id: str) -> Ruleset | None:
        """The registry's resolver: an uploaded board's id, from this database (None if not here)."""
        if not is_uploaded(ruleset_id):
            return None
        try:
            with self.sessions() as s:
                row = s.scalars(select(UploadedBoard).where(UploadedBoard.id == ruleset_id).limit(1)).first()
                found = None if row is None else (row.text, row.filename)
        except SQLAlchemyError:  # a closed test database: not this resolver's board
            return None
        if found is None:
            return None
        try:
            return compile_uploaded(*found)
        except ServiceError:  # a stored board the compiler no longer accepts: its games cannot load
            return None

    def install(self) -> Callable[[], None]:
        """Add the resolver to the registry; returns the call that removes it."""
        registry.add_resolver(self.resolve)
        return lambda: registry.remove_resolver(self.resolve)
