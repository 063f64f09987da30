"""The heuristic agent: what one seat knows (from its own events only) and a generic policy.

`Knowledge` is built incrementally from `Observation.new_events()` — the seat's own view —
so it holds only what that player could know: its groups (狼群…), its own skill results
(预言 feedback …), the public votes, public posts (遗言 with published checks, revealed
identities). Per-ruleset heuristics live in `REGISTRY` (ruleset id -> decide function); a
decide function returns a command, None (pass), or `DEFER` to use the generic policy.

The generic policy, for any identity of any ruleset or board. What a skill is for is its declared
intent (`SkillSpec.intent`: protect, attack, check — the library roles of every board declare
theirs), else, for a ruleset that declares none (the three seeds), read from the skill's id and
name (`intent_of`); it never reads a role's Chinese name where intents are declared:

- never targets its own known group mates (or itself) with a skill, nor votes for them;
- votes for players its own feedback (or a published check) says are wolves / non-village;
  with nothing known it follows the sheriff's vote (带队; a pack follows only a mate), else
  the day's leading candidate when that player is not known good, else a random player not
  known good; it changes its vote only to a known bad player or to the sheriff's lead;
- uses a group's shared skill (a 狼群's kill) on a random non-mate, preferring known targets;
- uses a solo hostile skill (毒药-like) only on a known bad player; a protective skill (守/救/解/
  护/盾…) on a player it was told is attacked tonight (a 通灵-like list), else a publicly
  revealed 预言家 (a public post 「甲是预言家」), else a known good player, else a random player
  not known bad;
- reads an investigation's result (预言/查验…) as village when it says 村民/好人, else as
  another camp (狼人, 吹笛者, 吸血鬼…), and votes accordingly;
- an investigating skill (预言/查验…) on an unchecked player;
- answers a targeted prompt (最后一枪-like) only at a known bad player, passes otherwise;
  hands a badge (殉职-like) to a mate, else a known good player, else a random player;
- never posts group-ending skills without targets (决战/投降-like);
- in its 遗言 publishes its checks as `【查验】甲=非村民阵营；乙=村民阵营`, which every other
  heuristic agent reads as public information.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any, cast

from ..engine.commands import ABSTAIN, CHANGE_VOTE, VOTE, Command
from ..engine.events import ACCEPTED, ANNOUNCE, FEEDBACK, NOTICE
from ..engine.ruleset import (
    ATTACK,
    FREE_TEXT,
    INVESTIGATE,
    MANY_TARGETS,
    NO_TARGET,
    ONE_TARGET,
    PROTECT,
    SUCCESSOR,
    TEAR_BADGE,
    YES_NO,
    Ruleset,
    SkillSpec,
)
from .observation import Observation


class _Defer:
    def __repr__(self) -> str:
        return "DEFER"


DEFER: Any = _Defer()
"""Returned by a per-ruleset decide function to fall back on the generic policy."""

Decide = Callable[["HeuristicAgent", Observation], Any]
REGISTRY: dict[str, Decide] = {}


def register(ruleset_id: str) -> Callable[[Decide], Decide]:
    """Register the heuristic for one ruleset (`@register("pinming")`)."""

    def deco(fn: Decide) -> Decide:
        REGISTRY[ruleset_id] = fn
        return fn

    return deco


CLAIM_PREFIX = "【查验】"
_CLAIM_RE = re.compile(r"【查验】([^\n]*)")
_PROTECTIVE = ("protect", "guard", "save", "heal", "antidote", "shield", "守", "救", "解", "护", "保", "盾", "治")
_INVESTIGATE = ("check", "inspect", "divine", "查", "验", "预言", "占卜")


def classify(result: str) -> int:
    """-1 for a result that says wolf / non-village, +1 for village / good, 0 otherwise."""
    if "非村民" in result or "狼" in result or "非好人" in result or "坏人" in result:
        return -1
    if "村民" in result or "好人" in result or "平民" in result:
        return 1
    return 0


_ROLE_PATTERNS: dict[str, re.Pattern[str] | None] = {}


def _role_pattern(rules: Ruleset) -> re.Pattern[str] | None:
    """`甲是预言家` in a public post reveals an identity (品茗: 「X是白痴，发动装傻」)."""
    ruleset = rules.id
    if ruleset in _ROLE_PATTERNS:
        return _ROLE_PATTERNS[ruleset]
    names = sorted(rules.role_names.values(), key=len, reverse=True)
    pattern = None
    if names:
        pattern = re.compile(r"([^\s，。、：；！？]+?)是(" + "|".join(re.escape(n) for n in names) + ")")
    _ROLE_PATTERNS[ruleset] = pattern
    return pattern


_FOUND: dict[tuple[re.Pattern[str], str], list[Any]] = {}


def findall(pattern: re.Pattern[str], text: str) -> list[Any]:
    """`pattern.findall(text)`, remembered: every seat reads the same public posts (do not
    modify the list)."""
    key = (pattern, text)
    found = _FOUND.get(key)
    if found is None:
        if len(_FOUND) >= 4096:
            _FOUND.clear()
        found = _FOUND[key] = pattern.findall(text)
    return found


class Knowledge:
    """What one seat knows, from its own events only."""

    def __init__(self, seat: str, rules: Ruleset | None = None) -> None:
        self.seat = seat
        self._role_re = _role_pattern(rules) if rules is not None else None
        self.mates: set[str] = set()
        self.good: set[str] = set()
        self.bad: set[str] = set()
        self.checked: set[str] = set()
        self.checks: list[tuple[str, str]] = []  # own results, in order
        self.revealed: dict[str, str] = {}  # publicly known identities (name -> role name)
        self.votes: dict[str, str] = {}  # today's public votes
        self.last_votes: dict[str, str] = {}  # the previous day's
        self.history: dict[str, dict[str, str]] = {}  # day label -> that day's votes
        self.votes_phase = ""
        self.group_kills: dict[str, str] = {}  # night -> the group's standing kill target
        self.lists: dict[str, list[str]] = {}  # feedback skill -> list result (通灵 …)
        self.lists_phase: dict[str, str] = {}
        self.data: dict[str, Any] = {}  # numbers from notices (knives …)
        self.phase = ""
        self.published = False
        self.posts: list[str] = []  # public posts seen (公示, 遗言), in order
        self.posts_read = 0  # how many of them a ruleset heuristic has parsed
        self.feedbacks: list[tuple[str, str, str | None, Any]] = []  # (phase, skill, target, result), all

    def update(self, obs: Observation) -> None:
        label = obs.phase.label
        if label != self.phase:
            self.phase = label
        if label != self.votes_phase and obs.phase.kind == "day":
            if self.votes:
                self.last_votes = self.votes
            self.votes = {}
            self.votes_phase = label
            self.history[label] = self.votes
        for group_members in obs.groups.values():
            self.mates.update(m for m in group_members if m != self.seat)
        for e in obs.new_events():
            kind = e.kind
            data = e.data
            if kind == ACCEPTED:
                cmd = data["command"]
                skill = cmd["skill"]
                if skill in (VOTE, CHANGE_VOTE):
                    if e.phase != self.votes_phase:
                        if self.votes:
                            self.last_votes = self.votes
                        self.votes = {}
                        self.votes_phase = e.phase
                        self.history[e.phase] = self.votes
                    self.votes[cmd["actor"]] = cmd["targets"][0]
                elif e.audience.kind == "group" and cmd.get("targets") and len(cmd["targets"]) == 1:
                    self.group_kills[e.phase] = cmd["targets"][0]
            elif kind == FEEDBACK:
                result = data.get("result")
                target = data.get("target")
                skill = str(data.get("skill"))
                self.feedbacks.append((e.phase, skill, target, result))
                if isinstance(result, str) and target:
                    verdict = classify(result)
                    if verdict == 0 and result.strip() and _is("", skill, _INVESTIGATE):
                        verdict = -1  # an investigation that does not say village: another camp
                    self.checked.add(target)
                    if verdict != 0:
                        self.checks.append((target, result))  # what the 遗言 will publish
                    if verdict < 0:
                        self.bad.add(target)
                        self.good.discard(target)
                    elif verdict > 0 and target not in self.bad:
                        self.good.add(target)
                elif isinstance(result, list):
                    self.lists[skill] = [str(x) for x in result]
                    self.lists_phase[skill] = e.phase
            elif kind == NOTICE:
                members = data.get("members")
                if isinstance(members, list) and self.seat in members:
                    self.mates.update(str(m) for m in members if m != self.seat)
                for key, value in data.items():
                    if isinstance(value, int) and not isinstance(value, bool):
                        self.data[key] = value
            elif kind == ANNOUNCE:
                self.posts.append(e.text)
                self._read_post(e.text)

    def _read_post(self, text: str) -> None:
        if self._role_re is not None:
            for name, role in findall(self._role_re, text):
                self.revealed.setdefault(name, role)
        m = _CLAIM_RE.search(text)
        if m is None:
            return
        for item in re.split(r"[；;]", m.group(1)):
            name, sep, result = item.partition("=")
            name = name.strip()
            if not sep or not name or name == self.seat:
                continue
            verdict = classify(result)
            if verdict < 0 and name not in self.mates:
                self.bad.add(name)
                self.good.discard(name)
            elif verdict > 0 and name not in self.bad:
                self.good.add(name)

    def leader(self, pool: set[str]) -> str | None:
        """Today's most-voted player among `pool` (ties: the one reached first)."""
        counts: dict[str, int] = {}
        for target in self.votes.values():
            if target in pool:
                counts[target] = counts.get(target, 0) + 1
        if not counts:
            return None
        best = max(counts.values())
        return next(t for t, v in counts.items() if v == best)


