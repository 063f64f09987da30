"""The step function and the mechanisms every ruleset shares.

`step(state, command)` returns a new state and the events it caused; `apply_in_place` does
the same on the given state (the simulator's fast path). A refused command raises
IllegalCommand and changes nothing. Win/loss is checked after every change; a declared win
raises GameEnded internally, which stops all further settlement.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .commands import (
    ABSTAIN,
    ACCELERATE,
    CARD_BLUE,
    CARD_RED,
    CARD_YELLOW,
    CHANGE_VOTE,
    CLOSE_PHASE,
    CLOSE_STAGE,
    DEDUCT,
    DELAY,
    DIRECTOR,
    DIRECTOR_SKILLS,
    JUDGE_LOSS,
    PROMPT_TIMEOUT,
    VOTE,
    Command,
    IllegalCommand,
)
from .events import (
    ACCEPTED,
    ANNOUNCE,
    CAMP,
    CHANCE,
    FEEDBACK,
    LOST,
    NOTICE,
    OUT,
    SHERIFF,
    WIN,
    Audience,
    Event,
)
from .model import DAY, NIGHT, START, Cards, Character, GameState, Out, Phase, Prompt
from .publish import night_close
from .ruleset import (
    AMOUNT,
    FREE_TEXT,
    MANY_TARGETS,
    NO_TARGET,
    ONE_TARGET,
    SUCCESSOR,
    TEAR_BADGE,
    YES_NO,
    Ruleset,
    SkillSpec,
)

_PUBLIC_AUDIENCE = Audience.public()
_DIRECTOR_AUDIENCE = Audience.director()  # the shared audiences, read without a call


class GameEnded(Exception):
    """Raised inside settlement when a camp wins; caught by the step function."""


@dataclass(frozen=True, slots=True)
class Step:
    state: GameState
    events: list[Event]


# -- events ----------------------------------------------------------------------------------
def emit(state: GameState, kind: str, audience: Audience, text: str = "", **data: Any) -> Event:
    event = Event(kind, state.phase._label, audience, data, text)
    state.log.append(event)
    return event


def announce(state: GameState, text: str) -> None:
    state.log.append(Event(ANNOUNCE, state.phase._label, _PUBLIC_AUDIENCE, {}, text))  # `emit`, inline


def feedback(state: GameState, player: str, skill: str, target: str | None, result: Any, text: str = "") -> None:
    """A skill's private result (the transcript's `private` items)."""
    data = {"skill": skill, "target": target, "result": result}
    state.log.append(Event(FEEDBACK, state.phase._label, Audience.player(player), data, text))  # `emit`, inline


def notice(state: GameState, player: str, text: str, **data: Any) -> None:
    state.log.append(Event(NOTICE, state.phase._label, Audience.player(player), data, text))  # `emit`, inline


def group_notice(state: GameState, group: str, text: str, **data: Any) -> None:
    emit(state, NOTICE, Audience.of_group(group, state.groups.get(group, ())), text, **data)


def director_note(state: GameState, text: str, **data: Any) -> None:
    emit(state, NOTICE, _DIRECTOR_AUDIENCE, text, **data)


# -- randomness (recorded, so a replay never re-rolls) ----------------------------------------
def draw(state: GameState, purpose: str, candidates: Sequence[str]) -> str | None:
    """Choose one of `candidates` with the game's seeded RNG; a single candidate is taken as is."""
    if not candidates:
        return None
    # the RNG advances the same way in a replay, so a replayed game can go on identically
    choice = candidates[0] if len(candidates) == 1 else candidates[state.rng.randrange(len(candidates))]
    if state.forced_draws:
        choice = state.forced_draws.pop(0)
        if choice not in candidates:
            raise RuntimeError(f"replayed draw {choice!r} is not among {list(candidates)}")
    emit(state, CHANCE, _DIRECTOR_AUDIENCE, f"随机选取（{purpose}）：{choice}", purpose=purpose, choice=choice)
    return str(choice)


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """`rng.shuffle(items)`, inline: random's own Fisher-Yates over `_randbelow`, the same order
    and the same draws (the deal, and the simulator's posting order)."""
    n = len(items)
    steps = _SHUFFLE_STEPS.get(n)
    if steps is None:
        # each position from the last, with `(i + 1).bit_length()`: the bits `_randbelow` draws
        steps = _SHUFFLE_STEPS[n] = tuple((i, (i + 1).bit_length()) for i in range(n - 1, 0, -1))
    getrandbits = rng.getrandbits
    for i, bits in steps:
        j = getrandbits(bits)
        while j > i:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


