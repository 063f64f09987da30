"""预言家 — 预言：游戏日夜晚，预言家选择一名角色；若该角色属于村民阵营，反馈<村民阵营>；否则，反馈<非村民阵营>。

A board may answer otherwise (`答案: 阵营名`: the target's camp by name, 感染's 先知 — 反馈该角色所属阵营;
`状态答案`: a status that answers by its own name, 感染 FAQ 1 — 游离状态的角色反馈为“游离状态”), and may
hold a seer's answer until the night settles (`Board.holds_answer`: 感染's lover 先知)."""

from __future__ import annotations

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.core import feedback
from banshe.engine.model import NIGHT, GameState
from banshe.engine.ruleset import INVESTIGATE, ONE_TARGET, SkillSpec, alive_targets

from ..role import VILLAGE, LibraryRole, Param, need, params
from ..state import ext

SEER = "seer"
CHECK = "check"
# `答案`: 二分 — <好人结果>/<坏人结果> by `好人阵营`; 阵营名 — the target's camp, by the board's camp name
TWO_ANSWERS, CAMP_NAME = "二分", "阵营名"


def check_check(state: GameState, cmd: Command) -> None:
    need(state, cmd.actor, SEER, "预言")
    if ext(state).check is not None:
        raise IllegalCommand("今晚已经预言过了")


def apply_check(state: GameState, cmd: Command) -> None:
    ext(state).check = (cmd.actor, cmd.targets[0])


def answer(state: GameState, target: str) -> str:
    """What 预言 answers for `target`, as the board's parameters word it."""
    p = params(state, SEER)
    t = state.chars[target]
    for status in p["状态答案"]:
        if status in t.statuses:
            name: str = state.rules.status_names.get(status, status)
            return name
    if p["答案"] == CAMP_NAME:
        camp: str = state.rules.camp_names[t.camp]
        return camp
    return str(p["好人结果"] if t.camp == p["好人阵营"] else p["坏人结果"])


def seer_result(state: GameState) -> None:
    """The stage of 预言 closes: the answer (`answer`), now or, where the board holds it
    (`Board.holds_answer`), when the night settles (`tell_held`)."""
    data = ext(state)
    if data.check is not None:
        seer, target = data.check
        result = answer(state, target)
        text = f"你预言了{target}：{result}。"
        holds = state.rules.board.holds_answer.get(SEER)
        if holds is not None and holds(state, seer):
            data.held += ((seer, "预言", target, result, text),)
            return
        feedback(state, seer, "预言", target, result, text)


CHECK_SKILL = SkillSpec(
    CHECK,
    "预言",
    frozenset({NIGHT}),
    ONE_TARGET,
    check_check,
    apply_check,
    candidates=alive_targets,
    intent=INVESTIGATE,
)

ROLE = LibraryRole(
    SEER,
    "预言家",
    VILLAGE,
    __doc__ or "",
    skills=(CHECK_SKILL,),
    params={
        "好人阵营": Param(VILLAGE, "答“好人结果”的阵营（阵营 id）"),
        "好人结果": Param("村民阵营", "目标属于好人阵营时的反馈"),
        "坏人结果": Param("非村民阵营", "目标不属于好人阵营时的反馈"),
        "答案": Param(
            TWO_ANSWERS, "二分：按好人阵营答好人/坏人结果；阵营名：答目标所属阵营的名字", (TWO_ANSWERS, CAMP_NAME)
        ),
        "状态答案": Param((), "处于这些状态（状态 id）的目标，答状态名而不答阵营（如感染的游离状态）"),
    },
    god=True,
    after_stage={CHECK: seer_result},
)
