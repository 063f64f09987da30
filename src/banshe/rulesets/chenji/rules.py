"""沉寂与取酒 V1.5 — seed `000_b72e015fab06684e.txt`, with `shared/spec/rulings.md` and docs/rulings.md.

Each skill is a small check/apply pair citing its rule; the night settles in one task in the
rulings' order; achievements are computed from the log in `achievements.py`. An identity written
in its own module (`slanderer.py` 诽谤者, `nun.py` 修女) is only registered here: its `ROLE`, its
skills, and a call where its rule acts (the night, the 预言 answer, the vote).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.core import (
    announce,
    check_outcome,
    draw,
    elect_sheriff,
    feedback,
    group_notice,
    notice,
    push_prompt,
    put_out,
    set_camp,
    set_sheriff,
    tally,
    top_of,
)
from banshe.engine.last_words import grant_last_words, last_words_skill
from banshe.engine.model import DAY, NIGHT, START, Character, GameState, Prompt
from banshe.engine.publish import day_opening
from banshe.engine.ruleset import (
    FREE_TEXT,
    MANY_TARGETS,
    NO_TARGET,
    ONE_TARGET,
    YES_NO,
    Condition,
    NightStage,
    OptionSpec,
    Role,
    Ruleset,
    SkillSpec,
    Task,
    alive_targets,
    first_day,
    later_day,
    other_alive_targets,
)
from banshe.library.board import Board, role_params
from banshe.library.roles import hunter

from . import nun, slanderer
from .common import (
    DYING,
    FAKE_DEATH,
    LOVER_GROUP,
    MAD,
    STATUS_NAMES,
    WITHER,
    WOLF_GROUP,
    apply_record,
    apply_targeted_once,
    need,
    not_yet_targeted,
    once_per_target,
    once_tonight,
    record,
    valid,
    withered,
)
from .roles import (
    ALPHA,
    ASSASSIN,
    BLACK_WOLF,
    CAMP_NAMES,
    CAMP_ORDER,
    CHECK_RESULT,
    CITIZEN,
    CONFESSOR,
    CUPID,
    ELDER,
    ENVOY,
    GUARD,
    HUNTER,
    IDIOT,
    LOVERS,
    MAGICIAN,
    MARTYR,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUN,
    ORDINARY,
    PIPER,
    PIPERS,
    PRINCESS,
    PRIVILEGED,
    REBEL,
    ROLE_ALIASES,
    SCAPEGOAT,
    SEER,
    SILENT,
    UNIQUE,
    VILLAGE,
    WHITE,
    WHITE_WOLF,
    WITCH,
    WOLF,
    WOLVES,
    deal,
)
from .speech import is_allowed_mad_post, mad_speech_refusal
from .state import CheckRecord, ChenjiSeat, ChenjiState, KillRecord, Prediction, ext, seat

# skill ids
ARROW, REJOIN, CHECK, TIANYAN, ANTIDOTE, POISON = "arrow", "rejoin", "check", "tianyan", "antidote", "poison"
SHIELD, MUTE, FEIGN, POWER, PURE = "shield", "mute", "feign", "power", "pure"
SHOOT = hunter.SHOOT  # 最后一枪: the library's 猎人
HEIR, CONFESS, MARTYRDOM, STAB = "heir", "confess", "martyrdom", "stab"
BITE, KILL, MISSION = "bite", "kill", "mission"
PIPE, HEARTBREAK, FINALE, SUCCEED, LAST_WORDS = (
    "pipe",
    "heartbreak",
    "finale",
    "succeed",
    "last_words",
)
PREDICT, ID_SHEET = "predict", "id_sheet"
SPIRIT, ZHIJI = "spirit", "zhiji"  # 通灵, 志继: locked skills held as charges

LAST_WORDS_COUNT = 5  # 只有前5名出局者有遗言
KILL_CAUSES = ("杀人", "撕咬")
OPTION_COINS = "竞拍金币总额"


# -- small queries -----------------------------------------------------------------------------
def is_wolf(c: Character) -> bool:
    return c.role in WOLVES


def piped(c: Character) -> bool:
    """被吹笛: 癫狂 or 假死 (rulings)."""
    return MAD in c.statuses or FAKE_DEATH in c.statuses


def lovers(state: GameState) -> list[str]:
    return list(ext(state).lovers)


def vote_power(state: GameState, name: str) -> int:
    return _votes_of(state.chars[name], state.sheriff)


def _votes_of(c: Character, sheriff: str | None) -> int:
    """Votes a character can cast: sheriff 2, 假死 0, a 白痴 after 装傻 0, else 1."""
    if not c.alive or FAKE_DEATH in c.statuses or seat(c).feigned:
        return 0
    return 2 if sheriff == c.name else 1


def next_day(state: GameState, text: str) -> None:
    """FAQ 4 notices: posted when the next discussion day opens."""
    ext(state).next_day.append(text)


def change_sheriff(state: GameState, name: str | None) -> None:
    """The badge moves; the sheriff's two votes count for 狼人阵营's win condition at once."""
    set_sheriff(state, name)
    check_outcome(state)


def report(state: GameState, text: str) -> None:
    """公示 at once by day; what happens at night opens the next day."""
    if state.phase.kind == DAY:
        announce(state, text)
    else:
        next_day(state, text)


def _need_charge(c: Character, skill: str, name: str) -> None:
    if not c.has_charge(skill):
        raise IllegalCommand(f"<{name}>是限定技，已经用过了")


def _other(cmd: Command, name: str) -> None:
    if cmd.target == cmd.actor:
        raise IllegalCommand(f"<{name}>需要选择一名其他角色")


# -- 开局: 爱神之箭, 归群 ------------------------------------------------------------------------
def check_arrow(state: GameState, cmd: Command) -> None:
    # 爱神之箭 — 游戏开始时，爱神须选择两名角色 (rulings: two distinct characters, itself allowed)
    need(state, cmd)
    if ext(state).arrow is not None:
        raise IllegalCommand("爱神已经选择了情侣")
    if len(cmd.targets) != 2 or cmd.targets[0] == cmd.targets[1]:
        raise IllegalCommand("爱神之箭需要选择两名不同的角色")


def apply_arrow(state: GameState, cmd: Command) -> None:
    ext(state).arrow = cmd.targets


def tell_white_wolf(state: GameState) -> None:
    """归群 — 游戏开始时，你得知所有狼人名单: at 开局, before he chooses, the 白狼 is told every
    狼人-identity character of 狼人阵营 (rulings 2026-12-04: {skill 归群, target null, result the list})."""
    for white in state.with_role(WHITE_WOLF):
        wolves = [c.name for c in state.chars.values() if is_wolf(c) and c.camp == WOLF]
        feedback(state, white.name, "归群", None, wolves, "所有狼人：" + ("、".join(wolves) or "无") + "。")


def check_rejoin(state: GameState, cmd: Command) -> None:
    # 归群 — 游戏开始时，你得知所有狼人名单，此时你可以选择加入狼队
    need(state, cmd)
    if ext(state).rejoin is not None:
        raise IllegalCommand("白狼已经选择归群")


def apply_rejoin(state: GameState, cmd: Command) -> None:
    ext(state).rejoin = cmd.actor


def settle_start(state: GameState) -> None:
    """归群, then 恋爱/私奔 (the lovers' camps, cupid follows), groups, camps in game."""
    data = ext(state)
    for c in state.chars.values():
        if c.role == WHITE_WOLF and data.rejoin == c.name:
            c.camp = WOLF
            notice(state, c.name, "你已归群，阵营变为狼人阵营。")
    cupids = state.with_role(CUPID)
    if cupids:
        cupid = cupids[0].name
        arrow = data.arrow
        if arrow is None:
            # 爱神须选择两名角色: no choice in time → the director draws (seeded, recorded)
            first = draw(state, "爱神之箭（第一名情侣）", list(state.order))
            second = draw(state, "爱神之箭（第二名情侣）", [n for n in state.order if n != first])
            pair = [str(first), str(second)]
        else:
            pair = list(arrow)
        data.lovers = pair
        data.cupid = cupid
        a, b = (state.chars[n] for n in pair)
        # 私奔: same camp → stays; otherwise both leave their camps and form 情侣阵营
        camp = a.camp if a.camp == b.camp else LOVERS
        a.camp = b.camp = camp
        state.chars[cupid].camp = camp  # 丘比特的阵营转变为与情侣相同的阵营
        state.groups[LOVER_GROUP] = tuple(sorted(pair, key=lambda n: state.chars[n].seat))
        for n in pair:
            other = pair[1] if n == pair[0] else pair[0]
            notice(state, n, f"你与{other}成为情侣。")
    # 狼群: the wolf identities of 狼人阵营 (a lone wolf in 情侣阵营 does not share it)
    wolves = [c.name for c in state.chars.values() if is_wolf(c) and c.camp == WOLF]
    state.groups[WOLF_GROUP] = tuple(wolves)
    group_notice(state, WOLF_GROUP, "狼群成员：" + "、".join(wolves), members=wolves)
    killers = [c.name for c in state.chars.values() if c.role == BLACK_WOLF]
    data.killer = killers[0] if killers else None
    holders = [c.name for c in state.chars.values() if c.role == SCAPEGOAT]
    data.scapegoat = holders[0] if holders else None
    # camps are counted from the end of 开局 (after 私奔)
    state.camps_in_game = [camp for camp in CAMP_ORDER if any(c.camp == camp for c in state.chars.values())]
    for c in state.chars.values():
        notice(state, c.name, f"你的阵营为{CAMP_NAMES[c.camp]}。", camp=c.camp)
    check_outcome(state)


# -- night skills ------------------------------------------------------------------------------
def check_check(state: GameState, cmd: Command) -> None:
    # 预言 — 游戏日夜晚，你可以选择一名角色查验其身份
    need(state, cmd)
    once_tonight(state, cmd, "预言")


def check_tianyan(state: GameState, cmd: Command) -> None:
    # 天眼<限定技> — 你获得技能【预言】，并失去技能【志继】 (rulings: one check)
    c = need(state, cmd)
    _need_charge(c, TIANYAN, "天眼")


def apply_tianyan(state: GameState, cmd: Command) -> None:
    c = state.chars[cmd.actor]
    c.spend(TIANYAN)
    c.charges[ZHIJI] = 0
    record(state, cmd)


def check_result(state: GameState, target: str) -> str:
    """预言反馈: the table's column; 情侣阵营 lovers and their cupid by the seed's note."""
    t = state.chars[target]
    pair = lovers(state)
    if t.camp == LOVERS and pair and (target in pair or target == ext(state).cupid):
        # 按情侣中非村民方角色反馈，若均为非村民方，按照被【预言】角色身份反馈
        outsiders = [n for n in pair if CHENJI.role_table[state.chars[n].role].camp != VILLAGE]
        if len(outsiders) == 1:
            return CHECK_RESULT[state.chars[outsiders[0]].role]
    return CHECK_RESULT[t.role]


def check_shield(state: GameState, cmd: Command) -> None:
    # 守护之盾 — 每名角色整局游戏只能成为该技能的目标一次
    need(state, cmd)
    once_tonight(state, cmd, "守护之盾")
    once_per_target(state, SHIELD, cmd.targets[0], "守护之盾")


def shield_targets(state: GameState, actor: str) -> Sequence[str]:
    """`SkillSpec.candidates` of 守护之盾: 每名角色整局游戏只能成为该技能的目标一次 (itself allowed)."""
    return not_yet_targeted(state, SHIELD)


def check_mute(state: GameState, cmd: Command) -> None:
    # 隔音之盾 — 每名角色整局游戏只能成为该技能的目标一次
    need(state, cmd)
    once_tonight(state, cmd, "隔音之盾")
    once_per_target(state, MUTE, cmd.targets[0], "隔音之盾")


def mute_targets(state: GameState, actor: str) -> Sequence[str]:
    """`SkillSpec.candidates` of 隔音之盾: 每名角色整局游戏只能成为该技能的目标一次 (itself allowed)."""
    return not_yet_targeted(state, MUTE)


def check_pipe(state: GameState, cmd: Command) -> None:
    # 吹笛 — 游戏日夜晚，吹笛可以选择一名角色; 曲尽: 可以放弃发动【吹笛】
    need(state, cmd)
    once_tonight(state, cmd, "吹笛")
    if FINALE in ext(state).tonight:
        raise IllegalCommand("今晚已经发动曲尽，不能再吹笛")


def check_finale(state: GameState, cmd: Command) -> None:
    # 曲尽 — 可以放弃发动【吹笛】，并选择一名癫狂状态的角色，使之进入假死状态
    need(state, cmd)
    once_tonight(state, cmd, "曲尽")
    if PIPE in ext(state).tonight:
        raise IllegalCommand("今晚已经吹笛，不能再发动曲尽")
    t = state.chars[cmd.targets[0]]
    if MAD not in t.statuses or FAKE_DEATH in t.statuses:
        raise IllegalCommand(f"{t.name}不是癫狂状态，不能成为<曲尽>的目标")


def finale_targets(state: GameState, actor: str) -> list[str]:
    """`SkillSpec.candidates` of 曲尽: 选择一名癫狂状态的角色 (not yet 假死), in seating order."""
    return [c.name for c in state.chars.values() if c.alive and MAD in c.statuses and FAKE_DEATH not in c.statuses]


def check_heartbreak(state: GameState, cmd: Command) -> None:
    # 断肠<限定技> — 若该角色为普通身份，则该角色失去技能 (not 普通: accepted and spent)
    c = need(state, cmd)
    _need_charge(c, HEARTBREAK, "断肠")


def apply_heartbreak(state: GameState, cmd: Command) -> None:
    # 断肠 takes hold at once (22:00): the target's later skills tonight are refused
    apply_spend(state, cmd)
    broken = state.chars[cmd.targets[0]]
    if broken.role in ORDINARY and not broken.skills_lost:
        ext(state).stats.heartbreak_effective += 1
        lose_skills(state, [broken.name])


def check_wither(state: GameState, cmd: Command) -> None:
    # 摇落<限定技> — 若该角色为普通身份，则该角色当晚发动的技能无效
    c = need(state, cmd)
    _need_charge(c, WITHER, "摇落")


def apply_spend(state: GameState, cmd: Command) -> None:
    c = state.chars[cmd.actor]
    c.spend(cmd.skill)
    if cmd.skill == ANTIDOTE:
        c.charges[SPIRIT] = 0  # 解药: 同时你失去【通灵】技能 (tonight's 通灵 has already been given)
    record(state, cmd)


def check_power(state: GameState, cmd: Command) -> None:
    # 弄权<限定技> — 将警长移交给该角色
    c = need(state, cmd)
    _need_charge(c, POWER, "弄权")


def killer_of(state: GameState) -> list[str]:
    """Who may post 杀人 now: the holder, or after 遗志 either alive lover."""
    data = ext(state)
    if data.lovers_kill:
        return [n for n in data.lovers if state.is_alive(n)]
    holder = data.killer
    return [holder] if holder and state.is_alive(holder) else []


def check_kill(state: GameState, cmd: Command) -> None:
    # 杀人 — 游戏日夜晚，黑狼可选择一名角色指杀 (or its heir; after 遗志 the lovers, one a night)
    if cmd.actor not in killer_of(state):
        raise IllegalCommand(f"{cmd.actor}没有<杀人>技能")
    if KILL in ext(state).tonight:
        raise IllegalCommand("今晚已经指杀过了")


def kill_targets(state: GameState, actor: str) -> Sequence[str]:
    """`SkillSpec.candidates` of 杀人: any character in the game (itself allowed) for one who holds
    it (`killer_of`); none for anyone else, whom `check_kill` refuses (every seat has the row: 杀人
    is no identity's)."""
    return state.living() if actor in killer_of(state) else ()


def _pair_of(state: GameState) -> int:
    return (state.phase.number + 1) // 2


def check_bite(state: GameState, cmd: Command) -> None:
    # 撕咬 — 游戏日每两晚中（1-2晚、3-4晚以此类推）选择一晚
    need(state, cmd)
    if _pair_of(state) in ext(state).bitten_pairs:
        raise IllegalCommand("每两晚只能撕咬一次，本轮已经撕咬过了")


def apply_bite(state: GameState, cmd: Command) -> None:
    ext(state).bitten_pairs.append(_pair_of(state))
    record(state, cmd)


def _witch_check(state: GameState, cmd: Command, skill: str, name: str) -> None:
    c = need(state, cmd)
    _need_charge(c, skill, name)
    _other(cmd, name)  # 选择一名其他角色 (解药不能对自己使用, FAQ 2)


def check_antidote(state: GameState, cmd: Command) -> None:
    # 解药<限定技> — 选择一名其他角色，该角色生命值+1但不得超过上限。同时你失去【通灵】
    _witch_check(state, cmd, ANTIDOTE, "解药")


def check_poison(state: GameState, cmd: Command) -> None:
    # 毒药<限定技> — 选择一名其他角色; 若你在当晚未出局，则该角色在夜晚结束前出局
    _witch_check(state, cmd, POISON, "毒药")


def check_pure(state: GameState, cmd: Command) -> None:
    # 纯真<限定技> — 代替当晚被狼人指杀的角色出局
    c = need(state, cmd)
    _need_charge(c, PURE, "纯真")
    _other(cmd, "纯真")
    # 若当晚无人出局，则不产生任何效果: the 小公主 is not told tonight's 指杀 targets (only the
    # 女巫's 通灵 is), so any other character is accepted and the settlement decides (rulings (5))


# -- day skills --------------------------------------------------------------------------------
def check_confess(state: GameState, cmd: Command) -> None:
    # 忏悔<限定技> — 游戏日白天，将自己的身份亮给任意其他角色查看
    c = need(state, cmd)
    _need_charge(c, CONFESS, "忏悔")
    _other(cmd, "忏悔")


def apply_confess(state: GameState, cmd: Command) -> None:
    state.chars[cmd.actor].spend(CONFESS)
    target = cmd.targets[0]
    feedback(state, target, "忏悔", cmd.actor, "忏悔者", f"{cmd.actor}向你亮明身份：忏悔者。")


def check_martyrdom(state: GameState, cmd: Command) -> None:
    # 死节 — 你也可选择在任意时间亮明身份并立即出局
    need(state, cmd)


def apply_martyrdom(state: GameState, cmd: Command) -> None:
    put_out(state, cmd.actor, "死节")


def check_stab(state: GameState, cmd: Command) -> None:
    # 行刺<限定技> — 游戏日白天，刺杀一名其他角色
    c = need(state, cmd)
    _need_charge(c, STAB, "行刺")
    _other(cmd, "行刺")


def apply_stab(state: GameState, cmd: Command) -> None:
    assassin = state.chars[cmd.actor]
    assassin.spend(STAB)
    target = state.chars[cmd.targets[0]]
    wolf = is_wolf(target)
    announce(
        state,
        f"刺客{cmd.actor}发动行刺，{target.name}出局。" + ("" if wolf else f"目标不是狼人，刺客{cmd.actor}同时出局。"),
    )
    put_out(state, target.name, "行刺")
    if not wolf:
        put_out(state, cmd.actor, "行刺")


def not_envoy(state: GameState, cmd: Command) -> bool:
    """`legal_commands`' quick test: not a holder of 出使, which `_need` refuses first."""
    return state.chars[cmd.actor].role not in CHENJI.holders_table[MISSION]


def check_mission(state: GameState, cmd: Command) -> None:
    # 出使<限定技> — 通过导演向吹笛者发送一条信息，次日白天公示，但不公示内容
    c = need(state, cmd)
    _need_charge(c, MISSION, "出使")


def apply_mission(state: GameState, cmd: Command) -> None:
    state.chars[cmd.actor].spend(MISSION)
    for p in state.with_role(PIPER):
        feedback(state, p.name, "出使", None, cmd.text, f"狼使传来消息：{cmd.text}")
    next_day(state, "出使技能发动！")


# -- 评奖 (虽败犹荣, 完整参与评奖): the vote after the game ---------------------------------------------
AWARD = "award"


def check_award(state: GameState, cmd: Command) -> None:
    # 虽败犹荣 — 失败阵营中获得评奖投票过半者; each character votes once, for another character
    if cmd.actor in ext(state).award_votes:
        raise IllegalCommand(f"{cmd.actor}已经投过评奖票")
    if cmd.target == cmd.actor:
        raise IllegalCommand("评奖不能投给自己")


def apply_award(state: GameState, cmd: Command) -> None:
    ext(state).award_votes[cmd.actor] = cmd.targets[0]


# -- records the director keeps for the achievements (预想, 身份表) --------------------------------
PREDICTABLE = {"预言": CHECK, "天眼": TIANYAN, "杀人": KILL, "撕咬": BITE}


def _parse_prediction(state: GameState, cmd: Command) -> tuple[str, str, str]:
    parts = (cmd.text or "").split()
    if len(parts) != 3 or parts[0] not in PREDICTABLE or parts[1] not in state.chars:
        raise IllegalCommand("预想的格式为：技能 目标 预想结果（如“预言 乙 狼人”或“杀人 乙 出局”）")
    skill, target, result = parts
    if PREDICTABLE[skill] in (KILL, BITE) and result not in ("出局", "未出局"):
        raise IllegalCommand("指杀的预想结果只能是“出局”或“未出局”")
    if PREDICTABLE[skill] in (CHECK, TIANYAN) and result not in ("村民", "狼人", "吹笛者", "免疫"):
        raise IllegalCommand("预言的预想结果只能是 村民/狼人/吹笛者/免疫")
    return skill, target, result


def bad_prediction(state: GameState, cmd: Command) -> bool:
    """`legal_commands`' quick test: not three words, which `_parse_prediction` refuses first."""
    return len((cmd.text or "").split()) != 3


def check_predict(state: GameState, cmd: Command) -> None:
    # 鞠躬尽瘁: 【预言】/指杀 反馈结果与预想相同 — the player tells the director beforehand
    _parse_prediction(state, cmd)


def apply_predict(state: GameState, cmd: Command) -> None:
    skill, target, result = _parse_prediction(state, cmd)
    # 开局 and 第N天 look ahead to the coming night (第1夜 / 第N夜); 第N夜 to itself
    night = max(1, state.phase.number)
    ext(state).predictions.append(Prediction(night, cmd.actor, PREDICTABLE[skill], target, result))


def _parse_sheet(state: GameState, cmd: Command) -> dict[str, str]:
    sheet: dict[str, str] = {}
    for item in (cmd.text or "").replace("，", " ").replace(",", " ").split():
        name, sep, role = item.partition(":") if ":" in item else item.partition("：")
        rid = CHENJI.role_id(role)
        if not sep or name not in state.chars:
            raise IllegalCommand(f"身份表格式为“角色:身份”，以空格分隔：{item}")
        if rid is None:
            raise IllegalCommand(f"“{role}”不是沉寂与取酒的身份（身份表须使用身份表中的身份名）：{item}")
        sheet[name] = rid
    if not sheet:
        raise IllegalCommand("身份表是空的")
    return sheet


def bad_sheet(state: GameState, cmd: Command) -> bool:
    """`legal_commands`' quick test: too late, or no “角色:身份” item at all (`_parse_sheet` refuses
    a text without a colon: its first item, or the empty sheet)."""
    text = cmd.text or ""
    return state.phase.number >= 4 or (":" not in text and "：" not in text)


def check_sheet(state: GameState, cmd: Command) -> None:
    # 慧眼识人 — 在游戏进行至第四天讨论日前向导演私下递交身份表
    if state.phase.number >= 4:
        raise IllegalCommand("身份表须在第四天讨论日开始前递交，现在已经过了时限")
    _parse_sheet(state, cmd)


def apply_sheet(state: GameState, cmd: Command) -> None:
    ext(state).sheets[cmd.actor] = _parse_sheet(state, cmd)


# -- night settlement --------------------------------------------------------------------------
def close_checks(state: GameState) -> None:
    """22:15 closes (特权行使时间: 预言家【预言】、沉寂的先知者【天眼】…22:15之前): the 预言/天眼 results,
    then the 女巫's 【通灵】 (the 女巫 acts by 22:30 knowing tonight's 指杀 targets)."""
    data = ext(state)
    voided = withered(state)
    for skill in (CHECK, TIANYAN):
        if skill not in data.tonight:
            continue
        actor, target = data.tonight[skill]
        if skill == TIANYAN and actor == voided:
            continue  # 摇落: 天眼 voided
        result = nun.faith_answer(state, target) or check_result(state, target)  # 卫道: 免疫
        feedback(state, actor, "预言", target, result, f"你预言了{target}：{result}。")
        data.stats.checks.append(CheckRecord(state.phase.number, actor, skill, target, result))
    # 通灵<锁定技> — 会得知当晚被指杀的目标 (every 杀人/撕咬 target, guarded or not)
    for witch in state.with_role(WITCH):
        if witch.alive and witch.has_charge(SPIRIT):
            targets = list(dict.fromkeys(t for s, _a, t in data.order if s in (KILL, BITE)))
            feedback(
                state,
                witch.name,
                "通灵",
                None,
                targets,
                "今晚被指杀的角色：" + ("、".join(targets) if targets else "无") + "。",
            )


def settle_night(state: GameState) -> None:
    """Rulings' order: 守护之盾 → 指杀 → (女巫 not out) 解药 → 纯真 → 毒药 → 濒死 out → 吹笛/曲尽."""
    data = ext(state)
    tonight = data.tonight
    if WITHER in tonight and withered(state):
        data.stats.wither_effective += 1
    power = valid(state, POWER)
    if power:
        change_sheriff(state, power[1])
        next_day(state, "警长替换")
    shielded = tonight.get(SHIELD, (None, None))[1]
    dying: list[str] = []
    for skill, actor, target in data.order:
        if skill not in (KILL, BITE):
            continue
        if skill == KILL and actor == withered(state):
            continue
        data.stats.kills.append(KillRecord(state.phase.number, actor, skill, target))
        t = state.chars[target]
        if not t.alive:
            continue
        if target == shielded:
            data.stats.shield_blocks += 1
            continue
        if t.lives > 0:
            t.lives -= 1
            if t.role == ELDER:
                data.stats.elder_hit = True
            if t.lives == 0:
                t.statuses.add(DYING)
                seat(t).dying_cause = "杀人" if skill == KILL else "撕咬"
                dying.append(target)
    pure = valid(state, PURE)
    witches = state.with_role(WITCH)
    witch = witches[0] if witches else None
    witch_works = False
    if witch is not None and witch.alive:
        saved_by_pure = pure is not None and pure[1] == witch.name
        witch_works = DYING not in witch.statuses or saved_by_pure
    if witch_works and ANTIDOTE in tonight:
        saved = state.chars[tonight[ANTIDOTE][1]]
        if saved.alive:
            saved.lives = min(saved.lives + 1, 2 if saved.role == ELDER else 1)
            if saved.lives > 0 and DYING in saved.statuses:
                saved.statuses.discard(DYING)
                dying.remove(saved.name)
            if saved.role in PRIVILEGED:
                data.stats.antidote_privileged = True
    if pure:
        princess, target = pure
        t = state.chars[target]
        if DYING in t.statuses and target in dying:
            t.statuses.discard(DYING)
            t.lives = 1
            dying.remove(target)
            p = state.chars[princess]
            if DYING not in p.statuses:
                p.statuses.add(DYING)
                seat(p).dying_cause = "纯真"
                dying.append(princess)
            if t.role in PRIVILEGED:
                data.stats.pure_privileged = True
    if witch_works and POISON in tonight:
        target = tonight[POISON][1]
        if state.is_alive(target):
            if target in dying:
                dying.remove(target)
            state.chars[target].statuses.discard(DYING)
            if state.chars[target].role in WOLVES or state.chars[target].role == PIPER:
                data.stats.poison_wolf = True
            put_out(state, target, "毒药")
    for name in dying:
        c = state.chars[name]
        c.statuses.discard(DYING)
        if c.alive:
            cause = seat(c).dying_cause
            seat(c).dying_cause = None
            if cause in KILL_CAUSES and c.camp == VILLAGE:
                data.stats.killed_villagers.append(name)
            put_out(state, name, cause or "杀人")
    # 吹笛 / 曲尽 settle even if the 吹笛者 went out tonight
    if PIPE in tonight:
        actor, target = tonight[PIPE]
        t = state.chars[target]
        muted = tonight.get(MUTE, (None, None))[1]
        data.stats.piped.append(target)
        if target == muted:
            data.stats.mute_blocks += 1
        elif t.alive and not piped(t):
            t.statuses.add(MAD)
            check_outcome(state)
    if FINALE in tonight:
        t = state.chars[tonight[FINALE][1]]
        if t.alive and MAD in t.statuses:
            t.statuses.discard(MAD)
            t.statuses.add(FAKE_DEATH)
            check_outcome(state)
    slanderer.settle_night(state)
    nun.settle_night(state)  # 救赎


def lose_skills(state: GameState, names: list[str]) -> None:
    """失去技能: the identity's skills; 白痴失去该技能时立即出局 once he has used 装傻."""
    for n in names:
        state.chars[n].skills_lost = True
    for n in names:
        c = state.chars[n]
        if c.role == IDIOT and seat(c).feigned and c.alive:
            report(state, f"白痴{n}失去技能，立即出局。")
            put_out(state, n, "装傻")


# -- outs and prompts --------------------------------------------------------------------------
def announce_out(state: GameState, name: str, cause: str) -> None:
    """An out's own announcements, part of the out (rulings 2026-12-04): made in the order of the
    out and before the win check, so 死士出局！ is announced even when his out wins the game. FAQ 4:
    长老出局！ and 吹笛者出局！ open the next day (or go out with the result of a last night)."""
    c = state.chars[name]
    if c.role == ELDER:
        next_day(state, "长老出局！")
    if c.role == PIPER:
        next_day(state, "吹笛者出局！")
    if c.role == MARTYR and not c.skills_lost:
        report(state, f"{name}是死士。死士出局！")  # 死节: 当你出局时，须亮明身份并公示


def on_out(state: GameState, name: str, cause: str) -> None:
    c = state.chars[name]
    c.statuses.discard(DYING)
    # 只有前5名出局者有遗言: this out comes before its partner's 殉情
    grant_last_words(state, name, "次日09:00之前")
    pair = lovers(state)
    # 殉情<锁定技> — 情侣中若有一人出局，另一人立即出局 (settles before any prompt)
    if name in pair:
        other = pair[1] if pair[0] == name else pair[0]
        if state.is_alive(other):
            put_out(state, other, "殉情")
            _revenge(state, cause)
    # 志继<觉醒技> — 当预言家出局后，你的身份转变为预言家，并失去技能【天眼】
    if c.role == SEER:
        for s in state.with_role(SILENT):
            if s.alive and not s.skills_lost and s.has_charge(ZHIJI):
                s.role = SEER
                s.charges.pop(ZHIJI, None)
                s.charges.pop(TIANYAN, None)
                notice(state, s.name, "预言家出局，你的身份转变为预言家。")
    if c.role == ELDER and cause in ("投票", "毒药", "最后一枪"):
        # 威信<锁定技> — 因投票、【毒药】、【最后一枪】出局后，所有普通身份失去技能 (长老出局！: `announce_out`)
        lose_skills(state, [x.name for x in state.chars.values() if x.role in ORDINARY and not x.skills_lost])
    if c.role == ALPHA and cause in ("毒药", "最后一枪"):
        # 枭首<锁定技> — 使者、修女失去技能
        ext(state).stats.beheaded = True
        lose_skills(state, [x.name for x in state.chars.values() if x.role in (ENVOY, NUN)])
    shot = state.rules.board.out_hooks.get(c.role)  # 最后一枪: the library's 猎人 (`BOARD`)
    if shot is not None:
        shot(state, name, cause)
    if state.sheriff == name:
        push_prompt(state, Prompt(name, SUCCEED, "请选择一名未出局的角色继任警长。"))
    data = ext(state)
    if cause == "冤死" and data.scapegoat == name:
        _ask_heir(state, name, "scapegoat", "请指认一名良民获得【冤死】。")
    if data.killer == name and not data.lovers_kill:
        _ask_heir(state, name, "killer", "请指认一名狼人获得【杀人】。")


def _ask_heir(state: GameState, name: str, kind: str, text: str) -> None:
    """指认: a prompt when someone can inherit; none alive → the skill is lost (失传)."""
    if _heir_candidates(state, kind, name):
        push_prompt(state, Prompt(name, HEIR, text, (("kind", kind),)))
    else:
        _set_heir(state, kind, None)


def _revenge(state: GameState, cause: str) -> None:
    """复仇<锁定技>: lovers dead by 投票/毒药/最后一枪 (冤死 counts as 票死) → 乱民; 杀人/撕咬 → 良民."""
    cupid = ext(state).cupid
    if not cupid or not state.is_alive(cupid) or state.chars[cupid].role != CUPID:
        return
    if cause in ("投票", "冤死", "毒药", "最后一枪"):
        role, camp = REBEL, WOLF
    elif cause in KILL_CAUSES:
        role, camp = CITIZEN, VILLAGE
    else:
        return
    c = state.chars[cupid]
    c.role = role
    set_camp(state, cupid, camp)
    notice(state, cupid, f"情侣出局，你的身份变为{CHENJI.role_name(role)}（{CAMP_NAMES[camp]}）。", camp=camp)


def _heir_candidates(state: GameState, kind: str, dead: str) -> list[str]:
    if kind == "scapegoat":
        return [n for n in state.order if state.is_alive(n) and state.chars[n].role == CITIZEN]
    return [
        n
        for n in state.order
        if n != dead and state.is_alive(n) and is_wolf(state.chars[n]) and state.chars[n].camp == WOLF
    ]


def _default_heir(state: GameState, kind: str, dead: str) -> None:
    heir = draw(state, "冤死继承者" if kind == "scapegoat" else "杀人继承者", _heir_candidates(state, kind, dead))
    _set_heir(state, kind, heir)


def _set_heir(state: GameState, kind: str, heir: str | None) -> None:
    if kind == "scapegoat":
        ext(state).scapegoat = heir
        if heir:
            notice(state, heir, "你获得了【冤死】。")
    else:
        ext(state).killer = heir
        if heir:
            notice(state, heir, "你获得了【杀人】。")


# -- the prompt skills: 殉职, 指认, 装傻 (最后一枪: the library's 猎人) -----------------------------
# Each one's `check` holds every refusal of an answer and changes nothing; `answer` applies an
# accepted answer, `on_timeout` what happens when none comes in time.
def check_succeed(state: GameState, cmd: Command) -> None:
    # 殉职<锁定技> — 警长出局后，须选择一名未出局的角色来继任警长
    target = cmd.targets[0]
    if target == cmd.actor or not state.is_alive(target):
        raise IllegalCommand("殉职须选择一名未出局的其他角色继任警长")


def answer_succeed(state: GameState, prompt: Prompt, cmd: Command) -> None:
    change_sheriff(state, cmd.targets[0])


def succeed_lapses(state: GameState, prompt: Prompt) -> None:
    # 殉职: 须选择 — no answer: a random alive character (rulings)
    successor = draw(state, "警长继任者", [n for n in state.order if state.is_alive(n)])
    change_sheriff(state, successor)


def check_heir(state: GameState, cmd: Command) -> None:
    # 指认 — 冤死: 替罪羊需指认一名良民获得该技能; 杀人: 若黑狼出局，黑狼需指认一名狼人获得该技能.
    # A name the skill does not allow is refused with the reason, and a later valid answer in the
    # same phase still answers the prompt (rulings 2026-12-04; the namer is out: he learns nothing
    # he can still use)
    target = cmd.targets[0]
    if target == cmd.actor or not state.is_alive(target):
        raise IllegalCommand("指认须选择一名未出局的其他角色")
    # the namer still holds the skill he passes on (`_set_heir` runs on the answer): 冤死 or 杀人
    kind = "scapegoat" if ext(state).scapegoat == cmd.actor else "killer"
    if target not in _heir_candidates(state, kind, cmd.actor):
        if kind == "scapegoat":
            raise IllegalCommand(f"{target}不能被指认：<冤死>须指认一名未出局的良民")
        raise IllegalCommand(f"{target}不能被指认：<杀人>须指认一名未出局的狼人阵营狼人")


def answer_heir(state: GameState, prompt: Prompt, cmd: Command) -> None:
    _set_heir(state, prompt.get("kind"), cmd.targets[0])  # `check_heir` allowed him


def heir_lapses(state: GameState, prompt: Prompt) -> None:
    _default_heir(state, prompt.get("kind"), prompt.actor)


def check_feign(state: GameState, cmd: Command) -> None:
    # 装傻 — 当你因投票而即将出局时，可以发动此技能避免出局: 是 or 否, both accepted
    return None


def answer_feign(state: GameState, prompt: Prompt, cmd: Command) -> None:
    if cmd.answer:
        _feign(state, cmd.actor)
    else:
        _vote_out(state, cmd.actor)


def feign_lapses(state: GameState, prompt: Prompt) -> None:
    # 如白痴即将出局，需在21:40之前决定是否发动【装傻】: not decided in time — 装傻 not used
    _vote_out(state, prompt.actor)


def _feign(state: GameState, name: str) -> None:
    # 装傻: 避免出局，但不予公示; 发动此技能后，你投票不计入总票数
    c = state.chars[name]
    mine = seat(c)
    mine.feigned = True
    mine.feign_count += 1
    announce(state, "无人出局。")
    check_outcome(state)


def _vote_out(state: GameState, name: str) -> None:
    announce(state, f"{name}被投票出局。")
    data = ext(state)
    if state.chars[name].role == REBEL:
        data.stats.rebels_voted.append(name)
    slanderer.voted_out(state, name)  # 诽谤's 成就
    put_out(state, name, "投票")


# -- day ---------------------------------------------------------------------------------------
def elect(state: GameState) -> None:
    """竞岗 — 在游戏的第一天投票结束后，最先获得投票数最多的角色当选警长."""
    winner = elect_sheriff(state)
    if winner is None:
        announce(state, "第1天投票结束，无人投票，本局暂无警长。")
        return
    announce(state, f"第1天投票结束，{winner}当选警长。")
    change_sheriff(state, winner)


def vote_counts(state: GameState, bloodline: bool = True) -> dict[str, float]:
    """FAQ 3: votes (警长 2, 装傻后的白痴 0), 诽谤 target +2, 头狼 -2 from day 2."""
    counts = tally(state, CHENJI)
    day = state.phase.number
    slanderer.add_votes(state, counts, day)
    if bloodline and day >= 2:
        for c in state.with_role(ALPHA):
            if c.alive and not c.skills_lost:
                counts[c.name] = counts.get(c.name, 0.0) - 2
    return counts


def _single_top(counts: dict[str, float]) -> str | None:
    top = top_of(counts)
    return top[0] if len(top) == 1 else None


def resolve_vote(state: GameState) -> None:
    """One character with the most: out, unless 救赎; a tie: the 替罪羊 (冤死) instead, else no one."""
    counts = vote_counts(state)
    top = top_of(counts)
    data = ext(state)
    # achievements: who would have gone out without 血统 (诽谤: `judge_vote_out`)
    no_blood = _single_top(vote_counts(state, bloodline=False))
    if no_blood is not None and state.chars[no_blood].role == ALPHA and top != [no_blood]:
        data.stats.bloodline_saves += 1
    if len(top) == 1:
        target = top[0]
        c = state.chars[target]
        if nun.redeems(state, target):
            announce(state, f"{state.phase.label}投票结束，无人出局。")
            return
        slanderer.judge_vote_out(state, counts, target)
        if c.role == IDIOT and not c.skills_lost:
            announce(state, f"{state.phase.label}投票结束。")
            push_prompt(state, Prompt(target, FEIGN, "你即将因投票出局，是否发动装傻？"))
            return
        announce(state, f"{state.phase.label}投票结束。")
        _vote_out(state, target)
        return
    holder = data.scapegoat
    if len(top) > 1 and holder and state.is_alive(holder) and not _goat_lost(state, holder):
        # 冤死<锁定技> — 若同时有两名或以上角色的票数同时为最高，则你代替高票者出局，并公示
        announce(state, f"{state.phase.label}投票结束，{holder}出局。替罪羊出局！")  # 半公开计票: no tally
        put_out(state, holder, "冤死")
        return
    announce(state, f"{state.phase.label}投票结束，无人出局。")


def _goat_lost(state: GameState, holder: str) -> bool:
    # a 良民 heir keeps 冤死 through 威信 and 断肠 (he is not a 普通身份)
    c = state.chars[holder]
    return c.role == SCAPEGOAT and c.skills_lost


# -- win and loss (胜负判定) -----------------------------------------------------------------------
def _members(state: GameState, camp: str) -> list[Character]:
    return [c for c in state.chars.values() if c.camp == camp]


def _core_villagers(state: GameState) -> list[Character]:
    """村民阵营中除猎人、白痴外的所有普通身份及良民."""
    return [
        c
        for c in _members(state, VILLAGE)
        if (c.role in ORDINARY and c.role not in (HUNTER, IDIOT)) or c.role == CITIZEN
    ]


def _losses(state: GameState) -> list[str]:
    lost: list[str] = []
    # 狼人阵营 负: 狼人阵营的狼人角色全部出局或被吹笛
    if all(not c.alive or piped(c) for c in _members(state, WOLF) if is_wolf(c)):
        lost.append(WOLF)
    # 白狼阵营 负: 白狼出局
    if all(not c.alive for c in _members(state, WHITE)):
        lost.append(WHITE)
    # 村民阵营 负: 特权身份全部出局; 除猎人、白痴外的所有普通身份及良民全部出局或被吹笛
    village = _members(state, VILLAGE)
    if all(not c.alive for c in village if c.role in PRIVILEGED) or all(
        not c.alive or piped(c) for c in _core_villagers(state)
    ):
        lost.append(VILLAGE)
    # 吹笛者阵营 负: 吹笛者出局
    if all(not c.alive for c in _members(state, PIPERS)):
        lost.append(PIPERS)
    # 情侣阵营 负: 情侣出局
    if any(not state.is_alive(n) for n in lovers(state)) or not _members(state, LOVERS):
        lost.append(LOVERS)
    return lost


def _white_wins(state: GameState) -> str | None:
    # 白狼在只有5个人未出局时自身未出局 (rulings: 5 or fewer)
    if WHITE in state.camps_in_game and any(c.alive for c in _members(state, WHITE)) and len(state.alive()) <= 5:
        return WHITE
    return None


def _piper_wins(state: GameState) -> str | None:
    if PIPERS not in state.camps_in_game or not any(c.alive for c in _members(state, PIPERS)):
        return None
    rest = _core_villagers(state) + _members(state, WOLF)
    return PIPERS if all(not c.alive or piped(c) for c in rest) else None


def _wolves_win(state: GameState) -> str | None:
    # 狼人阵营存活的人数可投出的票数占总票数的一半或以上
    if WOLF not in state.camps_in_game:
        return None
    sheriff = state.sheriff
    total = wolves = 0
    for c in state.chars.values():  # (an out character casts no vote: `_votes_of` is 0)
        votes = _votes_of(c, sheriff)
        total += votes
        if c.camp == WOLF:
            wolves += votes
    return WOLF if total > 0 and 2 * wolves >= total else None


# -- stages, skills, the ruleset ---------------------------------------------------------------
# 特权行使时间: each night skill names the stage whose deadline it keeps (`SkillSpec.stage`); 22:15
# carries what flows once it closes (预言 results, 通灵)
NIGHT_STAGES = (
    NightStage("2145", "守卫行动", deadline="21:45"),
    NightStage("2200", "吹笛者与修女卫道", deadline="22:00"),
    NightStage(
        "2215", "预言、天眼、弄权、诽谤、杀人、撕咬", opens_with_night=False, deadline="22:15", on_close=close_checks
    ),
    NightStage("2230", "女巫行动", opens_with_night=False, deadline="22:30"),
    NightStage("2245", "纯真与救赎", opens_with_night=False, deadline="22:45"),
)

# a phase's settlement as named steps (`Ruleset.settle`): 开局 — 归群, 爱神之箭 and the camps; a night —
# in the rulings' order (`settle_night`); 第一天 — 竞岗, later days — the vote (半公开计票)
SETTLE = {
    START: (Task("start", settle_start),),
    NIGHT: (Task("night", settle_night),),
    DAY: (Task("election", elect, when=first_day), Task("vote", resolve_vote, when=later_day)),
}

_N = frozenset({NIGHT})
_D = frozenset({DAY})
_DN = frozenset({DAY, NIGHT})
_ANY = frozenset({START, DAY, NIGHT})


def _by_answer(state: GameState, cmd: Command) -> None:
    """A prompt skill's `apply`, never run: the engine applies an answer with the skill's `answer`."""


SKILLS = {
    s.id: s
    for s in (
        SkillSpec(ARROW, "爱神之箭", frozenset({START}), MANY_TARGETS, check_arrow, apply_arrow),
        SkillSpec(REJOIN, "归群", frozenset({START}), NO_TARGET, check_rejoin, apply_rejoin),
        SkillSpec(CHECK, "预言", _N, ONE_TARGET, check_check, apply_record, stage="2215", candidates=alive_targets),
        SkillSpec(
            TIANYAN, "天眼", _N, ONE_TARGET, check_tianyan, apply_tianyan, stage="2215", candidates=alive_targets
        ),
        SkillSpec(
            ANTIDOTE, "解药", _N, ONE_TARGET, check_antidote, apply_spend, stage="2230", candidates=other_alive_targets
        ),
        SkillSpec(
            POISON, "毒药", _N, ONE_TARGET, check_poison, apply_spend, stage="2230", candidates=other_alive_targets
        ),
        SkillSpec(
            SHIELD,
            "守护之盾",
            _N,
            ONE_TARGET,
            check_shield,
            apply_targeted_once,
            stage="2145",
            candidates=shield_targets,
        ),
        SkillSpec(
            MUTE, "隔音之盾", _N, ONE_TARGET, check_mute, apply_targeted_once, stage="2145", candidates=mute_targets
        ),
        SkillSpec(POWER, "弄权", _N, ONE_TARGET, check_power, apply_spend, stage="2215", candidates=alive_targets),
        SkillSpec(PURE, "纯真", _N, ONE_TARGET, check_pure, apply_spend, stage="2245", candidates=other_alive_targets),
        slanderer.SLANDER_SKILL,
        SkillSpec(
            KILL,
            "杀人",
            _N,
            ONE_TARGET,
            check_kill,
            apply_record,
            audience="group:wolves",
            stage="2215",
            candidates=kill_targets,
        ),
        SkillSpec(BITE, "撕咬", _N, ONE_TARGET, check_bite, apply_bite, stage="2215", candidates=alive_targets),
        SkillSpec(PIPE, "吹笛", _N, ONE_TARGET, check_pipe, apply_record, stage="2200", candidates=alive_targets),
        SkillSpec(
            HEARTBREAK,
            "断肠",
            _N,
            ONE_TARGET,
            check_heartbreak,
            apply_heartbreak,
            stage="2200",
            candidates=alive_targets,
        ),
        SkillSpec(WITHER, "摇落", _N, ONE_TARGET, check_wither, apply_spend, stage="2200", candidates=alive_targets),
        SkillSpec(FINALE, "曲尽", _N, ONE_TARGET, check_finale, apply_record, stage="2200", candidates=finale_targets),
        nun.FAITH_SKILL,
        nun.REDEEM_SKILL,
        SkillSpec(CONFESS, "忏悔", _D, ONE_TARGET, check_confess, apply_confess, candidates=other_alive_targets),
        SkillSpec(
            MARTYRDOM, "死节", _DN, NO_TARGET, check_martyrdom, apply_martyrdom, audience="public", irreversible=True
        ),
        SkillSpec(
            STAB,
            "行刺",
            _D,
            ONE_TARGET,
            check_stab,
            apply_stab,
            audience="public",
            candidates=other_alive_targets,
            irreversible=True,
        ),
        SkillSpec(MISSION, "出使", _DN, FREE_TEXT, check_mission, apply_mission, refuses=not_envoy),
        # 最后一枪 — the library's 猎人's, less its declared intent: this seed declares none, so the
        # heuristic bots read every skill's by its name (`heuristic._declares_intents`)
        replace(hunter.SHOOT_SKILL, intent=""),
        SkillSpec(
            SUCCEED,
            "殉职",
            _ANY,
            ONE_TARGET,
            check_succeed,
            _by_answer,
            prompt=True,
            actor_may_be_out=True,
            answer=answer_succeed,
            on_timeout=succeed_lapses,
        ),
        SkillSpec(
            HEIR,
            "指认",
            _ANY,
            ONE_TARGET,
            check_heir,
            _by_answer,
            prompt=True,
            actor_may_be_out=True,
            answer=answer_heir,
            on_timeout=heir_lapses,
        ),
        SkillSpec(
            FEIGN,
            "装傻",
            _ANY,
            YES_NO,
            check_feign,
            _by_answer,
            prompt=True,
            answer=answer_feign,
            on_timeout=feign_lapses,
        ),
        last_words_skill(),
        SkillSpec(
            PREDICT,
            "预想",
            _ANY,
            FREE_TEXT,
            check_predict,
            apply_predict,
            actor_may_be_out=False,
            refuses=bad_prediction,
        ),
        SkillSpec(
            ID_SHEET, "身份表", _ANY, FREE_TEXT, check_sheet, apply_sheet, actor_may_be_out=True, refuses=bad_sheet
        ),
        SkillSpec(
            AWARD,
            "评奖",
            _ANY,
            ONE_TARGET,
            check_award,
            apply_award,
            actor_may_be_out=True,
            targets_may_be_out=True,
            audience="public",
            after_game=True,
        ),
    )
}

# 身份阵营: each identity once — its name, starting camp (所属阵营), lives (生命上限), the skills it
# posts and the uses of its <限定技> (通灵, 志继: <锁定技>/<觉醒技> it can lose, held as one charge).
# 杀人 is no identity's: the 黑狼 holds it, then its heir, then the lovers (`killer_of`).
ROLES = (
    Role(SEER, "预言家", VILLAGE, skills=(CHECK,)),  # 预言
    # 通灵<锁定技>, 解药<限定技> (同时你失去【通灵】), 毒药<限定技>
    Role(WITCH, "女巫", VILLAGE, skills=(ANTIDOTE, POISON), charges=((SPIRIT, 1), (ANTIDOTE, 1), (POISON, 1))),
    Role(ELDER, "长老", VILLAGE, lives=2),  # 生命上限 2/2; 威信<锁定技>
    Role(GUARD, "守卫", VILLAGE, skills=(SHIELD, MUTE)),  # 守护之盾, 隔音之盾
    Role(HUNTER, "猎人", VILLAGE, skills=(SHOOT,), charges=((SHOOT, 1),)),  # 最后一枪<限定技>: `BOARD`
    Role(IDIOT, "白痴", VILLAGE, skills=(FEIGN,)),  # 装傻
    # 志继<觉醒技>, 天眼<限定技> (失去技能【志继】)
    Role(SILENT, "沉寂的先知者", VILLAGE, skills=(TIANYAN,), charges=((ZHIJI, 1), (TIANYAN, 1))),
    Role(MAGICIAN, "权力魔术师", VILLAGE, skills=(POWER,), charges=((POWER, 1),)),  # 弄权<限定技>
    Role(PRINCESS, "善良的小公主", VILLAGE, skills=(PURE,), charges=((PURE, 1),)),  # 纯真<限定技>
    slanderer.ROLE,  # 诽谤
    Role(SCAPEGOAT, "替罪羊", VILLAGE),  # 冤死<锁定技>
    Role(CONFESSOR, "忏悔者", VILLAGE, skills=(CONFESS,), charges=((CONFESS, 1),)),  # 忏悔<限定技>
    Role(MARTYR, "死士", VILLAGE, skills=(MARTYRDOM,)),  # 死节
    Role(ASSASSIN, "刺客", VILLAGE, skills=(STAB,), charges=((STAB, 1),)),  # 行刺<限定技>
    Role(CITIZEN, "良民", VILLAGE),
    Role(REBEL, "乱民", WOLF),  # 乱民属于狼人阵营，不与狼人互知
    Role(WHITE_WOLF, "白狼", WHITE, skills=(REJOIN, BITE)),  # 归群, 撕咬
    Role(ALPHA, "头狼", WOLF),  # 血统<锁定技>, 枭首<锁定技>
    Role(BLACK_WOLF, "黑狼", WOLF),  # 杀人 (`killer_of`)
    Role(ENVOY, "狼使", WOLF, skills=(MISSION,), charges=((MISSION, 1),)),  # 出使<限定技>
    nun.ROLE,  # 卫道, 救赎
    # 吹笛, 断肠<限定技>, 摇落<限定技>, 曲尽
    Role(PIPER, "吹笛者", PIPERS, skills=(PIPE, HEARTBREAK, WITHER, FINALE), charges=((HEARTBREAK, 1), (WITHER, 1))),
    Role(CUPID, "丘比特", VILLAGE, skills=(ARROW,)),  # 爱神之箭
)
ROLE_NAMES = {r.id: r.name for r in ROLES}


def deal_cast(count: int, rng: random.Random, options: Mapping[str, Any]) -> list[str]:
    # 游戏开始前，将在10个普通身份中抽选出6个 (and 20 to 30 characters): no fixed `deck`
    return deal(count, rng)


def check_deal(roles: Sequence[str]) -> None:
    for role in UNIQUE:
        if list(roles).count(role) > 1:
            raise ValueError(f"沉寂与取酒最多只能有一名{ROLE_NAMES[role]}")


def setup(state: GameState) -> None:
    # camps, lives and charges come from `ROLES` (new_game)
    for c in state.chars.values():
        notice(state, c.name, f"你的身份是{ROLE_NAMES[c.role]}。", role=ROLE_NAMES[c.role])
    state.camps_in_game = []
    tell_white_wolf(state)


def open_phase(state: GameState) -> None:
    if state.phase.kind == NIGHT:
        announce(state, f"{state.phase.label}开始，请有夜间技能的角色在时限内行动。")
        return
    announce(
        state,
        day_opening(
            state, "今天投票选举警长，不会有人因投票出局。", vote_out=False, no_night_outs="昨夜没有角色出局。"
        ),
    )


def on_camp_lost(state: GameState, camp: str) -> None:
    # 遗志<锁定技> — 狼人阵营优先判负后，狼人阵营的狼人失去【杀人】，情侣获得【杀人】
    if camp != WOLF or LOVERS not in state.camps_in_game or LOVERS in state.lost_camps:
        return
    pair = lovers(state)
    if not any(is_wolf(state.chars[n]) for n in pair):
        return
    data = ext(state)
    data.killer = None
    data.lovers_kill = True
    # 此事件触发时会通知情侣阵营与狼人阵营 (rulings 2026-12-04): every 情侣阵营 member — the lovers,
    # the 丘比特 when he is in it — and every alive wolf-camp character
    lovers_camp = [*pair, *(c.name for c in state.chars.values() if c.camp == LOVERS and c.name not in pair)]
    told = [*lovers_camp, *(c.name for c in state.alive() if c.camp == WOLF and c.name not in pair)]
    for n in told:
        feedback(state, n, "遗志", None, None, "狼人阵营判负，情侣获得【杀人】。")


def fake_dead_voter(state: GameState, voter: str) -> str | None:
    if FAKE_DEATH in state.chars[voter].statuses:
        return f"{voter}处于假死状态，不能投票"
    return None


def fake_dead_target(state: GameState, target: str) -> str | None:
    if FAKE_DEATH in state.chars[target].statuses:
        return f"{target}处于假死状态，不能成为投票对象"
    return None


def votable(state: GameState) -> list[str]:
    # `fake_dead_target`, inline: asked for every voter
    return [c.name for c in state.chars.values() if c.alive and FAKE_DEATH not in c.statuses]


def vote_weight(state: GameState, voter: str) -> float:
    # 带队<锁定技> — 警长投出的票计为两票; 已发动【装傻】的白痴投票作废
    return float(vote_power(state, voter))


def record_deduction(state: GameState, name: str, points: int) -> None:
    # 乐在其中: 游戏过程中未扣至6分 / 未被扣分 — the director's 扣分 ledger
    c = state.chars[name]
    mine = seat(c)
    mine.deducted += points
    notice(state, name, f"你被扣{points}分（累计{mine.deducted}分）。")


def review(state: GameState, after: Mapping[str, Any] | None = None) -> list[str]:
    """成就与金币表. `after`: {评奖: {投票者: 被投者}, 完整参与评奖: [...], 竞拍金币总额: N}."""
    from .achievements import PostGame, table

    if not state.over:
        return []
    after = after or {}
    # 评奖 posted as commands after the game, plus any recorded in the scenario's review block
    votes = dict(ext(state).award_votes)
    votes.update({str(k): str(v) for k, v in (after.get("评奖") or {}).items()})
    part = after.get("完整参与评奖")
    post = PostGame(votes, None if part is None else {str(p) for p in part})
    coins = after.get("竞拍金币总额")
    return table(state, post, None if coins is None else int(coins))


def mad_post_refusal(state: GameState, author: str, text: str) -> str | None:
    # 癫狂状态: 除“投票对象”外，只能使用表情以及16种汉字、空格与换行 — a character name only as the
    # target of a well-formed vote line (rulings 2026-12-04; `speech.py`)
    if MAD not in state.chars[author].statuses:
        return None
    return mad_speech_refusal(text, state.order)


def legal_targets(state: GameState, actor: str, skill: str) -> list[tuple[str, ...]]:
    """Candidates to try, each still checked by the engine, for the skills that declare none
    (`SkillSpec.candidates`; no-target and text skills need none): 爱神之箭's pairs and the
    prompts' answers (最后一枪, 殉职, 指认). A skill's holders only (`ROLES`). How often a bot
    uses a skill is the bots' (`bots.py`)."""
    c = state.chars[actor]
    owners = CHENJI.holders_table.get(skill)
    if owners is not None and c.role not in owners:
        return []  # not this identity's skill: nothing to try
    if skill == ARROW:
        rng = random.Random(len(state.log) * 31 + c.seat)  # a few pairs, the same on every replay
        return [tuple(rng.sample(state.order, 2)) for _ in range(2)]
    if skill == HEIR:
        return [(n,) for n in state.alive_names() if n != actor]  # 指认: 其他角色
    return [(n,) for n in state.alive_names()]


# the library's 猎人 as this seed words it — 最后一枪<限定技>：当你出局后，你可以选择一名其他角色，
# 对其开枪。该角色立即出局。无反馈。 (any out allows it, 失去技能 aside; no notice when not taken)
BOARD = Board(
    params=role_params(
        hunter.ROLE,
        hunter={"不能开枪": (), "开枪提示": "你可以选择一名其他角色开枪。", "公示开枪": False, "逾期告知": False},
    ),
    out_hooks={HUNTER: hunter.shot_on_out},
)

CHENJI = Ruleset(
    id="chenji",
    name="沉寂与取酒",
    aliases=("沉取", "chenji", "沉寂与取酒V1.5"),
    roles=ROLES,
    camp_names=CAMP_NAMES,
    status_names=STATUS_NAMES,
    skill_aliases={"救药": "解药", "神圣之盾": "守护之盾", "吹笛者": "吹笛"},
    night_stages=NIGHT_STAGES,
    settle=SETTLE,
    options={
        OPTION_COINS: OptionSpec(
            OPTION_COINS, 10000, "全体演员竞拍角色所出金币之和，按成就点数分配（默认取疑问解答第8条的示例10000）。"
        )
    },
    skills=SKILLS,
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    last_words=LAST_WORDS_COUNT,
    state_type=ChenjiState,
    character_type=ChenjiSeat,  # FAQ 4 notices wait for the next day in `ChenjiState.next_day`
    loss_conditions=(Condition("判负条件", _losses),),
    win_conditions=(
        Condition("白狼阵营胜利条件", _white_wins),
        Condition("吹笛者阵营胜利条件", _piper_wins),
        Condition("狼人阵营胜利条件", _wolves_win),
    ),
    package="banshe.rulesets.chenji",  # its bots and effects
    role_aliases=ROLE_ALIASES,
    dealer=deal_cast,
    validate_roles=check_deal,
    setup=setup,
    on_phase_start=open_phase,
    announce_out=announce_out,
    on_out=on_out,
    on_camp_lost=on_camp_lost,
    can_vote=fake_dead_voter,
    can_be_voted=fake_dead_target,
    votable=votable,
    vote_weight=vote_weight,
    on_deduct=record_deduction,
    review=review,
    check_post=mad_post_refusal,
    legal_targets=legal_targets,
    board=BOARD,  # what the library's 猎人 reads
)

__all__ = ["CHENJI", "is_allowed_mad_post"]
