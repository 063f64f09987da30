"""丘比特 — 爱神之箭：游戏开始时，丘比特须选择两名角色，这两名角色成为情侣；
恋爱<锁定技>：情侣在成为情侣后互知共群；
殉情<锁定技>：情侣中若有一人出局，另一人立即出局；
私奔<锁定技>：若情侣的身份属于同一个阵营，情侣仍然属于该阵营；若情侣的身份不属于同一个阵营，情侣均脱离其原阵营，
形成情侣阵营（丘比特的阵营转变为与情侣相同的阵营）。
（沉寂与取酒、感染的种子；情侣阵营何时获胜由板子的 wins 写：其余出局。）
"""

from __future__ import annotations

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.core import director_note, draw, feedback, group_notice, put_out, set_camp
from banshe.engine.model import START, GameState
from banshe.engine.ruleset import MANY_TARGETS, SkillSpec

from ..role import VILLAGE, LibraryRole, Param, need, params, role_name
from ..state import BoardState, ext

CUPID = "cupid"
ARROW = "arrow"  # 爱神之箭
LOVERS_GROUP = "lovers"  # 情侣 (the pages name this group)
LOVERS_CAMP = "lovers"  # 情侣阵营's usual id (the parameter 情侣阵营)
DRAW, NO_LOVERS = "随机", "无情侣"  # 未选择
JOINS_LOVERS_CAMP, FOLLOWS_LOVERS, KEEPS_CAMP = "情侣阵营", "随情侣", "不变"  # 丘比特阵营


def check_arrow(state: GameState, cmd: Command) -> None:
    # 爱神之箭 — 游戏开始时，丘比特须选择两名角色 (two distinct characters; himself as the board says)
    need(state, cmd.actor, CUPID, "发动爱神之箭")
    if ext(state).cupid_arrow is not None:
        raise IllegalCommand("丘比特已经选择了情侣")
    targets = cmd.targets
    if len(targets) != 2 or targets[0] == targets[1]:
        raise IllegalCommand("爱神之箭需要选择两名不同的角色")
    if cmd.actor in targets and not params(state, CUPID)["可选自己"]:
        raise IllegalCommand("丘比特不能选择自己成为情侣")


def apply_arrow(state: GameState, cmd: Command) -> None:
    first, second = cmd.targets
    ext(state).cupid_arrow = (cmd.actor, first, second)


def _the_cupid(state: GameState) -> str | None:
    """The 丘比特 who draws when no arrow was posted: the first in seat order with his skills."""
    for name in state.order:
        c = state.chars[name]
        if c.role == CUPID and not c.skills_lost:
            return name
    return None


def _drawn_pair(state: GameState, cupid: str) -> tuple[str, str]:
    # 丘比特须选择两名角色: no choice by 开局's close → the director draws two (seeded, recorded)
    pool = [n for n in state.order if n != cupid or params(state, CUPID)["可选自己"]]
    first = str(draw(state, "爱神之箭（第一名情侣）", pool))
    second = str(draw(state, "爱神之箭（第二名情侣）", [n for n in pool if n != first]))
    return first, second


