"""公示 texts every ruleset shares."""

from __future__ import annotations

from .model import GameState


def day_opening(
    state: GameState,
    first_day: str,
    report_key: str = "report",
    vote_out: bool = True,
    no_night_outs: str = "昨夜无人出局。",
    reports: list[str] | None = None,
    sheriff: bool = True,
) -> str:
    """每个游戏日白天开始时，公示前一天因投票出局角色名单、夜晚出局角色名单、当日警长 — plus the
    night's queued notices: `reports` (a ruleset's typed list, emptied here), else the typed
    state's (`RulesetState.reports`), else `state.flags[report_key]` (consumed here)."""
    n = state.phase.number
    lines = [f"第{n}天讨论日开始。"]
    # yesterday and last night by `Phase.ordinal` (the phases just before this one, in the
    # ruleset's order): no Phase made per out. A night-first board's 第1天 has a night before it.
    last_night = state.phase.ordinal - 1
    if n == 1:
        lines.append(first_day)
    else:
        yesterday = last_night - 1
        if vote_out:
            voted = [o.player for o in state.outs if o.phase.ordinal == yesterday and o.cause == "投票"]
            lines.append("昨日投票出局：" + ("、".join(voted) if voted else "无") + "。")
    if last_night > 0:
        night = [o.player for o in state.outs if o.phase.ordinal == last_night]
        lines.append("昨夜出局：" + "、".join(night) + "。" if night else no_night_outs)
    _queued(state, report_key, lines, reports)
    if sheriff:  # a board without a sheriff prints no 当日警长 line
        lines.append(f"当日警长：{state.sheriff}。" if state.sheriff else "当日警长：无。")
    return "".join(lines)


def night_close(state: GameState, report_key: str = "report") -> str:
    """The night that ends the game opens no day, so its outs (and the night's queued notices)
    go out with the result instead of at the next day's opening (issue 12: 最后一夜必须公示): the
    ruleset's typed queue (`RulesetState.reports`), else `state.flags[report_key]`."""
    night = [o.player for o in state.outs if o.phase == state.phase]
    label = state.phase.label
    lines = [f"{label}出局：" + "、".join(night) + "。" if night else f"{label}无人出局。"]
    _queued(state, report_key, lines)
    return "".join(lines)


def _queued(state: GameState, report_key: str, lines: list[str], reports: list[str] | None = None) -> None:
    """Move the night's queued notices onto `lines`: `reports`, else the typed state's
    (`RulesetState.reports`), else `state.flags[report_key]`."""
    if reports is None:
        reports = state.ext.reports()
    if reports is not None:
        lines.extend(reports)
        reports.clear()
    else:
        lines.extend(state.flags.pop(report_key, []))
