"""守卫 — 守护：每个游戏日夜晚，守卫可以选择一名角色（可以是自己），该角色不因当晚的杀人出局；
不能连续两夜守护同一名角色（某夜未守护则不算连续）；同守同救：
杀人目标同时被守护和救药时，该角色仍出局；守护不能阻挡毒药与最后一枪。
"""

from __future__ import annotations

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.model import NIGHT, GameState
from banshe.engine.ruleset import ONE_TARGET, PROTECT, SkillSpec

from ..flow import GUARD
from ..role import VILLAGE, LibraryRole, Param, need, params
from ..state import ext

PROTECT_ID = "protect"


def _previous(state: GameState) -> str | None:
    """The target of the previous night's accepted 守护 (None: no 守护 that night)."""
    guarded = ext(state).guarded
    if guarded is not None and guarded[0] == state.phase.number - 1:
        return guarded[1]
    return None


def check_protect(state: GameState, cmd: Command) -> None:
    need(state, cmd.actor, GUARD, "守护")
    guarded = ext(state).guarded
    if guarded is not None and guarded[0] == state.phase.number:
        raise IllegalCommand("今晚已经守护过了")
    if not params(state, GUARD)["连守"] and cmd.targets[0] == _previous(state):
        raise IllegalCommand("不能连续两夜守护同一名角色")


def apply_protect(state: GameState, cmd: Command) -> None:
    ext(state).guarded = (state.phase.number, cmd.targets[0])


def protect_targets(state: GameState, actor: str) -> list[str]:
    """The targets `check_protect` accepts once it accepts the 守卫."""
    previous = None if params(state, GUARD)["连守"] else _previous(state)
    return [n for n in state.living() if n != previous]


PROTECT_SKILL = SkillSpec(
    PROTECT_ID,
    "守护",
    frozenset({NIGHT}),
    ONE_TARGET,
    check_protect,
    apply_protect,
    candidates=protect_targets,
    intent=PROTECT,
)

ROLE = LibraryRole(
    GUARD,
    "守卫",
    VILLAGE,
    __doc__ or "",
    skills=(PROTECT_SKILL,),
    params={
        "连守": Param(False, "能否连续两夜守护同一名角色"),
        "同守同救": Param("出局", "杀人目标同时被守护和救药时的结果", ("出局", "存活")),
    },
    god=True,
)