_SHUFFLE_STEPS: dict[int, tuple[tuple[int, int], ...]] = {}  # `shuffle`'s steps by the list's length


# -- shared mechanisms -------------------------------------------------------------------------
def set_camp(state: GameState, name: str, camp: str, announce_to_player: bool = False) -> None:
    c = state.chars[name]
    c.camp = camp
    if camp not in state.camps_in_game:
        state.camps_in_game.append(camp)
    rs: Ruleset = state.rules
    emit(state, CAMP, _DIRECTOR_AUDIENCE, f"{name}的阵营为{rs.camp_name(camp)}", player=name, camp=camp)
    if announce_to_player:
        notice(state, name, f"你的阵营现在是{rs.camp_name(camp)}。", camp=camp)


def set_sheriff(state: GameState, name: str | None) -> None:
    state.sheriff = name
    emit(state, SHERIFF, _DIRECTOR_AUDIENCE, f"警长：{name or '（警徽撕毁）'}", player=name)
    if name is not None:
        notice(state, name, "你成为了警长。")


def push_prompt(state: GameState, prompt: Prompt) -> None:
    state.prompts.append(prompt)


def put_out(state: GameState, name: str, cause: str) -> None:
    """The character leaves the game now, with its own announcements (`Ruleset.announce_out`);
    win/loss is judged on the out itself, so a win stops its triggers (殉情, 殉职, 最后一枪, 指认,
    遗言: 宣布阵营获得胜利会立即终止一切结算); then its triggers fire, and win/loss is judged again."""
    c = state.chars[name]
    if not c.alive:
        return
    c.alive = False
    state.outs.append(Out(name, state.phase, cause))
    emit(state, OUT, _DIRECTOR_AUDIENCE, f"{name}出局（{cause}）", player=name, cause=cause)
    notice(state, name, "你已出局。")
    rs: Ruleset = state.rules
    rs.announce_out(state, name, cause)  # part of the out: made even when the out wins the game
    if not rs.out_and_triggers_one_change:
        check_outcome(state)
    rs.on_out(state, name, cause)
    check_outcome(state)


def judge_lost(state: GameState, camp: str, reason: str) -> None:
    if camp in state.lost_camps:
        return
    state.lost_camps.append(camp)
    rs: Ruleset = state.rules
    emit(state, LOST, _DIRECTOR_AUDIENCE, f"{rs.camp_name(camp)}判负（{reason}）", camp=camp, reason=reason)
    rs.on_camp_lost(state, camp)
    check_outcome(state)


def declare_win(state: GameState, camp: str, reason: str) -> None:
    rs: Ruleset = state.rules
    state.winner = camp
    state.over = True
    state.ended_in = state.phase
    state.prompts.clear()
    state.agenda.clear()
    if state.phase.kind == NIGHT:
        announce(state, night_close(state, rs.report_key))
    emit(state, WIN, _PUBLIC_AUDIENCE, f"游戏结束，{rs.camp_name(camp)}胜利。", camp=camp, reason=reason)
    announce(state, f"游戏结束，{rs.camp_name(camp)}胜利！")
    raise GameEnded


def check_outcome(state: GameState) -> None:
    """Loss conditions of every camp, then wins in the ruleset's order, then last camp standing."""
    if state.winner is not None:
        raise GameEnded
    rs: Ruleset = state.rules
    for cond in rs.loss_conditions:
        for camp in cond.test(state) or ():
            if camp in state.camps_in_game and camp not in state.lost_camps:
                state.lost_camps.append(camp)
                emit(
                    state,
                    LOST,
                    _DIRECTOR_AUDIENCE,
                    f"{rs.camp_name(camp)}判负（{cond.name}）",
                    camp=camp,
                    reason=cond.name,
                )
                rs.on_camp_lost(state, camp)
    lost = state.lost_camps
    for cond in rs.win_conditions:
        camp = cond.test(state)
        if camp is not None and camp not in lost:
            declare_win(state, camp, cond.name)
    in_game = state.camps_in_game
    if not lost and len(in_game) > 1:
        return  # no camp judged lost yet: more than one remains
    remaining = [c for c in in_game if c not in lost]
    if len(remaining) == 1 and in_game:
        declare_win(state, remaining[0], "唯一未判负阵营")


