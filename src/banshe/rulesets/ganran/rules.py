"""感染 2.0 — seed `003_a763e9c563cb32a0.txt`, with `shared/spec/rulings.md` and docs/rulings.md.

Characters carry their seed identity as `role`; an infection sets its `GanranSeat.kind` (狼人 or
吸血鬼) and the 游离 status, and keeps the identity's skills. Camps are recomputed from those
facts (and the lovers' 私奔) after every change, then win/loss is judged. The 先知 is the role
library's 预言家 (`banshe.library.roles.seer`), seated as the seed words it (`BOARD`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from banshe.engine.commands import CARD_BLUE, CARD_RED, CARD_YELLOW, Command, IllegalCommand
from banshe.engine.core import (
    announce,
    check_outcome,
    draw,
    elect_sheriff,
    emit,
    feedback,
    group_notice,
    notice,
    push_prompt,
    put_out,
    set_sheriff,
    tally,
    top_of,
)
from banshe.engine.events import CAMP, NOTICE, Audience
from banshe.engine.model import DAY, NIGHT, START, Character, GameState, Prompt
from banshe.engine.publish import day_opening
from banshe.engine.ruleset import (
    ONE_TARGET,
    SUCCESSOR,
    TEAR_BADGE,
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
from banshe.library.flow import tell_held
from banshe.library.roles import seer

from .state import GanranSeat, GanranState, Link, ext, seat

# -- names (data) ------------------------------------------------------------------------------
SEER = seer.SEER  # 先知: the library's 预言家
WITCH, GUARD, ELDER, HUNTER, PRIEST, CUPID, MUTU, CAIN, VILLAGER = (
    "witch",
    "guard",
    "elder",
    "hunter",
    "priest",
    "cupid",
    "mutu",
    "cain",
    "villager",
)
ROLE_ALIASES = {"丘比特": CUPID}

VILLAGE, WOLVES, VAMPIRES, SPECIAL, LOVERS, NONE = "village", "wolf", "vampire", "special", "lovers", "none"
CAMP_NAMES = {
    VILLAGE: "村民阵营",
    WOLVES: "狼人阵营",
    VAMPIRES: "吸血鬼阵营",
    SPECIAL: "特殊阵营",
    LOVERS: "情侣阵营",
    NONE: "无阵营（游离）",
}
REAL_CAMPS = (VILLAGE, WOLVES, VAMPIRES, SPECIAL, LOVERS)

# kinds (`GanranSeat.kind`): what an infection (or the identity 穆图/该隐) makes a character
WOLF_KIND, VAMP_KIND = "wolf", "vampire"
KIND_NAMES = {WOLF_KIND: "狼人", VAMP_KIND: "吸血鬼"}
DRIFT, DYING = "游离", "濒死"
LOVERS_GROUP = "lovers"

# skill ids
ADORE, SHIELD, GARLIC, BITE, SUCK, WOLF_KING, GHOST_KING = (
    "adore",
    "shield",
    "garlic",
    "bite",
    "suck",
    "wolf_king",
    "ghost_king",
)
CHECK = seer.CHECK  # 预言 (the library's)
KILL, SPIRIT, ANTIDOTE, POISON, BULLET, CROSS, SUCCEED = (
    "kill",
    "spirit",
    "antidote",
    "poison",
    "bullet",
    "cross",
    "succeed",
)
SKILL_ZH = {BITE: "咬噬", SUCK: "吸血"}
KIND_OF_SKILL = {BITE: WOLF_KIND, SUCK: VAMP_KIND}
KING_OF_KIND = {WOLF_KIND: MUTU, VAMP_KIND: CAIN}
GUARD_OF_SKILL = {BITE: SHIELD, SUCK: GARLIC}  # 银盾 blocks 咬噬, 胡蒜 blocks 吸血

# 身份与技能 — 游戏开始时，先知、女巫、守卫、长老、猎人、教士、爱神、村民属于〖村民阵营〗，穆图属于
# 〖狼人阵营〗，该隐属于〖吸血鬼阵营〗: each identity, its skills, and one charge for a <限定技>
# (and the 女巫's 通灵, lost with 解药). 穆图/该隐 hold 咬噬/吸血 without limit; an infection
# gives any other character one 咬噬/吸血 of its new kind (`settle_infection`), so those two
# are promised to no identity (`skills_held_by_anyone`).
ROLES = (
    # 【预言】 the library's 预言家, named 先知 (its seed sentence: `seer.ROLE.seed`)
    Role(SEER, "先知", seer.ROLE.camp, skills=tuple(s.id for s in seer.ROLE.skills)),
    # 通灵<锁定技>, 解药<限定技>, 毒药<限定技>
    Role(WITCH, "女巫", VILLAGE, skills=(ANTIDOTE, POISON), charges=((SPIRIT, 1), (ANTIDOTE, 1), (POISON, 1))),
    Role(GUARD, "守卫", VILLAGE, skills=(SHIELD, GARLIC)),  # 银盾, 胡蒜
    Role(ELDER, "长老", VILLAGE, skills=(KILL,)),  # 血疑; 杀人<觉醒技> once 特殊阵营
    Role(HUNTER, "猎人", VILLAGE, skills=(BULLET,), charges=((BULLET, 1),)),  # 银色子弹<限定技>
    Role(PRIEST, "教士", VILLAGE, skills=(CROSS,), charges=((CROSS, 1),)),  # 十字架<限定技>
    Role(CUPID, "爱神", VILLAGE, skills=(ADORE,)),  # 爱慕<锁定技>
    Role(MUTU, "穆图", WOLVES, skills=(BITE, WOLF_KING)),  # 穆图本身为狼人: 咬噬, 狼王
    Role(CAIN, "该隐", VAMPIRES, skills=(SUCK, GHOST_KING)),  # 该隐本身为吸血鬼: 吸血, 鬼王
    Role(VILLAGER, "村民", VILLAGE),
)
ROLE_NAMES = {r.id: r.name for r in ROLES}
# 游戏开始时，有先知、女巫、守卫、长老、猎人、教士、爱神、穆图、该隐各一人，村民不限
SPECIALS = tuple(r.id for r in ROLES if r.id != VILLAGER)
KIND_OF_KING = {king: k for k, king in KING_OF_KIND.items()}  # 穆图本身为狼人, 该隐本身为吸血鬼
INFECTION_SKILLS = frozenset(KIND_OF_SKILL)
PENALTY_POINTS = 12  # 累计扣满12分者将予以罚下
OPTION_SPIRIT_ALL = "通灵含无效目标"
OPTION_ELDER_ALWAYS = "长老出局总是公示"


# -- small queries -----------------------------------------------------------------------------
def kind(c: Character) -> str | None:
    data = c.ext  # `seat(c)`, inline (hot)
    if not isinstance(data, GanranSeat):
        raise TypeError(f"not a 感染 character: {type(data).__name__}")
    return data.kind


def _night(state: GameState) -> int:
    return state.phase.number


def _holds(state: GameState, cmd: Command, note: str = "") -> None:
    """Refuse a skill the actor's identity does not hold (`ROLES`) or has lost (【血疑】)."""
    c = state.chars[cmd.actor]
    holders = GANRAN.holders_table[cmd.skill]
    if c.role not in holders or c.skills_lost:
        (role,) = holders
        raise IllegalCommand(f"{cmd.actor}不是{ROLE_NAMES[role]}{note}，不能发动<{SKILLS[cmd.skill].name}>")


