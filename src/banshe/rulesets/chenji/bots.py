"""沉寂与取酒's bots: what a bot leaves out of its legal moves (`prune`), and the heuristics, one
small rule per identity (the rest falls back to the generic policy). The simulator finds this
module as the ruleset package's `bots` (`banshe.rulesets.registry.ruleset_module`).

`prune`, for every bot (random and heuristic): 死节 is offered 1% of the time (a bot would end
itself at once), 行刺 10% of the time and on one random seat (a miss costs the 刺客's life); both
draws are seeded by the position, so a replay offers the same.

Every seat decides from its own knowledge only: its identity, its groups (狼群, 情侣), its own
feedback, the public votes and posts. The generic policy's free-text handling is narrowed
to 遗言 (预想, 身份表 and 出使 are never posted on its behalf).

- Everyone: never targets, votes against or shoots a group mate (狼群 or 情侣: lovers never vote
  for each other); reads a 忏悔 (a player who showed it his identity) as a known-good player.
- 丘比特: shoots 爱神之箭 at two random other players.
- 白狼: 归群 (joins the pack: its solo win needs it alive among the last five, rare with
  20–30 players). It 撕咬s on the first night of each pair: in the pack a non-mate other than the
  pack's standing 杀人 target; alone a random player that is not a wolf (it was told the wolves).
- 黑狼 (or whoever holds 杀人): the sheriff first, then a random non-mate; once the target is named
  the others agree. Heirs (指认) are pack mates.
- 修女: its module's `decide` (`nun.py`).
- 狼使: 出使 once, on 第1天, sending the pack's names so the 吹笛者 pipes the town first.
- 狼人 on 第1天 vote a random non-mate (a block vote for a mate would give the pack away).
- 乱民 (狼人阵营, knows nobody): votes a player a published check calls 村民, else the day's leader.
- 预言家: checks an unchecked player (generic), runs for the badge on 第1天, votes its bad results.
- 沉寂的先知者: keeps 天眼 for 志继 (becoming 预言家 is worth more than one check) unless it is the
  sheriff, who leads the vote and needs a check now.
- 女巫: saves the 通灵 target on the first night she is told one (never herself); poisons only a
  known bad player.
- 守卫: 守护之盾 on a publicly trusted seat it has not shielded yet: the sheriff (not known bad), then
  a known-good player, then a random non-bad other player; it never spends a night on 隔音之盾
  unless no 守护之盾 target is left.
- 猎人: 最后一枪 at a known bad player; when voted out by day, at one of that day's voters.
- 权力魔术师: 弄权 once the sheriff is known bad (or gone): to a known-good player, else himself.
- 善良的小公主: 纯真 only for the sheriff or a known-good player named among tonight's targets.
- 诽谤者: its module's `decide` (`slanderer.py`).
- 刺客: 行刺 a known wolf (a check saying 狼人) by day; never on a guess (a miss costs his life).
- 忏悔者: 忏悔 once to the sheriff (not known bad) from 第2天, so the vote leader trusts him.
- 死士: never 死节 (it would only take a village vote away); plays the town.
- 吹笛者: pipes a new player each night: the town first (the 狼使's list, when it came, marks the
  pack for later), never itself nor its lover. After a day with two or more votes on it, it
  spends 断肠 (then 摇落) on one of those voters instead (a 猎人's shot is the threat). It holds
  曲尽 (a 假死 counts as piped already as a 癫狂 one).
- 白痴: 装傻 when voted out (generic). 遗言: publishes own checks (generic).
"""

from __future__ import annotations

import random
import re
from typing import Any

from banshe.agents.heuristic import HeuristicAgent, generic_decide, register
from banshe.agents.observation import Observation
from banshe.engine.actions import ActionSet
from banshe.engine.commands import CHANGE_VOTE, VOTE, Command
from banshe.engine.model import DAY, NIGHT, START, GameState