# -- votes -------------------------------------------------------------------------------------
def tally(state: GameState, rs: Ruleset) -> dict[str, float]:
    """Votes for each alive target from alive voters, weighted by the ruleset (警长 1.5 / 2)."""
    counts: dict[str, float] = {}
    chars = state.chars
    weight = rs.vote_weight
    for voter, target in state.votes.items():
        # `state.is_alive`, inline (every voter of every day)
        if target == ABSTAIN:
            continue
        v = chars.get(voter)
        t = chars.get(target)
        if v is None or t is None or not v.alive or not t.alive:
            continue
        counts[target] = counts.get(target, 0.0) + weight(state, voter)
    return counts


def top_of(counts: dict[str, float]) -> list[str]:
    if not counts:
        return []
    best = max(counts.values())
    if best <= 0:
        return []
    return [t for t, v in counts.items() if v == best]


def elect_sheriff(state: GameState, final: dict[str, float] | None = None) -> str | None:
    """竞岗: the most votes; among the tied, the one who reached that final count first
    (rulings: 最先获得投票数最多, a 改票 moves the vote when it is posted). `final`: the day's
    `tally`, where the caller has made it already."""
    rs: Ruleset = state.rules
    if final is None:
        final = tally(state, rs)
    tied = top_of(final)
    if len(tied) <= 1:
        return tied[0] if tied else None
    running: dict[str, float] = {}
    reached: dict[str, int] = {}
    # `state.is_alive`, once (弃权 counts for nobody)
    alive = {c.name for c in state.chars.values() if c.alive and c.name != ABSTAIN}
    weights = {v: rs.vote_weight(state, v) for v, _o, _n in state.vote_trail}
    for i, (voter, old, new) in enumerate(state.vote_trail):
        if voter not in alive:
            continue
        weight = weights[voter]
        if old is not None and old in alive:
            running[old] = running.get(old, 0.0) - weight
        if new in alive:
            total = running[new] = running.get(new, 0.0) + weight
            if total == final.get(new) and weight > 0:
                reached[new] = i
    return min(tied, key=lambda t: reached.get(t, len(state.vote_trail)))


# -- the step function -------------------------------------------------------------------------
def step(state: GameState, command: Command) -> Step:
    """Pure step: a new state and the events this command caused. Raises IllegalCommand."""
    new = state.clone()
    events = apply_in_place(new, command)
    return Step(new, events)


def apply_in_place(state: GameState, command: Command) -> list[Event]:
    if state.winner is not None:
        return _apply_after_game(state, command)
    rs: Ruleset = state.rules
    start = len(state.log)
    handler = validate(state, rs, command)
    state.commands.append(command)
    emit(state, ACCEPTED, _accepted_audience(state, rs, command), "", command=command.logged())
    try:
        handler()
        run_agenda(state)
    except GameEnded:
        pass
    return state.log[start:]


def apply_legal(state: GameState, command: Command) -> list[Event]:
    """`apply_in_place` for a command `legal_actions` offers on this very state (the simulator's
    fast path): the same effects, without checking it a second time. Anything else: use
    `apply_in_place`, which checks."""
    log = state.log
    start = len(log)
    apply_offered(state, command)
    return log[start:]


def apply_offered(state: GameState, command: Command) -> None:
    """`apply_legal` without collecting the events it caused (the simulator reads none)."""
    rs: Ruleset = state.rules
    skill = command.skill
    state.commands.append(command)
    # `emit(state, ACCEPTED, _accepted_audience(…), command=…)`, inline (every command; an
    # offered command is never the director's)
    vote = skill in (VOTE, CHANGE_VOTE)
    if vote:
        audience = _PUBLIC_AUDIENCE
    else:
        spec = rs.skills[skill]
        audience = _skill_audience(state, spec, command.actor)
    data = command._accepted  # `command.accepted_data()`, inline once made
    if data is None:
        data = command.accepted_data()
    state.log.append(Event(ACCEPTED, state.phase._label, audience, data, ""))
    try:
        if vote:
            # `_apply_vote`, inline (every vote)
            voter = command.actor
            target = command.targets[0]
            votes = state.votes
            old = votes.get(voter)
            votes[voter] = target
            if skill == CHANGE_VOTE:
                state.vote_changed.add(voter)
            state.vote_trail.append((voter, old, target))
        else:
            if spec.prompt:
                head = state.prompts.pop(0)
                state.prompt_raised = False
                answer = spec.answer
                if answer is None:
                    raise NotImplementedError(skill)
                answer(state, head, command)  # offered: its `check` has accepted it
            else:
                spec.apply(state, command)
        if state.prompts or state.agenda:  # `run_agenda` does nothing otherwise
            run_agenda(state)
    except GameEnded:
        pass