class HeuristicAgent:
    """Plausible play from the seat's own knowledge; per-ruleset rules first, then generic."""

    def __init__(self, seat: str, role: str, ruleset: str, rng: random.Random, rules: Ruleset) -> None:
        self.seat = seat
        self.role = role
        self.ruleset = ruleset
        self.rules = rules  # the ruleset (or board) itself: `banshe.agents` never looks one up
        self.rng = rng
        self.k = Knowledge(seat, rules)
        self.decide = REGISTRY.get(ruleset)

    def act(self, obs: Observation) -> Command | None:
        self.role = obs.role
        self.k.update(obs)
        if self.decide is not None:
            choice = self.decide(self, obs)
            if choice is not DEFER:
                return cast("Command | None", choice)
        return generic_decide(self, obs)

    # -- helpers for rule functions ----------------------------------------------------------
    def options(self, obs: Observation, skill: str) -> list[Command]:
        return [c for c in obs.legal if c.skill == skill]

    def targets(self, obs: Observation, skill: str) -> list[str]:
        return [c.targets[0] for c in obs.legal if c.skill == skill and len(c.targets) == 1]

    def command(self, skill: str, target: str | None = None, **kw: Any) -> Command:
        return Command(self.seat, skill, (target,) if target is not None else (), **kw)

    def command_many(self, skill: str, targets: list[str]) -> Command:
        """A many-target skill with targets of the agent's choosing (the engine checks them)."""
        return Command(self.seat, skill, tuple(targets))

    def friends(self) -> set[str]:
        return self.k.mates | {self.seat}

    def pick(self, items: list[str]) -> str | None:
        return self.rng.choice(items) if items else None

    def hostile_target(self, candidates: list[str], exclude_good: bool = True) -> str | None:
        """A known bad player among `candidates`, else a random one that is no friend (nor known good)."""
        friends = self.friends()
        bad = [t for t in candidates if t in self.k.bad and t not in friends]
        if bad:
            return self.rng.choice(bad)
        pool = [t for t in candidates if t not in friends and not (exclude_good and t in self.k.good)]
        return self.pick(pool)

    def vote(self, obs: Observation, prefer: list[str] | None = None) -> Command | None:
        """Vote (or change vote) by the generic rules; `prefer` puts chosen targets first."""
        skill = VOTE if any(c.skill == VOTE for c in obs.legal) else CHANGE_VOTE
        candidates = self.targets(obs, skill)
        if not candidates:
            return None
        friends = self.friends()
        options = [t for t in candidates if t != ABSTAIN]
        bad = [t for t in options if t in self.k.bad and t not in friends]
        current = self.k.votes.get(self.seat)
        pool = {t for t in options if t not in friends and t not in self.k.good}
        led = self._sheriff_lead(obs, pool)
        if skill == CHANGE_VOTE:
            # change to put the vote on a known bad player, or to follow the sheriff's lead (带队)
            if bad and current not in bad:
                return self.command(CHANGE_VOTE, self.rng.choice(bad))
            if not bad and led is not None and current != led and not prefer:
                return self.command(CHANGE_VOTE, led)
            return None
        if bad:
            return self.command(VOTE, self.rng.choice(bad))
        if prefer:
            chosen = [t for t in prefer if t in options]
            if chosen:
                return self.command(VOTE, chosen[0])
        if led is not None:
            return self.command(VOTE, led)
        leader = self.k.leader(pool)
        if leader is not None:
            return self.command(VOTE, leader)
        target = self.pick(sorted(pool, key=options.index))
        return self.command(VOTE, target if target is not None else ABSTAIN)

    def _sheriff_lead(self, obs: Observation, pool: set[str]) -> str | None:
        """The sheriff's vote today, when the sheriff is a mate or not known bad (the town follows
        the badge: 带队), and the target is one this seat could vote for."""
        sheriff = obs.sheriff
        if sheriff is None or sheriff == self.seat or sheriff in self.k.bad:
            return None
        if self.k.mates and sheriff not in self.k.mates:
            return None  # a pack follows only its own
        target = self.k.votes.get(sheriff)
        return target if target in pool else None

    def publish_checks(self, obs: Observation) -> Command | None:
        """遗言: publish own checks so the town can use them."""
        if self.k.published or not self.k.checks:
            return None
        for spec_id in dict.fromkeys(c.skill for c in obs.legal):
            spec = self.rules.skills.get(spec_id)
            if spec is not None and spec.shape == FREE_TEXT:
                self.k.published = True
                body = "；".join(f"{t}={r}" for t, r in self.k.checks)
                return self.command(spec_id, text=f"{CLAIM_PREFIX}{body}")
        return None