from . import nun, slanderer
from .common import LOVER_GROUP, WITHER, WOLF_GROUP
from .nun import GUARD_FAITH, REDEEM
from .roles import (
    ASSASSIN,
    CONFESSOR,
    CUPID,
    ENVOY,
    MAGICIAN,
    NUN,
    PIPER,
    PRINCESS,
    REBEL,
    SEER,
    SILENT,
    SLANDERER,
    WHITE_WOLF,
    WITCH,
)
from .rules import (
    ANTIDOTE,
    ARROW,
    BITE,
    CHENJI,
    CONFESS,
    FINALE,
    HEARTBREAK,
    HEIR,
    ID_SHEET,
    KILL,
    MARTYRDOM,
    MISSION,
    MUTE,
    PIPE,
    POISON,
    POWER,
    PREDICT,
    PURE,
    REJOIN,
    SHIELD,
    SHOOT,
    STAB,
    SUCCEED,
    TIANYAN,
)
from .slanderer import SLANDER

# the identities that hold a rationed skill (`ROLES`): every other seat's moves pass untouched
_RATIONED = CHENJI.holders_table[MARTYRDOM] | CHENJI.holders_table[STAB]


def prune(state: GameState, actor: str, actions: list[ActionSet]) -> list[ActionSet]:
    """The legal moves a bot considers now (action sets, `legal_actions`): 死节 1% of the
    time, 行刺 10% on one random seat; a set left with no option is dropped."""
    if state.chars[actor].role not in _RATIONED:
        return actions
    skills = {a.skill for a in actions}
    if MARTYRDOM not in skills and STAB not in skills:
        return actions
    rng = random.Random(len(state.log) * 31 + state.chars[actor].seat)
    if MARTYRDOM in skills and rng.random() >= 0.01:
        return [a for a in actions if a.skill != MARTYRDOM]
    if STAB in skills:
        stab = rng.choice(state.alive_names()) if rng.random() < 0.1 else None
        kept: list[ActionSet] = []
        for a in actions:
            if a.skill != STAB:
                kept.append(a)
            elif stab is not None and stab in a.options:
                kept.append(ActionSet(a.actor, a.skill, a.kind, [stab]))
        return kept
    return actions


NEVER_GENERIC = frozenset({PREDICT, ID_SHEET, MISSION, MARTYRDOM, FINALE, TIANYAN, STAB})
"""Skills the generic fallback must not see: free texts it would fill with a 查验 claim, and
skills whose use is decided here only."""

_ALL_WOLVES_RE = re.compile(r"所有狼人：([^\n。]*)")
_ENVOY_RE = re.compile(r"狼使传来消息：.*?狼人：([^\n。]*)")
_CLAIM_RE = re.compile(r"【查验】([^\n]*)")
MISSION_PREFIX = "狼人："


def _names(text: str) -> list[str]:
    return [n for n in text.split("、") if n]


def _generic(agent: HeuristicAgent, obs: Observation) -> Command | None:
    legal = [c for c in obs.legal if c.skill not in NEVER_GENERIC]
    return generic_decide(agent, obs.with_legal(legal))


def _private(agent: HeuristicAgent, obs: Observation, key: str, pattern: re.Pattern[str]) -> list[str]:
    """Names from the seat's own notices/feedback (its view), read once and cached."""
    cached = agent.k.data.get(key)
    if isinstance(cached, list):
        return cached
    found: list[str] = []
    for e in obs.view()["events"]:
        m = pattern.search(str(e.get("text", "")))
        if m:
            found = _names(m.group(1))
    agent.k.data[key] = found
    return found


def _pack(obs: Observation) -> set[str]:
    return set(obs.groups.get(WOLF_GROUP, ()))


def _lover(agent: HeuristicAgent, obs: Observation) -> set[str]:
    return {m for m in obs.groups.get(LOVER_GROUP, ()) if m != agent.seat}


def _confessed(agent: HeuristicAgent) -> None:
    """A 忏悔 reaches the seat as feedback with no verdict: the confessor is known good."""
    k = agent.k
    verdicts = {t for t, _r in k.checks}
    for name in sorted(k.checked - verdicts):
        if name not in k.bad and name not in k.mates:
            k.good.add(name)