def _apply_after_game(state: GameState, cmd: Command) -> list[Event]:
    """Once the game has ended only a ruleset's after-game skills (评奖) are accepted."""
    rs: Ruleset = state.rules
    spec = rs.skills.get(cmd.skill)
    if spec is None or not spec.after_game or cmd.actor not in state.chars:
        raise IllegalCommand("游戏已经结束", "game_over")
    _check_shape(state, spec.name, spec.shape, cmd, spec.targets_may_be_out)
    spec.check(state, cmd)
    start = len(state.log)
    state.commands.append(cmd)
    emit(state, ACCEPTED, _accepted_audience(state, rs, cmd), "", command=cmd.logged())
    spec.apply(state, cmd)
    return state.log[start:]


def _accepted_audience(state: GameState, rs: Ruleset, cmd: Command) -> Audience:
    if cmd.skill in (VOTE, CHANGE_VOTE):
        return _PUBLIC_AUDIENCE
    spec = rs.skills.get(cmd.skill)
    if cmd.actor == DIRECTOR or spec is None:
        return _DIRECTOR_AUDIENCE
    return _skill_audience(state, spec, cmd.actor)


def _skill_audience(state: GameState, spec: SkillSpec, actor: str) -> Audience:
    """Who sees that `actor` posted `spec` (`SkillSpec.audience`): self, public, or the group
    named `group:<name>` when the actor is in it (else the actor alone)."""
    audience = spec.audience
    if audience == "self":
        return Audience.player(actor)
    if audience == "public":
        return _PUBLIC_AUDIENCE
    if audience.startswith("group:"):
        group = audience[6:]
        members = state.groups.get(group, ())
        if actor in members:
            return Audience.of_group(group, members)
    return Audience.player(actor)


def run_agenda(state: GameState) -> None:
    """Settle the closed phase task by task; a pending prompt pauses it until answered."""
    rs: Ruleset = state.rules
    while state.winner is None:
        if state.prompts:
            if not state.prompt_raised:
                state.prompt_raised = True
                head = state.prompts[0]
                notice(state, head.actor, f"请发动<{rs.skill_name(head.skill)}>。{head.reason}", prompt=head.skill)
            return
        if not state.agenda:
            return
        task = state.agenda.pop(0)
        if task[0] == "advance":
            _advance(state, rs)
        else:
            rs.run_task(state, task)


def _advance(state: GameState, rs: Ruleset) -> None:
    state.phase = state.phase.next()
    state.stage = 0
    state.settling = False
    state.situate()
    state.acts = {}
    state.ext.new_phase()
    state.accelerated = False
    if state.phase.kind == DAY:
        state.votes = {}
        state.vote_changed = set()
        state.vote_trail = []
    rs.on_phase_start(state)
    check_outcome(state)