def _is(spec_id: str, name: str, words: tuple[str, ...]) -> bool:
    return any(w in spec_id or w in name for w in words)


_INTENTS: dict[tuple[str, str, str], str] = {}


def intent_of(spec: SkillSpec) -> str:
    """What a skill is for: its declared `SkillSpec.intent` (a board's library roles declare
    theirs), else read from its id and name (the seeds' skills: 查/验/预言 investigate, 守/救/解/护
    … protect); "" for anything else."""
    key = (spec.id, spec.name, spec.intent)  # all it is read from
    found = _INTENTS.get(key)
    if found is None:
        if spec.intent:
            found = spec.intent
        elif _is(spec.id, spec.name, _INVESTIGATE):
            found = INVESTIGATE
        elif _is(spec.id, spec.name, _PROTECTIVE):
            found = PROTECT
        else:
            found = ""
        _INTENTS[key] = found
    return found


def _declares_intents(rs: Ruleset) -> bool:
    return any(spec.intent for spec in rs.skills.values())


def _investigator(rs: Ruleset, role_name: str) -> bool:
    """A publicly revealed identity that investigates (the 守卫 protects it once known): by its
    role's declared intents on a board; on a seed that declares none, a 预言家 by name."""
    if not _declares_intents(rs):
        return "预言" in role_name
    role = rs.starting_role(rs.role_id(role_name) or "")
    return role is not None and any(rs.skills[s].intent == INVESTIGATE for s in role.skills if s in rs.skills)


