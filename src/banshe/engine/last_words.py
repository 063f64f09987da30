"""遗言: the first N characters out may leave last words once (rulings: 品茗 4, 沉寂与取酒 5, 感染 none)."""

from __future__ import annotations

from .commands import Command, IllegalCommand
from .core import announce, notice
from .model import DAY, NIGHT, START, GameState
from .registry import get_ruleset
from .ruleset import FREE_TEXT, SkillSpec

LAST_WORDS = "last_words"


def grant_last_words(state: GameState, name: str, when: str) -> None:
    """Give `name` the right if fewer than the ruleset's count have had it (放弃遗言不会使留遗言的
    权利留给以后出局的角色: a granted right counts whether or not it is used)."""
    given = state.flags.get("last_words_given", 0)
    if given >= get_ruleset(state.ruleset).last_words:
        return
    state.flags["last_words_given"] = given + 1
    state.char(name).marks["last_words"] = "open"
    notice(state, name, f"你可以留下遗言（{when}）。", right="遗言")


def no_last_words(state: GameState, cmd: Command) -> bool:
    c = state.char(cmd.actor)
    return c.alive or c.marks.get("last_words") != "open"


def check_last_words(state: GameState, cmd: Command) -> None:
    if no_last_words(state, cmd):
        count = get_ruleset(state.ruleset).last_words
        raise IllegalCommand(f"{cmd.actor}没有遗言权利（遗言只给最先出局的{count}名角色）")


def apply_last_words(state: GameState, cmd: Command) -> None:
    state.char(cmd.actor).marks["last_words"] = "used"
    announce(state, f"{cmd.actor}的遗言：{cmd.text}")


def last_words_skill() -> SkillSpec:
    """The 遗言 skill: posted once, by an out character holding the right, at any time."""
    return SkillSpec(
        LAST_WORDS,
        "遗言",
        frozenset({START, DAY, NIGHT}),
        FREE_TEXT,
        check_last_words,
        apply_last_words,
        actor_may_be_out=True,
        refuses=no_last_words,
    )