def _lovers(state: GameState) -> tuple[str, ...]:
    return ext(state).lovers


def _king_name(state: GameState, k: str) -> str | None:
    kings = state.with_role(KING_OF_KIND[k])
    return kings[0].name if kings else None


def report(state: GameState, text: str) -> None:
    """公示: by day at once; what happens at night (or 第零晚) opens the next day."""
    if state.phase.kind == DAY:
        announce(state, text)
    else:
        ext(state).report.append(text)


def chain(state: GameState, text: str, **data: str) -> None:
    """The infection chain for the 复盘 (director only)."""
    ext(state).chain.append(Link(state.phase.label, text, **data))
    emit(state, NOTICE, Audience.director(), f"[感染] {text}", **data)


# -- camps -------------------------------------------------------------------------------------
def base_camp(c: Character) -> str:
    """阵营说明: 游离 → none; 狼人/吸血鬼 → their camp; 长老 after 血疑 → 特殊; else 村民."""
    if DRIFT in c.statuses:
        return NONE
    k = kind(c)
    if k == WOLF_KIND:
        return WOLVES
    if k == VAMP_KIND:
        return VAMPIRES
    if seat(c).special:
        return SPECIAL
    return VILLAGE


def _assign(state: GameState, c: Character, camp: str) -> None:
    if c.camp == camp:
        return
    c.camp = camp
    emit(state, CAMP, Audience.director(), f"{c.name}的阵营为{CAMP_NAMES[camp]}", player=c.name, camp=camp)
    if ext(state).started and camp != NONE and camp not in state.camps_in_game:
        # a camp that first gets a member later enters the game then (rulings)
        state.camps_in_game.append(camp)


def recompute_camps(state: GameState) -> None:
    """私奔: lovers whose own camps differ (a 游离 lover has none) form 情侣阵营, for good."""
    lovers = _lovers(state)
    lover_camp: str | None = None
    if len(lovers) == 2:
        a, b = (base_camp(state.chars[n]) for n in lovers)
        data = ext(state)
        if data.lovers_camp or a != b or a == NONE:
            data.lovers_camp = True
            lover_camp = LOVERS
        else:
            lover_camp = a
    for c in state.chars.values():
        _assign(state, c, lover_camp if lover_camp and c.name in lovers else base_camp(c))


def changed(state: GameState) -> None:
    """After a status change: camps follow, then win/loss is judged (rulings: after every change)."""
    recompute_camps(state)
    if ext(state).started:
        check_outcome(state)


def _camps_lost_empty(state: GameState) -> list[str]:
    # 狼人/吸血鬼/村民阵营全部角色均出局 (or left the camp); 特殊/情侣 likewise when emptied
    alive_camps = {c.camp for c in state.chars.values() if c.alive}
    return [camp for camp in REAL_CAMPS if camp not in alive_camps]


def _special_lost(state: GameState) -> list[str]:
    # 〖特殊阵营〗负：长老出局
    return [SPECIAL] if any(not c.alive for c in state.with_role(ELDER)) else []


def _lovers_lost(state: GameState) -> list[str]:
    # 〖情侣阵营〗负：情侣出局
    return [LOVERS] if any(not state.is_alive(n) for n in _lovers(state)) else []


def _lovers_win(state: GameState) -> str | None:
    # 〖情侣阵营〗胜：情侣双方为非游离状态的狼人与吸血鬼
    lovers = [state.chars[n] for n in _lovers(state)]
    if len(lovers) != 2 or not all(c.alive and c.camp == LOVERS and DRIFT not in c.statuses for c in lovers):
        return None
    return LOVERS if {kind(c) for c in lovers} == {WOLF_KIND, VAMP_KIND} else None


# -- 第零晚: 爱慕 ------------------------------------------------------------------------------
def check_adore(state: GameState, cmd: Command) -> None:
    # 【爱慕】<锁定技> 在第零日夜晚，爱神须指定一名角色与其成为情侣
    _holds(state, cmd)
    if cmd.target == cmd.actor:
        raise IllegalCommand("爱神须指定另一名角色与其成为情侣")
    if ext(state).adored is not None:
        raise IllegalCommand("爱神已经发动过<爱慕>")


def apply_adore(state: GameState, cmd: Command) -> None:
    ext(state).adored = (cmd.actor, cmd.targets[0])


def settle_start(state: GameState) -> None:
    cupids = state.with_role(CUPID)
    data = ext(state)
    if cupids:
        cupid = cupids[0].name
        pair = data.adored
        if pair is None:
            # 锁定技 not posted: the director chooses at random (rulings: seeded RNG)
            target = draw(state, "爱神爱慕", [n for n in state.order if n != cupid])
            assert target is not None
            pair = (cupid, target)
            data.adored = pair
            notice(state, cupid, f"你未按时发动爱慕，导演随机指定的对象是{target}。")
        lovers = tuple(sorted(pair, key=lambda n: state.chars[n].seat))
        data.lovers = lovers
        state.groups[LOVERS_GROUP] = lovers
        group_notice(state, LOVERS_GROUP, "你们成为了情侣（互知共群）：" + "、".join(lovers), members=list(lovers))
    recompute_camps(state)
    # camps are counted from the end of 开局 (after 私奔)
    present = {c.camp for c in state.chars.values()}
    state.camps_in_game = [camp for camp in REAL_CAMPS if camp in present]
    data.started = True
    for c in state.chars.values():
        notice(state, c.name, f"你的阵营是{CAMP_NAMES[c.camp]}。", camp=CAMP_NAMES[c.camp])
    check_outcome(state)


