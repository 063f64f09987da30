"""遗言: the first N characters out may leave last words once (rulings: 品茗 4, 沉寂与取酒 5, 感染 none)."""

from __future__ import annotations

import re

from .commands import Command, IllegalCommand
from .core import announce, feedback
from .model import DAY, NIGHT, RIGHT_OPEN, RIGHT_USED, START, GameState
from .ruleset import FREE_TEXT, Ruleset, SkillSpec

LAST_WORDS = "last_words"

# 遗言中禁止使用Discuz!代码 (品茗): any Discuz! tag, opening or closing, with or without a value
_DISCUZ = re.compile(
    r"\[/?(?:b|i|u|s|p|hr|sup|sub|color|size|font|backcolor|align|float|indent|url|email|img|"
    r"media|flash|audio|attach|attachimg|quote|code|hide|free|list|\*|table|tr|td|th|at|qq|password)"
    r"(?:=[^\]]*)?\]",
    re.IGNORECASE,
)


def grant_last_words(state: GameState, name: str, when: str) -> None:
    """Give `name` the right if fewer than the ruleset's count have had it (放弃遗言不会使留遗言的
    权利留给以后出局的角色: a granted right counts whether or not it is used). The character is
    told privately, in the phase of the out: {skill 遗言, target null, result null}
    (可以留下遗言的角色会收到可以留下遗言的通知)."""
    given = state.flags.get("last_words_given", 0)
    rs: Ruleset = state.rules
    if given >= rs.last_words:
        return
    state.flags["last_words_given"] = given + 1
    c = state.char(name)
    c.last_words = RIGHT_OPEN
    c.last_words_phase = state.phase.ordinal
    feedback(state, name, "遗言", None, None, f"你可以留下遗言（{when}），格式：遗言 内容。")


def _lapsed(state: GameState, granted: int) -> bool:
    """在次日讨论日开始前…未提交遗言，视为放弃遗言 (品茗) / 次日09:00之前 (沉寂与取酒): the out's
    phase and the one after it (a night out's overnight wait before the day's opening post is
    the day on which its out is published; docs/rulings.md)."""
    return state.phase.ordinal > granted + 1


def no_last_words(state: GameState, cmd: Command) -> bool:
    c = state.chars[cmd.actor]
    if c.alive or c.last_words != RIGHT_OPEN:
        return True
    return _lapsed(state, c.last_words_phase) or bool(_DISCUZ.search(cmd.text or ""))


def check_last_words(state: GameState, cmd: Command) -> None:
    c = state.char(cmd.actor)
    if c.alive or c.last_words != RIGHT_OPEN:
        rs: Ruleset = state.rules
        count = rs.last_words
        raise IllegalCommand(f"{cmd.actor}没有遗言权利（遗言只给最先出局的{count}名角色）")
    if _lapsed(state, c.last_words_phase):
        raise IllegalCommand(f"{cmd.actor}的遗言时限已过：次日讨论日开始前未提交遗言，视为放弃遗言")
    if _DISCUZ.search(cmd.text or ""):
        raise IllegalCommand("遗言中禁止使用Discuz!代码（如[b]、[color=…]、[url]、[img]等标签），请去掉后重新提交")


def apply_last_words(state: GameState, cmd: Command) -> None:
    state.char(cmd.actor).last_words = RIGHT_USED
    announce(state, f"{cmd.actor}的遗言：{cmd.text}")


def last_words_skill() -> SkillSpec:
    """The 遗言 skill: posted once, by an out character holding the right, until it lapses."""
    return SkillSpec(
        LAST_WORDS,
        "遗言",
        frozenset({START, DAY, NIGHT}),
        FREE_TEXT,
        check_last_words,
        apply_last_words,
        actor_may_be_out=True,
        only_out=True,
        refuses=no_last_words,
    )
