"""成就奖励: the seed's achievement tables computed from a finished game, then the coin settlement.

Everything the engine saw is read from the state (its counters in `ChenjiState.stats`, the outs,
the final identities and camps). What only people know is recorded as inputs: 预想 (a
player's expected 预言/指杀 result, posted at night), 身份表 (before 第4天), the director's
扣分; the 评奖 votes after the game are passed in as `PostGame`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from banshe.engine.model import GameState

from . import nun, slanderer
from .common import tier
from .roles import (
    ALPHA,
    CAMP_NAMES,
    ELDER,
    GUARD,
    HUNTER,
    IDIOT,
    LOVERS,
    NUN,
    PIPER,
    PIPERS,
    PRINCESS,
    PRIVILEGED,
    REBEL,
    SEER,
    SILENT,
    SLANDERER,
    VILLAGE,
    WHITE,
    WITCH,
    WOLF,
    WOLVES,
)
from .state import CheckRecord, KillRecord, ext, seat

# 1. 胜者为王 / 2. 虽败犹荣, by camp
WIN_POINTS = {VILLAGE: 10, WOLF: 20, WHITE: 100, PIPERS: 100, LOVERS: 200}
LOSS_POINTS = {LOVERS: 5, WHITE: 10, PIPERS: 10, WOLF: 20, VILLAGE: 50}
# 3. 慧眼识人: (minimum accuracy, points), the highest reached counts
SHEET_TIERS = ((1.0, 80), (0.9, 40), (0.8, 20), (0.7, 10), (0.6, 5))
# tiers shared by several 鞠躬尽瘁 rows: count → points
TOTAL_MATCH = {1: 1, 2: 4, 3: 7, 4: 10}  # 所有…结果与预想相同N次
RUN_MATCH = {2: 5, 3: 20, 4: 60}  # 连续…结果与预想相同N次
BLOCKS = {1: 2, 2: 10, 3: 50, 4: 200}  # 成功格挡住N次 (守卫)
# roles with their own rows; 其他村民阵营身份 are the rest of 村民阵营
LISTED = (SEER, SILENT, WITCH, ELDER, GUARD, HUNTER, IDIOT, PRINCESS, SLANDERER)


@dataclass
class PostGame:
    """What happens after the game: 评奖 votes (voter → nominee) and who took full part in it."""

    award_votes: dict[str, str] = field(default_factory=dict)
    participants: set[str] | None = None  # None: everyone who cast an 评奖 vote


@dataclass(frozen=True)
class Award:
    player: str
    family: str  # 同类成就 share a family; only the highest of a family counts (向下兼容)
    title: str
    points: int


@dataclass
class Settlement:
    awards: list[Award]
    points: dict[str, int]
    coins: dict[str, float]
    total_coins: int
    per_point: float


def _longest_run(flags: list[bool]) -> int:
    best = run = 0
    for ok in flags:
        run = run + 1 if ok else 0
        best = max(best, run)
    return best


def _matches(state: GameState, actor: str, entries: list[tuple[int, str, str, str]]) -> list[bool]:
    """For each of `actor`'s entries (night, skill, target, result) in order, whether a 预想 of
    that night and target matched."""
    preds = ext(state).predictions
    out = []
    for night, skill, target, result in entries:
        guesses = [
            p.guess for p in preds if p.actor == actor and p.night == night and p.skill == skill and p.target == target
        ]
        out.append(bool(guesses) and guesses[-1] == result)
    return out


def _checked(checks: list[CheckRecord], actor: str, skill: str) -> list[tuple[int, str, str, str]]:
    return [(e.night, e.skill, e.target, e.result) for e in checks if e.actor == actor and e.skill == skill]


def _killed(state: GameState, kills: list[KillRecord], actor: str) -> list[tuple[int, str, str, str]]:
    """`actor`'s 杀人/撕咬 with their outcome: 出局 when the target went out that night."""
    return [
        (
            e.night,
            e.skill,
            e.target,
            "出局" if any(o.player == e.target and o.phase.label == f"第{e.night}夜" for o in state.outs) else "未出局",
        )
        for e in kills
        if e.actor == actor
    ]


