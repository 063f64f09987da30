"""The director's log as Chinese sentences naming who acted (player, director or 时限调度), shared
by the god page and the 复盘. Built from the engine's log (the director sees every event) and the
stored command rows (who sent each command, the director's reason), plus the service's own
records (替补). Never prints Python reprs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine.commands import (
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
    JUDGE_LOSS,
    PROMPT_TIMEOUT,
    VOTE,
)
from ..engine.events import ACCEPTED, ANNOUNCE, CAMP, CHANCE, FEEDBACK, LOST, NOTICE, OUT, SHERIFF, WIN, Event
from ..engine.ruleset import Ruleset

SOURCE_NAMES = {
    "player": "玩家提交",
    "director": "导演",
    "scheduler": "调度器",
    "requests": "玩家申请",
    "import": "导入",
    "inputs": "行动已齐",
}
CARDS = {CARD_BLUE: "蓝牌", CARD_YELLOW: "黄牌", CARD_RED: "红牌"}
KIND_NAMES = {
    ACCEPTED: "指令",
    ANNOUNCE: "公示",
    FEEDBACK: "反馈",
    NOTICE: "通知",
    OUT: "出局",
    SHERIFF: "警长",
    CHANCE: "随机",
    CAMP: "阵营",
    LOST: "判负",
    WIN: "胜负",
    "substitute": "替补",
    "edit": "公示修改",
}


@dataclass
class Row:
    """What the service stored about one accepted command."""

    source: str
    note: str | None
    stage: int
    at: float


@dataclass
class LogLine:
    phase: str
    kind: str  # an engine event kind, or the service's own (substitute, edit)
    text: str
    who: str = ""  # 玩家 / 导演 / 调度器 …
    at: float = 0.0

    @property
    def kind_name(self) -> str:
        return KIND_NAMES.get(self.kind, self.kind)


def _stage_name(rs: Ruleset, stage: int) -> str:
    return rs.night_stages[stage].name if 0 <= stage < len(rs.night_stages) else ""


def _targets(cmd: dict[str, Any]) -> str:
    return "、".join(str(t) for t in cmd.get("targets") or [])


def command_sentence(rs: Ruleset, phase: str, cmd: dict[str, Any], row: Row | None) -> str:
    """One accepted command as a sentence: "第1夜 饺子 发动〈预言〉→ 包子（玩家提交）"."""
    skill = str(cmd.get("skill", ""))
    actor = str(cmd.get("actor", ""))
    source = row.source if row else ("director" if skill in ENGINE_DIRECTOR else "player")
    note = f"：{row.note}" if row and row.note else ""
    targets = _targets(cmd)
    if source == "inputs":
        stage = f"{phase}·{_stage_name(rs, row.stage)}" if row is not None and _stage_name(rs, row.stage) else phase
        return f"{stage} 所等待的行动都已提交，下一阶段提前开放（截止时间不变）"
    if source == "scheduler":
        where = phase
        if skill == CLOSE_STAGE and row is not None and _stage_name(rs, row.stage):
            where = f"{phase}·{_stage_name(rs, row.stage)}"
        what = {CLOSE_STAGE: "阶段关闭", CLOSE_PHASE: "关门结算", PROMPT_TIMEOUT: "回应超时，按默认处理"}.get(
            skill, f"执行{rs.skill_name(skill)}"
        )
        return f"时限到：{where} {what}（调度器）"
    if skill in CARDS:
        return f"{phase} 导演 给 {targets} {CARDS[skill]}{note or '（未写理由）'}"
    if skill == DEDUCT:
        return f"{phase} 导演 给 {targets} 扣{cmd.get('amount')}分{note or '（未写理由）'}"
    if skill == JUDGE_LOSS:
        return f"{phase} 导演 判 {targets} 负{note}"
    if skill in (ACCELERATE, DELAY):
        who = "玩家申请通过，" if source == "requests" else ("调度器（存活人数）" if source == "scheduler" else "导演 ")
        return f"{phase} {who}{'执行加速' if skill == ACCELERATE else '取消加速（延时）'}{note}"
    if skill in (CLOSE_STAGE, CLOSE_PHASE, PROMPT_TIMEOUT):
        what = {CLOSE_STAGE: "关闭当前夜晚阶段", CLOSE_PHASE: "立即关门结算", PROMPT_TIMEOUT: "判定当前回应超时"}[skill]
        if skill == CLOSE_STAGE and row is not None and _stage_name(rs, row.stage):
            what = f"关闭夜晚阶段〈{_stage_name(rs, row.stage)}〉"  # which one (two such lines read alike)
        return f"{phase} 导演 {what}{note}"
    if skill in (VOTE, CHANGE_VOTE):
        verb = "投票" if skill == VOTE else "改票"
        by = "（导演代投）" if source == "director" else ""
        target = targets or ABSTAIN
        return f"{phase} {actor} {verb} → {target}{by}"
    extra = ""
    if cmd.get("answer") is not None:
        extra = "：是" if cmd["answer"] else "：否"
    elif cmd.get("text"):
        extra = f"：{cmd['text']}"
    arrow = f"→ {targets}" if targets else ""
    by = "（导演代为提交）" if source == "director" else f"（{SOURCE_NAMES.get(source, source)}）"
    return f"{phase} {actor} 发动〈{rs.skill_name(skill)}〉{arrow}{extra}{by}"


ENGINE_DIRECTOR = frozenset(
    {CLOSE_STAGE, CLOSE_PHASE, PROMPT_TIMEOUT, CARD_BLUE, CARD_YELLOW, CARD_RED, DEDUCT, ACCELERATE, DELAY, JUDGE_LOSS}
)


def _who(kind: str, source: str) -> str:
    if kind != ACCEPTED:
        return "引擎"
    return {
        "player": "玩家",
        "director": "导演",
        "scheduler": "调度器",
        "requests": "玩家申请",
        "inputs": "调度器",
    }.get(source, source)


def event_sentence(rs: Ruleset, e: Event) -> str:
    """An engine event other than an accepted command, in words (its own text when it has one)."""
    to = "、".join(e.audience.members)
    if e.kind == FEEDBACK:
        skill = rs.skill_name(str(e.data.get("skill", "")))
        target = e.data.get("target")
        body = e.text or f"〈{skill}〉{('→ ' + str(target)) if target else ''}：{_plain(e.data.get('result'))}"
        return f"{to} 收到反馈：{body}" if to else f"反馈：{body}"
    if e.kind == NOTICE:
        return f"通知{to}：{e.text}" if to else f"通知：{e.text}"
    if e.kind == OUT and not e.text:
        return f"{e.data.get('player')}出局（{e.data.get('cause')}）"
    if e.kind == CHANCE and isinstance(e.data.get("choice"), dict):
        choice = e.data["choice"]
        return f"{e.text or '随机'}：" + "，".join(f"{k}={rs.role_name(str(v))}" for k, v in choice.items())
    return e.text or f"{KIND_NAMES.get(e.kind, e.kind)}：{_plain(dict(e.data))}"


def _plain(value: Any) -> str:
    """A value in words (no Python repr)."""
    if value is None:
        return "无"
    if value is True:
        return "是"
    if value is False:
        return "否"
    if isinstance(value, dict):
        return "，".join(f"{k}：{_plain(v)}" for k, v in value.items())
    if isinstance(value, list | tuple | set):
        return "、".join(_plain(v) for v in value)
    return str(value)


def log_lines(
    rs: Ruleset,
    events: Sequence[Event],
    rows: Sequence[Row],
    extra: Iterable[LogLine] = (),
    include_announce: bool = False,
) -> list[LogLine]:
    """The whole log in order. `rows` are the stored non-superseded commands in seq order: the
    i-th ACCEPTED event is the i-th row (the engine logs exactly one per accepted command). Each
    event takes the time of the command that caused it; `extra` lines are merged in by time."""
    out: list[LogLine] = []
    i = 0
    at = rows[0].at if rows else 0.0
    source = ""
    for e in events:
        if e.kind == ACCEPTED:
            row = rows[i] if i < len(rows) else None
            i += 1
            if row is not None:
                at, source = row.at, row.source
            cmd = dict(e.data.get("command") or {})
            out.append(LogLine(e.phase, e.kind, command_sentence(rs, e.phase, cmd, row), _who(e.kind, source), at))
            continue
        if e.kind == ANNOUNCE and not include_announce:
            continue
        out.append(LogLine(e.phase, e.kind, event_sentence(rs, e), "引擎", at))
    merged = sorted([*out, *extra], key=lambda line: line.at)  # stable: engine order kept
    return merged


def substitute_line(phase: str, name: str, person: str | None, at: float) -> LogLine:
    who = person or "（未填写）"
    return LogLine(phase, "substitute", f"{phase} 导演 为 {name} 换上替补：{who}（旧链接作废）", "导演", at)
