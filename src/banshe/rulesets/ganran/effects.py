"""感染's effect counters (what 银盾/胡蒜, 咬噬/吸血, 银色子弹, 十字架, 解药/毒药 achieved).

Read from the finished game's log (accepted commands, public announcements, the director's
infection chain `GanranState.chain`) and its final characters; nothing is changed.
"""

from __future__ import annotations

from collections import Counter

from banshe.agents.effects import register_effects
from banshe.engine.events import ACCEPTED, ANNOUNCE
from banshe.engine.model import GameState

from .rules import DRIFT, KIND_NAMES, ROLE_NAMES, kind
from .state import ext, seat

P = "感染\t"


@register_effects("ganran")
def ganran_effects(state: GameState, effects: Counter[str]) -> None:
    guards: dict[tuple[str, str], str] = {}  # (night, shield|garlic) -> target
    attacks: dict[tuple[str, str], set[str]] = {}  # (night, bite|suck) -> targets
    antidotes = 0
    poisons: list[str] = []
    for e in state.log:
        if e.kind == ACCEPTED:
            cmd = e.data["command"]
            skill = cmd["skill"]
            targets = cmd.get("targets") or []
            if not targets:
                continue
            if skill in ("shield", "garlic"):
                guards[(e.phase, skill)] = targets[0]
            elif skill in ("bite", "suck"):
                attacks.setdefault((e.phase, skill), set()).add(targets[0])
            elif skill == "antidote":
                antidotes += 1
            elif skill == "poison":
                poisons.append(targets[0])
        elif e.kind == ANNOUNCE:
            text = e.text
            if "【银色子弹】已发动" in text:
                effects[P + ("银色子弹：命中狼人" if "为狼人" in text else "银色子弹：未命中狼人")] += 1
            if "【十字架】已发动" in text:
                effects[P + ("十字架：命中吸血鬼" if "为吸血鬼" in text else "十字架：未命中吸血鬼")] += 1
            if "长老出局！" in text:
                effects[P + "长老出局：公示"] += 1
    for (night, skill), target in guards.items():
        name, attack, blocked = ("银盾", "bite", "咬噬") if skill == "shield" else ("胡蒜", "suck", "吸血")
        if target in attacks.get((night, attack), set()):
            effects[P + f"{name}：挡下{blocked}"] += 1
        else:
            effects[P + f"{name}：目标当晚未被{blocked}"] += 1
    saved = 0
    data = ext(state)
    for entry in data.chain:
        text = entry.text
        infection = entry.infection
        if infection in KIND_NAMES:
            infected = state.chars.get(entry.infected)
            role = ROLE_NAMES[infected.role] if infected is not None else "?"
            effects[P + f"新感染：转为{KIND_NAMES[infection]}"] += 1
            effects[P + f"新感染：被感染的身份 {role}"] += 1
        elif "进入濒死状态" in text and "<杀人>" not in text:
            effects[P + "咬噬/吸血：使对立种族濒死"] += 1
        elif "<杀人>" in text:
            effects[P + "长老杀人：目标濒死"] += 1
        elif "转为特殊阵营" in text:
            effects[P + "长老：转为特殊阵营"] += 1
        elif "重新获得一次" in text:
            effects[P + "狼王/鬼王：有效"] += 1
        elif "<解药>救回" in text:
            saved += 1
    if saved:
        effects[P + "解药：救回濒死角色"] += saved
    if antidotes > saved:
        effects[P + "解药：目标未濒死（无效）"] += antidotes - saved
    for target in poisons:
        c = state.chars[target]
        k = kind(c)
        effects[P + "毒药：命中" + (KIND_NAMES[k] if k else "未感染角色")] += 1
    for c in state.chars.values():
        if seat(c).infected_by is not None:
            drifting = DRIFT in c.statuses
            effects[P + ("被感染者终局：仍为游离状态" if drifting else "被感染者终局：已解除游离（加入阵营）")] += 1
    if data.lovers_camp:
        effects[P + "情侣阵营：形成"] += 1
