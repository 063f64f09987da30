"""感染 heuristics, per identity and per kind (anything not covered falls back to the generic policy).

Nobody shares a group in 感染 (only the lovers do) and there are no 遗言, so what a seat knows is
its identity, its lover, its own feedback and the public posts and votes. Each seat keeps a
small `_Mind` on top of the generic `Knowledge`:

- its **kind**: 穆图 is a 狼人 and 该隐 a 吸血鬼 from the start; any other identity learns it from the
  infection notice (`咬噬`/`吸血` on itself, result [infector, 穆图|该隐]) and from then on plays
  for the new kind, its own identity's skills included;
- its **allies** (same kind): the infector and the king named by that notice; for 穆图/该隐 every
  target its own feedback called `成功`; for an infected 先知 the players it found in its own
  camp. Allies join `Knowledge.mates`, so no skill or vote of this seat targets them; a kind
  forgets who is "good" (the village is its prey);
- **rivals** (the other kind): found by an infected 先知's checks;
- for the 女巫, every name her 通灵 lists showed (a 咬噬/吸血 target is most likely infected now).

Rules (town = not infected; kind = 狼人 or 吸血鬼, 穆图/该隐 included):

- 第1天 (竞岗): everyone votes for a random other player who is no friend. The 先知 does not run
  for the badge: a claimed 先知 is the first night's target of both 穆图 and 该隐 (the 守卫 covers
  one skill a night), and an infected 先知 leading the town does more harm than a hidden one.
- 先知: checks the sheriff first, then a random unchecked player; votes for the players he found
  not 村民阵营 (游离状态 included). Infected: reads his checks for his kind (own camp: allies;
  the other kind: rivals, bitten first; 村民阵营: prey).
- Town votes from 第2天: known bad players, else the sheriff's vote (带队), else the day's leader.
  Any seat that would abstain because everyone left is a friend or known good votes for a
  non-lover anyway (somebody left is not on its side), so no game stalls.
- 守卫: one skill a night (the stage asks once), alternating 银盾 and 胡蒜 (which comes first is
  drawn once), so the same target can be covered every night without a consecutive repeat of
  either; the target is the sheriff (not known bad), else himself, else a random non-bad player.
  Infected: covers himself or an ally against the rival kind only (胡蒜 for a 狼人, 银盾 for a
  吸血鬼) and never blocks his own kind.
- 穆图/该隐: bite/suck a known rival first (it goes 濒死 and the skill counts as 成功), then the
  sheriff, then a random player who is no ally and not tried before (a 失败 target is an
  own-kind player, a guarded one or a bitten 长老); with everyone tried, anyone not an ally.
  Every third night, with an ally converted at least two nights before and not yet crowned,
  uses 狼王/鬼王 on him instead (a 游离 ally whose one 咬噬 failed gets another chance).
- An infected character: its one 咬噬/吸血 (from the next night) by the same order, never on its
  infector or king.
- Kinds vote: never for an ally; a known rival first, then the generic order among non-allies.
- 女巫: never spends the 解药 on a guess (using it ends her 通灵, and a 咬噬/吸血 target is infected,
  not 濒死): she saves only herself, when tonight's 通灵 names her and no infection notice came
  (so she is 濒死: 长老's 杀人 or, if infected, the rival kind's bite). Poisons a known bad player,
  else, from the second night, a player an earlier night's 通灵 named who is still in the game
  (most likely infected). Votes for listed players first. Infected: poisons only a known rival.
- 猎人: 银色子弹 only on a suspected 狼人: a player he knows is bad, or, when he himself leads
  today's vote (he goes out anyway, so a miss costs nothing), one of the players voting him
  out. A 吸血鬼 hunter shoots only a known 狼人 rival; a 狼人 hunter never shoots (every non-狼人
  target would force him out).
- 教士: 十字架 (a miss costs nothing) from 第2天 on a known bad player, else, once he has voted,
  on today's leading candidate who is not known good (a 吸血鬼 there goes out at once and the
  vote takes one more). A 狼人 priest crosses only a known 吸血鬼 rival; a 吸血鬼 priest never.
- 长老: votes like the town; once 特殊阵营 (杀人 appears among his commands) kills the sheriff,
  else a random player who is not his lover.
- 爱神: 爱慕 a random other player.
- 殉职: DEFER (lover or ally, else a known-good player, else random).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from banshe.agents.heuristic import DEFER, HeuristicAgent, register
from banshe.agents.observation import Observation
from banshe.engine.commands import ABSTAIN, CHANGE_VOTE, VOTE, Command
from banshe.engine.model import DAY, NIGHT, START

from .rules import (
    ADORE,
    BITE,
    BULLET,
    CAIN,
    CHECK,
    CROSS,
    GARLIC,
    GHOST_KING,
    KILL,
    MUTU,
    POISON,
    PRIEST,
    SHIELD,
    SUCK,
    WITCH,
    WOLF_KING,
)

WOLF, VAMP = "wolf", "vampire"
_ZH_KIND = {"咬噬": WOLF, "吸血": VAMP}
_CAMP_KIND = {"狼人阵营": WOLF, "吸血鬼阵营": VAMP}
_INFECT = {WOLF: BITE, VAMP: SUCK}
_CROWN = {WOLF: WOLF_KING, VAMP: GHOST_KING}
_BLOCKS_RIVAL = {WOLF: GARLIC, VAMP: SHIELD}  # 胡蒜 blocks 吸血 (a 狼人's threat), 银盾 咬噬


@dataclass
class _Mind:
    kind: str | None = None
    allies: set[str] = field(default_factory=set)
    converted_on: dict[str, int] = field(default_factory=dict)  # ally -> night its 成功 came
    crowned: set[str] = field(default_factory=set)
    tried: set[str] = field(default_factory=set)  # own infection targets (never twice)
    rivals: set[str] = field(default_factory=set)
    village: set[str] = field(default_factory=set)  # checked 村民阵营 (an infected 先知's prey)
    listed: dict[str, int] = field(default_factory=dict)  # 通灵: name -> first night listed
    infected_on: str = ""  # the phase of this seat's own infection notice
    guard_start: str = ""  # the 守卫's skill on odd nights (drawn once: 银盾 or 胡蒜)
    read: int = 0


def _rival(kind: str) -> str:
    return VAMP if kind == WOLF else WOLF


def _mind(agent: HeuristicAgent, obs: Observation) -> _Mind:
    mind = agent.k.data.get("_ganran")
    if not isinstance(mind, _Mind):
        mind = _Mind()
        if obs.role == MUTU:
            mind.kind = WOLF
        elif obs.role == CAIN:
            mind.kind = VAMP
        agent.k.data["_ganran"] = mind
    _read_feedback(agent, mind)
    return mind


def _night_no(phase: str) -> int:
    digits = "".join(ch for ch in phase if ch.isdigit())
    return int(digits) if digits else 0


def _read_feedback(agent: HeuristicAgent, mind: _Mind) -> None:
    k = agent.k
    for phase, skill, target, result in k.feedbacks[mind.read :]:
        if skill in _ZH_KIND and target == agent.seat and isinstance(result, list):
            # infected: a new kind; the infector and the king are allies
            mind.kind = _ZH_KIND[skill]
            mind.infected_on = phase
            _ally(agent, mind, [str(x) for x in result])
        elif skill in _ZH_KIND and target and target != agent.seat:
            mind.tried.add(target)
            if result == "成功":
                _ally(agent, mind, [target])
                mind.converted_on.setdefault(target, _night_no(phase))
        elif skill == "通灵" and isinstance(result, list):
            for name in result:
                mind.listed.setdefault(str(name), _night_no(phase))
        elif skill == "预言" and isinstance(result, str) and target:
            camp_kind = _CAMP_KIND.get(result)
            if result == "村民阵营":
                mind.village.add(target)
            if camp_kind is not None and mind.kind is not None:
                if camp_kind == mind.kind:
                    _ally(agent, mind, [target])
                else:
                    mind.rivals.add(target)
    mind.read = len(k.feedbacks)
    if mind.kind is not None:
        # the generic Knowledge reads every non-village result as bad; a kind knows better
        k.bad -= mind.allies
        k.bad |= {r for r in mind.rivals if r not in mind.allies}
        k.good.clear()  # the village is prey now: nobody outside the kind is "good" to vote around


def _ally(agent: HeuristicAgent, mind: _Mind, names: list[str]) -> None:
    for name in names:
        if name != agent.seat:
            mind.allies.add(name)
            agent.k.mates.add(name)
            agent.k.bad.discard(name)


@register("ganran")
def decide(agent: HeuristicAgent, obs: Observation) -> Any:
    mind = _mind(agent, obs)
    if obs.prompt is not None:
        return DEFER
    skills = {c.skill for c in obs.legal}
    phase = obs.phase
    if phase.kind == START:
        if ADORE in skills:
            return agent.command(ADORE, agent.pick([t for t in agent.targets(obs, ADORE) if t != agent.seat]))
        return None
    if phase.kind == NIGHT:
        return _night(agent, obs, mind, skills)
    if phase.kind == DAY:
        return _day(agent, obs, mind, skills)
    return DEFER


# -- nights ---------------------------------------------------------------------------------------
def _night(agent: HeuristicAgent, obs: Observation, mind: _Mind, skills: set[str]) -> Any:
    if mind.kind is not None and (_CROWN[mind.kind] in skills or _INFECT[mind.kind] in skills):
        cmd = _infect(agent, obs, mind, skills)
        if cmd is not None:
            return cmd
    if SHIELD in skills or GARLIC in skills:
        return _guard(agent, obs, mind, skills)
    if CHECK in skills:
        return _check(agent, obs)
    if KILL in skills:
        targets = [t for t in agent.targets(obs, KILL) if t not in agent.friends()]
        sheriff = [t for t in targets if t == obs.sheriff]
        target = sheriff[0] if sheriff else agent.pick(targets)
        return agent.command(KILL, target) if target else None
    if obs.role == WITCH and skills & {"antidote", POISON}:
        return _witch(agent, obs, mind, skills)
    return None


def _prey(agent: HeuristicAgent, obs: Observation, mind: _Mind, candidates: list[str]) -> str | None:
    friends = agent.friends()
    pool = [t for t in candidates if t not in friends and t not in mind.allies]
    rivals = [t for t in pool if t in mind.rivals]
    if rivals:
        return rivals[0]
    fresh = [t for t in pool if t not in mind.tried]
    if obs.sheriff is not None and obs.sheriff in fresh:
        return obs.sheriff  # the badge carries two votes
    village = [t for t in fresh if t in mind.village]
    # everyone tried once: try again (a guarded target, or a rival the guess missed)
    return agent.pick(village) or agent.pick(fresh) or agent.pick(pool)


def _infect(agent: HeuristicAgent, obs: Observation, mind: _Mind, skills: set[str]) -> Command | None:
    assert mind.kind is not None
    crown, infect = _CROWN[mind.kind], _INFECT[mind.kind]
    night = obs.phase.number
    if crown in skills and night % 3 == 0:
        ripe = [
            a
            for a, on in sorted(mind.converted_on.items(), key=lambda kv: kv[1])
            if on <= night - 2 and a not in mind.crowned and a in agent.targets(obs, crown)
        ]
        if ripe:
            mind.crowned.add(ripe[0])
            return agent.command(crown, ripe[0])
    if infect not in skills:
        return None
    target = _prey(agent, obs, mind, agent.targets(obs, infect))
    if target is None:
        return None
    mind.tried.add(target)
    return agent.command(infect, target)


def _guard(agent: HeuristicAgent, obs: Observation, mind: _Mind, skills: set[str]) -> Command | None:
    if mind.kind is not None:
        skill = _BLOCKS_RIVAL[mind.kind]
        if skill not in skills:
            return None
        targets = agent.targets(obs, skill)
        for t in [agent.seat, *sorted(mind.allies)]:
            if t in targets:
                return agent.command(skill, t)
        return None
    if not mind.guard_start:
        mind.guard_start = agent.rng.choice([SHIELD, GARLIC])
    other = GARLIC if mind.guard_start == SHIELD else SHIELD
    order = [mind.guard_start, other] if obs.phase.number % 2 else [other, mind.guard_start]
    k = agent.k
    sheriff = obs.sheriff if obs.sheriff not in k.bad else None
    for skill in order:
        if skill not in skills:
            continue
        targets = agent.targets(obs, skill)
        for first in (sheriff, agent.seat):
            if first is not None and first in targets:
                return agent.command(skill, first)
        anyone = agent.pick([x for x in targets if x not in k.bad])
        if anyone is not None:
            return agent.command(skill, anyone)
    return None


def _check(agent: HeuristicAgent, obs: Observation) -> Command | None:
    k = agent.k
    pool = [t for t in agent.targets(obs, CHECK) if t not in k.checked and t not in agent.friends()]
    if obs.sheriff in pool:
        return agent.command(CHECK, obs.sheriff)
    target = agent.pick(pool)
    return agent.command(CHECK, target) if target else None


def _witch(agent: HeuristicAgent, obs: Observation, mind: _Mind, skills: set[str]) -> Command | None:
    k = agent.k
    label = obs.phase.label
    if (
        mind.kind is None
        and "antidote" in skills
        and k.lists_phase.get("通灵") == label
        and agent.seat in k.lists.get("通灵", [])
        and mind.infected_on != label
    ):
        return agent.command("antidote", agent.seat)
    if mind.kind is None and POISON in skills:
        friends = agent.friends()
        targets = [t for t in agent.targets(obs, POISON) if t not in friends]
        bad = [t for t in targets if t in k.bad]
        if bad:
            return agent.command(POISON, agent.pick(bad))
        earlier = [t for t in targets if mind.listed.get(t, obs.phase.number) < obs.phase.number and t not in k.good]
        if earlier:
            return agent.command(POISON, earlier[0])
    if mind.kind is not None and POISON in skills:
        rivals = [t for t in agent.targets(obs, POISON) if t in mind.rivals]
        if rivals:
            return agent.command(POISON, rivals[0])
    return None


# -- days -----------------------------------------------------------------------------------------
def _day(agent: HeuristicAgent, obs: Observation, mind: _Mind, skills: set[str]) -> Any:
    if obs.phase.number >= 2:
        if BULLET in skills:
            cmd = _bullet(agent, obs, mind)
            if cmd is not None:
                return cmd
        if CROSS in skills:
            cmd = _cross(agent, obs, mind)
            if cmd is not None:
                return cmd
    if VOTE not in skills and CHANGE_VOTE not in skills:
        return None
    if obs.phase.number == 1:
        return _election(agent, obs, mind, skills)
    prefer: list[str] = []
    if mind.kind is not None:
        friends = agent.friends()
        prefer = [t for t in sorted(mind.rivals) if t in obs.alive and t not in friends]
    elif obs.role == WITCH:
        prefer = [t for t in mind.listed if t in obs.alive and t not in agent.friends() and t not in agent.k.good]
    cmd = agent.vote(obs, prefer=prefer if VOTE in skills else None)
    if cmd is not None and cmd.skill == VOTE and cmd.targets == (ABSTAIN,):
        return _stalemate_vote(agent, obs) or cmd
    if cmd is None and mind.kind is None:
        return DEFER
    return cmd


def _stalemate_vote(agent: HeuristicAgent, obs: Observation) -> Command | None:
    """Everyone left is a friend or known good, yet the game goes on: somebody here is not on
    this seat's side. Vote for a player who is not its lover (allies by hearsay last)."""
    lovers = set(obs.groups.get("lovers", ()))
    targets = [t for t in agent.targets(obs, VOTE) if t in obs.alive and t != agent.seat and t not in lovers]
    mind = agent.k.data.get("_ganran")
    allies = mind.allies if isinstance(mind, _Mind) else set()
    target = agent.pick([t for t in targets if t not in allies]) or agent.pick(targets)
    return agent.command(VOTE, target) if target else None


