"""品茗 (M196) — seed `002_610a7be1c4693044.txt`, with `shared/spec/rulings.md` and docs/rulings.md.

Names are data (ids are ASCII); each skill is a small check/apply pair citing its rule. The
预言家、女巫、猎人、白痴 and the wolves' 杀人 are the role library's (`banshe.library.roles`, each
written once with its seed sentence), set by `PARAMS` where the seed words them; the day's vote,
竞岗, 红牌, 殉职, 遗言 and the night's settlement are the library's shared `flow`. What is 品茗's
own is here: 认亲 (混血儿、病娇), 决战/拍刀/投降, the wins.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from banshe.engine.commands import (
    CLOSE_PHASE,
    JUDGE_LOSS,
    PROMPT_TIMEOUT,
    Command,
    IllegalCommand,
)
from banshe.engine.core import (
    announce,
    check_outcome,
    declare_win,
    draw,
    feedback,
    group_notice,
    judge_lost,
    notice,
    put_out,
    set_camp,
)
from banshe.engine.last_words import last_words_skill
from banshe.engine.model import DAY, NIGHT, START, GameState
from banshe.engine.publish import day_opening
from banshe.engine.ruleset import (
    MANY_TARGETS,
    NO_TARGET,
    ONE_TARGET,
    TEAR_BADGE,
    Condition,
    NightStage,
    OptionSpec,
    Role,
    Ruleset,
    SkillSpec,
    Task,
    first_day,
    later_day,
    other_alive_targets,
)
from banshe.library import flow
from banshe.library.board import Board, living_less, role_params
from banshe.library.flow import red_card
from banshe.library.role import VILLAGE as VILLAGE  # the camps and 狼群 every standard board has
from banshe.library.role import WOLF_GROUP as WOLF_GROUP
from banshe.library.role import WOLVES as WOLVES
from banshe.library.role import LibraryRole, holder
from banshe.library.roles import hunter, idiot, seer, witch, wolf

from .state import PinmingState, ext

# -- names (data) ------------------------------------------------------------------------------
# 预言家、女巫、猎人、白痴 are the library's roles (`banshe.library.roles`), seated as the seed words them
SEER, WITCH, HUNTER, IDIOT = seer.SEER, witch.WITCH, hunter.HUNTER, idiot.IDIOT
VILLAGER, WOLF, HALFBLOOD, YANDERE = "villager", "wolf", "halfblood", "yandere"
GODS = (SEER, WITCH, HUNTER, IDIOT)  # 特（神职）
CAMP_NAMES = {VILLAGE: "村民阵营", WOLVES: "狼人阵营"}
STANDARD_DECK = [SEER, WITCH, HUNTER, IDIOT] + [VILLAGER] * 4 + [WOLF] * 4 + [HALFBLOOD, YANDERE]
OPTION_MIXED_IN_GROUP = "混子入狼群"

# skill ids
CHECK, SPIRIT, ANTIDOTE, POISON = seer.CHECK, witch.SPIRIT, witch.ANTIDOTE, witch.POISON
SHOOT, FEIGN, SUCCEED = hunter.SHOOT, idiot.FEIGN, flow.SUCCEED
KILL = wolf.KILL
RECOGNIZE, DUEL, SLASH, SURRENDER, LAST_WORDS = "recognize", "duel", "slash", "surrender", "last_words"
LAST_WORDS_COUNT = 4  # 遗言数量等于4
# the wolf group's skills (杀人、决战、拍刀、投降: 该阵营共群的角色); a 混血儿/病娇 of the wolves'
# camp uses them only in the group (选项 混子入狼群, `_form_wolf_group`)
_GROUP_SKILLS = (KILL, DUEL, SLASH, SURRENDER)
_GROUP_SET = frozenset(_GROUP_SKILLS)


def _seat(lib: LibraryRole) -> Role:
    """A library role seated as the seed names it (its rule: the role's module, `lib.seed`)."""
    return Role(lib.id, lib.name, lib.camp, skills=tuple(s.id for s in lib.skills), charges=lib.charges)


# 身份 — 角色在被分发身份后，最开始属于其身份所属阵营 (混血儿、病娇 then join a camp at 开局)
ROLES = (
    _seat(seer.ROLE),
    _seat(witch.ROLE),
    _seat(hunter.ROLE),
    _seat(idiot.ROLE),
    Role(VILLAGER, "村民", VILLAGE),
    Role(WOLF, "狼人", WOLVES, skills=_GROUP_SKILLS),
    Role(HALFBLOOD, "混血儿", VILLAGE, skills=(RECOGNIZE, *_GROUP_SKILLS)),  # 认亲<强制>
    Role(YANDERE, "病娇", VILLAGE, skills=_GROUP_SKILLS),
)
ROLE_NAMES = {r.id: r.name for r in ROLES}
# the library roles' parameters, as the seed words them (their defaults: 预言 answers
# <村民阵营>/<非村民阵营>)
PARAMS = role_params(
    seer.ROLE,
    witch.ROLE,
    hunter.ROLE,
    # 女巫 救药 — 选择一名除自己之外的角色; <救药>发动后…该夜晚不可发动<毒药> (反之亦然); 通灵<强制>
    witch={"自救": witch.NEVER, "同夜双药": False, "通灵": True},
    # 最后一枪<限定> — 当猎人并非因红牌罚下而出局后 (猎人警长出局后，依次发动<最后一枪>、<殉职>)
    hunter={"不能开枪": ("罚下",)},
)


# -- small queries -----------------------------------------------------------------------------
def _group(state: GameState) -> tuple[str, ...]:
    return state.groups.get(WOLF_GROUP, ())


def _alive_group(state: GameState) -> list[str]:
    chars = state.chars
    return [n for n in _group(state) if chars[n].alive]


def _has(state: GameState, name: str, role: str) -> bool:
    c = state.chars[name]
    return c.role == role and not c.skills_lost


# -- 开局: 认亲 -------------------------------------------------------------------------------
def check_recognize(state: GameState, cmd: Command) -> None:
    # 混血儿 认亲<强制>: 游戏开始时选择一名角色成为认亲对象
    if not _has(state, cmd.actor, HALFBLOOD):
        raise IllegalCommand(f"{cmd.actor}不是混血儿，不能认亲")
    if cmd.target == cmd.actor:
        raise IllegalCommand("混血儿不能认亲自己")
    if ext(state).recognized is not None:
        raise IllegalCommand("混血儿已经认亲")


def apply_recognize(state: GameState, cmd: Command) -> None:
    ext(state).recognized = cmd.target


def settle_start(state: GameState) -> None:
    """总体流程 1-3: 混血儿 joins the target's camp, 病娇 learns it and joins the opposite; 狼人共群."""
    halfbloods = state.with_role(HALFBLOOD)
    yanderes = state.with_role(YANDERE)
    data = ext(state)
    for hb in halfbloods:
        target = data.recognized
        if target is None:
            # 混血儿一定时间内不发动技能，技能目标由导演通过小镇的随机选取决定
            target = draw(state, "混血儿认亲", [n for n in state.order if n != hb.name])
            data.recognized = target
            feedback(state, hb.name, "认亲", target, None, f"你未按时认亲，导演随机选取的认亲对象是{target}。")
        assert target is not None
        t = state.chars[target]
        if t.role == YANDERE:
            # 若混血儿认亲对象为病娇时，则混血儿阵营为村民阵营 / 病娇阵营为狼人阵营
            set_camp(state, hb.name, VILLAGE)
            set_camp(state, t.name, WOLVES)
        else:
            set_camp(state, hb.name, t.camp)
            for yd in yanderes:
                set_camp(state, yd.name, VILLAGE if t.camp == WOLVES else WOLVES)
        for yd in yanderes:
            feedback(state, yd.name, "认亲", target, None, f"混血儿的认亲对象是{target}。")
    # 其后混血儿加入认亲对象所在的阵营 / 病娇加入认亲对象所在的相反阵营: each is told the camp it
    # joined (it must know whom it plays for); the 混血儿 is not told the target's identity
    for c in halfbloods + yanderes:
        notice(state, c.name, f"认亲结束，你的阵营是{CAMP_NAMES[c.camp]}。", camp=c.camp)
    _form_wolf_group(state)


def _form_wolf_group(state: GameState) -> None:
    members = [c.name for c in state.chars.values() if c.role == WOLF]
    if state.options.get(OPTION_MIXED_IN_GROUP):
        members += [c.name for c in state.chars.values() if c.role in (HALFBLOOD, YANDERE) and c.camp == WOLVES]
    members.sort(key=lambda n: state.chars[n].seat)
    state.groups[WOLF_GROUP] = tuple(members)
    group_notice(state, WOLF_GROUP, "狼群成员：" + "、".join(members), members=list(members))


# -- outs (the library's flow) -----------------------------------------------------------------
def on_out(state: GameState, name: str, cause: str) -> None:
    """The shared flow's out (遗言数量等于4 — 红牌罚下出局的角色没有遗言权利; the role's reaction;
    殉职, 红牌罚下的警长<殉职>对象随机选择), save in the showdown: it raises no prompts, it ends the game."""
    if ext(state).showdown:
        return
    flow.on_out(state, name, cause)


# -- 决战 / 拍刀 / 投降 -----------------------------------------------------------------------
def check_duel(state: GameState, cmd: Command) -> None:
    # 决战<限定> — 该阵营共群的角色可以选择是否拍刀，若群内所有人同意则进入拍刀环节
    if cmd.actor not in _group(state):
        raise IllegalCommand(f"{cmd.actor}不在狼群中，不能发起决战")
    if cmd.actor in ext(state).duel:
        raise IllegalCommand("本阶段已经同意决战")


def agreed_duel(state: GameState, cmd: Command) -> bool:
    """`check_duel`'s quick refusal for the legal moves: already agreed in this phase."""
    data: PinmingState = state.ext  # type: ignore[assignment]  # `ext(state)`, unchecked: asked for every wolf asked
    return cmd.actor in data.duel


def apply_duel(state: GameState, cmd: Command) -> None:
    posted = ext(state).duel
    posted.append(cmd.actor)
    if all(n in posted for n in _alive_group(state)):
        start_showdown(state)


def _wolves_alive(state: GameState) -> int:
    return sum(1 for c in state.chars.values() if c.role == WOLF and c.alive)


def start_showdown(state: GameState) -> None:
    wolves = [n for n in _group(state)]
    announce(state, "狼人全员同意决战，进入拍刀环节，讨论帖关闭。狼人马甲：" + "、".join(wolves) + "。")
    the_witch = holder(state, WITCH)
    if the_witch and the_witch.alive and the_witch.has_charge(ANTIDOTE):
        # 若女巫持有救药时狼人拍刀，狼人阵营立即判负
        announce(state, "女巫仍持有救药，狼人阵营判负。")
        judge_lost(state, WOLVES, "女巫持有救药时拍刀")
        return
    # 夜间狼刀数为剩余狼人数量；白天为剩余狼人数量-1
    knives = _wolves_alive(state) - (1 if state.phase.kind == DAY else 0)
    ext(state).knives = knives
    group_notice(state, WOLF_GROUP, f"请提交{knives}个拍刀目标（按顺序）。", knives=knives)
    if knives <= 0:
        settle_slash(state, [])


def check_slash(state: GameState, cmd: Command) -> None:
    knives = ext(state).knives
    if knives is None:
        raise IllegalCommand("没有进入拍刀环节，不能拍刀")
    if cmd.actor not in _group(state):
        raise IllegalCommand(f"{cmd.actor}不在狼群中，不能拍刀")
    if len(cmd.targets) != knives:
        raise IllegalCommand(f"拍刀需要提交恰好{knives}个目标")
    if len(set(cmd.targets)) != len(cmd.targets):
        raise IllegalCommand("拍刀目标不能重复")


def in_showdown(state: GameState) -> bool:
    """拍刀 is open only in the 拍刀环节 (`check_slash`'s first refusal)."""
    data: PinmingState = state.ext  # type: ignore[assignment]  # `ext(state)`, unchecked: asked for every wolf asked
    return data.knives is not None


def apply_slash(state: GameState, cmd: Command) -> None:
    settle_slash(state, list(cmd.targets))


def settle_slash(state: GameState, targets: list[str]) -> None:
    """拍刀结算: 女巫存活还有毒药 → 狼刀数-1; 砍到猎人且猎人不是最后一神 → 狼刀数-1 (不告知狼人)."""
    knives = ext(state).knives
    assert knives is not None  # settled only in the 拍刀环节
    the_witch = holder(state, WITCH)
    if the_witch and the_witch.alive and the_witch.has_charge(POISON):
        knives -= 1
    taken: list[str] = []
    for target in targets:
        if knives <= 0:
            break
        other_god_alive = any(c.alive and c.role in GODS and c.name != target for c in state.chars.values())
        knives -= 1
        if state.chars[target].role == HUNTER and other_god_alive:
            knives -= 1
        taken.append(target)
        announce(state, f"拍刀：{target}出局。")
        put_out(state, target, "拍刀")
    # 若提交的刀法可以达成胜利条件则狼人胜利，反之村民阵营胜利
    check_outcome(state)
    declare_win(state, VILLAGE, "拍刀未达成胜利条件")


def check_surrender(state: GameState, cmd: Command) -> None:
    # 所有狼人阵营共群狼人（包括已出局角色）同意投降时，对应阵营优先判负
    if cmd.actor not in _group(state):
        raise IllegalCommand(f"{cmd.actor}不在狼群中，不能投降")
    if cmd.actor in ext(state).surrender:
        raise IllegalCommand("已经同意投降")


def agreed_surrender(state: GameState, cmd: Command) -> bool:
    """`check_surrender`'s quick refusal for the legal moves: already agreed."""
    data: PinmingState = state.ext  # type: ignore[assignment]  # `ext(state)`, unchecked: asked for every wolf asked
    return cmd.actor in data.surrender


def apply_surrender(state: GameState, cmd: Command) -> None:
    posted = ext(state).surrender
    posted.append(cmd.actor)
    if all(n in posted for n in _group(state)):
        announce(state, "狼人阵营投降。")
        judge_lost(state, WOLVES, "投降")


# -- settlement steps (the agenda's named tasks) -------------------------------------------
def start(state: GameState) -> None:
    """开局 closes: 认亲 settles (`settle_start`), then win/loss is judged."""
    settle_start(state)
    check_outcome(state)


def showdown_lapse(state: GameState) -> None:
    if ext(state).showdown:
        # 拍刀环节 closed with no 拍刀 submitted: 村民阵营 wins
        announce(state, "狼人未在时限内提交拍刀，村民阵营胜利。")
        declare_win(state, VILLAGE, "未提交拍刀")


SETTLE = {
    START: (Task("start", start),),
    NIGHT: (Task("showdown_lapse", showdown_lapse), Task("night", flow.settle_night)),
    DAY: (
        Task("showdown_lapse", showdown_lapse),
        Task("election", flow.elect, when=first_day),  # 竞岗: 第一天投票结束后
        Task("vote", flow.resolve_vote, when=later_day),  # 平票无人出局; 警长 1.5 票; 白痴 装傻
        Task("red_cards", flow.red_cards),  # 白天红牌罚下导致的出局结算在投票结算之后执行
    ),
}


# -- the ruleset -------------------------------------------------------------------------------
# the skills name their stage (`SkillSpec.stage`); a stage carries what flows once it closes
NIGHT_STAGES = (
    NightStage("seer", "预言家行动", on_close=seer.seer_result),
    NightStage("wolves", "狼人行动", on_close=witch.witch_spirit),
    NightStage("witch", "女巫行动", opens_with_night=False),  # 女巫 acts once she knows the kill
)

_DN = frozenset({DAY, NIGHT})
_NIGHT = frozenset({NIGHT})
_ANY = frozenset({START, DAY, NIGHT})
SKILLS = {
    s.id: s
    for s in (
        SkillSpec(
            RECOGNIZE,
            "认亲",
            frozenset({START}),
            ONE_TARGET,
            check_recognize,
            apply_recognize,
            candidates=other_alive_targets,
        ),
        replace(seer.CHECK_SKILL, stage="seer"),
        replace(wolf.KILL_SKILL, stage="wolves"),
        replace(witch.ANTIDOTE_SKILL, stage="witch"),
        replace(witch.POISON_SKILL, stage="witch"),
        hunter.SHOOT_SKILL,
        flow.succeed_skill(_ANY),  # 殉职<强制>; 警长未按时发动<殉职>后，则视为撕掉警徽
        idiot.FEIGN_SKILL,
        SkillSpec(
            DUEL,
            "决战",
            _DN,
            NO_TARGET,
            check_duel,
            apply_duel,
            audience="group:wolves",
            members_of=WOLF_GROUP,
            refuses=agreed_duel,
            refuses_is_check=True,
            bot_chance=0.02,
            irreversible=True,
        ),
        SkillSpec(
            SLASH,
            "拍刀",
            _DN,
            MANY_TARGETS,
            check_slash,
            apply_slash,
            audience="group:wolves",
            members_of=WOLF_GROUP,
            open_while=in_showdown,
            irreversible=True,
        ),
        SkillSpec(
            SURRENDER,
            "投降",
            _DN,
            NO_TARGET,
            check_surrender,
            apply_surrender,
            actor_may_be_out=True,
            audience="group:wolves",
            members_of=WOLF_GROUP,
            refuses=agreed_surrender,
            refuses_is_check=True,
            bot_chance=0.004,
            irreversible=True,
        ),
        last_words_skill(),
    )
}


_OPEN_IN_SHOWDOWN = frozenset({SLASH, CLOSE_PHASE, JUDGE_LOSS, PROMPT_TIMEOUT})


def check_deal(roles: Sequence[str]) -> None:
    for role in (HALFBLOOD, YANDERE):
        if roles.count(role) > 1:
            raise ValueError(f"品茗最多只能有一名{ROLE_NAMES[role]}")


def setup(state: GameState) -> None:
    # camps, lives and charges come from `ROLES` (new_game)
    state.camps_in_game = [VILLAGE, WOLVES]
    for c in state.chars.values():
        # a 混血儿/病娇 learns its camp only after 认亲 (`settle_start`); every other identity's
        # camp is its identity's (角色在被分发身份后，最开始属于其身份所属阵营)
        known = {} if c.role in (HALFBLOOD, YANDERE) else {"camp": c.camp}
        notice(state, c.name, f"你的身份是{ROLE_NAMES[c.role]}。", role=ROLE_NAMES[c.role], **known)


def showdown_gate(state: GameState, cmd: Command) -> str | None:
    # 若进入拍刀环节，导演会立即关闭当日聊天贴 — only 拍刀 (and the director's 关门/判负) go on
    # (`ext(state).showdown`, inline: asked for every skill the bots and pages try)
    data: PinmingState = state.ext  # type: ignore[assignment]  # a 品茗 game's (`new_game`), unchecked
    if data.knives is not None and cmd.skill not in _OPEN_IN_SHOWDOWN:
        return "拍刀环节进行中，讨论帖已关闭"
    return None


def open_phase(state: GameState) -> None:
    if state.phase.kind == NIGHT:
        announce(state, f"{state.phase.label}开始，请有夜间技能的角色在时限内行动。")
        return
    first_day = "今天是小镇传统竞选警长日，投票最高者当选警长，不会有人因投票出局。"
    announce(state, day_opening(state, first_day, reports=ext(state).report))


def vote_weight(state: GameState, voter: str) -> float:
    # 带队<强制> — 警长投出的票计为1.5票
    return 1.5 if voter == state.sheriff else 1.0


def legal_targets(state: GameState, actor: str, skill: str) -> list[tuple[str, ...]]:
    if not _may_hold(state, actor, skill):
        return []
    if skill in (DUEL, SURRENDER):
        return [()]
    if skill == SLASH:
        k = ext(state).knives or 0
        if not k:
            return []
        alive = state.alive_names()
        if k > len(alive):
            return []
        rng = random.Random(len(state.log))  # a few orders to choose from, the same on every replay
        return [tuple(rng.sample(alive, k)) for _ in range(3)]
    alive = state.alive_names()
    if skill == SUCCEED:
        return [*((n,) for n in alive), (TEAR_BADGE,)]
    return [(n,) for n in alive]


def _may_hold(state: GameState, actor: str, skill: str) -> bool:
    """Whether `actor` holds `skill` at all (the bots' pruning; the engine still checks
    everything): the wolf group's skills by membership, the others by `ROLES`."""
    if skill in _GROUP_SET:
        return actor in state.groups.get(WOLF_GROUP, ())
    holders = PINMING.holders_table.get(skill)
    return holders is None or state.chars[actor].role in holders


def _census(state: GameState) -> tuple[bool, bool, bool]:
    """(a 神 alive, a 村民 alive, a 狼人 alive): what the wins read, counted once per out
    (identities never change in 品茗, and an out is the only way a character leaves)."""
    data: PinmingState = state.ext  # type: ignore[assignment]  # `ext(state)`, unchecked: asked after every change
    memo = data.census_memo
    outs = len(state.outs)
    if memo[0] != outs:
        gods = villagers = wolves = False
        for c in state.chars.values():
            if c.alive:
                role = c.role
                if role in GODS:
                    gods = True
                elif role == VILLAGER:
                    villagers = True
                elif role == WOLF:
                    wolves = True
        memo = data.census_memo = (outs, gods, villagers, wolves)
    return memo[1], memo[2], memo[3]


def _wolves_win(state: GameState) -> str | None:
    # 狼人阵营胜利条件: 1、预言家、女巫、猎人、白痴出局  2、村民全部出局 (屠边)
    gods_alive, villagers_alive, _wolves = _census(state)
    return WOLVES if not gods_alive or not villagers_alive else None


def _village_wins(state: GameState) -> str | None:
    # 村民阵营胜利条件: 狼人全部出局 (混血儿、病娇 never count)
    return None if _census(state)[2] else VILLAGE


PINMING = Ruleset(
    id="pinming",
    name="品茗",
    aliases=("M196", "pinming", "品茗（M196）"),
    roles=ROLES,
    deck=tuple(STANDARD_DECK),
    # 品茗's seat count is the seed's configuration; another deck is another board (rulings 2026-12-04)
    deck_is_fixed=True,
    camp_names=CAMP_NAMES,
    skill_aliases={"解药": "救药"},
    night_stages=NIGHT_STAGES,
    settle=SETTLE,
    options={
        OPTION_MIXED_IN_GROUP: OptionSpec(
            OPTION_MIXED_IN_GROUP,
            False,
            "为真时，属于狼人阵营的混血儿/病娇也加入狼群，参与杀人、决战与投降。",
        )
    },
    skills=SKILLS,
    min_players=2,
    max_players=30,
    last_words=LAST_WORDS_COUNT,
    state_type=PinmingState,
    loss_conditions=(),
    win_conditions=(Condition("狼人阵营胜利条件", _wolves_win), Condition("村民阵营胜利条件", _village_wins)),
    package="banshe.rulesets.pinming",  # its bots and effects
    # what the library's roles and flow read: the seed's parameters, the hunter's shot, 装傻
    board=Board(params=PARAMS, out_hooks={HUNTER: hunter.shot_on_out}, voted_out_hooks={IDIOT: idiot.voted_out}),
    gate=showdown_gate,
    validate_roles=check_deal,
    setup=setup,
    on_phase_start=open_phase,
    on_out=on_out,
    # 装傻 — 白痴不能参与投票、不能成为投票对象 (the library's)
    can_vote=idiot.may_not_vote,
    can_be_voted=idiot.may_not_be_voted,
    votable=living_less((idiot.feigned,)),  # 装傻: 不能成为投票对象
    vote_weight=vote_weight,
    red_card=red_card,
    legal_targets=legal_targets,
)