def _trusted(agent: HeuristicAgent, obs: Observation, candidates: list[str], self_ok: bool = False) -> str | None:
    """The sheriff (not known bad), then a known-good player, then a random non-bad player."""
    k = agent.k
    pool = [t for t in candidates if t not in k.bad and (self_ok or t != agent.seat)]
    if obs.sheriff in pool:
        return obs.sheriff
    good = [t for t in pool if t in k.good]
    return agent.pick(good) or agent.pick([t for t in pool if t != agent.seat]) or agent.pick(pool)


def _today_votes_on(agent: HeuristicAgent, target: str) -> list[str]:
    return [v for v, t in agent.k.votes.items() if t == target]


@register("chenji")
def decide(agent: HeuristicAgent, obs: Observation) -> Any:
    _confessed(agent)
    skills = {c.skill for c in obs.legal}
    role = obs.role
    if obs.prompt == SHOOT:
        return _shoot(agent, obs)
    if obs.prompt == HEIR:
        return _heir(agent, obs)
    if obs.prompt == SUCCEED:
        return _succeed(agent, obs)
    if obs.prompt is not None:
        return _generic(agent, obs)
    kind = obs.phase.kind
    if kind == START:
        if ARROW in skills and role == CUPID:
            others = [n for n in obs.alive if n != agent.seat]
            if len(others) >= 2:
                return agent.command_many(ARROW, agent.rng.sample(others, 2))
        if REJOIN in skills and role == WHITE_WOLF:
            return agent.command(REJOIN)
        return None
    if kind == NIGHT:
        cmd = _night(agent, obs, skills)
        if cmd is not None:
            return cmd
        return _generic_night(agent, obs)
    if kind == DAY:
        cmd = _day(agent, obs, skills)
        if cmd is not None:
            return cmd
    return _generic(agent, obs)


# -- night -------------------------------------------------------------------------------------
def _generic_night(agent: HeuristicAgent, obs: Observation) -> Command | None:
    """The generic policy for the rest (预言, 毒药, a lone wolf's 杀人), minus the skills decided here."""
    decided = {KILL, SHIELD, MUTE, PIPE, HEARTBREAK, WITHER, GUARD_FAITH, REDEEM, POWER, PURE, SLANDER, BITE, ANTIDOTE}
    legal = [c for c in obs.legal if c.skill not in decided and c.skill not in NEVER_GENERIC]
    return generic_decide(agent, obs.with_legal(legal))


def _night(agent: HeuristicAgent, obs: Observation, skills: set[str]) -> Command | None:
    role = obs.role
    k = agent.k
    friends = agent.friends()
    if role == ENVOY and MISSION in skills:
        names = [n for n in obs.alive if n in _pack(obs)]
        return agent.command(MISSION, text=MISSION_PREFIX + "、".join(names) + "。请先吹笛村民。")
    if KILL in skills:
        return _kill(agent, obs)
    if BITE in skills:
        return _bite(agent, obs)
    if role == NUN:
        return nun.decide(agent, obs, skills)
    if role == WITCH and ANTIDOTE in skills and k.lists_phase.get("通灵") == obs.phase.label:
        attacked = [t for t in k.lists.get("通灵", []) if t != agent.seat and t not in k.bad]
        if attacked and attacked[0] in agent.targets(obs, ANTIDOTE):
            return agent.command(ANTIDOTE, attacked[0])
    if role == WITCH and POISON in skills:
        bad = [t for t in agent.targets(obs, POISON) if t in k.bad and t not in friends]
        return agent.command(POISON, agent.rng.choice(bad)) if bad else None
    if SHIELD in skills or MUTE in skills:
        for skill in (SHIELD, MUTE):
            cands = [t for t in agent.targets(obs, skill) if t not in k.bad]
            target = _trusted(agent, obs, cands, self_ok=True)
            if target is not None:
                return agent.command(skill, target)
        return None
    if role == PIPER and (PIPE in skills or HEARTBREAK in skills or WITHER in skills):
        return _piper(agent, obs, skills)
    if role == SILENT and TIANYAN in skills and obs.sheriff == agent.seat:
        pool = [t for t in agent.targets(obs, TIANYAN) if t not in k.checked and t not in friends]
        target = agent.pick(pool)
        return agent.command(TIANYAN, target) if target else None
    if role == MAGICIAN and POWER in skills:
        sheriff = obs.sheriff
        if sheriff is None or sheriff in k.bad:
            cands = agent.targets(obs, POWER)
            good = [t for t in cands if t in k.good and t not in k.bad and t != sheriff]
            target = agent.pick(good) or (agent.seat if agent.seat in cands else None)
            return agent.command(POWER, target) if target else None
        return None
    if role == PRINCESS and PURE in skills:
        cands = agent.targets(obs, PURE)
        keep = [t for t in cands if (t == obs.sheriff or t in k.good) and t not in k.bad and t != agent.seat]
        return agent.command(PURE, keep[0]) if keep else None
    if role == SLANDERER and SLANDER in skills:
        return slanderer.decide(agent, obs, friends)
    return None


