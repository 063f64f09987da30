"""诽谤者 — 【诽谤】游戏日夜晚，你可以选择一名角色，在下一日计票时若该角色票数+2后票数达到最高，
则该角色取代得票最高者出局。如出现平票，则替罪羊出局，并公示。(seed `000_b72e015fab06684e.txt`)

沉寂与取酒's 诽谤者 written once: the identity and its skill (22:15 之前; 摇落 voids it, 断肠
takes it), the night's settlement, the +2 in the next day's vote (FAQ 3), the achievement
(由于发动【诽谤】技能，使得某N名一本不该出局的非村民阵营角色出局: 1/10/50/200 for N = 1/2/3/4),
the simulator's effect counters and the bot's choice. Its data is `ChenjiState.slander`
(`SlanderState`). The rules, achievements, effects and bots only register it.
"""

from __future__ import annotations

from collections import Counter

from banshe.agents.heuristic import HeuristicAgent
from banshe.agents.observation import Observation
from banshe.engine.commands import Command
from banshe.engine.core import top_of
from banshe.engine.model import NIGHT, GameState
from banshe.engine.ruleset import ONE_TARGET, Role, SkillSpec, alive_targets

from .common import apply_record, need, once_tonight, tier, valid, vote_target_ok
from .roles import SLANDERER, VILLAGE
from .state import SlanderState, ext

SLANDER = "slander"
SLANDER_VOTES = 2  # 在下一日计票时若该角色票数+2
SLANDER_HITS = {1: 1, 2: 10, 3: 50, 4: 200}  # 成就: 使某N名……非村民阵营角色出局 → points


def check_slander(state: GameState, cmd: Command) -> None:
    # 诽谤 — 游戏日夜晚，你可以选择一名角色
    need(state, cmd)
    once_tonight(state, cmd, "诽谤")


SLANDER_SKILL: SkillSpec = SkillSpec(
    SLANDER,
    "诽谤",
    frozenset({NIGHT}),
    ONE_TARGET,
    check_slander,
    apply_record,
    stage="2215",
    candidates=alive_targets,
)

ROLE: Role = Role(SLANDERER, "诽谤者", VILLAGE, skills=(SLANDER,))


def settle_night(state: GameState) -> None:
    """Tonight's 诽谤, unless 摇落 voided it, counts in the next day's vote (none: nothing counts)."""
    data = ext(state)
    s = data.slander
    entry = valid(state, SLANDER)
    data.slander = SlanderState((state.phase.number + 1, entry[1]) if entry else None, s.hit, s.hits)


def _target_on(state: GameState, day: int) -> str | None:
    """Who has the extra votes on `day`: not one out or 假死 (he takes no part in the vote)."""
    marked = ext(state).slander.marked
    if marked and marked[0] == day and vote_target_ok(state, marked[1]):
        return marked[1]
    return None


def add_votes(state: GameState, counts: dict[str, float], day: int) -> None:
    """The vote of `day` (`vote_counts`): +2 on the target of the night before."""
    target = _target_on(state, day)
    if target is not None:
        counts[target] = counts.get(target, 0.0) + SLANDER_VOTES


def judge_vote_out(state: GameState, counts: dict[str, float], target: str) -> None:
    """`target` has the day's most votes alone (`counts`, 诽谤 included) and goes out unless he
    装傻s: 诽谤 caused it when he is not of 村民阵营 and would not have had the most votes alone
    without its +2. Remembered for the phase, counted when he is voted out (`voted_out`)."""
    if state.chars[target].camp == VILLAGE:
        return
    slandered = _target_on(state, state.phase.number)
    if slandered is None:
        return  # no 诽谤 today: he goes out without it
    without = dict(counts)
    without[slandered] -= SLANDER_VOTES
    if top_of(without) != [target]:
        data = ext(state)
        s = data.slander
        data.slander = SlanderState(s.marked, target, s.hits)


def voted_out(state: GameState, name: str) -> None:
    """A character is voted out: one more 成就 hit when 诽谤 caused it (`judge_vote_out`)."""
    data = ext(state)
    s = data.slander
    if s.hit == name:
        data.slander = SlanderState(s.marked, s.hit, s.hits + 1)


def achievement(state: GameState) -> tuple[str, str, int]:
    """The 诽谤者's row of 成就奖励: (family, title, points)."""
    hits = ext(state).slander.hits
    return "诽谤", f"【诽谤】使{hits}名非村民阵营角色出局", tier(SLANDER_HITS, hits)


def count_effects(state: GameState, effects: Counter[str], prefix: str) -> None:
    """The simulator's effect counters: each 诽谤 posted, each out it caused."""
    posted = sum(1 for cmd in state.commands if cmd.skill == SLANDER)  # (each logged as accepted)
    if posted:
        effects[prefix + "诽谤：发动"] += posted
    hits = ext(state).slander.hits
    if hits:
        effects[prefix + "诽谤：使非村民阵营角色票出"] += hits


def decide(agent: HeuristicAgent, obs: Observation, friends: set[str]) -> Command | None:
    """The bot: 诽谤 a known bad player, else the day's most-voted player who is not known good
    (never a friend: 狼群, 情侣)."""
    k = agent.k
    cands = [t for t in agent.targets(obs, SLANDER) if t not in friends]
    bad = [t for t in cands if t in k.bad]
    target = agent.pick(bad) or k.leader({t for t in cands if t not in k.good})
    return agent.command(SLANDER, target) if target else None
