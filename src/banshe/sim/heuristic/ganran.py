"""感染 heuristics, per identity and per kind (anything not covered falls back to the generic policy).

Nobody shares a group in 感染 (only the lovers do) and there are no 遗言, so what a seat knows is
its identity, its lover, its own feedback and the public posts and votes. Each seat keeps a
small `_Mind` on top of the generic `Knowledge`:

- its **kind**: 穆图 is a 狼人 and 该隐 a 吸血鬼 from the start; any other identity learns it from the
  infection notice (`咬噬`/`吸血` on itself, result [infector, 穆图|该隐]) and then plays for the new
  kind (its own identity's skills included);
- its **allies** (same kind): the infector and the king named by that notice; for 穆图/该隐 every
  target its own feedback called `成功`; for an infected 先知 the players it found in its own camp.
  Allies join `Knowledge.mates`, so no skill or vote of this seat targets them;
- **rivals** (the other kind): found by an infected 先知's checks;
- the **claimant**: the first player who voted for himself on 第1天 (the 先知 runs for the badge, as a
  forum 先知 claims). The town trusts him (never votes for him, guards him, follows his badge);
- for the 女巫, every name her 通灵 lists showed (a 咬噬/吸血 target is most likely infected now).

Rules per identity (town = not infected; kind = 狼人 or 吸血鬼, 穆图/该隐 included):

- 先知 (town): 第1天 votes for himself (claims); checks the sheriff first, then a random unchecked
  player; votes for players he found not 村民阵营 (游离状态 included).
- Town on 第1天: votes (or changes its vote) for the claimant, else for a random other player.
  Later: votes for known bad players, else follows the sheriff (带队), else the day's leader.
- 守卫 (town): one skill a night (the stage asks once), alternating 银盾 and 胡蒜 (which one
  comes first is drawn once), so the same target can be covered every night without a
  consecutive repeat of either skill; the target
  is the trusted claimant, else the sheriff, else himself. Infected: covers himself or an ally
  against the rival kind only (胡蒜 for a 狼人, 银盾 for a 吸血鬼), never blocks his own kind.
- 穆图/该隐: bite/suck a known rival first (it goes 濒死 and the skill counts as 成功), then the
  claimant or the sheriff, then a random player who is no ally and not tried before (a 失败
  target is an own-kind player, a guarded one or a bitten 长老). Every third night, with an
  ally converted at least two nights before who has not been crowned, uses 狼王/鬼王 on him
  instead (a 游离 ally whose one 咬噬 failed gets another chance to join the camp).
- An infected character: uses its one 咬噬/吸血 from the next night on a known rival, else the
  claimant or sheriff, else a random player who is neither ally nor infector.
- Kinds vote: never for an ally; a known rival first, then the claimant (the town's eyes), then
  the day's leader among non-allies; on 第1天 a random non-ally.
- 女巫 (town): never spends the 解药 on a guess (using it ends her 通灵, and a 咬噬/吸血 target
  is infected, not 濒死): she saves only herself, when tonight's 通灵 names her and no infection
  notice came (so she is 濒死: 长老's 杀人 or, if infected, the rival kind's bite). Poisons a known
  bad player, else, from the second night, a player named by an earlier night's 通灵 who is
  still in the game (likely infected). Votes for listed players first.
- 猎人 (town): 银色子弹 only on a suspected 狼人: a player he knows is bad, or the player the
  trusted claimant (as sheriff) votes for from 第2天. A 吸血鬼 hunter shoots only a known 狼人
  rival; a 狼人 hunter never shoots (every non-狼人 target would force him out).
- 教士 (town): 十字架 (no cost when it misses) on a suspect from 第2天: a known bad player, the
  claimant sheriff's vote, or (the 女巫) a listed player. A 狼人 priest crosses only a known
  吸血鬼 rival; a 吸血鬼 priest never.
- 长老: votes like the town; once 特殊阵营 (杀人 appears) kills the sheriff, else a random player
  who is not his lover.
- 爱神: 爱慕 a random other player.
- 殉职: DEFER (lover/ally, else a known-good player, else random).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...engine.commands import ABSTAIN, CHANGE_VOTE, VOTE, Command
from ...engine.model import DAY, NIGHT, START
from ...rulesets.ganran.rules import (
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
    SEER,
    SHIELD,
    SUCK,
    WITCH,
    WOLF_KING,
)
from ..agents import Observation
from .base import DEFER, HeuristicAgent, register

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


def _claimant(agent: HeuristicAgent) -> str | None:
    """The first player who voted for himself on 第1天 (the 先知's claim)."""
    for voter, target in agent.k.history.get("第1天", {}).items():
        if voter == target:
            return voter
    return None


def _trusted_claimant(agent: HeuristicAgent, obs: Observation, mind: _Mind) -> str | None:
    c = _claimant(agent)
    if c is None or c == agent.seat or c not in obs.alive or c in agent.k.bad or mind.kind is not None:
        return None
    return c


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
    if mind.kind is None:
        claimant = _claimant(agent)
        if claimant is not None and claimant != agent.seat and claimant not in agent.k.bad:
            agent.k.good.add(claimant)  # the town trusts the 先知 who ran for the badge
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
    claimant = _claimant(agent)
    for special in (claimant, obs.sheriff):
        if special is not None and special in fresh:
            return special
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
        for t in (_trusted_claimant(agent, obs, mind), sheriff, agent.seat):
            if t is not None and t in targets:
                return agent.command(skill, t)
        t = agent.pick([x for x in targets if x not in k.bad])
        if t is not None:
            return agent.command(skill, t)
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
        prefer = [t for t in sorted(mind.rivals) if t in obs.alive]
        claimant = _claimant(agent)
        if claimant is not None and claimant not in friends and claimant in obs.alive:
            prefer.append(claimant)
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
    friends = agent.friends()
    skill = VOTE if VOTE in skills else CHANGE_VOTE
    targets = agent.targets(obs, skill)
    current = agent.k.votes.get(agent.seat)
    if mind.kind is None and obs.role == SEER:
        if skill == VOTE and agent.seat in targets:
            return agent.command(VOTE, agent.seat)
        return None
    claimant = _claimant(agent)
    if mind.kind is None and claimant is not None and claimant != agent.seat and claimant in targets:
        return agent.command(skill, claimant) if current != claimant else None
    if skill == CHANGE_VOTE:
        return None
    pool = [t for t in targets if t not in friends and t in obs.alive]
    target = agent.pick(pool)
    return agent.command(VOTE, target) if target else None


def _claimant_lead(agent: HeuristicAgent, obs: Observation, mind: _Mind) -> str | None:
    """The trusted claimant, as sheriff, votes today: his target is the town's suspect."""
    claimant = _trusted_claimant(agent, obs, mind)
    if claimant is None or obs.sheriff != claimant:
        return None
    target = agent.k.votes.get(claimant)
    if target is None or target == agent.seat or target in agent.friends() or target not in obs.alive:
        return None
    return target


def _bullet(agent: HeuristicAgent, obs: Observation, mind: _Mind) -> Command | None:
    targets = [t for t in agent.targets(obs, BULLET) if t not in agent.friends()]
    if mind.kind == WOLF:
        return None
    if mind.kind == VAMP:
        known = [t for t in targets if t in mind.rivals]
    else:
        known = [t for t in targets if t in agent.k.bad]
        lead = _claimant_lead(agent, obs, mind)
        if lead is not None and lead in targets:
            known.append(lead)
    return agent.command(BULLET, known[0]) if known else None


def _cross(agent: HeuristicAgent, obs: Observation, mind: _Mind) -> Command | None:
    if obs.role != PRIEST or mind.kind == VAMP:
        return None
    targets = [t for t in agent.targets(obs, CROSS) if t not in agent.friends()]
    if mind.kind == WOLF:
        known = [t for t in targets if t in mind.rivals]
    else:
        known = [t for t in targets if t in agent.k.bad]
        lead = _claimant_lead(agent, obs, mind)
        if lead is not None and lead in targets:
            known.append(lead)
    return agent.command(CROSS, known[0]) if known else None


__all__ = ["decide"]