def _kill(agent: HeuristicAgent, obs: Observation) -> Command | None:
    k = agent.k
    friends = agent.friends() | _pack(obs)
    standing = k.group_kills.get(obs.phase.label)
    if standing is not None and standing in obs.alive and standing not in friends:
        return None  # the pack has named tonight's target already
    cands = [t for t in agent.targets(obs, KILL) if t not in friends]
    if obs.sheriff in cands:
        return agent.command(KILL, obs.sheriff)
    target = agent.pick(cands)
    return agent.command(KILL, target) if target else None


def _bite(agent: HeuristicAgent, obs: Observation) -> Command | None:
    """撕咬 on the first night of each pair (1-2, 3-4 …): the bite is not kept for later."""
    k = agent.k
    friends = agent.friends() | _pack(obs)
    if _pack(obs):
        standing = k.group_kills.get(obs.phase.label)
        cands = [t for t in agent.targets(obs, BITE) if t not in friends and t != standing]
    else:
        wolves = set(_private(agent, obs, "all_wolves", _ALL_WOLVES_RE))
        cands = [t for t in agent.targets(obs, BITE) if t not in friends and t not in wolves]
    target = agent.pick(cands)
    return agent.command(BITE, target) if target else None


def _piper(agent: HeuristicAgent, obs: Observation, skills: set[str]) -> Command | None:
    k = agent.k
    friends = agent.friends()
    piped: list[str] = k.data.setdefault("piped", [])
    threat = [v for v in _today_votes_on(agent, agent.seat) if v in obs.alive and v not in friends]
    if len(threat) >= 2 and k.votes_phase and k.data.get("answered") != k.votes_phase:
        k.data["answered"] = k.votes_phase
        for skill in (HEARTBREAK, WITHER):
            cands = [t for t in agent.targets(obs, skill) if t in threat]
            if skill in skills and cands:
                return agent.command(skill, agent.rng.choice(cands))
    if PIPE not in skills:
        return None
    sent = any("出使技能发动" in p for p in k.posts)
    pack = set(_private(agent, obs, "envoy_list", _ENVOY_RE)) if sent else set()
    cands = [t for t in agent.targets(obs, PIPE) if t not in friends and t not in piped]
    town = [t for t in cands if t not in pack]
    target = agent.pick(town) or agent.pick(cands)
    if target is None:
        return None
    piped.append(target)
    return agent.command(PIPE, target)


# -- day ---------------------------------------------------------------------------------------
def _day(agent: HeuristicAgent, obs: Observation, skills: set[str]) -> Command | None:
    """First ask: 行刺 a known wolf, else vote; the change-vote ask: change, else 忏悔."""
    role = obs.role
    k = agent.k
    friends = agent.friends()
    if role == ASSASSIN and STAB in skills:
        # the engine's mask proves 行刺 is usable now; the target is the assassin's own choice
        wolves = [t for t in obs.alive if t in k.bad and t not in friends and _wolf_result(agent, t)]
        if wolves:
            return agent.command(STAB, agent.rng.choice(wolves))
    if VOTE in skills:
        return _vote(agent, obs)
    if CHANGE_VOTE in skills:
        cmd = agent.vote(obs)
        if cmd is not None:
            return cmd
    if role == CONFESSOR and CONFESS in skills and obs.phase.number >= 2:
        sheriff = obs.sheriff
        if sheriff is not None and sheriff not in k.bad and sheriff in agent.targets(obs, CONFESS):
            return agent.command(CONFESS, sheriff)
    return None


