"""品茗 heuristics, one small rule per identity (anything not covered falls back to the generic policy).

- 混血儿 认亲: a random other player (it knows nothing yet).
- 预言家: checks a random unchecked living player; on 第1天 (竞岗) votes for itself; later votes
  for a player it found 非村民阵营; hands the badge to a player it found 村民阵营; its 遗言
  publishes every check.
- 狼人: never kills, votes against or shoots a 狼群 mate. Kills a publicly revealed 白痴 first
  (he cannot be voted out), then the sheriff, else a random non-mate; once a mate has named
  the night's target the others agree with it instead of posting another. On 第1天 all wolves vote
  for the same mate (the first living one in seat order) to take the badge; later they follow
  the day's leading non-mate. They agree to 决战 only once they have seen a 狼刀 fail (the
  救药 is spent) and their knives, less one for a possible 毒药 and one for the 猎人, cover every
  living non-mate; then they 拍刀 the revealed 白痴 and the sheriff first. They never 投降.
- 女巫: saves the 通灵 target on the first night it is told one (never herself: the rules
  forbid it); poisons only a player known to be a wolf (a published check); keeps the poison
  otherwise (a held 毒药 also costs a 拍刀 one knife).
- 猎人: 最后一枪 at a known wolf; with none known, at one of the players who voted him out
  that day (not a known-good one); otherwise holds the shot.
- 白痴, 村民, 病娇 (and the 混血儿 after 认亲): the town's play: vote known wolves, otherwise
  follow the leading candidate who is not known good; on 第1天 vote for a random player.
- 警长 殉职: wolves hand the badge to a mate, the town to a known-good player, else at random.
"""

from __future__ import annotations

import re
from typing import Any

from banshe.agents.heuristic import DEFER, HeuristicAgent, findall, register
from banshe.agents.observation import Observation
from banshe.engine.commands import VOTE, Command
from banshe.engine.model import DAY, NIGHT, START

from .rules import (
    ANTIDOTE,
    CHECK,
    DUEL,
    KILL,
    POISON,
    RECOGNIZE,
    SEER,
    SHOOT,
    SLASH,
    SUCCEED,
    WITCH,
    WOLF_GROUP,
)

_IDIOT_RE = re.compile(r"(\S+?)是白痴，发动装傻")
_ELECTED_RE = re.compile(r"第1天投票结束（[^）]*），(\S+?)当选警长")


def _read_posts(agent: HeuristicAgent) -> None:
    k = agent.k
    for text in k.posts[k.posts_read :]:
        for name in findall(_IDIOT_RE, text):
            k.revealed[name] = "白痴"
            if name not in k.bad:
                k.good.add(name)
    k.posts_read = len(k.posts)
    if "first_sheriff" not in k.data:
        for text in k.posts:
            m = _ELECTED_RE.search(text)
            if m:
                k.data["first_sheriff"] = m.group(1)
                break


def _is_wolf(agent: HeuristicAgent, obs: Observation) -> bool:
    return WOLF_GROUP in obs.groups


@register("pinming")
def decide(agent: HeuristicAgent, obs: Observation) -> Any:
    _read_posts(agent)
    k = agent.k
    phase = obs.phase
    skills = {c.skill for c in obs.legal}
    if obs.prompt == SHOOT:
        return _shoot(agent, obs)
    if obs.prompt == SUCCEED and _is_wolf(agent, obs):
        mates = [t for t in agent.targets(obs, SUCCEED) if t in k.mates]
        if mates:
            return agent.command(SUCCEED, mates[0])
        return DEFER
    if obs.prompt is not None:
        return DEFER
    if phase.kind == START:
        if RECOGNIZE in skills:
            return agent.command(RECOGNIZE, agent.pick([t for t in agent.targets(obs, RECOGNIZE) if t != agent.seat]))
        return None
    if _is_wolf(agent, obs):
        return _wolf(agent, obs, skills)
    if phase.kind == NIGHT:
        if obs.role == SEER and CHECK in skills:
            pool = [t for t in agent.targets(obs, CHECK) if t not in k.checked and t != agent.seat]
            target = agent.pick(pool)
            return agent.command(CHECK, target) if target else None
        if obs.role == WITCH:
            return _witch(agent, obs, skills)
        return DEFER
    if phase.kind == DAY and VOTE in skills and phase.number == 1:
        # 竞岗: the 预言家 runs for the badge; everyone else picks at random (nobody knows anything)
        if obs.role == SEER:
            return agent.vote(obs, prefer=[agent.seat])
        pool = [t for t in agent.targets(obs, VOTE) if t != agent.seat and t not in k.bad and t in obs.alive]
        return agent.vote(obs, prefer=[agent.pick(pool) or agent.seat])
    if phase.kind == DAY and VOTE in skills:
        return agent.vote(obs, prefer=_suspects(agent, obs))
    return DEFER


