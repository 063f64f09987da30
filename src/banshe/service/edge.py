"""Every value from outside is checked at the edge, by one mechanism: pydantic types.

- Path and query integers are declared with these types (FastAPI validates them with pydantic):
  an id outside 1…2³¹−1 or an index outside 0…2³¹−1 never reaches the database (PostgreSQL's
  INTEGER would refuse it with a 500); such a path answers 404 with the thing it names
  (`NOT_FOUND`), a bad query value 400.
- Form integers go through `form_int` (the same pydantic constraints, a Chinese reason naming
  the field); imported files through `import_schema` (pydantic models).
- Secrets a request sends (CSRF tokens, signatures) are compared as UTF-8 bytes (`same`):
  `hmac.compare_digest` refuses a `str` with a non-ASCII character by raising, not by answering
  "different".
"""

from __future__ import annotations

import hmac
from functools import lru_cache
from typing import Annotated, Any

from fastapi import Path, Query
from pydantic import Field, TypeAdapter, ValidationError

MAX_INT = 2**31 - 1  # ids and numbers fit an INTEGER column on every database

Id = Annotated[int, Field(ge=1, le=MAX_INT)]
Index = Annotated[int, Field(ge=0, le=MAX_INT)]

GameId = Annotated[int, Path(ge=1, le=MAX_INT)]
FlagId = Annotated[int, Path(ge=1, le=MAX_INT)]
DayId = Annotated[int, Path(ge=1, le=MAX_INT)]
AnnouncementIndex = Annotated[int, Path(ge=0, le=MAX_INT)]
DeadlineId = Annotated[int, Path(ge=1, le=MAX_INT)]  # a row of the god view's timetable
Token = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{8,64}$")]  # a seat link (secrets.token_urlsafe)
OptionalDayId = Annotated[int | None, Query(ge=1, le=MAX_INT)]

# what a path (or query) value out of range names: the same page as for an id that does not exist
NOT_FOUND = {
    "game_id": "没有这局游戏",
    "flag_id": "没有这条潜水记录",
    "idx": "没有这条公示",
    "deadline_id": "没有这个时限",
    "day_id": "没有这次读帖记录",
    "day": "没有这次读帖记录",
    "token": "链接无效或已停用",
}


_OUT_OF_RANGE = {"greater_than", "greater_than_equal", "less_than", "less_than_equal", "string_pattern_mismatch"}


def not_found_text(errors: list[Any]) -> str | None:
    """The 404 text when a request named an id (or link) out of range; else None (a value that is
    not a number at all stays a 400, "请求参数有误")."""
    for err in errors:
        loc = tuple(err.get("loc", ())) if isinstance(err, dict) else ()
        if (
            len(loc) >= 2
            and loc[0] in ("path", "query")
            and str(loc[1]) in NOT_FOUND
            and err.get("type") in _OUT_OF_RANGE
        ):
            return NOT_FOUND[str(loc[1])]
    return None


@lru_cache(maxsize=64)
def _int_in(low: int, high: int) -> TypeAdapter[int]:
    return TypeAdapter(Annotated[int, Field(ge=low, le=high, strict=True)])


def form_int(text: str, name: str, low: int, high: int) -> int | None:
    """A whole number typed in a form field (None when empty), in low…high; a ValueError whose
    text (Chinese) names the field otherwise. Only ASCII digits with an optional sign are numbers
    ("²" and "١" are digits to `str.isdigit`, not to a player)."""
    text = text.strip()
    if not text:
        return None
    digits = text[1:] if text[:1] in "+-" else text
    if not digits or not digits.isascii() or not digits.isdigit():
        raise ValueError(f"“{name}”必须是整数：{text[:20]}")
    if len(digits) > 12:  # far out of any range here (and int() of thousands of digits is slow)
        raise ValueError(f"“{name}”应在{low}到{high}之间")
    try:
        return _int_in(low, high).validate_python(int(text))
    except ValidationError:
        raise ValueError(f"“{name}”应在{low}到{high}之间") from None


def same(sent: str | None, expected: str) -> bool:
    """A secret the request sent equals the expected one (constant time, any characters)."""
    return sent is not None and hmac.compare_digest(sent.encode("utf-8", "surrogatepass"), expected.encode())