def generic_decide(agent: HeuristicAgent, obs: Observation) -> Command | None:
    """The fallback policy for any identity of any ruleset (see the module docstring)."""
    rs = agent.rules
    k = agent.k
    friends = agent.friends()
    if obs.prompt is not None:
        spec = rs.skills.get(obs.prompt)
        candidates = agent.targets(obs, obs.prompt)
        if spec is None:
            return None
        if spec.shape == YES_NO:
            return agent.command(obs.prompt, answer=True)
        if spec.shape == SUCCESSOR:
            alive = [t for t in candidates if t != TEAR_BADGE and t != agent.seat]
            for pool in (
                [t for t in alive if t in k.mates],
                [t for t in alive if t in k.good],
                [t for t in alive if t not in k.bad],
            ):
                if pool:
                    return agent.command(obs.prompt, agent.rng.choice(pool))
            return agent.command(obs.prompt, TEAR_BADGE) if TEAR_BADGE in candidates else None
        if spec.shape == ONE_TARGET:
            bad = [t for t in candidates if t in k.bad and t not in friends]
            if bad:
                return agent.command(obs.prompt, agent.rng.choice(bad))
            if spec.intent == ATTACK and k.mates:
                # a declared attack by a group's member (狼王's 最后一枪): at someone outside the group
                target = agent.hostile_target([t for t in candidates if t != agent.seat])
                return agent.command(obs.prompt, target) if target else None
            return None
        return None
    skills = list(dict.fromkeys(c.skill for c in obs.legal))
    if VOTE in skills or CHANGE_VOTE in skills:
        cmd = agent.vote(obs)
        if cmd is not None:
            return cmd
    for sid in skills:
        if sid in (VOTE, CHANGE_VOTE):
            continue
        spec = rs.skills.get(sid)
        if spec is None:
            continue
        if spec.shape == FREE_TEXT:
            cmd = agent.publish_checks(obs)
            if cmd is not None:
                return cmd
            continue
        if spec.shape in (NO_TARGET, YES_NO, SUCCESSOR):
            continue  # group-ending or unknown switches: never on a guess
        if spec.shape == MANY_TARGETS:
            samples = [c for c in obs.legal if c.skill == sid and not set(c.targets) & friends]
            if samples:
                return agent.rng.choice(samples)
            continue
        candidates = agent.targets(obs, sid)
        if not candidates:
            continue
        intent = intent_of(spec)
        if intent == INVESTIGATE:
            pool = [t for t in candidates if t not in k.checked and t not in friends]
            target = agent.pick(pool)
        elif intent == PROTECT:
            # a player it was told is attacked tonight (通灵-like lists), then a publicly known 预言家
            # (守卫 protects the seer once known), then known good players
            told = [
                t
                for skill_name, names in k.lists.items()
                if k.lists_phase.get(skill_name) == obs.phase.label
                for t in names
                if t in candidates and t != agent.seat and t not in k.bad
            ]
            seers = [
                t
                for t in candidates
                if t in k.revealed and _investigator(rs, k.revealed[t]) and t not in k.bad and t != agent.seat
            ]
            good = [t for t in candidates if t in k.good and t != agent.seat]
            target = (
                (told[0] if told else None)
                or agent.pick(seers)
                or agent.pick(good)
                or agent.pick([t for t in candidates if t not in k.bad and t != agent.seat])
            )
        elif spec.audience.startswith("group:"):
            target = agent.hostile_target(candidates)
        else:
            bad = [t for t in candidates if t in k.bad and t not in friends]
            target = agent.pick(bad)
        if target is not None:
            return agent.command(sid, target)
    return None
