"""白痴 — 装傻<强制><限定>：
当白痴因投票将要出局时，避免出局，并公示；
其后不能投票、不能成为投票对象，也不能成为殉职的目标；若白痴是警长，须移交警长。
"""

from __future__ import annotations

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.core import announce, push_prompt
from banshe.engine.model import DAY, NIGHT, START, GameState, Prompt
from banshe.engine.ruleset import YES_NO, SkillSpec

from ..flow import SUCCEED
from ..role import VILLAGE, LibraryRole, role_name
from ..state import BoardState, ext

IDIOT = "idiot"
FEIGN = "feign"


def voted_out(state: GameState, name: str) -> bool:
    c = state.chars[name]
    if c.skills_lost or not c.has_charge(FEIGN):
        return False
    c.spend(FEIGN)
    data = ext(state)
    data.feigned = data.feigned | {name}
    announce(state, f"{name}是{role_name(state, IDIOT)}，发动装傻，免于出局。无人出局。")
    if state.sheriff == name:
        push_prompt(state, Prompt(name, SUCCEED, "你发动了装傻，须移交警长（或撕掉警徽）。"))
    return True


def may_not_vote(state: GameState, voter: str) -> str | None:
    data: BoardState = state.ext  # type: ignore[assignment]  # `ext(state)`, unchecked: asked for every voter
    feigned = data.feigned
    return f"{voter}已发动装傻，不能参与投票" if feigned and voter in feigned else None


def may_not_be_voted(state: GameState, target: str) -> str | None:
    data: BoardState = state.ext  # type: ignore[assignment]  # `ext(state)`, unchecked: asked for every target
    feigned = data.feigned
    return f"{target}已发动装傻，不能成为投票对象" if feigned and target in feigned else None


def feigned(state: GameState) -> frozenset[str]:
    """Who has used 装傻 (`unvotable`): the same object until the next 装傻."""
    data: BoardState = state.ext  # type: ignore[assignment]  # `ext(state)`, unchecked: asked for every voter
    return data.feigned


def _never(state: GameState, cmd: Command) -> None:
    raise IllegalCommand("白痴装傻为强制技能，由导演直接结算，无需提交")


def _no_apply(state: GameState, cmd: Command) -> None:
    return None


FEIGN_SKILL = SkillSpec(FEIGN, "装傻", frozenset({START, DAY, NIGHT}), YES_NO, _never, _no_apply, prompt=True)

ROLE = LibraryRole(
    IDIOT,
    "白痴",
    VILLAGE,
    __doc__ or "",
    skills=(FEIGN_SKILL,),
    charges=((FEIGN, 1),),
    god=True,
    on_voted_out=voted_out,
    can_vote=may_not_vote,
    can_be_voted=may_not_be_voted,
    unvotable=feigned,
)
