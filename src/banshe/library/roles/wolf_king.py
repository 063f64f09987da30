"""狼王 — 狼群的一员（共同杀人，胜负时算作狼人）；最后一枪：
当狼王出局后（毒药、红牌罚下除外），可以选择一名其他角色，该角色立即出局。
"""

from __future__ import annotations

from ..role import WOLF_GROUP, WOLVES, LibraryRole, Param
from .hunter import CAUSES, SHOOT, SHOOT_SKILL, shot_on_out
from .wolf import KILL_SKILL

ROLE = LibraryRole(
    "wolf_king",
    "狼王",
    WOLVES,
    __doc__ or "",
    skills=(KILL_SKILL, SHOOT_SKILL),
    charges=((SHOOT, 1),),
    params={"不能开枪": Param(("毒药", "罚下"), "这些出局原因不能发动最后一枪", CAUSES)},
    group=WOLF_GROUP,
    on_out=shot_on_out,
)
