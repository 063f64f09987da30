"""Database engine, sessions and migrations.

SQLite by default (WAL mode, a busy timeout so concurrent writers wait), PostgreSQL when
BANSHE_DATABASE_URL points at one (`postgresql://…` uses the psycopg 3 driver).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).parent / "migrations"


def normalize_url(url: str) -> str:
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    return url


def make_engine(url: str) -> Engine:
    url = normalize_url(url)
    if url.startswith("sqlite"):
        memory = ":memory:" in url or url in ("sqlite://", "sqlite:///")
        pool: dict[str, Any] = {} if memory else {"pool_size": 20, "max_overflow": 20}
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, **pool)

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            if not memory:
                cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return engine
    # a database that is down answers within seconds (a 503 page), never a hung request
    return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True, connect_args={"connect_timeout": 5})


def live_url(engine: Engine) -> str:
    """The engine's database as a plain psycopg connection string (live.PgListener's LISTEN)."""
    return engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