def validate(state: GameState, rs: Ruleset, cmd: Command) -> Any:
    """Check `cmd` against the phase, the actor and the targets; return the thunk that applies it."""
    gate = rs.gate(state, cmd)
    if gate:
        raise IllegalCommand(gate, "gated")
    if cmd.skill in DIRECTOR_SKILLS:
        if cmd.actor != DIRECTOR:
            raise IllegalCommand(f"只有导演可以执行<{rs.skill_name(cmd.skill)}>", "not_director")
        return _director(state, rs, cmd)
    if cmd.actor not in state.chars:
        raise IllegalCommand(f"{cmd.actor}不是本局的角色", "unknown_actor")
    if cmd.skill in (VOTE, CHANGE_VOTE):
        check_vote(state, rs, cmd)
        return lambda: _apply_vote(state, cmd)
    spec = rs.skills.get(cmd.skill)
    if spec is None:
        raise IllegalCommand(f"本规则没有技能<{cmd.skill}>", "unknown_skill")
    if spec.after_game:
        raise IllegalCommand(f"<{spec.name}>在游戏结束后进行", "not_over")
    actor = state.chars[cmd.actor]
    if spec.prompt:
        head = state.prompts[0] if state.prompts else None
        if head is None or head.actor != cmd.actor or head.skill != cmd.skill:
            raise IllegalCommand(f"{cmd.actor}当前没有需要回应的<{spec.name}>", "no_prompt")
        _check_shape(state, spec.name, spec.shape, cmd, spec.targets_may_be_out)
        # the skill's `check` holds every refusal of an answer and changes nothing
        spec.check(state, cmd)
        declared = spec.answer
        if declared is None:
            raise NotImplementedError(f"{rs.name}: the prompt skill {spec.id} declares no answer")

        def answer() -> None:
            state.prompts.pop(0)
            state.prompt_raised = False
            declared(state, head, cmd)

        return answer
    if not actor.alive and not spec.actor_may_be_out:
        raise IllegalCommand(f"{cmd.actor}已出局，不能发动<{spec.name}>", "actor_out")
    if state.phase.kind not in spec.phases:
        raise IllegalCommand(f"<{spec.name}>不能在{state.phase.label}发动", "wrong_phase")
    if state.settling:
        raise IllegalCommand(f"{state.phase.label}已关门，正在结算", "closed")
    if state.phase.kind == NIGHT:
        stage = rs.stage_for(state, cmd)
        if stage is not None:
            if stage < state.stage:
                raise IllegalCommand(f"<{spec.name}>的时限已过", "late")
            if stage > state.stage and not rs.night_stages[stage].opens_with_night:
                raise IllegalCommand(f"尚未轮到<{spec.name}>行动", "early")
    _check_shape(state, spec.name, spec.shape, cmd, spec.targets_may_be_out)
    spec.check(state, cmd)
    return lambda: spec.apply(state, cmd)


def _check_shape(state: GameState, skill_name: str, shape: str, cmd: Command, may_be_out: bool) -> None:
    refusal = shape_refusal(state, skill_name, shape, cmd, may_be_out)
    if refusal is not None:
        raise IllegalCommand(*refusal)


def shape_refusal(
    state: GameState, skill_name: str, shape: str, cmd: Command, may_be_out: bool
) -> tuple[str, str] | None:
    """Why `cmd`'s targets do not fit the skill's shape (reason, code), or None. No exception:
    `legal_commands` runs this for every candidate."""
    if shape == NO_TARGET:
        if cmd.targets:
            return (f"<{skill_name}>不需要目标", "bad_target")
        return None
    if shape == FREE_TEXT:
        if not cmd.text:
            return (f"<{skill_name}>需要填写内容", "bad_target")
        return None
    if shape == YES_NO:
        if cmd.answer is None:
            return (f"<{skill_name}>需要回答“是”或“否”", "bad_target")
        return None
    if shape == AMOUNT:
        return None
    if shape == SUCCESSOR:
        if len(cmd.targets) != 1:
            return (f"<{skill_name}>需要指定一名继任者或“{TEAR_BADGE}”", "bad_target")
        if cmd.targets[0] == TEAR_BADGE:
            return None
    if shape == ONE_TARGET and len(cmd.targets) != 1:
        return (f"<{skill_name}>需要恰好一个目标", "bad_target")
    if shape == MANY_TARGETS and not cmd.targets:
        return (f"<{skill_name}>需要目标", "bad_target")
    chars = state.chars
    for t in cmd.targets:
        c = chars.get(t)
        if c is None:
            return (f"{t}不是本局的角色", "bad_target")
        if not c.alive and not may_be_out:
            return (f"{t}已出局，不能成为<{skill_name}>的目标", "target_out")
    return None