def _election(agent: HeuristicAgent, obs: Observation, mind: _Mind, skills: set[str]) -> Command | None:
    """第1天 (竞岗): nobody knows anything yet; a random other player who is no friend. A 先知 who
    ran for the badge would be the first night's target of both 穆图 and 该隐, so he does not."""
    if VOTE not in skills:
        return None
    friends = agent.friends()
    pool = [t for t in agent.targets(obs, VOTE) if t not in friends and t in obs.alive]
    target = agent.pick(pool)
    return agent.command(VOTE, target) if target else None


def _hunted(agent: HeuristicAgent, obs: Observation) -> list[str]:
    """The players voting for this seat when it leads today's vote (it goes out anyway, so a
    银色子弹 that misses costs nothing): its accusers, known bad ones first."""
    k = agent.k
    counts: dict[str, float] = {}
    for voter, target in k.votes.items():
        counts[target] = counts.get(target, 0) + (2 if voter == obs.sheriff else 1)
    mine = counts.get(agent.seat, 0)
    if not mine or any(v >= mine for t, v in counts.items() if t != agent.seat):
        return []
    friends = agent.friends()
    voters = [v for v, t in k.votes.items() if t == agent.seat and v not in friends and v not in k.good]
    return sorted(voters, key=lambda v: v not in k.bad)


