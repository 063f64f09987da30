"""What a library role is: one known role, written once, that any board can seat.

A `LibraryRole` carries its seed sentence, its skills (`SkillSpec`s with their checks, effects,
candidates, prompts, timeouts, intents for the bots and irreversibility for the pages), its
parameters (`Param`: what a board may set, e.g. the 女巫's self-save rule), its starting charges,
the group it joins (who shares a chat and a kill), and small hooks for what happens to it (its out,
its being voted out, whether it may vote). A board names it and sets its parameters; the board
compiler (`banshe.boards`) turns the board into one `Ruleset(...)` with its `Board`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from banshe.engine.commands import IllegalCommand
from banshe.engine.core import announce
from banshe.engine.model import DAY, GameState
from banshe.engine.ruleset import Settle, SkillSpec

from .state import ext

# the library's camp ids (a board names its camps; these are the two every standard board has)
VILLAGE, WOLVES = "village", "wolf"
WOLF_GROUP = "wolves"  # 狼群

# (state, name, cause): a character of this role has just gone out
OutHook = Callable[[GameState, str, str], None]
# (state, name): this character has the day's most votes; True: he stays in the game (装傻)
VotedOutHook = Callable[[GameState, str], bool]
# (state, name): a reason this character may not vote / be voted for, or None
Block = Callable[[GameState, str], "str | None"]
# (state): the characters `can_be_voted` refuses, all at once (the vote's candidates, asked often)
Excluded = Callable[[GameState], Collection[str]]
# (state, name): this character's answer tonight waits until the night settles (`Board.holds_answer`)
Holds = Callable[[GameState, str], bool]


@dataclass(frozen=True)
class Param:
    """One parameter a board may set for a role: its default, what it means (Chinese, shown by
    `banshe boards check` and the docs), and its allowed values (empty: any value of the
    default's type; a list parameter: a list of the allowed values)."""

    default: Any
    description: str
    choices: tuple[Any, ...] = ()


@dataclass(frozen=True)
class LibraryRole:
    id: str
    name: str  # the usual Chinese name; a board may rename the role
    camp: str  # the camp it starts in (a board may put it in another of its camps)
    seed: str  # the rule as the seeds write it
    skills: tuple[SkillSpec, ...] = ()  # the skills it holds (posted skills and prompts)
    charges: tuple[tuple[str, int], ...] = ()  # its <限定> skills' uses
    params: Mapping[str, Param] = field(default_factory=dict)
    group: str = ""  # the group it joins at 开局 (shares its chat and the group's skills)
    god: bool = False  # a 神 (特) by default (the wins of 屠边 count them)
    on_out: OutHook | None = None
    on_voted_out: VotedOutHook | None = None
    can_vote: Block | None = None
    can_be_voted: Block | None = None
    # exactly the characters its `can_be_voted` refuses (required with it: the vote's candidates)
    unvotable: Excluded | None = None
    # skill id -> what flows once the night stage acting that skill closes (预言's answer; the
    # 女巫's 通灵 once 杀人's stage closes)
    after_stage: Mapping[str, Settle] = field(default_factory=dict)
    # what it settles as 开局 closes, before the groups form (丘比特: 恋爱 and 私奔)
    at_start: Settle | None = None
    # what it does when any character goes out, whatever his role (丘比特's lovers: 殉情)
    watches_outs: OutHook | None = None
    # its parameters that name one of the board's camps (by id or name; the compiler checks the
    # board declares it and stores its id: 丘比特's 情侣阵营)
    camp_params: tuple[str, ...] = ()


# -- small helpers every role module uses --------------------------------------------------------
def params(state: GameState, role: str) -> Mapping[str, Any]:
    """The board's parameters for `role` (defaults filled in by the compiler)."""
    table: Mapping[str, Mapping[str, Any]] = state.rules.board.params
    return table.get(role, {})


def role_name(state: GameState, role: str) -> str:
    name: str = state.rules.role_name(role)
    return name


def has(state: GameState, name: str, role: str) -> bool:
    c = state.chars[name]
    return c.role == role and not c.skills_lost


def need(state: GameState, name: str, role: str, skill: str) -> None:
    """Refuse `skill` to anyone who is not (or no longer) this role (in the board's words,
    `Board.refusal`)."""
    if not has(state, name, role):
        refusal: str = state.rules.board.refusal
        raise IllegalCommand(refusal.format(actor=name, role=role_name(state, role), skill=skill))


def holder(state: GameState, role: str) -> Any:
    found = state.with_role(role)
    return found[0] if found else None


def report(state: GameState, text: str) -> None:
    """公示: by day at once; what happens at night (or at 开局) opens the next day."""
    if state.phase.kind == DAY:
        announce(state, text)
    else:
        ext(state).report.append(text)
