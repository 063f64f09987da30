"""Idempotent submissions: every form carries a key made when the form was rendered.

`GameService.once(game_id, key, act)` runs `act` with the key in a context variable; the first
transaction `act` opens on that game (`GameService._tx`) looks the key up under the game's lock
and, when it is new, stores it with whatever `act` stores — one commit, so a submission and its
key are kept or lost together. A resend finds the key and gets the original result back.
"""

from __future__ import annotations

import re
import secrets
from contextvars import ContextVar
from dataclasses import dataclass

KEY_FIELD = "idem"
_KEY = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
DONE_BEFORE = "此前已提交，未重复保存"


@dataclass
class Pending:
    game_id: int
    key: str
    used: bool = False  # only the first transaction on the game checks and stores the key
    stored_id: int | None = None


CURRENT: ContextVar[Pending | None] = ContextVar("banshe_idempotency", default=None)


class AlreadyDone(Exception):
    """The key was stored before: `result` is what the first submission answered."""

    def __init__(self, result: str) -> None:
        super().__init__(result)
        self.result = result


def new_key() -> str:
    return secrets.token_urlsafe(18)


def valid(key: str) -> bool:
    return bool(_KEY.match(key))