def _bullet(agent: HeuristicAgent, obs: Observation, mind: _Mind) -> Command | None:
    targets = [t for t in agent.targets(obs, BULLET) if t not in agent.friends()]
    if mind.kind == WOLF:
        return None  # every non-狼人 target would force him out
    if mind.kind == VAMP:
        known = [t for t in targets if t in mind.rivals]
    else:
        known = [t for t in targets if t in agent.k.bad]
        known += [t for t in _hunted(agent, obs) if t in targets and t not in known]
    return agent.command(BULLET, known[0]) if known else None


def _cross(agent: HeuristicAgent, obs: Observation, mind: _Mind) -> Command | None:
    if obs.role != PRIEST or mind.kind == VAMP:
        return None
    targets = [t for t in agent.targets(obs, CROSS) if t not in agent.friends()]
    if mind.kind == WOLF:
        known = [t for t in targets if t in mind.rivals]
    else:
        # a miss costs nothing: a known bad player, else (having voted) today's leader, so a
        # 吸血鬼 at the head of the vote goes out at once and the vote takes one more
        known = [t for t in targets if t in agent.k.bad]
        if not known and agent.seat in agent.k.votes:
            pool = {t for t in targets if t not in agent.k.good}
            leader = agent.k.leader(pool)
            known = [leader] if leader is not None else []
    return agent.command(CROSS, known[0]) if known else None


__all__ = ["decide"]
