"""预言家 — 预言：游戏日夜晚，预言家选择一名角色；若该角色属于村民阵营，反馈<村民阵营>；否则，反馈<非村民阵营>。"""

from __future__ import annotations

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.core import feedback
from banshe.engine.model import NIGHT, GameState
from banshe.engine.ruleset import INVESTIGATE, ONE_TARGET, SkillSpec, alive_targets

from ..role import VILLAGE, LibraryRole, Param, need, params
from ..state import ext

SEER = "seer"
CHECK = "check"


def check_check(state: GameState, cmd: Command) -> None:
    need(state, cmd.actor, SEER, "预言")
    if ext(state).check is not None:
        raise IllegalCommand("今晚已经预言过了")


def apply_check(state: GameState, cmd: Command) -> None:
    ext(state).check = (cmd.actor, cmd.targets[0])


def seer_result(state: GameState) -> None:
    """The stage of 预言 closes: the answer, by the target's camp."""
    data = ext(state)
    if data.check is not None:
        seer, target = data.check
        p = params(state, SEER)
        good = state.chars[target].camp == p["好人阵营"]
        result = str(p["好人结果"] if good else p["坏人结果"])
        feedback(state, seer, "预言", target, result, f"你预言了{target}：{result}。")


CHECK_SKILL = SkillSpec(
    CHECK,
    "预言",
    frozenset({NIGHT}),
    ONE_TARGET,
    check_check,
    apply_check,
    candidates=alive_targets,
    intent=INVESTIGATE,
)

ROLE = LibraryRole(
    SEER,
    "预言家",
    VILLAGE,
    __doc__ or "",
    skills=(CHECK_SKILL,),
    params={
        "好人阵营": Param(VILLAGE, "答“好人结果”的阵营（阵营 id）"),
        "好人结果": Param("村民阵营", "目标属于好人阵营时的反馈"),
        "坏人结果": Param("非村民阵营", "目标不属于好人阵营时的反馈"),
    },
    god=True,
    after_stage={CHECK: seer_result},
)
