"""`banshe demo`: deal a game, play it as the simulator does with the `sparing` random policy
(`sim.env.play_random_game`), print the thread and the 复盘."""

from __future__ import annotations

from .engine.events import ACCEPTED, ANNOUNCE, CHANCE, FEEDBACK, NOTICE, OUT, SHERIFF
from .rulesets.registry import find_ruleset
from .sim.env import play_random_game

DEMO_NAMES = [
    "饺子",
    "包子",
    "烧麦",
    "锅贴",
    "馄饨",
    "油条",
    "豆花",
    "粽子",
    "汤圆",
    "月饼",
    "春卷",
    "麻花",
    "年糕",
    "米糕",
    "糍粑",
    "花卷",
    "馒头",
    "酥饼",
    "腊肠",
    "米粉",
    "茉莉",
    "龙井",
    "红茶",
    "奶茶",
    "青团",
    "肉松",
    "面条",
    "糖葫芦",
    "烧饼",
    "凉皮",
]


def run_demo(ruleset: str, seed: int = 1, players: int | None = None) -> str:
    rs = find_ruleset(ruleset)
    count = players or (len(rs.deck) if rs.deck else rs.min_players)
    if count > len(DEMO_NAMES):
        raise ValueError(f"演示最多支持{len(DEMO_NAMES)}名玩家")
    state = play_random_game(rs.id, DEMO_NAMES[:count], seed)
    lines = [f"【{rs.name}】演示对局（seed={seed}，{count}人）", "", "==== 讨论帖公示 ===="]
    phase = None
    for e in state.log:
        if e.kind != ANNOUNCE:
            continue
        if e.phase != phase:
            phase = e.phase
            lines.append(f"-- {phase} --")
        lines.append(e.text)
    lines += ["", "==== 复盘（导演视角） ====", "身份："]
    for name in state.order:
        c = state.chars[name]
        lines.append(f"  {name}：{rs.role_name(c.role)}（{rs.camp_name(c.camp)}）" + ("" if c.alive else "，已出局"))
    phase = None
    for e in state.log:
        if e.kind == ANNOUNCE:
            continue
        if e.phase != phase:
            phase = e.phase
            lines.append(f"-- {phase} --")
        if e.kind == ACCEPTED:
            cmd = e.data["command"]
            targets = (
                "、".join(cmd.get("targets", []))
                or cmd.get("text", "")
                or ("" if cmd.get("answer") is None else ("是" if cmd["answer"] else "否"))
            )
            skill = rs.skill_name(cmd["skill"])
            lines.append(f"  [指令] {cmd['actor']} {skill} {targets}".rstrip())
        elif e.kind == FEEDBACK:
            who = e.audience.members[0]
            lines.append(f"  [反馈→{who}] {e.data['skill']}：{e.text}")
        elif e.kind == NOTICE:
            to = "、".join(e.audience.members) if e.audience.members else "导演"
            lines.append(f"  [通知→{to}] {e.text}")
        elif e.kind in (OUT, SHERIFF, CHANCE):
            lines.append(f"  [{ {OUT: '出局', SHERIFF: '警长', CHANCE: '随机'}[e.kind] }] {e.text}")
        elif e.text:
            lines.append(f"  [{e.kind}] {e.text}")
    extra = rs.review_text(state)
    if extra:
        lines += ["", *extra]
    winner = rs.camp_name(state.winner) if state.winner else "无"
    lines += ["", f"结果：{winner}胜利，结束于{state.ended_in.label if state.ended_in else '—'}。", ""]
    extra = rs.review(state, None)
    if extra:
        lines += [*extra, ""]
    return "\n".join(lines)
