"""沉寂与取酒: what the rules (`rules.py`) and the identities written in their own module
(`slanderer.py` …) share — who may post a skill, tonight's submissions and 摇落, the vote's
targets. Nothing here imports `rules.py`, so a role module can use it at import time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.model import Character, GameState
from banshe.engine.ruleset import Ruleset

from .roles import ORDINARY
from .state import ext

# statuses
DYING, MAD, FAKE_DEATH = "dying", "mad", "fake_death"
STATUS_NAMES = {DYING: "濒死", MAD: "癫狂", FAKE_DEATH: "假死"}

WITHER = "wither"  # 摇落: the 普通身份's skills of that night are void (`valid`)
WOLF_GROUP, LOVER_GROUP = "wolves", "lovers"  # 狼群, 情侣: who share a chat (and the bots' friends)


def need(state: GameState, cmd: Command) -> Character:
    """The actor holds the skill: his identity lists it (`ROLES`) and he has not lost his skills."""
    c = state.chars[cmd.actor]
    rs: Ruleset = state.rules
    holders = rs.holders_table[cmd.skill]
    if c.role not in holders:
        who = "或".join(r.name for r in rs.roles if r.id in holders)
        raise IllegalCommand(f"{cmd.actor}不是{who}，不能发动<{rs.skill_name(cmd.skill)}>")
    if c.skills_lost:
        raise IllegalCommand(f"{cmd.actor}已失去技能，不能发动<{rs.skill_name(cmd.skill)}>")
    return c


def once_tonight(state: GameState, cmd: Command, name: str) -> None:
    if (cmd.skill, cmd.actor) in ext(state).used:
        raise IllegalCommand(f"{cmd.actor}今晚已经发动过<{name}>")


def record(state: GameState, cmd: Command) -> None:
    """Remember tonight's submission: tonight[skill] = (actor, target), in arrival order in `order`."""
    data = ext(state)
    target = cmd.targets[0]  # one target (the shape is checked)
    data.used.append((cmd.skill, cmd.actor))
    data.tonight[cmd.skill] = (cmd.actor, target)
    data.order.append((cmd.skill, cmd.actor, target))


def apply_record(state: GameState, cmd: Command) -> None:
    record(state, cmd)


def once_per_target(state: GameState, skill: str, target: str, name: str) -> None:
    used = ext(state).targeted.get(skill, [])
    if target in used:
        raise IllegalCommand(f"{target}已经成为过<{name}>的目标，每名角色整局只能成为该技能的目标一次")


def not_yet_targeted(state: GameState, skill: str) -> Sequence[str]:
    """The characters in the game not yet a target of `skill` (`once_per_target`), in seating order."""
    used = ext(state).targeted.get(skill)
    if not used:
        return state.living()
    return [n for n in state.living() if n not in used]


def apply_targeted_once(state: GameState, cmd: Command) -> None:
    """Tonight's submission of a skill whose target may be chosen once per game (`once_per_target`)."""
    ext(state).targeted.setdefault(cmd.skill, []).append(cmd.targets[0])
    record(state, cmd)


def withered(state: GameState) -> str | None:
    """The 普通身份 whose skills of tonight 摇落 voids, if any."""
    entry = ext(state).tonight.get(WITHER)
    if entry is None:
        return None
    target = entry[1]
    return target if state.chars[target].role in ORDINARY else None


def valid(state: GameState, skill: str) -> tuple[str, str] | None:
    """Tonight's submission of `skill` unless 摇落 voided it."""
    entry = ext(state).tonight.get(skill)
    if entry is None:
        return None
    actor, target = entry
    if actor == withered(state):
        return None
    return actor, target


def vote_target_ok(state: GameState, name: str) -> bool:
    """Alive and not 假死 (a 假死 character takes no part in the vote, 诽谤 included)."""
    return state.is_alive(name) and FAKE_DEATH not in state.chars[name].statuses


def tier(table: Mapping[int, int], n: int) -> int:
    """成就 points for a count, capped at the table's top row (4次 and more)."""
    best = 0
    for k, v in table.items():
        if n >= k:
            best = max(best, v)
    return best
