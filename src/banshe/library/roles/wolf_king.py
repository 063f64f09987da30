"""狼王 — 狼群的一员（共同杀人，胜负时算作狼人）；最后一枪：
当狼王出局后（毒药、红牌罚下除外），可以选择一名其他角色，该角色立即出局。
"""

from __future__ import annotations

from ..role import WOLF_GROUP, WOLVES, LibraryRole
from .hunter import SHOOT, SHOOT_SKILL, shot_on_out, shot_params
from .wolf import KILL_SKILL

ROLE = LibraryRole(
    "wolf_king",
    "狼王",
    WOLVES,
    __doc__ or "",
    skills=(KILL_SKILL, SHOOT_SKILL),
    charges=((SHOOT, 1),),
    params=shot_params(("毒药", "罚下")),
    group=WOLF_GROUP,
    on_out=shot_on_out,
)