def _shot_a_wolf_or_piper(state: GameState) -> bool:
    """最后一枪击毙狼人或吹笛者: an out by 最后一枪 (the 猎人's, the library's skill) of one of them
    (an out character's identity no longer changes)."""
    return any(
        o.cause == "最后一枪" and (state.chars[o.player].role in WOLVES or state.chars[o.player].role == PIPER)
        for o in state.outs
    )


def compute_awards(state: GameState, post: PostGame | None = None) -> list[Award]:
    """Every achievement the finished game earns, before 向下兼容."""
    post = post or PostGame()
    data = ext(state)
    s = data.stats
    chars = state.chars
    awards: list[Award] = []

    def give(player: str, family: str, title: str, points: int) -> None:
        if points > 0:
            awards.append(Award(player, family, title, points))

    def holder(role: str) -> str | None:
        for n in state.order:
            if chars[n].role == role:
                return n
        return None

    # 1. 胜者为王
    if state.winner:
        for n in state.order:
            if chars[n].camp == state.winner:
                give(n, "胜者为王", f"{CAMP_NAMES[state.winner]}获得最终胜利", WIN_POINTS[state.winner])
    # 2. 虽败犹荣: a loser whose 评奖 votes are more than half
    voters = len(post.award_votes)
    for nominee, votes in Counter(post.award_votes.values()).items():
        camp = chars[nominee].camp if nominee in chars else None
        if camp and state.winner and camp != state.winner and 2 * votes > voters:
            give(nominee, "虽败犹荣", f"{CAMP_NAMES[camp]}失败，评奖投票过半", LOSS_POINTS[camp])
    # 3. 慧眼识人
    others = len(state.order) - 1
    for n, sheet in data.sheets.items():
        correct = sum(1 for who, role in sheet.items() if who != n and chars[who].role == role)
        rate = correct / others if others else 0.0
        for need, pts in SHEET_TIERS:
            if rate >= need - 1e-9:
                give(n, "慧眼识人", f"身份表正确率{rate:.0%}", pts)
                break
    # 4. 鞠躬尽瘁 — 预言家/沉寂的先知者: 预言 results against 预想
    checks = s.checks
    for actor in dict.fromkeys(e.actor for e in checks):
        ok = _matches(state, actor, _checked(checks, actor, "check"))
        give(actor, "预言与预想相同", f"预言结果与预想相同{sum(ok)}次", tier(TOTAL_MATCH, sum(ok)))
        run = _longest_run(ok)
        give(actor, "预言与预想相同", f"连续{run}次预言结果与预想相同", tier(RUN_MATCH, run))
        if any(_matches(state, actor, _checked(checks, actor, "tianyan"))):
            give(actor, "天眼", "发动【天眼】，反馈结果与预想相同", 5)
    witch = holder(WITCH)
    if witch and s.poison_wolf:
        give(witch, "女巫毒药", "【毒药】对象为狼人或吹笛者", 4)
    if witch and s.antidote_privileged:
        give(witch, "女巫解药", "【解药】对象为特权身份", 8)
    elder = holder(ELDER)
    if elder and s.elder_hit and chars[elder].alive:
        give(elder, "长老", "被有效指杀且在游戏结束时存活", 10)
    guard = holder(GUARD)
    if guard:
        give(
            guard,
            "神圣之盾",
            f"【神圣之盾】格挡{s.shield_blocks}次指杀",
            tier(BLOCKS, s.shield_blocks),
        )
        give(
            guard,
            "隔音之盾",
            f"【隔音之盾】格挡{s.mute_blocks}次吹笛",
            tier(BLOCKS, s.mute_blocks),
        )
    hunter = holder(HUNTER)
    if hunter and not chars[hunter].alive:
        give(hunter, "猎人出局", "在游戏结束时已出局", 2)
    if hunter and _shot_a_wolf_or_piper(state):
        give(hunter, "最后一枪", "【最后一枪】击毙狼人或吹笛者", 5)
    idiot = holder(IDIOT)
    if idiot and not seat(chars[idiot]).feign_count:
        give(idiot, "白痴", "在游戏结束时未发动技能", 2)
    princess = holder(PRINCESS)
    if princess and s.pure_privileged:
        give(princess, "纯真", "成功发动【纯真】，代替特权身份出局", 10)
    slanderer_seat = holder(SLANDERER)
    if slanderer_seat:
        give(slanderer_seat, *slanderer.achievement(state))
    for n in s.killed_villagers:
        if chars[n].role not in LISTED and chars[n].camp == VILLAGE:
            give(n, "夜晚指杀出局", "在游戏日夜晚由于指杀出局", 1)
    for n in s.rebels_voted:
        if chars[n].role == REBEL:
            give(n, "乱民", "在游戏日白天由于投票出局", 5)
    for actor in dict.fromkeys(e.actor for e in s.kills):
        ok = _matches(state, actor, _killed(state, s.kills, actor))
        give(actor, "指杀与预想相同", f"指杀结果与预想相同{sum(ok)}次", tier(TOTAL_MATCH, sum(ok)))
        run = _longest_run(ok)
        give(actor, "指杀与预想相同", f"连续{run}次指杀结果与预想相同", tier(RUN_MATCH, run))
    alpha = holder(ALPHA)
    if alpha:
        if s.bloodline_saves:
            give(alpha, "血统", "由于【血统】免于出局", 5)
        if chars[alpha].alive:
            give(alpha, "头狼结局", "在游戏结束时存活", 10)
        elif not s.beheaded:
            give(alpha, "头狼结局", "在游戏结束时已出局且【枭首】未被触发", 7)
    nun_seat = holder(NUN)
    if nun_seat:
        for row in nun.achievements(state):
            give(nun_seat, *row)
    piper = holder(PIPER)
    if piper:
        if s.heartbreak_effective:
            give(piper, "断肠", "【断肠】有效发动", 5)
        if s.wither_effective:
            give(piper, "摇落", "【摇落】有效发动", 20)
        dealt = state.flags.get("dealt_roles", {})
        if chars[piper].alive and not any(dealt.get(t) in PRIVILEGED for t in s.piped):
            give(piper, "吹笛者存活", "未出局且所有【吹笛】对象中无特权身份", 30)
    # 5. 乐在其中
    participants = post.participants if post.participants is not None else set(post.award_votes)
    for n in state.order:
        deducted = seat(chars[n]).deducted
        if deducted == 0:
            give(n, "扣分", "游戏过程中未被扣分", 7)
        elif deducted < 6:
            give(n, "扣分", "游戏过程中未扣至6分", 2)
        if n in participants:
            give(n, "完整参与评奖", "游戏结束后完整参与评奖", 5)
    return awards