# -- 夜晚1: 守卫 -------------------------------------------------------------------------------
def _check_guard(state: GameState, cmd: Command) -> None:
    # 【银盾】/【胡蒜】 游戏日夜晚选择一名角色；不能连续两晚对同一名角色使用
    name = "银盾" if cmd.skill == SHIELD else "胡蒜"
    _holds(state, cmd)
    data = ext(state)
    if cmd.skill in data.guard:
        raise IllegalCommand(f"今晚已经发动过<{name}>")
    last = data.guard_last.get(cmd.skill)
    if last is not None and last[0] == _night(state) - 1 and last[1] == cmd.target:
        raise IllegalCommand(f"<{name}>不能连续两晚对同一名角色（{cmd.target}）使用")


def _guard_targets(state: GameState, skill: str) -> Sequence[str]:
    """The characters in the game but last night's target of `skill` (不能连续两晚对同一名角色使用)."""
    last = ext(state).guard_last.get(skill)
    if last is None or last[0] != _night(state) - 1:
        return state.living()
    return [n for n in state.living() if n != last[1]]


def shield_targets(state: GameState, actor: str) -> Sequence[str]:
    """`SkillSpec.candidates` of 银盾: 不能连续两晚对同一名角色使用 (itself allowed)."""
    return _guard_targets(state, SHIELD)


def garlic_targets(state: GameState, actor: str) -> Sequence[str]:
    """`SkillSpec.candidates` of 胡蒜: 不能连续两晚对同一名角色使用 (itself allowed)."""
    return _guard_targets(state, GARLIC)


def _apply_guard(state: GameState, cmd: Command) -> None:
    data = ext(state)
    data.guard[cmd.skill] = cmd.targets[0]
    data.guard_last[cmd.skill] = (_night(state), cmd.targets[0])


# -- 夜晚2/3: 咬噬、吸血、狼王、鬼王 --------------------------------------------------------------
def check_infect(state: GameState, cmd: Command) -> None:
    # 【咬噬】/【吸血】 游戏日夜晚，穆图/该隐可以选择一名角色; 狼人/吸血鬼的为<限定技>
    k = KIND_OF_SKILL[cmd.skill]
    zh = SKILL_ZH[cmd.skill]
    c = state.chars[cmd.actor]
    if c.role in GANRAN.holders_table[cmd.skill]:
        # 穆图/该隐 hold it by identity (`ROLES`): one of 咬噬/狼王 (吸血/鬼王) a night
        if cmd.actor in ext(state).kings_acted:
            raise IllegalCommand(f"{cmd.actor}今晚已经发动过技能")
        return
    if kind(c) != k:
        raise IllegalCommand(f"{cmd.actor}不是{KIND_NAMES[k]}，不能发动<{zh}>")
    if not c.has_charge(cmd.skill):
        raise IllegalCommand(f"{cmd.actor}的<{zh}>已经用过了（限定技）")
    if seat(c).ready > _night(state):
        # rulings: a character infected this night uses the new skill from the next night
        raise IllegalCommand(f"{cmd.actor}今晚刚被感染，下一夜才能发动<{zh}>")


def _infection_targets(state: GameState, actor: str, skill: str) -> Sequence[str]:
    """Any character in the game (itself allowed) for a character of the skill's kind who may still
    use it — its king without limit, the infected while its one use lasts (`_may_use`, inline:
    asked for every seat, as every seat has the row); none for anyone else, whom `check_infect`
    refuses."""
    c = state.chars[actor]
    k = KIND_OF_SKILL[skill]
    if kind(c) != k or (c.role != KING_OF_KIND[k] and not c.has_charge(skill)):
        return ()
    return state.living()


def bite_targets(state: GameState, actor: str) -> Sequence[str]:
    """`SkillSpec.candidates` of 咬噬: 穆图或狼人可以选择一名角色 (`_infection_targets`)."""
    return _infection_targets(state, actor, BITE)


def suck_targets(state: GameState, actor: str) -> Sequence[str]:
    """`SkillSpec.candidates` of 吸血: 该隐或吸血鬼可以选择一名角色 (`_infection_targets`)."""
    return _infection_targets(state, actor, SUCK)


def apply_infect(state: GameState, cmd: Command) -> None:
    c = state.chars[cmd.actor]
    data = ext(state)
    if c.role in GANRAN.holders_table[cmd.skill]:  # 穆图/该隐: settles in 夜晚2
        data.kings_acted.append(cmd.actor)
        data.kings.append((cmd.actor, cmd.skill, cmd.targets[0]))
    else:
        c.spend(cmd.skill)
        data.infections.append((cmd.actor, cmd.skill, cmd.targets[0]))


def check_king(state: GameState, cmd: Command) -> None:
    # 【狼王】/【鬼王】 穆图/该隐 放弃发动【咬噬】/【吸血】，选择一名狼人/吸血鬼角色
    _holds(state, cmd)  # (穆图/该隐 never belong to 村民阵营, so never lose it)
    if cmd.actor in ext(state).kings_acted:
        raise IllegalCommand(f"{cmd.actor}今晚已经发动过技能")


def apply_king(state: GameState, cmd: Command) -> None:
    data = ext(state)
    data.kings_acted.append(cmd.actor)
    data.kings.append((cmd.actor, cmd.skill, cmd.targets[0]))


