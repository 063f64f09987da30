"""Scenario files (shared/spec/scenario-format.md): play a written-down game, print a transcript.

An adapter around the engine: it turns each written input into a Command, feeds a night's
inputs stage by stage in the rules' order (arrival order inside a stage), answers the prompts
the engine raises from the phase's list, and closes each phase as the director would.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .engine.commands import (
    ABSTAIN,
    CHANGE_VOTE,
    CLOSE_PHASE,
    CLOSE_STAGE,
    DIRECTOR,
    ENGINE_SKILL_NAMES,
    PROMPT_TIMEOUT,
    VOTE,
    Command,
    IllegalCommand,
)
from .engine.core import apply_in_place, new_game, next_close
from .engine.events import ANNOUNCE, FEEDBACK, SHERIFF
from .engine.model import NIGHT, START, GameState, Phase
from .engine.ruleset import AMOUNT, FREE_TEXT, TEAR_BADGE, YES_NO, Ruleset
from .rulesets.registry import find_ruleset

_DIRECTOR_SKILLS = {zh: sid for sid, zh in ENGINE_SKILL_NAMES.items() if sid not in (VOTE, CHANGE_VOTE)}
_YES = {"是", "yes", "true", "True", True}
_NO = {"否", "no", "false", "False", False}


class ScenarioError(Exception):
    """A malformed scenario file: the message names the file, the phase and the input."""


@dataclass
class Rejection:
    index: int
    input: list[Any]
    reason: str


@dataclass
class PhaseRecord:
    phase: Phase
    rejected: list[Rejection] = field(default_factory=list)


@dataclass
class Scenario:
    ruleset: Ruleset
    seed: int
    players: list[str]
    roles: dict[str, str] | None
    options: dict[str, Any]
    phases: list[tuple[Phase, list[Any]]]
    source: str = "<scenario>"
    review: dict[str, Any] = field(default_factory=dict)  # after the game: 评奖 votes … (optional)


# -- loading -----------------------------------------------------------------------------------
def load(path: str | Path) -> Scenario:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{p}: 无法读取文件（{exc}）") from exc
    try:
        doc = json.loads(text) if p.suffix == ".json" else yaml.safe_load(text)
    except (yaml.YAMLError, ValueError) as exc:
        raise ScenarioError(f"{p}: 文件不是合法的YAML/JSON：{str(exc).splitlines()[0]}") from exc
    return parse(doc, str(p))


def _ruleset(name: str, source: str, fail: Callable[[str], ScenarioError]) -> Ruleset:
    """`ruleset:` names a registered ruleset or board, or a board file (by a path as given, or
    relative to the scenario file)."""
    from .boards import BoardError, load_file

    try:
        return find_ruleset(name)
    except KeyError:
        pass
    except BoardError as exc:
        raise fail(f"板子文件有误：{exc}") from None
    beside = Path(source).parent / name
    if name.endswith((".yaml", ".yml")) and beside.is_file():
        try:
            return load_file(beside)
        except BoardError as exc:
            raise fail(f"板子文件有误：{exc}") from None
    raise fail(f"未知的规则：{name}")


def parse(doc: Any, source: str = "<scenario>") -> Scenario:
    def fail(msg: str) -> ScenarioError:
        return ScenarioError(f"{source}: {msg}")

    if not isinstance(doc, dict):
        raise fail("场景文件的顶层必须是一个映射")
    rs = _ruleset(str(doc.get("ruleset")), source, fail)
    players = doc.get("players")
    if not isinstance(players, list) or not players:
        raise fail("players 必须是非空的列表")
    players = [str(p) for p in players]
    if len(set(players)) != len(players):
        raise fail("players 中有重复的名字")
    roles_raw = doc.get("roles")
    roles: dict[str, str] | None = None
    if roles_raw is not None:
        if not isinstance(roles_raw, dict):
            raise fail("roles 必须是 玩家: 身份 的映射")
        roles = {}
        for name, role in roles_raw.items():
            if str(name) not in players:
                raise fail(f"roles 中的玩家 {name} 不在座位表中")
            if rs.role_id(str(role)) is None:
                raise fail(f"{rs.name}没有身份“{role}”（玩家 {name}）")
            roles[str(name)] = str(role)
        missing = [p for p in players if p not in roles]
        if missing:
            raise fail(f"这些玩家没有身份：{'、'.join(missing)}")
    options = doc.get("options") or {}
    if not isinstance(options, dict):
        raise fail("options 必须是映射")
    for key in options:
        if key not in rs.options:
            raise fail(f"{rs.name}没有选项“{key}”")
    seed = doc.get("seed", 0)
    try:
        seed = int(seed)
    except (TypeError, ValueError):
        raise fail(f"seed 必须是整数：{seed}") from None
    phases: list[tuple[Phase, list[Any]]] = []
    last = -1
    for entry in doc.get("phases") or []:
        if not isinstance(entry, dict) or "phase" not in entry:
            raise fail(f"phases 中的每一项都需要 phase 字段：{entry}")
        label = str(entry["phase"])
        try:
            phase = Phase.parse(label, rs.night_first)
        except ValueError:
            raise fail(f"未知的阶段名：{label}") from None
        if phase.ordinal <= last:
            raise fail(f"阶段顺序错误：{label}")
        last = phase.ordinal
        inputs = entry.get("inputs") or []
        if not isinstance(inputs, list):
            raise fail(f"{label} 的 inputs 必须是列表")
        for raw in inputs:
            _check_input_names(rs, raw, players, fail, label)
        phases.append((phase, inputs))
    review = doc.get("review") or {}
    if not isinstance(review, dict):
        raise fail("review 必须是映射")
    return Scenario(rs, seed, players, roles, {str(k): v for k, v in options.items()}, phases, source, review)


_NOT_PLAYERS = {ABSTAIN, TEAR_BADGE}
_DIRECTOR_ON_PLAYER = {"蓝牌", "黄牌", "红牌", "扣分"}


def _check_input_names(rs: Ruleset, raw: Any, players: list[str], fail: Any, label: str) -> None:
    """Every name in an input must be seated (a misspelt name makes the file malformed)."""
    if not isinstance(raw, list) or len(raw) < 2:
        raise fail(f"{label} 的输入格式错误（应为 [角色, 技能, 目标...]）：{raw}")
    actor = str(raw[0])
    if actor != DIRECTOR and actor not in players:
        raise fail(f"{label} 的输入 {raw}：{actor} 不在座位表中")
    if actor == DIRECTOR:
        names = raw[2:3] if str(raw[1]) in _DIRECTOR_ON_PLAYER else []
    else:
        sid = skill_id(rs, str(raw[1]))
        spec = rs.skills.get(sid) if sid else None
        if sid is None or (spec is not None and spec.shape in (FREE_TEXT, YES_NO, AMOUNT)):
            return
        names = [x for r in raw[2:] for x in (r if isinstance(r, list) else [r])]
    for name in names:
        if str(name) not in players and str(name) not in _NOT_PLAYERS:
            raise fail(f"{label} 的输入 {raw}：{name} 不在座位表中")


# -- inputs -> commands -----------------------------------------------------------------------
def skill_id(rs: Ruleset, name: str) -> str | None:
    name = rs.skill_aliases.get(name, name)
    for sid, spec in rs.skills.items():
        if spec.name == name or sid == name:
            return sid
    if name == "投票":
        return VOTE
    if name == "改票":
        return CHANGE_VOTE
    return None


def to_command(rs: Ruleset, raw: list[Any]) -> Command:
    """Turn `[actor, skill, target...]` into a Command; IllegalCommand if it cannot be one."""
    actor, skill_name = str(raw[0]), str(raw[1])
    rest = raw[2:]
    if actor == DIRECTOR:
        sid = _DIRECTOR_SKILLS.get(skill_name)
        if sid is None:
            raise IllegalCommand(f"未知的导演指令：{skill_name}")
        director_targets = tuple(str(t) for t in rest[:1])
        amount = None
        if len(rest) > 1:
            try:
                amount = int(rest[1])
            except (TypeError, ValueError):
                raise IllegalCommand(f"扣分需要整数分值：{rest[1]}") from None
        return Command(DIRECTOR, sid, director_targets, amount=amount)
    sid = skill_id(rs, skill_name)
    if sid is None:
        raise IllegalCommand(f"{rs.name}没有技能“{skill_name}”")
    spec = rs.skills.get(sid)
    shape = spec.shape if spec else None
    if shape == YES_NO:
        if len(rest) != 1 or rest[0] not in _YES | _NO:
            raise IllegalCommand(f"<{skill_name}>需要回答“是”或“否”")
        return Command(actor, sid, answer=rest[0] in _YES)
    if shape == FREE_TEXT:
        return Command(actor, sid, text=" ".join(str(r) for r in rest) if rest else None)
    if shape == AMOUNT:
        return Command(actor, sid, amount=int(rest[0]) if rest else None)
    targets: list[str] = []
    for r in rest:
        if isinstance(r, list):
            targets.extend(str(x) for x in r)
        else:
            targets.append(str(r))
    return Command(actor, sid, tuple(targets))


# -- playing -----------------------------------------------------------------------------------
class _PhaseRun:
    def __init__(self, state: GameState, rs: Ruleset, phase: Phase, inputs: list[Any]) -> None:
        self.state = state
        self.rs = rs
        self.inputs = inputs
        self.record = PhaseRecord(phase)
        self.used: set[int] = set()
        self.commands: dict[int, Command] = {}
        for i, raw in enumerate(inputs):
            try:
                self.commands[i] = to_command(rs, raw)
            except IllegalCommand as exc:
                self.reject(i, exc.reason)

    def reject(self, index: int, reason: str) -> None:
        self.used.add(index)
        self.record.rejected.append(Rejection(index, list(self.inputs[index]), reason))

    def submit(self, index: int) -> None:
        self.used.add(index)
        if self.state.over and not self.after_game(self.commands[index]):
            self.reject(index, "游戏已经结束")
            return
        try:
            apply_in_place(self.state, self.commands[index])
        except IllegalCommand as exc:
            self.reject(index, exc.reason)
        self.answer_prompts()

    def director(self, skill: str) -> bool:
        """The director's `skill` (关门, 阶段结束); False when the rules refuse it."""
        if not self.state.over:
            try:
                apply_in_place(self.state, Command(DIRECTOR, skill))
            except IllegalCommand:
                return False
            self.answer_prompts()
        return True

    def answer_prompts(self) -> None:
        """A raised prompt takes the first unused input of that actor and skill in the phase."""
        while next_close(self.state) == PROMPT_TIMEOUT:
            head = self.state.prompts[0]
            for i, cmd in self.commands.items():
                if i not in self.used and cmd.actor == head.actor and cmd.skill == head.skill:
                    self.used.add(i)
                    try:
                        apply_in_place(self.state, cmd)
                        break
                    except IllegalCommand as exc:
                        self.reject(i, exc.reason)
            else:
                apply_in_place(self.state, Command(DIRECTOR, PROMPT_TIMEOUT))

    def after_game(self, cmd: Command) -> bool:
        spec = self.rs.skills.get(cmd.skill)
        return bool(spec and spec.after_game)

    def is_prompt_answer(self, cmd: Command) -> bool:
        spec = self.rs.skills.get(cmd.skill)
        return bool(spec and spec.prompt)

    def play(self) -> None:
        order = sorted(self.commands, key=self.stage_key) if self.record.phase.kind == NIGHT else list(self.commands)
        for i in order:
            if i in self.used or self.is_prompt_answer(self.commands[i]) or self.after_game(self.commands[i]):
                continue
            if self.record.phase.kind == NIGHT:
                key = self.stage_key(i)
                while (
                    self.state.stage < key
                    and self.state.phase == self.record.phase
                    and next_close(self.state) == CLOSE_STAGE
                    and self.director(CLOSE_STAGE)
                ):
                    pass
            self.submit(i)
        self.director(CLOSE_PHASE)
        # after-game inputs (评奖) go last: the game may end at this phase's settlement
        for i in sorted(self.commands):
            if i not in self.used and self.after_game(self.commands[i]):
                self.submit(i)
        for i in sorted(self.commands):
            if i not in self.used:
                skill = self.rs.skill_name(self.commands[i].skill)
                self.reject(i, "游戏已经结束" if self.state.over else f"没有需要回应的<{skill}>")
        self.record.rejected.sort(key=lambda r: r.index)

    def stage_key(self, index: int) -> int:
        """Night inputs go in stage order; a stage that opens with the night takes arrivals as they come."""
        stage = self.rs.stage_for(self.state, self.commands[index])
        if stage is None or self.rs.night_stages[stage].opens_with_night:
            return 0
        return stage