def best_of_families(awards: list[Award]) -> list[Award]:
    """同类成就采取向下兼容方式处理: one award per player and family, the highest."""
    best: dict[tuple[str, str], Award] = {}
    for a in awards:
        key = (a.player, a.family)
        if key not in best or a.points > best[key].points:
            best[key] = a
    return list(best.values())


def settle(state: GameState, post: PostGame | None = None, total_coins: int | None = None) -> Settlement:
    """Points per player, then coins: 每一成就点数 = 总竞拍金币 / 总点数; 扣至6分者不得金币."""
    awards = best_of_families(compute_awards(state, post))
    points = {n: 0 for n in state.order}
    for a in awards:
        points[a.player] += a.points
    total = int(state.options.get("竞拍金币总额", 0) if total_coins is None else total_coins)
    all_points = sum(points.values())
    per_point = total / all_points if all_points else 0.0
    coins = {
        n: round(points[n] * per_point, 2) if seat(state.chars[n]).deducted < 6 else 0.0 for n in state.order
    }
    return Settlement(awards, points, coins, total, per_point)


def table(state: GameState, post: PostGame | None = None, total_coins: int | None = None) -> list[str]:
    """The achievement and coin table as text lines (复盘)."""
    st = settle(state, post, total_coins)
    lines = [
        "==== 成就与金币 ====",
        f"竞拍金币总额：{st.total_coins}，总成就点数：{sum(st.points.values())}，每点折合{st.per_point:.2f}金币。",
    ]
    for n in state.order:
        mine = sorted((a for a in st.awards if a.player == n), key=lambda a: -a.points)
        detail = "；".join(f"{a.title}+{a.points}" for a in mine) or "无"
        role = state.rules.role_name(state.chars[n].role)
        lines.append(f"  {n}（{role}）：{st.points[n]}点，{st.coins[n]:.2f}金币 —— {detail}")
    return lines
