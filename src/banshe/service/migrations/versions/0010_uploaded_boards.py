"""uploaded boards: a board file a director uploaded, kept so that its games replay (issue 27)

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "uploaded_boards",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("director_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("filename", sa.String(length=200), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["director_id"], ["directors.id"]),
        sa.PrimaryKeyConstraint("id", "director_id"),
    )


def downgrade() -> None:
    op.drop_table("uploaded_boards")
