"""村民 — 没有技能。"""

from __future__ import annotations

from ..role import VILLAGE, LibraryRole

ROLE = LibraryRole("villager", "村民", VILLAGE, __doc__ or "")