def _wolf_result(agent: HeuristicAgent, name: str) -> bool:
    """A check (own or published in a 遗言) naming the player a 狼人 (the 刺客 dies on anything else)."""
    if any(t == name and "狼" in r for t, r in agent.k.checks):
        return True
    return any(name in claims and "狼" in claims[name] for claims in map(published_claims, agent.k.posts))


def published_claims(text: str) -> dict[str, str]:
    """`…【查验】甲=狼人；乙=村民` -> {甲: 狼人, 乙: 村民}; {} for a post without claims."""
    m = _CLAIM_RE.search(text)
    if m is None:
        return {}
    claims: dict[str, str] = {}
    for item in re.split(r"[；;]", m.group(1).rstrip("。")):
        who, sep, result = item.partition("=")
        if sep and who.strip():
            claims[who.strip()] = result.strip()
    return claims


def _vote(agent: HeuristicAgent, obs: Observation) -> Command | None:
    k = agent.k
    role = obs.role
    pack = _pack(obs)
    if obs.phase.number == 1:
        # 竞岗: the 预言家 runs; everyone else (wolves included) picks a random non-friend
        if role == SEER:
            return agent.vote(obs, prefer=[agent.seat])
        friends = agent.friends() | pack
        pool = [t for t in agent.targets(obs, VOTE) if t not in friends and t not in k.bad and t in obs.alive]
        return agent.vote(obs, prefer=[agent.pick(pool) or agent.seat])
    if role == REBEL and not pack:
        # 狼人阵营 without the pack: the players the town's checks clear are its targets
        friends = agent.friends()
        cleared = [t for t in agent.targets(obs, VOTE) if t in k.good and t not in friends]
        if cleared:
            return agent.command(VOTE, agent.rng.choice(cleared))
        leader = k.leader({t for t in agent.targets(obs, VOTE) if t not in friends and t not in k.bad})
        if leader is not None:
            return agent.command(VOTE, leader)
        return None
    return agent.vote(obs)


# -- prompts -----------------------------------------------------------------------------------
def _shoot(agent: HeuristicAgent, obs: Observation) -> Command | None:
    k = agent.k
    friends = agent.friends()
    cands = [t for t in agent.targets(obs, SHOOT) if t != agent.seat and t not in friends]
    bad = [t for t in cands if t in k.bad]
    if bad:
        return agent.command(SHOOT, agent.rng.choice(bad))
    if obs.phase.kind != DAY or k.votes_phase != obs.phase.label:
        return None
    voters = [v for v in _today_votes_on(agent, agent.seat) if v in cands and v not in k.good]
    return agent.command(SHOOT, agent.rng.choice(voters)) if voters else None


def _succeed(agent: HeuristicAgent, obs: Observation) -> Command | None:
    """殉职 (须选择): a mate (狼群, 情侣), then a known-good player, then a random non-bad one."""
    k = agent.k
    cands = [t for t in agent.targets(obs, SUCCEED) if t != agent.seat and t in obs.alive]
    for pool in (
        [t for t in cands if t in k.mates],
        [t for t in cands if t in k.good and t not in k.bad],
        [t for t in cands if t not in k.bad],
        cands,
    ):
        if pool:
            return agent.command(SUCCEED, agent.rng.choice(pool))
    return None


def _heir(agent: HeuristicAgent, obs: Observation) -> Command | None:
    """指认: a pack mate inherits 杀人; a 替罪羊 names a 良民 (the legal list holds only those)."""
    mates = [t for t in agent.targets(obs, HEIR) if t in _pack(obs) and t != agent.seat and t in obs.alive]
    target = agent.pick(mates)
    # a 替罪羊 does not know the 良民: the director draws one
    return agent.command(HEIR, target) if target else None


__all__ = ["MISSION_PREFIX", "NEVER_GENERIC", "decide", "prune", "published_claims"]