def play(scenario: Scenario) -> tuple[GameState, list[PhaseRecord]]:
    rs = scenario.ruleset
    try:
        state = new_game(rs, scenario.players, scenario.roles, scenario.options, scenario.seed)
    except ValueError as exc:
        raise ScenarioError(f"{scenario.source}: {exc}") from exc
    script = {p.ordinal: (p, inputs) for p, inputs in scenario.phases}
    last = max(script) if script else 0
    records: list[PhaseRecord] = []
    phase = Phase(START, 0, rs.night_first)
    while phase.ordinal <= last and not state.over:
        inputs = script.get(phase.ordinal, (phase, []))[1]
        run = _PhaseRun(state, rs, phase, inputs)
        run.play()
        records.append(run.record)
        phase = phase.next()
    return state, records


def transcript(state: GameState, records: list[PhaseRecord]) -> dict[str, Any]:
    rs: Ruleset = state.rules
    played = {r.phase.label for r in records}
    phases = []
    for r in records:
        label = r.phase.label
        private: dict[str, list[dict[str, Any]]] = {}
        announcements: list[str] = []
        for e in state.log:
            if e.phase != label:
                continue
            if e.kind == ANNOUNCE:
                announcements.append(e.text)
            elif e.kind == FEEDBACK:
                private.setdefault(e.audience.members[0], []).append(
                    {"skill": e.data["skill"], "target": e.data.get("target"), "result": e.data.get("result")}
                )
        phases.append(
            {
                "phase": label,
                "announcements": announcements,
                "private": private,
                "rejected": [{"index": x.index, "input": x.input, "reason": x.reason} for x in r.rejected],
            }
        )
    sheriff = [
        {"phase": e.phase, "player": e.data.get("player")} for e in state.log if e.kind == SHERIFF and e.phase in played
    ]
    return {
        "ruleset": rs.name,
        "phases": phases,
        "sheriff": sheriff,
        "outs": [{"player": o.player, "phase": o.phase.label, "cause": o.cause} for o in state.outs],
        "winner": rs.camp_name(state.winner) if state.winner else None,
        "ended_in": state.ended_in.label if state.ended_in else None,
    }


def run_file(path: str | Path) -> dict[str, Any]:
    scenario = load(path)
    state, records = play(scenario)
    return transcript(state, records)


__all__ = ["ScenarioError", "Scenario", "load", "parse", "play", "transcript", "run_file", "to_command", "ABSTAIN"]
