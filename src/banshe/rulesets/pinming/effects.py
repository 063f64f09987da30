"""品茗's effect counters (what a skill achieved), read from a finished game (`banshe.sim.stats`).

The generic counters already count outs by cause and victim camp, private feedback results by
skill, camps judged lost and how games end; this adds what only 品茗's own data tells (a 救药
that met the 狼刀, a 拍刀 that won). It reads the finished game's log and final characters and
never changes them.
"""

from __future__ import annotations

from collections import Counter

from banshe.agents.effects import register_effects
from banshe.engine.events import ACCEPTED, ANNOUNCE, SHERIFF
from banshe.engine.model import GameState

from .rules import IDIOT, VILLAGE, WOLVES
from .state import ext


@register_effects("pinming")
def pinming_effects(state: GameState, effects: Counter[str]) -> None:
    kills: dict[str, str] = {}  # night label -> the standing 狼刀 target (the last submission)
    saves: dict[str, str] = {}
    shots: list[str] = []
    poisons: list[str] = []
    for e in state.log:
        if e.kind == ACCEPTED:
            cmd = e.data["command"]
            skill = cmd["skill"]
            if skill == "kill":
                kills[e.phase] = cmd["targets"][0]
            elif skill == "antidote":
                saves[e.phase] = cmd["targets"][0]
            elif skill == "poison":
                poisons.append(cmd["targets"][0])
            elif skill == "shoot":
                shots.append(cmd["targets"][0])
        elif e.kind == ANNOUNCE and "发动装傻" in e.text:
            effects["品茗\t装傻：免于投票出局"] += 1
    for phase, target in saves.items():
        if kills.get(phase) == target:
            effects["品茗\t救药：救下狼刀目标"] += 1
        else:
            effects["品茗\t救药：未救到狼刀目标"] += 1
    for night in kills:
        if night not in saves:
            effects["品茗\t狼刀：未被救药"] += 1
    chars = state.chars
    for target in poisons:
        camp = chars[target].camp
        effects["品茗\t毒药：命中" + ("狼人阵营" if camp == WOLVES else "村民阵营")] += 1
    for target in shots:
        camp = chars[target].camp
        effects["品茗\t最后一枪：命中" + ("狼人阵营" if camp == WOLVES else "村民阵营")] += 1
    data = ext(state)
    if data.showdown:
        effects["品茗\t拍刀：进入拍刀环节"] += 1
        if state.winner == WOLVES:
            effects["品茗\t拍刀：成功（狼人胜利）"] += 1
        else:
            effects["品茗\t拍刀：失败（村民胜利）"] += 1
    if data.surrender:
        effects["品茗\t投降：有狼人同意投降"] += 1
    first = next((e.data.get("player") for e in state.log if e.kind == SHERIFF and e.data.get("player")), None)
    if first is not None:
        camp = chars[str(first)].camp
        effects["品茗\t首任警长：" + ("狼人阵营" if camp == WOLVES else "村民阵营")] += 1
    for c in chars.values():
        if c.role == IDIOT and c.name in data.feigned and c.camp == VILLAGE and c.alive:
            effects["品茗\t装傻后存活到终局"] += 1