# -- votes -------------------------------------------------------------------------------------
def check_vote(state: GameState, rs: Ruleset, cmd: Command) -> None:
    name = "投票" if cmd.skill == VOTE else "改票"
    if state.phase.kind != DAY:
        raise IllegalCommand(f"{state.phase.label}不能{name}", "wrong_phase")
    if state.settling:
        raise IllegalCommand(f"{state.phase.label}已关门，不能{name}", "closed")
    if not state.chars[cmd.actor].alive:
        raise IllegalCommand(f"{cmd.actor}已出局，不能{name}", "actor_out")
    reason = rs.can_vote(state, cmd.actor)
    if reason:
        raise IllegalCommand(reason, "cannot_vote")
    if len(cmd.targets) != 1:
        raise IllegalCommand(f"{name}需要恰好一个投票对象（或“弃权”）", "bad_target")
    target = cmd.targets[0]
    if target != ABSTAIN:
        c = state.chars.get(target)
        if c is None:
            raise IllegalCommand(f"投票对象{target}不是本局的角色", "bad_target")
        if not c.alive:
            raise IllegalCommand(f"投票对象{target}已出局", "target_out")
        reason = rs.can_be_voted(state, target)
        if reason:
            raise IllegalCommand(reason, "bad_target")
    if cmd.skill == VOTE:
        if cmd.actor in state.votes:
            raise IllegalCommand(f"{cmd.actor}今天已经投票，改票请使用改票格式", "already_voted")
    else:
        if cmd.actor not in state.votes:
            raise IllegalCommand(f"{cmd.actor}今天还没有有效投票，不能改票", "no_vote")
        if cmd.actor in state.vote_changed:
            raise IllegalCommand("改票只允许进行一次", "changed")
        if state.accelerated:
            raise IllegalCommand("执行加速时不允许改票", "accelerated")


def _apply_vote(state: GameState, cmd: Command) -> None:
    old = state.votes.get(cmd.actor)
    state.votes[cmd.actor] = cmd.targets[0]
    if cmd.skill == CHANGE_VOTE:
        state.vote_changed.add(cmd.actor)
    state.vote_trail.append((cmd.actor, old, cmd.targets[0]))


# -- director and scheduler --------------------------------------------------------------------
def _director(state: GameState, rs: Ruleset, cmd: Command) -> Any:
    skill = cmd.skill
    if skill == CLOSE_PHASE:
        if state.settling:
            if not state.prompts:
                raise IllegalCommand(f"{state.phase.label}已经关门", "closed")
            return lambda: _timeout_prompts(state, rs)
        return lambda: close_phase(state, rs)
    if skill == CLOSE_STAGE:
        if state.phase.kind != NIGHT or state.settling:
            raise IllegalCommand("现在不是夜晚行动阶段", "wrong_phase")
        if state.stage >= len(rs.night_stages) - 1:
            raise IllegalCommand("这是本夜最后一个阶段，请关门结算", "last_stage")
        return lambda: close_stage(state, rs)
    if skill == PROMPT_TIMEOUT:
        if not state.prompts:
            raise IllegalCommand("没有等待回应的技能", "no_prompt")
        return lambda: _timeout_head(state, rs)
    if skill in (CARD_BLUE, CARD_YELLOW, CARD_RED, DEDUCT):
        if len(cmd.targets) != 1 or cmd.targets[0] not in state.chars:
            raise IllegalCommand("判罚需要指定一名本局角色", "bad_target")
        if skill == DEDUCT and (cmd.amount is None or cmd.amount <= 0):
            raise IllegalCommand("扣分需要一个正整数分值", "bad_amount")
        if skill == DEDUCT:
            probe = state.clone()
            with contextlib.suppress(GameEnded):  # a 罚下 that ends the game is still a legal 扣分
                rs.on_deduct(probe, cmd.targets[0], cmd.amount or 0)
            return lambda: rs.on_deduct(state, cmd.targets[0], cmd.amount or 0)
        return lambda: give_card(state, rs, cmd.targets[0], skill)
    if skill in (ACCELERATE, DELAY):
        if state.phase.kind != DAY or state.settling:
            raise IllegalCommand("只有讨论日可以加速或延时", "wrong_phase")
        if (skill == ACCELERATE) == state.accelerated:
            raise IllegalCommand("已经在执行加速" if state.accelerated else "当前没有执行加速", "noop")
        if skill == ACCELERATE and state.acts.get("accelerated"):
            # 加速 lasts for the day it is executed on (rulings): once a day
            raise IllegalCommand("今天已经执行过加速", "noop")
        return lambda: _set_accelerated(state, skill == ACCELERATE)
    if skill == JUDGE_LOSS:
        camp = rs.camp_id(cmd.target or "") if cmd.target else None
        if camp is None or camp not in state.camps_in_game:
            raise IllegalCommand(f"判负需要指定场上的阵营：{cmd.target}", "bad_target")
        if camp in state.lost_camps:
            raise IllegalCommand(f"{rs.camp_name(camp)}已经判负", "noop")
        return lambda: judge_lost(state, camp, "导演判负")
    raise IllegalCommand(f"未知的导演指令<{skill}>", "unknown_skill")


