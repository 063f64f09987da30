"""A role written outside the library, named by a board as `library: tests.board_roles:KNIGHT`."""

from __future__ import annotations

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.core import announce, put_out
from banshe.engine.model import DAY, GameState
from banshe.engine.ruleset import ATTACK, ONE_TARGET, SkillSpec, other_alive_targets
from banshe.library import LibraryRole

KNIGHT = "knight"
DUEL = "knight_duel"


# 骑士 决斗<限定>: 白天，骑士选择一名其他角色；若其属于狼人阵营，该角色出局，否则骑士出局。
# (Its one use is a charge; a role outside the library keeps any other data in `state.acts`/`flags`.)
def check_duel(state: GameState, cmd: Command) -> None:
    c = state.chars[cmd.actor]
    if c.role != KNIGHT:
        raise IllegalCommand(f"{cmd.actor}不是骑士，不能决斗")
    if not c.has_charge(DUEL):
        raise IllegalCommand("决斗已经用过了")


def apply_duel(state: GameState, cmd: Command) -> None:
    state.chars[cmd.actor].spend(DUEL)
    target = cmd.targets[0]
    loser = target if state.chars[target].camp == "wolf" else cmd.actor
    announce(state, f"骑士{cmd.actor}与{target}决斗，{loser}出局。")
    put_out(state, loser, "决斗")


KNIGHT_ROLE = LibraryRole(
    KNIGHT,
    "骑士",
    "village",
    "骑士 — 决斗<限定>：白天选择一名其他角色；若其属于狼人阵营则其出局，否则骑士出局。",
    skills=(
        SkillSpec(
            DUEL,
            "决斗",
            frozenset({DAY}),
            ONE_TARGET,
            check_duel,
            apply_duel,
            audience="public",
            candidates=other_alive_targets,
            intent=ATTACK,
            irreversible=True,
        ),
    ),
    charges=((DUEL, 1),),
    god=True,
)
