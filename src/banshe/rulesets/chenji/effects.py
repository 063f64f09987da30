"""沉寂与取酒 effect counters: what each identity's key skill achieved in a finished game.

Read from the game's log (accepted commands, outs, announcements), the director's own
counters in `ChenjiState.stats` (格挡 …, kept for the achievements) and the final
characters; nothing is changed. Keys are `沉寂与取酒\t<what>`; each counts events over the
games (a skill used twice in one game counts twice). The simulator finds this module as the
ruleset package's `effects` (`banshe.sim.effects`).
"""

from __future__ import annotations

from collections import Counter

from banshe.agents.effects import register_effects
from banshe.engine.events import ACCEPTED
from banshe.engine.model import NIGHT, GameState

from . import nun, slanderer
from .roles import CAMP_NAMES, CITIZEN, LOVERS, PIPER, REBEL, WHITE, WHITE_WOLF, WOLF, WOLVES
from .state import ext

P = "沉寂与取酒\t"


def _camp_word(state: GameState, name: str) -> str:
    camp = state.chars[name].camp
    return CAMP_NAMES.get(camp, camp)


@register_effects("chenji")
def chenji_effects(state: GameState, effects: Counter[str]) -> None:
    data = ext(state)
    stats = data.stats
    # per night: the kill/bite targets (the director's record, after 摇落) and what met them
    attacked: dict[int, set[str]] = {}
    for k in stats.kills:
        attacked.setdefault(k.night, set()).add(k.target)
        effects[P + ("杀人" if k.skill == "kill" else "撕咬") + "：发动"] += 1
    outs_by_night: dict[int, set[str]] = {}
    for o in state.outs:
        if o.phase.kind == NIGHT:
            outs_by_night.setdefault(o.phase.number, set()).add(o.player)
    for night, targets in attacked.items():
        for t in targets:
            gone = t in outs_by_night.get(night, set())
            effects[P + "指杀目标：" + ("当晚出局" if gone else "当晚未出局")] += 1
    # 守护之盾 / 隔音之盾 / 血统 / 断肠 / 摇落 (the director's own counters)
    blocks = (
        (stats.shield_blocks, "守护之盾：挡下指杀"),
        (stats.mute_blocks, "隔音之盾：挡下吹笛"),
        (stats.bloodline_saves, "血统：头狼免于票出"),
        (stats.heartbreak_effective, "断肠：目标失去技能"),
        (stats.wither_effective, "摇落：目标技能无效"),
    )
    for count, label in blocks:
        if count:
            effects[P + label] += count
    for e in state.log:
        if e.kind != ACCEPTED:
            continue
        cmd = e.data["command"]
        skill = cmd["skill"]
        picked = cmd.get("targets") or []
        when = _night_number(e.phase)
        if skill == "shield":
            hit = when is not None and picked[0] in attacked.get(when, set())
            effects[P + "守护之盾：" + ("守中指杀目标" if hit else "未守中指杀目标")] += 1
        elif skill == "antidote":
            hit = when is not None and picked[0] in attacked.get(when, set())
            effects[P + "解药：" + ("救指杀目标" if hit else "未救到指杀目标")] += 1
        elif skill in ("poison", "shoot", "stab"):
            label = {"poison": "毒药", "shoot": "最后一枪", "stab": "行刺"}[skill]
            wolf = state.chars[picked[0]].role in WOLVES
            piper = state.chars[picked[0]].role == PIPER
            effects[P + label + "：命中" + ("狼人" if wolf else "吹笛者" if piper else "其他身份")] += 1
        elif skill == "pure":
            effects[P + "纯真：代替出局"] += 1
        elif skill == "power":
            effects[P + "弄权：警长交给" + _camp_word(state, picked[0])] += 1
        elif skill == "confess":
            effects[P + "忏悔：亮给" + _camp_word(state, picked[0])] += 1
        elif skill == "pipe":
            effects[P + "吹笛：发动"] += 1
        elif skill == "mission":
            effects[P + "出使：发动"] += 1
        elif skill == "martyrdom":
            effects[P + "死节：主动出局"] += 1
        elif skill == "feign":
            effects[P + "装傻：" + ("发动" if e.data["command"].get("answer") else "放弃")] += 1
    # 吹笛者: who ended 癫狂 / 假死
    for c in state.chars.values():
        if "fake_death" in c.statuses:
            effects[P + "终局：假死"] += 1
        elif "mad" in c.statuses:
            effects[P + "终局：癫狂"] += 1
    # 开局: 归群, 私奔, 复仇
    for c in state.chars.values():
        if c.role == WHITE_WOLF:
            effects[P + "白狼：" + ("归群" if c.camp == WOLF else "未归群" if c.camp == WHITE else "成为情侣")] += 1
    pair = data.lovers
    if len(pair) == 2:
        camp = state.chars[pair[0]].camp
        effects[P + "情侣：" + ("私奔（情侣阵营）" if camp == LOVERS else "同阵营")] += 1
    cupid = data.cupid
    if cupid and state.chars[cupid].role in (REBEL, CITIZEN):
        effects[P + "复仇：丘比特变为" + ("乱民" if state.chars[cupid].role == REBEL else "良民")] += 1
    if data.lovers_kill:
        effects[P + "遗志：情侣获得杀人"] += 1
    for o in state.outs:
        if o.cause == "冤死":
            effects[P + "冤死：替罪羊代替出局"] += 1
    nun.count_effects(state, effects, P)
    slanderer.count_effects(state, effects, P)


def _night_number(label: str) -> int | None:
    """`第3夜` -> 3; other phases -> None."""
    if label.startswith("第") and label.endswith("夜"):
        try:
            return int(label[1:-1])
        except ValueError:
            return None
    return None