def _set_accelerated(state: GameState, on: bool) -> None:
    state.accelerated = on
    if on:
        state.acts["accelerated"] = True
    announce(state, "导演宣布执行加速：今日不可改票。" if on else "延时成功，不再执行加速。")


def next_close(state: GameState) -> str | None:
    """What the director's clock closes next: `PROMPT_TIMEOUT` while a prompt waits for its
    answer, `CLOSE_STAGE` for a night stage before the last, `CLOSE_PHASE` for the phase (开局,
    a day, a night's last stage); None once the game is over or while the closed phase settles
    with nothing to wait for. The scenario runner, the bots' driver and the service's deadlines
    all ask this (a ruleset's `gate` may still refuse it: 拍刀环节)."""
    if state.winner is not None:
        return None
    if state.prompts:
        return PROMPT_TIMEOUT
    if state.settling:
        return None
    rs: Ruleset = state.rules
    if state.phase.kind == NIGHT and state.stage < len(rs.night_stages) - 1:
        return CLOSE_STAGE
    return CLOSE_PHASE


def close_stage(state: GameState, rs: Ruleset) -> None:
    closing = state.stage
    state.stage += 1
    state.situate()
    rs.on_stage_closed(state, closing)


def close_phase(state: GameState, rs: Ruleset) -> None:
    """End the phase's submissions (director, deadline, or everyone has acted) and settle it."""
    if state.phase.kind == NIGHT:
        while state.stage < len(rs.night_stages) - 1:
            close_stage(state, rs)
        rs.on_stage_closed(state, state.stage)
        state.stage = len(rs.night_stages)
    state.settling = True
    state.situate()
    state.agenda = [*rs.settlement(state), ("advance",)]


def _timeout_head(state: GameState, rs: Ruleset) -> None:
    prompt = state.prompts.pop(0)
    state.prompt_raised = False
    rs.prompt_default(state, prompt)


def _timeout_prompts(state: GameState, rs: Ruleset) -> None:
    """关门 while prompts wait: every unanswered prompt takes its default, in order."""
    while state.prompts:
        _timeout_head(state, rs)
        run_agenda(state)


# -- cards (违规判定) ---------------------------------------------------------------------------
def give_card(state: GameState, rs: Ruleset, name: str, card: str) -> None:
    """3 蓝牌 make a 黄牌, 3 黄牌 make a 红牌; a 红牌 is 罚下 (ruleset hook; by day after the vote)."""
    c = state.chars[name]
    cards = c.cards
    if cards is None:
        cards = c.cards = Cards()
    label = {CARD_BLUE: "蓝牌", CARD_YELLOW: "黄牌", CARD_RED: "红牌"}[card]
    announce(state, f"{name}被判罚一张{label}。")
    if card == CARD_BLUE:
        cards.blue += 1
    elif card == CARD_YELLOW:
        cards.yellow += 1
    else:
        cards.red += 1
    if cards.blue >= 3:
        cards.blue -= 3
        cards.yellow += 1
        announce(state, f"{name}累计三张蓝牌，合并为一张黄牌。")
    if cards.yellow >= 3:
        cards.yellow -= 3
        cards.red += 1
        announce(state, f"{name}累计三张黄牌，合并为一张红牌。")
    if cards.red > cards.reds_settled:
        cards.reds_settled = cards.red
        if not c.alive:
            return
        if state.phase.kind == DAY:
            pending = state.acts.setdefault("red_pending", [])
            if name not in pending:
                pending.append(name)
        else:
            rs.red_card(state, name)


def settle_red_cards(state: GameState, rs: Ruleset) -> None:
    """白天红牌罚下导致的出局结算在投票结算之后执行."""
    for name in state.acts.pop("red_pending", []):
        if state.is_alive(name):
            rs.red_card(state, name)


