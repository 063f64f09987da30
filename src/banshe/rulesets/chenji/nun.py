"""修女 (狼人阵营) — 【救赎】游戏日夜晚，修女可以选择一名角色，使其次日白天免于被票出局。每名角色整局
游戏只能成为该技能的目标一次。若该角色次日高票，则无人出局。
【卫道】游戏日夜晚，修女可以选择一名角色，使其免疫技能【预言】。 每名角色整局游戏只能成为该技能的目标一次。
(seed `000_b72e015fab06684e.txt`; 卫道 22:00之前, 救赎 22:45之前)

沉寂与取酒's 修女 written once: the identity and its two skills, 卫道's 免疫 in the 预言/天眼
answers, 救赎's settlement and its effect on the next day's vote, the achievements (【救赎】成功格挡住
N次投票: 1/4/7/10; 【卫道】成功格挡住N次【预言】: 2/10/50/200), the simulator's effect counters and
the bot's choice. Its data is `ChenjiState.nun` (`NunState`). The rules, achievements, effects and
bots only register it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from banshe.agents.heuristic import HeuristicAgent
from banshe.agents.observation import Observation
from banshe.engine.commands import Command
from banshe.engine.model import NIGHT, GameState
from banshe.engine.ruleset import ONE_TARGET, Role, SkillSpec

from .common import WOLF_GROUP, apply_targeted_once, need, not_yet_targeted, once_per_target, once_tonight, tier
from .roles import NUN, WOLF
from .state import NunState, ext

GUARD_FAITH, REDEEM = "guard_faith", "redeem"
FAITH_ANSWER = "免疫"  # the 预言 answer on a 卫道 target
REDEEM_BLOCKS = {1: 1, 2: 4, 3: 7, 4: 10}  # 成就: 【救赎】成功格挡住N次投票 → points
FAITH_BLOCKS = {1: 2, 2: 10, 3: 50, 4: 200}  # 成就: 【卫道】成功格挡住N次【预言】 → points


# -- 卫道 (22:00) --------------------------------------------------------------------------------
def check_faith(state: GameState, cmd: Command) -> None:
    # 卫道 — 使其免疫技能【预言】; 每名角色整局游戏只能成为该技能的目标一次
    need(state, cmd)
    once_tonight(state, cmd, "卫道")
    once_per_target(state, GUARD_FAITH, cmd.targets[0], "卫道")


def faith_targets(state: GameState, actor: str) -> Sequence[str]:
    """`SkillSpec.candidates` of 卫道: 每名角色整局游戏只能成为该技能的目标一次 (itself allowed)."""
    return not_yet_targeted(state, GUARD_FAITH)


def faith_answer(state: GameState, target: str) -> str | None:
    """A 预言 (or 天眼) on tonight's 卫道 target answers 免疫 (a block, for the 成就); None: the
    usual answer."""
    data = ext(state)
    entry = data.tonight.get(GUARD_FAITH)
    if entry is None or entry[1] != target:
        return None
    n = data.nun
    data.nun = NunState(n.redeemed, n.redeem_blocks, n.faith_blocks + 1)
    return FAITH_ANSWER


# -- 救赎 (22:45) --------------------------------------------------------------------------------
def check_redeem(state: GameState, cmd: Command) -> None:
    # 救赎 — 使其次日白天免于被票出局; 每名角色整局游戏只能成为该技能的目标一次
    need(state, cmd)
    once_tonight(state, cmd, "救赎")
    once_per_target(state, REDEEM, cmd.targets[0], "救赎")


def redeem_targets(state: GameState, actor: str) -> Sequence[str]:
    """`SkillSpec.candidates` of 救赎: 每名角色整局游戏只能成为该技能的目标一次 (itself allowed)."""
    return not_yet_targeted(state, REDEEM)


def settle_night(state: GameState) -> None:
    """Tonight's 救赎 counts in the next day's vote (none: nothing counts)."""
    data = ext(state)
    n = data.nun
    entry = data.tonight.get(REDEEM)
    data.nun = NunState((state.phase.number + 1, entry[1]) if entry else None, n.redeem_blocks, n.faith_blocks)


def redeems(state: GameState, target: str) -> bool:
    """`target` has the day's most votes alone: 若该角色次日高票，则无人出局 when last night's 救赎
    chose him (a block, for the 成就)."""
    data = ext(state)
    n = data.nun
    redeemed = n.redeemed
    if redeemed is None or redeemed[0] != state.phase.number or redeemed[1] != target:
        return False
    data.nun = NunState(redeemed, n.redeem_blocks + 1, n.faith_blocks)
    return True


_N = frozenset({NIGHT})
FAITH_SKILL: SkillSpec = SkillSpec(
    GUARD_FAITH,
    "卫道",
    _N,
    ONE_TARGET,
    check_faith,
    apply_targeted_once,
    stage="2200",
    candidates=faith_targets,
)
REDEEM_SKILL: SkillSpec = SkillSpec(
    REDEEM, "救赎", _N, ONE_TARGET, check_redeem, apply_targeted_once, stage="2245", candidates=redeem_targets
)

ROLE: Role = Role(NUN, "修女", WOLF, skills=(GUARD_FAITH, REDEEM))


# -- the achievements, the effect counters, the bot ----------------------------------------------
def achievements(state: GameState) -> list[tuple[str, str, int]]:
    """The 修女's rows of 成就奖励: (family, title, points) for 救赎, then 卫道."""
    n = ext(state).nun
    return [
        ("救赎", f"【救赎】格挡{n.redeem_blocks}次投票", tier(REDEEM_BLOCKS, n.redeem_blocks)),
        ("卫道", f"【卫道】格挡{n.faith_blocks}次预言", tier(FAITH_BLOCKS, n.faith_blocks)),
    ]


def count_effects(state: GameState, effects: Counter[str], prefix: str) -> None:
    """The simulator's effect counters: the votes 救赎 blocked, the 预言 卫道 blocked."""
    n = ext(state).nun
    if n.faith_blocks:
        effects[prefix + "卫道：挡下预言"] += n.faith_blocks
    if n.redeem_blocks:
        effects[prefix + "救赎：免于票出"] += n.redeem_blocks


def decide(agent: HeuristicAgent, obs: Observation, skills: set[str]) -> Command | None:
    """The bot: 卫道 on a pack mate not yet covered (itself last); 救赎 on the mate (or itself) with
    the most votes today, else a random one (each target once per game)."""
    if GUARD_FAITH in skills:
        pack = set(obs.groups.get(WOLF_GROUP, ()))
        cands = agent.targets(obs, GUARD_FAITH)
        mates = [t for t in cands if t in pack and t != agent.seat]
        target = agent.pick(mates) or (agent.seat if agent.seat in cands else None)
        return agent.command(GUARD_FAITH, target) if target else None
    if REDEEM in skills:
        pack = set(obs.groups.get(WOLF_GROUP, ())) | {agent.seat}
        cands = [t for t in agent.targets(obs, REDEEM) if t in pack]
        voted = agent.k.leader(set(cands))
        target = voted or agent.pick(cands)
        return agent.command(REDEEM, target) if target else None
    return None
