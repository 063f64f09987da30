"""Alembic environment: run by `banshe.service.db.migrate` with a connection in the config's attributes."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from banshe.service.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "sqlite://")
    with engine.connect() as conn:
        _run(conn)