def make_lovers(state: GameState) -> None:
    """开局 closes (before the groups form): 恋爱 — the pair posted (or drawn, or none, as the board
    says) become lovers, each told the other privately (and, where the board says, his
    identity), sharing a group where the board says; 私奔 — lovers of different camps leave them
    for 情侣阵营 (each member told, and the director; no one else), the wolf among them leaving
    his group where the board says; 丘比特 follows as the board says."""
    data = ext(state)
    cupid = data.cupid_arrow[0] if data.cupid_arrow is not None else _the_cupid(state)
    if cupid is None:
        return
    p = params(state, CUPID)
    if data.cupid_arrow is not None:
        pair: tuple[str, str] = data.cupid_arrow[1:]
    elif p["未选择"] == DRAW:
        pair = _drawn_pair(state, cupid)
    else:
        director_note(state, "丘比特未选择情侣，本局没有情侣。")
        return
    lovers = tuple(sorted(pair, key=lambda n: state.chars[n].seat))
    data.linked = lovers
    for lover, other in ((lovers[0], lovers[1]), (lovers[1], lovers[0])):
        identity = role_name(state, state.chars[other].role) if p["告知身份"] else None
        told = f"，{other}的身份是{identity}" if identity else ""
        feedback(state, lover, "恋爱", other, identity, f"你与{other}成为情侣{told}。")
    if p["共群"]:
        state.groups[LOVERS_GROUP] = lovers
        group_notice(state, LOVERS_GROUP, "情侣：" + "、".join(lovers), members=list(lovers))
    first, second = (state.chars[n] for n in lovers)
    if first.camp != second.camp:
        # 私奔: 情侣均脱离其原阵营，形成情侣阵营
        camp: str = p["情侣阵营"]
        if p["人狼恋离群"]:
            data.ungrouped = frozenset(lovers)
        joining = [*lovers]
        if p["丘比特阵营"] != KEEPS_CAMP and cupid not in lovers:
            joining.append(cupid)
    else:
        camp = first.camp  # 若情侣的身份属于同一个阵营，情侣仍然属于该阵营
        joining = [cupid] if p["丘比特阵营"] == FOLLOWS_LOVERS and cupid not in lovers else []
    camp_name = state.rules.camp_name(camp)
    for name in joining:
        if state.chars[name].camp != camp:
            # told to him alone (and the director's record): {skill 私奔, target null, result the camp}
            set_camp(state, name, camp)
            feedback(state, name, "私奔", None, camp_name, f"你的阵营现在是{camp_name}。")


def lovers_follow(state: GameState, name: str, cause: str) -> None:
    """殉情<锁定技> — 情侣中若有一人出局，另一人立即出局 (any cause; after this out's own reactions)."""
    data: BoardState = state.ext  # type: ignore[assignment]  # `ext(state)`, unchecked: asked on every out
    lovers = data.linked
    if name in lovers:
        other = lovers[1] if lovers[0] == name else lovers[0]
        if state.is_alive(other):
            put_out(state, other, "殉情")


ARROW_SKILL = SkillSpec(
    ARROW,
    "爱神之箭",
    frozenset({START}),
    MANY_TARGETS,
    check_arrow,
    apply_arrow,
    irreversible=True,
)

ROLE = LibraryRole(
    CUPID,
    "丘比特",
    VILLAGE,
    __doc__ or "",
    skills=(ARROW_SKILL,),
    params={
        "可选自己": Param(True, "爱神之箭能否选择丘比特自己为情侣之一"),
        "未选择": Param(
            DRAW, "开局结束时丘比特仍未选择：随机（导演随机抽取两名角色，记录在案）或 无情侣", (DRAW, NO_LOVERS)
        ),
        "告知身份": Param(False, "情侣除对方的名字外是否也得知对方的身份"),
        "共群": Param(True, "情侣是否共群（两人的群聊“情侣”）"),
        "情侣阵营": Param(LOVERS_CAMP, "人狼恋（情侣的阵营不同）时情侣组成的阵营（本板子 camps 中的阵营）"),
        "人狼恋离群": Param(True, "人狼恋时情侣不加入身份原有的群（狼人情侣不与其他狼人互知共群、不能共同杀人）"),
        "丘比特阵营": Param(
            JOINS_LOVERS_CAMP,
            "情侣阵营：人狼恋时丘比特也加入情侣阵营；随情侣：丘比特总是转为情侣的阵营；不变：丘比特留在原阵营",
            (JOINS_LOVERS_CAMP, FOLLOWS_LOVERS, KEEPS_CAMP),
        ),
    },
    at_start=make_lovers,
    watches_outs=lovers_follow,
    camp_params=("情侣阵营",),
)
