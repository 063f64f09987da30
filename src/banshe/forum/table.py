"""`banshe forum count --table`: the day's verdicts as a terminal table (Rich)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

_KINDS = {"vote": "投票", "change_vote": "改票", "post": "发言", "director": "导演", "other": "非角色"}


def verdict_of(post: dict[str, Any]) -> tuple[str, str]:
    """(verdict, style) of one post of `count()`'s output."""
    if post["kind"] in ("vote", "change_vote"):
        if post["refused"]:
            return "无效", "red"
        return f"有效 → {post['target']}", "green"
    return _KINDS[post["kind"]], "dim" if post["kind"] in ("director", "other") else ""


def build_table(result: dict[str, Any]) -> Table:
    table = Table(title=f"{result['ruleset']} {result['day']} 计票（导演：{result['director']}）")
    for name in ("楼层", "作者", "时间", "类型", "判定", "原因 / 标记"):
        table.add_column(name, no_wrap=name in ("楼层", "时间"))
    for post in result["posts"]:
        verdict, style = verdict_of(post)
        notes = [post["refused"]] if post["refused"] else []
        notes += [f"【{f['rule']}】{f['detail']}" for f in post["flags"]]
        if post["edited"]:
            notes.append("（已编辑）")
        if post.get("banned"):
            notes.append(f"（已屏蔽：{post['banned']}）")
        table.add_row(
            f"{post['floor']}#",
            post["author"],
            post["time"],
            _KINDS[post["kind"]],
            verdict,
            "；".join(notes),
            style=style or None,
        )
    return table


def print_table(result: dict[str, Any], console: Console | None = None) -> None:
    out = console or Console()
    out.print(build_table(result))
    counts = "、".join(f"{n} {c}" for n, c in result["post_counts"].items())
    out.print(f"发帖数：{counts}")
    for flag in result["flags"]:
        out.print(f"[yellow]标记[/yellow] {flag['player']}【{flag['rule']}】{flag['detail']}")
    tr = result["transcript"]
    outs = [o for o in tr["outs"] if o["phase"] == result["day"]]
    sheriff = [s for s in tr["sheriff"] if s["phase"] == result["day"]]
    result_text = "、".join(f"{o['player']}出局（{o['cause']}）" for o in outs) or "无人出局"
    if sheriff:
        # a SHERIFF event with no player: the badge was torn (警徽撕毁), there is no sheriff
        result_text += "；警长：" + "、".join(s["player"] or "无（警徽撕毁）" for s in sheriff)
    out.print(f"有效票 {len(result['inputs'])} 张；结果：{result_text}")