def _settle_king(state: GameState, actor: str, skill: str, target: str) -> None:
    """若该角色已发动【咬噬】，则可再次发动; otherwise (not that kind / use still held) no effect."""
    k = WOLF_KIND if skill == WOLF_KING else VAMP_KIND
    bite = BITE if k == WOLF_KIND else SUCK
    t = state.chars[target]
    infected = t.role != KING_OF_KIND[k] and seat(t).infected_by is not None  # an infected one, not the king
    if t.alive and kind(t) == k and infected and not t.has_charge(bite):
        t.charges[bite] = 1
        chain(state, f"{actor}发动<{'狼王' if k == WOLF_KIND else '鬼王'}>，{target}重新获得一次<{SKILL_ZH[bite]}>")


def _spirit_target(state: GameState, target: str) -> None:
    """通灵 list: 当晚成为【咬噬】、【吸血】、【杀人】目标的角色 (each once, in settlement order)."""
    targets = ext(state).targets
    if target not in targets:
        targets.append(target)


def make_dying(state: GameState, name: str, cause: str) -> None:
    c = state.chars[name]
    c.statuses.add(DYING)
    ext(state).dying.append((name, cause))


def settle_infection(state: GameState, actor: str, skill: str, target: str) -> None:
    """【咬噬】/【吸血】 as the seed (身份与技能 8-11) and its FAQ say, on the state left by earlier ones."""
    k = KIND_OF_SKILL[skill]
    rival = VAMP_KIND if k == WOLF_KIND else WOLF_KIND
    zh = SKILL_ZH[skill]
    a = state.chars[actor]
    t = state.chars[target]
    guarded = ext(state).guard.get(GUARD_OF_SKILL[skill]) == target
    effective = False
    if not t.alive or kind(t) == k or guarded:
        pass  # 狼人 / 当晚银盾目标 (吸血鬼 / 胡蒜目标): 视为技能无效
    elif t.role == ELDER and ((seat(t).bitten if skill == BITE else seat(t).sucked) or seat(t).special):
        pass  # 被有效咬噬过的长老; 特殊阵营的长老免疫
    elif kind(t) == rival:
        if DYING not in t.statuses:
            # 若为吸血鬼（狼人），则进入濒死状态，视为技能有效
            make_dying(state, target, zh)
            effective = True
            chain(state, f"{actor}<{zh}>{target}，{target}（{KIND_NAMES[rival]}）进入濒死状态")
    elif t.role == ELDER:
        # 【血疑】 不改变阵营；先后成为咬噬与吸血的有效目标后归为特殊阵营
        elder = seat(t)
        if skill == BITE:
            elder.bitten = True
        else:
            elder.sucked = True
        effective = True
        chain(state, f"{actor}<{zh}>长老{target}（有效，长老不改变阵营）")
        if elder.bitten and elder.sucked:
            elder.special = True
            elder.kill_from = _night(state) + 1
            chain(state, f"长老{target}先后被咬噬与吸血，转为特殊阵营")
    else:
        # 转变为游离状态的狼人（吸血鬼），并保留原有技能
        infected = seat(t)
        infected.kind = k
        infected.infected_by = actor
        infected.infected_at = state.phase.label
        infected.ready = _night(state) + 1  # also its 夜晚3 priority class (the night after infection)
        t.charges[skill] = 1
        t.statuses.add(DRIFT)
        effective = True
        king = _king_name(state, k)
        told = [actor] if actor == king or king is None else [actor, king]
        feedback(
            state,
            target,
            zh,
            target,
            told,
            f"你被{actor}{zh}，成为游离状态的{KIND_NAMES[k]}；{ROLE_NAMES[KING_OF_KIND[k]]}是{king}。",
        )
        # the infected learn their new kind (the feedback above): 游离, no camp until it lifts
        notice(state, target, f"你现在是游离状态的{KIND_NAMES[k]}（无阵营）。", camp=NONE, infection=KIND_NAMES[k])
        chain(
            state,
            f"{actor}<{zh}>{target}，{target}成为游离状态的{KIND_NAMES[k]}",
            infector=actor,
            infected=target,
            infection=k,
        )
    if effective and DRIFT in a.statuses:
        # 游离状态解除: 感染成功 / 首次有效感染长老 / 使对立角色濒死
        a.statuses.discard(DRIFT)
        chain(state, f"{actor}的游离状态解除，正式加入{CAMP_NAMES[WOLVES if k == WOLF_KIND else VAMPIRES]}")
    if effective or state.options.get(OPTION_SPIRIT_ALL, True):
        _spirit_target(state, target)
    if a.role == KING_OF_KIND[k]:
        # 穆图/该隐的反馈：你【咬噬】&角色 成功/失败
        result = "成功" if effective else "失败"
        feedback(state, actor, zh, target, result, f"你{zh}{target}{result}。")
    changed(state)


def settle_kings(state: GameState) -> None:
    """夜晚2: 穆图与该隐, in the order their messages arrived."""
    for actor, skill, target in ext(state).kings:
        if skill in (WOLF_KING, GHOST_KING):
            _settle_king(state, actor, skill, target)
        else:
            settle_infection(state, actor, skill, target)


def settle_infected(state: GameState) -> None:
    """夜晚3: 按照成为狼人或吸血鬼时间顺序优先排序，优先级相同者以短消息时间顺序排列.

    The priority is the night of infection (rulings: the FAQ's 第一晚/第二晚变为游离态的狼人); those
    infected in the same night share it and settle in arrival order (a stable sort)."""
    subs = list(ext(state).infections)
    subs.sort(key=lambda sub: seat(state.chars[sub[0]]).ready)
    for actor, skill, target in subs:
        settle_infection(state, actor, skill, target)


# -- 夜晚5: 长老 -------------------------------------------------------------------------------
def check_kill(state: GameState, cmd: Command) -> None:
    # 【杀人】<觉醒技> 长老为特殊阵营时，每晚可决定一名角色进入濒死状态 (from the next night)
    c = state.chars[cmd.actor]
    if c.role not in GANRAN.holders_table[KILL] or not seat(c).special:
        raise IllegalCommand(f"{cmd.actor}不是特殊阵营的长老，不能发动<杀人>")
    if seat(c).kill_from > _night(state):
        raise IllegalCommand("长老今晚刚转为特殊阵营，下一夜才能发动<杀人>")
    if ext(state).elder_kill is not None:
        raise IllegalCommand("今晚已经发动过<杀人>")


def apply_kill(state: GameState, cmd: Command) -> None:
    ext(state).elder_kill = (cmd.actor, cmd.targets[0])