# -- game creation and replay ------------------------------------------------------------------
def new_game(
    rules: Ruleset,
    players: Sequence[str],
    roles: dict[str, str] | None = None,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    recorded_deal: dict[str, str] | None = None,
) -> GameState:
    """Seat the players, deal identities (seeded when not given), set up camps and groups.
    Raises ValueError (Chinese) for an impossible setup. `rules` is the ruleset itself (a
    name is resolved above the engine: `banshe.rulesets.resolve`)."""
    rs = rules
    names = list(players)
    if len(set(names)) != len(names):
        raise ValueError("玩家名字重复")
    if not rs.min_players <= len(names) <= rs.max_players:
        raise ValueError(f"{rs.name}需要{rs.min_players}到{rs.max_players}名玩家，现有{len(names)}名")
    opts = {k: spec.default for k, spec in rs.options.items()}
    for key, value in (options or {}).items():
        if key not in rs.options:
            raise ValueError(f"{rs.name}没有选项“{key}”")
        opts[key] = value
    state = GameState(rules=rs, seed=seed, options=opts, order=tuple(names), chars={}, rng=random.Random(seed))
    if rs.night_first:
        state.phase = Phase(START, 0, True)  # 开局, then 第1夜 (`Phase.next`)
    state.ext = rs.state_type()
    if roles is None:
        dealt = rs.deal_with(len(names), state.rng, opts)
        shuffle(state.rng, dealt)
        role_of = dict(recorded_deal) if recorded_deal else dict(zip(names, dealt, strict=True))
        emit(state, CHANCE, _DIRECTOR_AUDIENCE, "随机分发身份", purpose="发身份", choice=dict(role_of))
    else:
        if set(roles) != set(names):
            missing = [n for n in names if n not in roles]
            extra = [n for n in roles if n not in names]
            raise ValueError(f"身份表与座位不符：缺少{missing}，多出{extra}")
        role_of = {}
        for n in names:
            rid = rs.role_id(roles[n])
            if rid is None:
                raise ValueError(f"{rs.name}没有身份“{roles[n]}”（{n}）")
            role_of[n] = rid
    rs.validate_roles([role_of[n] for n in names])
    state.flags["dealt_roles"] = dict(role_of)
    for seat, n in enumerate(names):
        c = state.chars[n] = Character(n, seat, role_of[n], "")
        if rs.character_type is not None:
            c.ext = rs.character_type()
        declared = rs.role_table.get(c.role)  # `rs.starting_role`, inline
        if declared is not None:
            # a declared identity starts in its camp, with its lives and charges
            c.camp = declared.camp
            c.lives = declared.lives
            c.charges = dict(declared.charges)
    try:
        rs.setup(state)
        run_agenda(state)
    except GameEnded:
        pass
    return state


def replay(state: GameState) -> GameState:
    """Rebuild a game from its setup, its accepted commands and its recorded draws."""
    chances = [e for e in state.log if e.kind == CHANCE]
    dealt: dict[str, str] = dict(state.flags["dealt_roles"])
    rs: Ruleset = state.rules
    if chances and chances[0].data.get("purpose") == "发身份":
        rebuilt = new_game(rs, list(state.order), None, state.options, state.seed, recorded_deal=dealt)
        chances = chances[1:]
    else:
        roles = {n: rs.role_name(r) for n, r in dealt.items()}
        rebuilt = new_game(rs, list(state.order), roles, state.options, state.seed)
    rebuilt.forced_draws = [e.data["choice"] for e in chances]
    for cmd in state.commands:
        apply_in_place(rebuilt, cmd)
    return rebuilt


__all__ = [
    "DIRECTOR",
    "START",
    "DAY",
    "NIGHT",
    "Phase",
    "Step",
    "GameEnded",
    "step",
    "apply_in_place",
    "apply_legal",
    "apply_offered",
    "new_game",
    "replay",
    "next_close",
    "emit",
    "announce",
    "feedback",
    "notice",
    "draw",
    "shuffle",
    "put_out",
    "set_sheriff",
    "push_prompt",
    "judge_lost",
    "declare_win",
    "check_outcome",
    "tally",
    "top_of",
    "elect_sheriff",
    "give_card",
    "settle_red_cards",
    "set_camp",
    "validate",
    "check_vote",
    "shape_refusal",
    "CHANCE",
    "FEEDBACK",
    "NOTICE",
    "OUT",
    "SHERIFF",
    "WIN",
    "LOST",
    "CAMP",
    "ANNOUNCE",
    "ACCEPTED",
]
