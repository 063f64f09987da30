"""forum games: a game played on a Discuz! thread (its link and account), the 公示 posted there,
and the kind of each reading of a day

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "forum_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("thread_url", sa.Text(), nullable=False),
        sa.Column("account", sa.String(length=64), nullable=False),
        sa.Column("sealed_password", sa.Text(), nullable=False),
        sa.Column("poll_minutes", sa.Integer(), nullable=False),
        sa.Column("auto_close", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("read_at", sa.Float(), nullable=True),
        sa.Column("read_error", sa.Text(), nullable=True),
        sa.Column("claimed_until", sa.Float(), nullable=True),
        sa.Column("held_phase", sa.String(length=32), nullable=True),
        sa.Column("held_close", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id"),
    )
    op.create_table(
        "forum_publications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("pid", sa.Integer(), nullable=True),
        sa.Column("floor", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("posted_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "idx", name="uq_forum_publications_game_idx"),
    )
    op.create_index("ix_forum_publications_game_id", "forum_publications", ["game_id"])
    with op.batch_alter_table("forum_days") as batch:
        batch.add_column(sa.Column("mode", sa.String(length=16), nullable=False, server_default="manual"))


def downgrade() -> None:
    with op.batch_alter_table("forum_days") as batch:
        batch.drop_column("mode")
    op.drop_index("ix_forum_publications_game_id", table_name="forum_publications")
    op.drop_table("forum_publications")
    op.drop_table("forum_links")