def settle_kill(state: GameState, actor: str, target: str) -> None:
    t = state.chars[target]
    effective = t.alive and DYING not in t.statuses
    if effective:
        make_dying(state, target, "杀人")
        chain(state, f"长老{actor}<杀人>{target}，{target}进入濒死状态")
    if effective or state.options.get(OPTION_SPIRIT_ALL, True):
        # 通灵含无效目标=false: only a target whose state the skill changed (rulings)
        _spirit_target(state, target)


def give_spirit(state: GameState) -> None:
    # 【通灵】<锁定技> 得知当晚成为【咬噬】、【吸血】、【杀人】目标的角色名单
    for w in state.with_role(WITCH):
        if w.alive and not w.skills_lost and w.has_charge(SPIRIT):
            names = list(ext(state).targets)
            text = "今晚成为咬噬、吸血、杀人目标的角色：" + ("、".join(names) if names else "无") + "。"
            feedback(state, w.name, "通灵", None, names, text)


# -- 夜晚6: 女巫 -------------------------------------------------------------------------------
def _check_witch(state: GameState, cmd: Command, skill: str, name: str) -> None:
    _holds(state, cmd)
    if not state.chars[cmd.actor].has_charge(skill):
        raise IllegalCommand(f"<{name}>已经用过了（限定技）")


def check_antidote(state: GameState, cmd: Command) -> None:
    _check_witch(state, cmd, ANTIDOTE, "解药")
    # 毒药 使之立即出局, and 夜晚6 settles in arrival order: her own earlier 毒药 tonight has put the
    # target out, and an out character cannot be targeted (rulings 2026-12-04: she keeps 解药 and 通灵)
    if _poisoned_by(state, cmd.actor) == cmd.targets[0]:
        raise IllegalCommand(f"{cmd.targets[0]}已被你的毒药毒死出局，不能成为<解药>的目标")


def _poisoned_by(state: GameState, witch: str) -> str | None:
    """The target of `witch`'s 毒药 tonight, if she has posted one."""
    for skill, actor, target in ext(state).potions:
        if skill == POISON and actor == witch:
            return target
    return None


def antidote_targets(state: GameState, actor: str) -> Sequence[str]:
    """`SkillSpec.candidates` of 解药: any character in the game but the one her own 毒药 put out tonight."""
    poisoned = _poisoned_by(state, actor)
    return state.living() if poisoned is None else [n for n in state.living() if n != poisoned]


def apply_antidote(state: GameState, cmd: Command) -> None:
    # 【解药】<限定技>: spent now; 发动后女巫失去【通灵】 (from the next night); settles when 夜晚6 closes
    witch = state.chars[cmd.actor]
    witch.spend(ANTIDOTE)
    witch.charges[SPIRIT] = 0
    ext(state).potions.append((ANTIDOTE, cmd.actor, cmd.targets[0]))


def check_poison(state: GameState, cmd: Command) -> None:
    _check_witch(state, cmd, POISON, "毒药")


def apply_poison(state: GameState, cmd: Command) -> None:
    # 【毒药】<限定技>: spent now; settles when 夜晚6 closes
    state.chars[cmd.actor].spend(POISON)
    ext(state).potions.append((POISON, cmd.actor, cmd.targets[0]))


def settle_potions(state: GameState) -> None:
    """夜晚6 closes: 解药/毒药 in arrival order. 毒药 使之立即出局 — at once, not with the 濒死 at the
    night's end; it settles with its stage, like every other night skill, so no input the witch
    makes after it can read the out (a 殉情 partner's out, the 长老's skill loss: rulings)."""
    data = ext(state)
    for skill, witch, target in data.potions:
        t = state.chars[target]
        if state.chars[witch].skills_lost or not state.is_alive(witch):
            # her earlier potion put her out or out the 村民阵营 长老 (失去其技能): this one is spent
            # with no effect — what refusing it would have meant, without telling her why
            continue
        if skill == POISON:
            t.statuses.discard(DYING)
            put_out(state, target, "毒药")
        elif t.alive and DYING in t.statuses:
            # 若该角色处于濒死状态，则使之进入存活状态; otherwise spent with no effect (rulings)
            t.statuses.discard(DYING)
            data.dying = [d for d in data.dying if d[0] != t.name]
            chain(state, f"女巫{witch}<解药>救回{t.name}")


def settle_night(state: GameState) -> None:
    """夜晚6结束: the lover 先知's 预言 (held, `lover_holds_answer`), then 判定濒死状态的角色出局 (in
    the order they became 濒死)."""
    data = ext(state)
    if data.held:
        tell_held(state)
    for name, cause in list(data.dying):
        c = state.chars[name]
        if c.alive and DYING in c.statuses:
            c.statuses.discard(DYING)
            put_out(state, name, cause)
    for c in state.chars.values():
        c.statuses.discard(DYING)


# -- day skills --------------------------------------------------------------------------------
def check_bullet(state: GameState, cmd: Command) -> None:
    # 【银色子弹】<限定技> 猎人可以在游戏日白天的任意时刻决定一名角色立即出局
    _holds(state, cmd, "（或已失去技能）")
    if not state.chars[cmd.actor].has_charge(BULLET):
        raise IllegalCommand("<银色子弹>已经用过了（限定技）")
    if cmd.target == cmd.actor:
        raise IllegalCommand("<银色子弹>需要选择另一名角色")


def apply_bullet(state: GameState, cmd: Command) -> None:
    hunter = state.chars[cmd.actor]
    hunter.spend(BULLET)
    target = cmd.targets[0]
    wolf = kind(state.chars[target]) == WOLF_KIND  # a 游离 wolf counts (rulings)
    announce(state, f"【银色子弹】已发动，{target}出局。" + (f"{target}为狼人。" if wolf else ""))
    if not wolf:
        # 强制该日或第二日（若技能在第一日发动）投票出局的对象为猎人
        day = max(2, state.phase.number)
        ext(state).forced_hunter = (day, cmd.actor)
    chain(state, f"猎人{cmd.actor}<银色子弹>{target}" + ("（狼人）" if wolf else "（非狼人）"))
    put_out(state, target, "银色子弹")


