"""女巫 — 通灵<强制>：狼人行动结束后，反馈被指杀的角色（发动救药后失去通灵）；
救药<限定>：选择一名角色（自救规则由板子定，品茗：除自己之外），该角色不因当晚的杀人出局；
毒药<限定>：选择一名角色，该角色出局；救药发动后，该夜晚不可发动毒药（反之亦然）。
"""

from __future__ import annotations

from collections.abc import Sequence

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.core import feedback
from banshe.engine.model import NIGHT, GameState
from banshe.engine.ruleset import ATTACK, ONE_TARGET, PROTECT, SkillSpec, alive_targets, other_alive_targets

from ..role import VILLAGE, LibraryRole, Param, holder, need, params
from ..state import ext
from .wolf import KILL

WITCH = "witch"
SPIRIT, ANTIDOTE, POISON = "spirit", "antidote", "poison"
NEVER, ALWAYS, FIRST_NIGHT = "不能", "能", "仅首夜"


def _check_potion(state: GameState, cmd: Command, name: str) -> None:
    need(state, cmd.actor, WITCH, f"使用{name}")
    if not state.chars[cmd.actor].has_charge(cmd.skill):
        raise IllegalCommand(f"{name}已经用过了")


def potion_spent(state: GameState, cmd: Command) -> bool:
    """The quick refusal for the legal moves: this potion is used up."""
    return not state.chars[cmd.actor].has_charge(cmd.skill)


def check_antidote(state: GameState, cmd: Command) -> None:
    _check_potion(state, cmd, "救药")
    if cmd.targets[0] == cmd.actor:
        rule = params(state, WITCH)["自救"]
        if rule == NEVER or (rule == FIRST_NIGHT and state.phase.number != 1):
            raise IllegalCommand("救药不能用在女巫自己身上")
    if ext(state).poison is not None and not params(state, WITCH)["同夜双药"]:
        raise IllegalCommand("今晚已经使用毒药，不能再使用救药")


def apply_antidote(state: GameState, cmd: Command) -> None:
    witch = state.chars[cmd.actor]
    witch.spend(ANTIDOTE)
    witch.charges[SPIRIT] = 0  # <救药>发动后，失去技能<通灵>
    ext(state).save = cmd.targets[0]


def check_poison(state: GameState, cmd: Command) -> None:
    _check_potion(state, cmd, "毒药")
    if ext(state).save is not None and not params(state, WITCH)["同夜双药"]:
        raise IllegalCommand("今晚已经使用救药，不能再使用毒药")


def apply_poison(state: GameState, cmd: Command) -> None:
    state.chars[cmd.actor].spend(POISON)
    ext(state).poison = cmd.targets[0]


def witch_spirit(state: GameState) -> None:
    """The stage of 杀人 closes: 通灵 — 反馈被指杀的角色 (while the 女巫 still holds 通灵)."""
    witch = holder(state, WITCH)
    if witch and witch.alive and not witch.skills_lost and witch.has_charge(SPIRIT) and params(state, WITCH)["通灵"]:
        kill = ext(state).kill
        killed = [kill] if kill else []
        text = f"今晚被指杀的角色：{kill}。" if kill else "今晚没有角色被指杀。"
        feedback(state, witch.name, "通灵", None, killed, text)


def antidote_targets(state: GameState, actor: str) -> Sequence[str]:
    """The targets `check_antidote` accepts once it accepts the 女巫 (herself only where allowed)."""
    rule = params(state, WITCH)["自救"]
    if rule == ALWAYS or (rule == FIRST_NIGHT and state.phase.number == 1):
        return alive_targets(state, actor)
    return other_alive_targets(state, actor)


ANTIDOTE_SKILL = SkillSpec(
    ANTIDOTE,
    "救药",
    frozenset({NIGHT}),
    ONE_TARGET,
    check_antidote,
    apply_antidote,
    candidates=antidote_targets,
    refuses=potion_spent,
    intent=PROTECT,
    irreversible=True,
)
POISON_SKILL = SkillSpec(
    POISON,
    "毒药",
    frozenset({NIGHT}),
    ONE_TARGET,
    check_poison,
    apply_poison,
    candidates=alive_targets,
    refuses=potion_spent,
    intent=ATTACK,
    irreversible=True,
)

ROLE = LibraryRole(
    WITCH,
    "女巫",
    VILLAGE,
    __doc__ or "",
    skills=(ANTIDOTE_SKILL, POISON_SKILL),
    charges=((SPIRIT, 1), (ANTIDOTE, 1), (POISON, 1)),
    params={
        "自救": Param(NEVER, "救药能否用在自己身上", (NEVER, ALWAYS, FIRST_NIGHT)),
        "同夜双药": Param(False, "同一夜晚能否既用救药又用毒药"),
        "通灵": Param(True, "狼人行动结束后是否得知被指杀的角色"),
    },
    god=True,
    after_stage={KILL: witch_spirit},
)