def _suspects(agent: HeuristicAgent, obs: Observation) -> list[str]:
    """Reading the 竞岗 votes: the wolves tend to put one of their own in, so the first sheriff
    and the players who voted for him are suspects (most-voted today first)."""
    k = agent.k
    day1 = k.history.get("第1天", {})
    elected = k.data.get("first_sheriff")
    if not isinstance(elected, str):
        return []
    suspects = [elected] + [v for v, t in day1.items() if t == elected]
    friends = agent.friends()
    pool = [t for t in dict.fromkeys(suspects) if t in obs.alive and t not in friends and t not in k.good]
    today = [k.votes.get(v) for v in k.votes]
    return sorted(pool, key=lambda t: -today.count(t))


def _shoot(agent: HeuristicAgent, obs: Observation) -> Command | None:
    k = agent.k
    candidates = [t for t in agent.targets(obs, SHOOT) if t != agent.seat]
    friends = agent.friends()
    bad = [t for t in candidates if t in k.bad and t not in friends]
    if bad:
        return agent.command(SHOOT, agent.rng.choice(bad))
    if obs.phase.kind != DAY or k.votes_phase != obs.phase.label:
        return None  # shot at night: nobody to suspect
    voters = [v for v, t in k.votes.items() if t == agent.seat and v in candidates]
    voters = [v for v in voters if v not in k.good and v not in friends]
    if voters:
        return agent.command(SHOOT, agent.rng.choice(voters))
    return None


def _witch(agent: HeuristicAgent, obs: Observation, skills: set[str]) -> Command | None:
    k = agent.k
    if ANTIDOTE in skills and k.lists_phase.get("通灵") == obs.phase.label:
        killed = [t for t in k.lists.get("通灵", []) if t != agent.seat]
        if killed and killed[0] in agent.targets(obs, ANTIDOTE):
            return agent.command(ANTIDOTE, killed[0])
    if POISON in skills:
        bad = [t for t in agent.targets(obs, POISON) if t in k.bad and t != agent.seat]
        if bad:
            return agent.command(POISON, agent.rng.choice(bad))
    return None


def _kill_order(agent: HeuristicAgent, obs: Observation, candidates: list[str]) -> list[str]:
    k = agent.k
    friends = agent.friends()
    pool = [t for t in candidates if t not in friends]
    revealed = [t for t in pool if t in k.revealed]
    sheriff = [t for t in pool if t == obs.sheriff and t not in revealed]
    rest = [t for t in pool if t not in revealed and t not in sheriff]
    agent.rng.shuffle(rest)
    return revealed + sheriff + rest


def _antidote_spent(agent: HeuristicAgent, obs: Observation) -> bool:
    """A 狼刀 target still alive after its night: only the 救药 saves in 品茗."""
    return any(night != obs.phase.label and target in obs.alive for night, target in agent.k.group_kills.items())


def _wolf(agent: HeuristicAgent, obs: Observation, skills: set[str]) -> Any:
    k = agent.k
    friends = agent.friends()
    if SLASH in skills:
        knives = int(k.data.get("knives", 0))
        order = _kill_order(agent, obs, list(obs.alive))
        if 0 < knives <= len(order):
            return agent.command_many(SLASH, order[:knives])
        samples = [c for c in obs.legal if c.skill == SLASH]
        return samples[0] if samples else None
    if DUEL in skills and _antidote_spent(agent, obs):
        mates_alive = [t for t in obs.alive if t in friends]
        knives = len(mates_alive) - (1 if obs.phase.kind == DAY else 0)
        others = [t for t in obs.alive if t not in friends]
        if others and knives - 2 >= len(others):
            return agent.command(DUEL)
    if obs.phase.kind == NIGHT and KILL in skills:
        standing = k.group_kills.get(obs.phase.label)
        if standing is not None and standing in obs.alive and standing not in friends:
            return None  # the pack has already named tonight's target: agree with it
        order = _kill_order(agent, obs, agent.targets(obs, KILL))
        return agent.command(KILL, order[0]) if order else None
    if obs.phase.kind == DAY and VOTE in skills:
        if obs.phase.number == 1:
            # 竞岗: voting as one block for a mate would give the pack away; vote like anyone else
            pool = [t for t in agent.targets(obs, VOTE) if t not in friends and t in obs.alive]
            return agent.vote(obs, prefer=[agent.pick(pool) or agent.seat])
        return agent.vote(obs)
    return DEFER
