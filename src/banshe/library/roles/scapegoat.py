"""替罪羊 — 冤死<锁定技>：
当投票出现平票（同时有两名或以上角色的票数同时为最高）时，替罪羊代替平票者出局，并公示。
（板子的平票规则须是 flow.tie: 替罪羊；夜晚没有行动。）
"""

from __future__ import annotations

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.model import DAY, GameState
from banshe.engine.ruleset import YES_NO, SkillSpec

from ..flow import SCAPEGOAT, SCAPEGOAT_CAUSES
from ..role import VILLAGE, LibraryRole, Param

TAKE_THE_BLAME = "take_the_blame"  # 冤死


def _never(state: GameState, cmd: Command) -> None:
    raise IllegalCommand("替罪羊冤死为锁定技，由导演在平票时直接结算，无需提交")


def _no_apply(state: GameState, cmd: Command) -> None:
    return None


# declared so that boards, `banshe boards roles` and the pages name the skill; never posted
TAKE_THE_BLAME_SKILL = SkillSpec(TAKE_THE_BLAME, "冤死", frozenset({DAY}), YES_NO, _never, _no_apply, prompt=True)

ROLE = LibraryRole(
    SCAPEGOAT,
    "替罪羊",
    VILLAGE,
    __doc__ or "",
    skills=(TAKE_THE_BLAME_SKILL,),
    params={
        "出局原因": Param(
            SCAPEGOAT_CAUSES[0],
            "冤死时记下的出局原因（冤死：不算被投票出局；投票：按投票出局记）",
            SCAPEGOAT_CAUSES,
        ),
        "遗言": Param(True, "冤死时是否有遗言（true：和别的出局一样占最先出局的几份遗言之一）"),
    },
)
