"""PostgreSQL across processes (`banshe serve --workers N`): each game's writes in order, and a
NOTIFY to the other processes' live pages. Both are no-ops on SQLite (one process)."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.orm import Session

LOCK_SPACE = 0x6273  # the first key of pg_advisory_xact_lock(space, game): "bs"
CHANNEL = "banshe_live"


def _pg(s: Session) -> bool:
    return s.get_bind().dialect.name == "postgresql"


def lock_game(s: Session, game_id: int) -> None:
    """Serialize the game's writers across processes until the transaction ends (the unique
    (game, seq) constraint stays the guarantee; the lock makes a second writer wait, not fail)."""
    if _pg(s):
        s.execute(text("SELECT pg_advisory_xact_lock(:space, :game)"), {"space": LOCK_SPACE, "game": game_id})


def announce(s: Session, game_id: int, seats: bool = False) -> None:
    """Wake every process's streams of the game once the transaction commits (`seats`: a 替补,
    the processes forget the game's cached links). The payload: `<game>` or `<game>:seats`."""
    if _pg(s):
        payload = f"{game_id}:seats" if seats else str(game_id)
        s.execute(text("SELECT pg_notify(:channel, :game)"), {"channel": CHANNEL, "game": payload})