def check_cross(state: GameState, cmd: Command) -> None:
    # 【十字架】<限定技> 教士可以在游戏日白天的任意时刻选择一名角色
    _holds(state, cmd, "（或已失去技能）")
    if not state.chars[cmd.actor].has_charge(CROSS):
        raise IllegalCommand("<十字架>已经用过了（限定技）")
    if cmd.target == cmd.actor:
        raise IllegalCommand("<十字架>需要选择另一名角色")


def apply_cross(state: GameState, cmd: Command) -> None:
    state.chars[cmd.actor].spend(CROSS)
    target = cmd.targets[0]
    vampire = kind(state.chars[target]) == VAMP_KIND  # a 游离 vampire counts (rulings)
    announce(state, "【十字架】已发动。" + (f"{target}为吸血鬼，出局。" if vampire else ""))
    if vampire:
        put_out(state, target, "十字架")


# -- outs, sheriff, penalties -------------------------------------------------------------------
def on_out(state: GameState, name: str, cause: str) -> None:
    if cause == "罚下":
        return  # 罚下不触发相应出局技能 (no 殉情, 殉职, 长老 effect)
    c = state.chars[name]
    c.statuses.discard(DYING)
    if c.role == ELDER and c.camp == VILLAGE:
        # 【血疑】如长老属于村民阵营，出局时，村民阵营所有角色失去其技能，并公示“长老出局”
        for member in state.chars.values():
            if member.camp == VILLAGE:
                member.skills_lost = True
        report(state, "长老出局！")
        chain(state, "长老出局，村民阵营所有角色失去技能")
    elif c.role == ELDER and state.options.get(OPTION_ELDER_ALWAYS):
        report(state, "长老出局！")
    lovers = _lovers(state)
    if name in lovers:
        # 【殉情】<锁定技> 情侣中若有一人出局，另一人立即出局
        for other in lovers:
            if other != name and state.is_alive(other):
                put_out(state, other, "殉情")
    if state.sheriff == name and state.winner is None:
        # 【殉职】<锁定技> 警长出局后，须选择一名未出局的角色来继任警长
        push_prompt(state, Prompt(name, SUCCEED, "请选择一名未出局的角色继任警长。"))


def _successors(state: GameState, sheriff: str) -> list[str]:
    return [n for n in state.order if n != sheriff and state.is_alive(n)]


def _hand_badge(state: GameState, old: str, successor: str | None) -> None:
    set_sheriff(state, successor)
    report(state, f"警长{old}殉职，警徽移交给{successor}。" if successor else f"警长{old}出局，警徽无人继任。")


def check_succeed(state: GameState, cmd: Command) -> None:
    # 【殉职】须选择一名未出局的角色来继任警长: every refusal of an answer; changes nothing
    target = cmd.targets[0]
    if target == TEAR_BADGE or target not in _successors(state, cmd.actor):
        raise IllegalCommand(f"{target}不能继任警长：须选择一名未出局的其他角色")


def answer_succeed(state: GameState, prompt: Prompt, cmd: Command) -> None:
    _hand_badge(state, cmd.actor, cmd.targets[0])


def succeed_lapses(state: GameState, prompt: Prompt) -> None:
    # rulings: a sheriff who does not name a successor — random
    _hand_badge(state, prompt.actor, draw(state, "警长继任者", _successors(state, prompt.actor)))


def deduct(state: GameState, name: str, points: int) -> None:
    c = state.chars[name]
    if not c.alive:
        raise IllegalCommand(f"{name}已出局，不能扣分")
    data = seat(c)
    data.points += points
    total = data.points
    report(state, f"{name}被扣{points}分，累计{total}分。")
    if total >= PENALTY_POINTS:
        # 累计扣满12分者将予以罚下；罚下不触发出局技能（含殉职：警徽随之失去）
        report(state, f"{name}累计扣满{PENALTY_POINTS}分，被罚下。")
        sheriff = state.sheriff == name
        put_out(state, name, "罚下")  # on_out: no 殉职 for a 罚下
        if sheriff:
            # rulings: the badge leaves the game (`sheriff` records [phase, null]) unless the 罚下 ended it
            set_sheriff(state, None)
            report(state, f"警长{name}被罚下，警徽随之离场，不再有警长。")


# -- votes ------------------------------------------------------------------------------------
def _fmt(v: float) -> str:
    return str(int(v)) if v == int(v) else str(v)


def _summary(counts: dict[str, float]) -> str:
    return "，".join(f"{t} {_fmt(v)}票" for t, v in sorted(counts.items(), key=lambda kv: -kv[1]))


def elect(state: GameState) -> None:
    """【竞岗】 第一天投票结束后，最先获得投票数最多的角色当选警长."""
    counts = tally(state, GANRAN)
    winner = elect_sheriff(state, counts)
    if winner is None:
        announce(state, "第1天投票结束，无人投票，本局暂无警长。")
        return
    announce(state, f"第1天投票结束（{_summary(counts)}），{winner}当选警长。")
    set_sheriff(state, winner)


def resolve_vote(state: GameState) -> None:
    """第二天起得票最多者出局；【带队】警长2票，平票时警长投票对象出局，否则无人出局."""
    day = state.phase.number
    counts = tally(state, GANRAN)
    summary = _summary(counts)
    head = f"{state.phase.label}投票结束。" + (f"票数：{summary}。" if summary else "无人投票。")
    forced = ext(state).forced_hunter
    if forced and forced[0] == day and state.is_alive(forced[1]):
        # 【银色子弹】目标不为狼人：该日（第一日发动则第二日）投票出局的对象为猎人
        announce(state, head + f"因【银色子弹】的目标不是狼人，{forced[1]}被强制投票出局。")
        put_out(state, forced[1], "投票")
        return
    top = top_of(counts)
    out: str | None = None
    if len(top) == 1:
        out = top[0]
    elif len(top) > 1 and state.sheriff and state.is_alive(state.sheriff):
        choice = state.votes.get(state.sheriff)
        if choice in top:
            out = choice
    if out is None:
        announce(state, head + ("平票，无人出局。" if top else "无人出局。"))
        return
    announce(state, head + f"{out}被投票出局。")
    put_out(state, out, "投票")


def _no_check(state: GameState, cmd: Command) -> None:
    return None


