"""the published view (issue 22): the players' clock, held and void submissions, director notices,
undo records

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as t:
        t.add_column(sa.Column("public_label", sa.String(length=32), nullable=False, server_default="开局"))
        t.add_column(sa.Column("public_settling", sa.Boolean(), nullable=False, server_default=sa.false()))
        t.add_column(sa.Column("public_since", sa.Float(), nullable=False, server_default="0"))
        t.add_column(sa.Column("held_log", sa.Integer(), nullable=True))
        t.add_column(sa.Column("closed_at", sa.Float(), nullable=True))
        t.add_column(sa.Column("start_at", sa.Float(), nullable=True))
        t.add_column(sa.Column("dawn_at", sa.Float(), nullable=True))
    with op.batch_alter_table("commands") as t:
        t.add_column(sa.Column("undo", sa.JSON(), nullable=True))
    with op.batch_alter_table("posts") as t:
        t.add_column(sa.Column("void", sa.Text(), nullable=True))
    op.create_table(
        "held_commands",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=False, index=True),
        sa.Column("actor", sa.String(length=64), nullable=False),
        sa.Column("skill", sa.String(length=64), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("phase", sa.String(length=32), nullable=False),
        sa.Column("stage", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("settled_at", sa.Float(), nullable=True),
    )
    op.create_table(
        "player_notices",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=False, index=True),
        sa.Column("player", sa.String(length=64), nullable=False),
        sa.Column("phase", sa.String(length=32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("command_seq", sa.Integer(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("player_notices")
    op.drop_table("held_commands")
    with op.batch_alter_table("posts") as t:
        t.drop_column("void")
    with op.batch_alter_table("commands") as t:
        t.drop_column("undo")
    with op.batch_alter_table("games") as t:
        for name in ("dawn_at", "start_at", "closed_at", "held_log", "public_since", "public_settling", "public_label"):
            t.drop_column(name)
