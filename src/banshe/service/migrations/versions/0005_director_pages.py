"""director pages: penalty reasons, 替补 names, edited / withheld 公示, the custom-board flag

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 22:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("commands") as t:
        t.add_column(sa.Column("note", sa.Text(), nullable=True))
    with op.batch_alter_table("seats") as t:
        t.add_column(sa.Column("person", sa.String(length=64), nullable=True))
    with op.batch_alter_table("announcements") as t:
        t.add_column(sa.Column("text", sa.Text(), nullable=True))
        t.add_column(sa.Column("withheld", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("games") as t:
        t.add_column(sa.Column("settings", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as t:
        t.drop_column("settings")
    with op.batch_alter_table("announcements") as t:
        t.drop_column("withheld")
        t.drop_column("text")
    with op.batch_alter_table("seats") as t:
        t.drop_column("person")
    with op.batch_alter_table("commands") as t:
        t.drop_column("note")
