from __future__ import annotations

from banshe.engine import Command, GameState, apply_in_place, core
from banshe.engine.commands import CLOSE_PHASE, CLOSE_STAGE, DIRECTOR, PROMPT_TIMEOUT
from banshe.rulesets import new_game

# running against the mypyc-compiled build (.venv-fast, scripts/setup-fast.sh)
COMPILED = (core.__file__ or "").endswith(".so")

SEATS = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三", "十四"]
ROLES = {
    "一": "预言家",
    "二": "女巫",
    "三": "猎人",
    "四": "白痴",
    "五": "村民",
    "六": "村民",
    "七": "村民",
    "八": "村民",
    "九": "狼人",
    "十": "狼人",
    "十一": "狼人",
    "十二": "狼人",
    "十三": "混血儿",
    "十四": "病娇",
}


def pinming(seed: int = 5, **options: object) -> GameState:
    return new_game("pinming", SEATS, dict(ROLES), dict(options), seed)


def post(state: GameState, actor: str, skill: str, *targets: str, text: str | None = None) -> None:
    apply_in_place(state, Command(actor, skill, tuple(targets), text=text))


def director(state: GameState, skill: str, *targets: str) -> None:
    apply_in_place(state, Command(DIRECTOR, skill, tuple(targets)))


def close(state: GameState) -> None:
    director(state, CLOSE_PHASE)


def close_stage(state: GameState) -> None:
    director(state, CLOSE_STAGE)


def timeout(state: GameState) -> None:
    director(state, PROMPT_TIMEOUT)


def to_day(state: GameState, number: int) -> None:
    """Close phases (with every default) until 第number天 begins."""
    target = 2 * number - 1
    assert state.phase.ordinal <= target, f"already past 第{number}天"
    while state.phase.ordinal < target:
        while state.prompts:
            timeout(state)
        close(state)
        while state.prompts:
            timeout(state)
