"""forum desk: days counted from a Discuz! thread, and the director's overrides

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 22:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "forum_days",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("phase", sa.String(length=32), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("applied_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_forum_days_game_id", "forum_days", ["game_id"])
    op.create_table(
        "forum_overrides",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("forum_day_id", sa.Integer(), nullable=False),
        sa.Column("floor", sa.Integer(), nullable=False),
        sa.Column("accept", sa.Boolean(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("target", sa.String(length=64), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["forum_day_id"], ["forum_days.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_forum_overrides_forum_day_id", "forum_overrides", ["forum_day_id"])


def downgrade() -> None:
    op.drop_index("ix_forum_overrides_forum_day_id", table_name="forum_overrides")
    op.drop_table("forum_overrides")
    op.drop_index("ix_forum_days_game_id", table_name="forum_days")
    op.drop_table("forum_days")