def _may_use(state: GameState, actor: str, skill: str) -> bool:
    """`legal_targets`' cheap pre-filter (the engine still checks every command): 咬噬/吸血 for a
    character of that kind — its king without limit, the infected while its one use lasts —
    any other skill for the identities `ROLES` gives it to (`skill_holders`' promise), a
    <限定> one while its charge lasts."""
    c = state.chars[actor]
    k = KIND_OF_SKILL.get(skill)
    if k is not None:
        return kind(c) == k and (c.role in GANRAN.holders_table[skill] or c.has_charge(skill))
    holders = _HOLDERS.get(skill)
    if holders is not None and c.role not in holders:
        return False
    return skill not in _LIMITED or c.has_charge(skill)


# -- the ruleset -------------------------------------------------------------------------------
def lover_holds_answer(state: GameState, name: str) -> bool:
    """`Board.holds_answer` of the 先知: 夜晚4 — 若先知为情侣之一，则此时不予以反馈，夜晚6结束后予以反馈."""
    return name in _lovers(state)


def close_elder(state: GameState) -> None:
    """夜晚5 closes: the 长老's 杀人 settles, then the 女巫 learns tonight's targets (【通灵】)."""
    kill = ext(state).elder_kill
    if kill is not None:
        settle_kill(state, *kill)
    give_spirit(state)


# each skill names its stage (`SkillSpec.stage`); 咬噬/吸血 name 夜晚2 (穆图/该隐's) and are also
# listed by 夜晚3, where every other 狼人/吸血鬼's settles (`stage_for`)
NIGHT_STAGES = (
    NightStage("夜晚1", "守卫行动", deadline="10分钟"),
    NightStage("夜晚2", "穆图与该隐行动", opens_with_night=False, deadline="10分钟", on_close=settle_kings),
    NightStage(
        "夜晚3",
        "狼人与吸血鬼行动",
        frozenset({BITE, SUCK}),
        opens_with_night=False,
        deadline="10分钟",
        on_close=settle_infected,
    ),
    # 夜晚4 closes: the 先知's 预言 is answered (a lover 先知's is held till 夜晚6 ends)
    NightStage("夜晚4", "先知行动", opens_with_night=False, deadline="10分钟", on_close=seer.seer_result),
    NightStage("夜晚5", "长老行动", opens_with_night=False, deadline="10分钟", on_close=close_elder),
    NightStage("夜晚6", "女巫行动", opens_with_night=False, deadline="10分钟", on_close=settle_potions),
)


# a phase's settlement as named steps (`Ruleset.settle`): 开局 — 爱慕 and the camps; a night — what
# its stages left (夜晚6结束: 濒死 outs); 第一天 — 【竞岗】, later days — the vote
SETTLE = {
    START: (Task("start", settle_start),),
    NIGHT: (Task("night", settle_night),),
    DAY: (Task("election", elect, when=first_day), Task("vote", resolve_vote, when=later_day)),
}

_N = frozenset({NIGHT})
_D = frozenset({DAY})
_ANY = frozenset({START, DAY, NIGHT})
SKILLS = {
    s.id: s
    for s in (
        SkillSpec(
            ADORE, "爱慕", frozenset({START}), ONE_TARGET, check_adore, apply_adore, candidates=other_alive_targets
        ),
        SkillSpec(SHIELD, "银盾", _N, ONE_TARGET, _check_guard, _apply_guard, stage="夜晚1", candidates=shield_targets),
        SkillSpec(GARLIC, "胡蒜", _N, ONE_TARGET, _check_guard, _apply_guard, stage="夜晚1", candidates=garlic_targets),
        SkillSpec(BITE, "咬噬", _N, ONE_TARGET, check_infect, apply_infect, stage="夜晚2", candidates=bite_targets),
        SkillSpec(SUCK, "吸血", _N, ONE_TARGET, check_infect, apply_infect, stage="夜晚2", candidates=suck_targets),
        SkillSpec(WOLF_KING, "狼王", _N, ONE_TARGET, check_king, apply_king, stage="夜晚2", candidates=alive_targets),
        SkillSpec(GHOST_KING, "鬼王", _N, ONE_TARGET, check_king, apply_king, stage="夜晚2", candidates=alive_targets),
        replace(seer.CHECK_SKILL, stage="夜晚4"),  # 【预言】 the library's
        SkillSpec(KILL, "杀人", _N, ONE_TARGET, check_kill, apply_kill, stage="夜晚5", candidates=alive_targets),
        SkillSpec(
            ANTIDOTE, "解药", _N, ONE_TARGET, check_antidote, apply_antidote, stage="夜晚6", candidates=antidote_targets
        ),
        SkillSpec(POISON, "毒药", _N, ONE_TARGET, check_poison, apply_poison, stage="夜晚6", candidates=alive_targets),
        SkillSpec(BULLET, "银色子弹", _D, ONE_TARGET, check_bullet, apply_bullet, candidates=other_alive_targets),
        SkillSpec(CROSS, "十字架", _D, ONE_TARGET, check_cross, apply_cross, candidates=other_alive_targets),
        SkillSpec(
            SUCCEED,
            "殉职",
            _ANY,
            SUCCESSOR,
            check_succeed,
            _no_check,
            prompt=True,
            actor_may_be_out=True,
            answer=answer_succeed,
            on_timeout=succeed_lapses,
        ),
    )
}


# what the library's 预言家 reads (`state.rules.board`): 【预言】 游戏日夜晚，可查验某一存活角色的身份，
# 反馈该角色所属阵营 (its camp's name; FAQ 1: 游离状态的角色反馈为“游离状态”); a lover 先知 hears it after
# 夜晚6; 感染 refuses a skill as “X不是先知，不能发动<预言>”
BOARD = Board(
    params=role_params(seer.ROLE, seer={"答案": seer.CAMP_NAME, "状态答案": (DRIFT,)}),
    holds_answer={SEER: lover_holds_answer},
    refusal="{actor}不是{role}，不能发动<{skill}>",
)


def deal_cast(count: int, rng: random.Random, options: Mapping[str, Any]) -> list[str]:
    return [*SPECIALS, *([VILLAGER] * (count - len(SPECIALS)))]


