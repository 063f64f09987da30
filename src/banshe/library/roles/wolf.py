"""狼人 — 杀人：游戏日夜晚，该阵营共群的角色可以共同指杀一名角色（以最后一次提交为准）。"""

from __future__ import annotations

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.model import NIGHT, GameState
from banshe.engine.ruleset import ATTACK, ONE_TARGET, SkillSpec, alive_targets

from ..role import WOLF_GROUP, WOLVES, LibraryRole
from ..state import ext

WOLF = "wolf"
KILL = "kill"


def check_kill(state: GameState, cmd: Command) -> None:
    if cmd.actor not in state.groups.get(WOLF_GROUP, ()):
        raise IllegalCommand(f"{cmd.actor}不在狼群中，不能杀人")


def apply_kill(state: GameState, cmd: Command) -> None:
    ext(state).kill = cmd.targets[0]


KILL_SKILL = SkillSpec(
    KILL,
    "杀人",
    frozenset({NIGHT}),
    ONE_TARGET,
    check_kill,
    apply_kill,
    audience="group:" + WOLF_GROUP,
    members_of=WOLF_GROUP,
    candidates=alive_targets,
    intent=ATTACK,
)

ROLE = LibraryRole(WOLF, "狼人", WOLVES, __doc__ or "", skills=(KILL_SKILL,), group=WOLF_GROUP)
