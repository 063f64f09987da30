"""猎人 — 最后一枪<限定>：
当猎人出局后（不能开枪的出局原因除外，品茗：红牌罚下），可以选择一名其他角色，该角色立即出局。
"""

from __future__ import annotations

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.core import emit, push_prompt, put_out
from banshe.engine.events import NOTICE, Audience
from banshe.engine.model import DAY, NIGHT, START, GameState, Prompt
from banshe.engine.ruleset import ATTACK, ONE_TARGET, SkillSpec, other_alive_targets

from ..role import VILLAGE, LibraryRole, Param, params, report, role_name

HUNTER = "hunter"
SHOOT = "shoot"
CAUSES = ("罚下", "毒药", "投票", "杀人", "最后一枪", "殉情")  # the causes a board may list in 不能开枪
PROMPT = "选择一名其他角色，该角色立即出局。"


def shot_params(no_shot: tuple[str, ...]) -> dict[str, Param]:
    """The parameters of 最后一枪, for each role that holds it (猎人, 狼王: each reads its own),
    with its own default causes that allow no shot."""
    return {
        "不能开枪": Param(no_shot, "这些出局原因不能发动最后一枪", CAUSES),
        "开枪提示": Param(PROMPT, "出局后询问开枪时的提示"),
        "公示开枪": Param(True, "开枪后公示“……发动最后一枪，某某出局。”（false：无反馈，出局只按出局公示）"),
        "逾期告知": Param(True, "未按时开枪时告知导演“……未按时发动最后一枪，视为放弃。”"),
    }


def shot_on_out(state: GameState, name: str, cause: str) -> None:
    """A shooter's out: the prompt, unless the cause is one of his role's 不能开枪."""
    c = state.chars[name]
    if c.skills_lost or not c.has_charge(SHOOT):
        return
    given = params(state, c.role)
    if cause not in given["不能开枪"]:
        push_prompt(state, Prompt(name, SHOOT, given["开枪提示"]))


def check_shoot(state: GameState, cmd: Command) -> None:
    if cmd.targets[0] == cmd.actor:
        raise IllegalCommand("最后一枪需要选择一名其他角色")


def answer_shoot(state: GameState, prompt: Prompt, cmd: Command) -> None:
    target = cmd.targets[0]
    c = state.chars[cmd.actor]
    c.spend(SHOOT)
    if params(state, c.role)["公示开枪"]:
        report(state, f"{role_name(state, c.role)}{cmd.actor}发动最后一枪，{target}出局。")
    put_out(state, target, "最后一枪")


def shoot_lapses(state: GameState, prompt: Prompt) -> None:
    c = state.chars[prompt.actor]
    if not params(state, c.role)["逾期告知"]:
        return
    text = f"{role_name(state, c.role)}{prompt.actor}未按时发动最后一枪，视为放弃。"
    emit(state, NOTICE, Audience.director(), text)


def _no_apply(state: GameState, cmd: Command) -> None:
    return None


SHOOT_SKILL = SkillSpec(
    SHOOT,
    "最后一枪",
    frozenset({START, DAY, NIGHT}),
    ONE_TARGET,
    check_shoot,
    _no_apply,
    prompt=True,
    actor_may_be_out=True,
    answer=answer_shoot,
    on_timeout=shoot_lapses,
    candidates=other_alive_targets,
    intent=ATTACK,
    irreversible=True,
)

ROLE = LibraryRole(
    HUNTER,
    "猎人",
    VILLAGE,
    __doc__ or "",
    skills=(SHOOT_SKILL,),
    charges=((SHOOT, 1),),
    params=shot_params(("罚下",)),
    god=True,
    on_out=shot_on_out,
)