def check_deal(roles: Sequence[str]) -> None:
    # 游戏开始时，有先知、女巫、守卫、长老、猎人、教士、爱神、穆图、该隐各一人，村民不限
    for role in SPECIALS:
        n = list(roles).count(role)
        if n != 1:
            raise ValueError(f"感染需要恰好一名{ROLE_NAMES[role]}（现有{n}名）")


def setup(state: GameState) -> None:
    # camps and charges come from `ROLES` (new_game)
    for c in state.chars.values():
        if c.role in KIND_OF_KING:
            seat(c).kind = KIND_OF_KING[c.role]  # 穆图本身为狼人, 该隐本身为吸血鬼
        notice(state, c.name, f"你的身份是{ROLE_NAMES[c.role]}。", role=ROLE_NAMES[c.role])


def stage_for(state: GameState, cmd: Command) -> int | None:
    # 穆图/该隐's 咬噬/吸血 settle in 夜晚2, every other 狼人/吸血鬼's in 夜晚3
    if cmd.skill in (BITE, SUCK):
        c = state.chars.get(cmd.actor)
        return 1 if c is not None and c.role in KIND_OF_KING else 2
    return GANRAN.stage_of(cmd.skill)


def no_cards(state: GameState, cmd: Command) -> str | None:
    if cmd.skill in (CARD_BLUE, CARD_YELLOW, CARD_RED):
        return "感染规则没有牌制度，违规请使用扣分（累计12分罚下）"
    return None


def open_phase(state: GameState) -> None:
    if state.phase.kind == NIGHT:
        announce(
            state,
            f"{state.phase.label}开始：夜晚1守卫、夜晚2穆图与该隐、夜晚3狼人与吸血鬼、"
            "夜晚4先知、夜晚5长老、夜晚6女巫，依次行动。",
        )
        return
    first_day = "今天投票最高者当选警长，不会有人因投票出局。"
    announce(state, day_opening(state, first_day, reports=ext(state).report))


def vote_weight(state: GameState, voter: str) -> float:
    # 【带队】<锁定技> 警长投出的票计为两票
    return 2.0 if voter == state.sheriff else 1.0


def legal_targets(state: GameState, actor: str, skill: str) -> list[tuple[str, ...]]:
    # the skills that declare no `candidates`: 殉职 (the prompt's answers, SUCCESSOR), each still
    # checked by the engine; a skill's holders only (`skill_holders`' promise)
    if not _may_use(state, actor, skill):
        return []
    alive: list[tuple[str, ...]] = [(n,) for n in state.alive_names()]
    if skill == SUCCEED:
        return [t for t in alive if t[0] != actor]
    return alive


def identity_text(state: GameState, name: str) -> str:
    c = state.chars[name]
    extra = f"，游离状态的{KIND_NAMES[kind(c) or WOLF_KIND]}" if DRIFT in c.statuses else ""
    return f"你的身份是{ROLE_NAMES[c.role]}（{CAMP_NAMES[c.camp]}{extra}）。"


def infection_chain(state: GameState) -> list[str]:
    lines = ["感染链（谁在何时感染了谁）："]
    lines += [f"  {e.phase}：{e.text}" for e in ext(state).chain] or ["  （本局无人被感染）"]
    infected = [(c, seat(c)) for c in state.chars.values() if seat(c).infected_by is not None]
    if infected:
        lines.append("被感染者（终局）：")
        for c, data in infected:
            state_text = "游离状态" if DRIFT in c.statuses else "已解除游离"
            lines.append(
                f"  {c.name}（{ROLE_NAMES[c.role]}）：{data.infected_at}被{data.infected_by}感染为"
                f"{KIND_NAMES[kind(c) or WOLF_KIND]}，{state_text}" + ("" if c.alive else "，已出局")
            )
    return lines


GANRAN = Ruleset(
    id="ganran",
    name="感染",
    aliases=("感染2.0", "ganran", "感染规则2.0"),
    roles=ROLES,
    camp_names=CAMP_NAMES,
    status_names={DRIFT: "游离状态", DYING: "濒死状态"},
    skill_aliases={"救药": "解药"},
    night_stages=NIGHT_STAGES,
    settle=SETTLE,
    options={
        OPTION_SPIRIT_ALL: OptionSpec(
            OPTION_SPIRIT_ALL,
            True,
            "为真（默认）时，女巫通灵名单包含当晚所有咬噬/吸血/杀人目标（含银盾/胡蒜目标等无效目标）；"
            "为假时只列出技能有效的目标。",
        ),
        OPTION_ELDER_ALWAYS: OptionSpec(
            OPTION_ELDER_ALWAYS,
            False,
            "为真时，不属于村民阵营的长老（特殊阵营、情侣阵营）出局也公示“长老出局！”（不触发失去技能）。",
        ),
    },
    skills=SKILLS,
    min_players=10,
    max_players=40,
    last_words=0,
    out_and_triggers_one_change=True,  # rulings: a lover's out and its 殉情 are one change
    loss_conditions=(
        Condition("阵营全部角色均出局", _camps_lost_empty),
        Condition("长老出局", _special_lost),
        Condition("情侣出局", _lovers_lost),
    ),
    win_conditions=(Condition("情侣双方为非游离状态的狼人与吸血鬼", _lovers_win),),
    state_type=GanranState,
    character_type=GanranSeat,
    board=BOARD,
    package="banshe.rulesets.ganran",  # its bots and effects
    role_aliases=ROLE_ALIASES,
    # 游离 characters belong to no camp and never win: 无阵营 is a display name only
    display_only_camps=frozenset({NONE}),
    skills_held_by_anyone=INFECTION_SKILLS,
    dealer=deal_cast,
    validate_roles=check_deal,
    setup=setup,
    stage_for=stage_for,
    gate=no_cards,
    on_phase_start=open_phase,
    on_out=on_out,
    vote_weight=vote_weight,
    on_deduct=deduct,
    legal_targets=legal_targets,
    identity_text=identity_text,
    review_text=infection_chain,
)
# the identities' skills as the engine derives them, less 咬噬/吸血: any infected character may hold those
_HOLDERS = GANRAN.skill_holders()
# the <限定> skills: those an identity starts with one charge of (`ROLES`)
_LIMITED = frozenset(sid for r in ROLES for sid, _ in r.charges if sid in SKILLS)
