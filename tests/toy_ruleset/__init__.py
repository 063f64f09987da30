"""玩具村 (toy): a made-up ruleset written as ONE declaration, to show that a ruleset is data.

Four identities: 狼人 (刀人 in the night's first stage), 医生 (救人 in the second stage, once
he has been told the 刀人 target), 猎人 (开枪 at one of his voters when voted out: a prompt,
given up when not answered) and 村民. Each night the 刀人 target goes out unless the 医生
saved him; each day the most votes go out (a tie: no one). 好人阵营 wins once every 狼人 is out, 狼人阵营 once the
狼人 are as many as the others.

Nothing here subclasses `Ruleset` or touches the engine: `TOY` is a plain `Ruleset(...)`,
registered with `banshe.rulesets.register` by `register_toy`; its effect counter goes to the
simulator's registry the same way a ruleset package's `effects.py` does.
"""

from __future__ import annotations

from collections import Counter

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.core import announce, feedback, push_prompt, put_out, tally, top_of
from banshe.engine.events import ACCEPTED
from banshe.engine.model import DAY, NIGHT, START, GameState, Prompt
from banshe.engine.ruleset import ONE_TARGET, Condition, NightStage, Role, Ruleset, SkillSpec, Task
from banshe.rulesets import register
from banshe.sim.stats import register_effects

WOLF, DOCTOR, HUNTER, VILLAGER = "wolf", "doctor", "hunter", "villager"
GOOD, WOLVES = "good", "wolves"
KILL, SAVE, SHOOT = "kill", "save", "shoot"


# The night's 刀人 and 救人 targets live in `state.acts` (emptied every phase): a typed
# `RulesetState` subclass must be compiled with the engine (`setup.py`), and this ruleset is
# not part of the package, so it also runs on the compiled build.
def _target(state: GameState, skill: str) -> str | None:
    target = state.acts.get(skill)
    return str(target) if target is not None else None


def _holds(state: GameState, cmd: Command, role: str, skill: str) -> None:
    if state.char(cmd.actor).role != role:
        raise IllegalCommand(f"{cmd.actor}不能{skill}")


# -- 刀人: 狼人 choose one character each night (the last submission stands) ---------------------
def check_kill(state: GameState, cmd: Command) -> None:
    _holds(state, cmd, WOLF, "刀人")


def apply_kill(state: GameState, cmd: Command) -> None:
    state.acts[KILL] = cmd.target


def tell_doctor(state: GameState) -> None:
    """狼人行动 closes: the 医生 learns tonight's 刀人 target."""
    kill = _target(state, KILL)
    for c in state.with_role(DOCTOR):
        if c.alive:
            feedback(state, c.name, "救人", kill, kill, f"今晚被刀的是{kill}。" if kill else "今晚无人被刀。")


# -- 救人: the 医生 saves one other character --------------------------------------------------
def check_save(state: GameState, cmd: Command) -> None:
    _holds(state, cmd, DOCTOR, "救人")
    if cmd.target == cmd.actor:
        raise IllegalCommand("医生不能救自己")


def apply_save(state: GameState, cmd: Command) -> None:
    state.acts[SAVE] = cmd.target


# -- 开枪: a 猎人 voted out shoots one of the characters who voted for him (a prompt) -----------
def check_shoot(state: GameState, cmd: Command) -> None:
    if state.votes.get(cmd.targets[0]) != cmd.actor:
        raise IllegalCommand(f"{cmd.target}今天没有投票给猎人，不能成为开枪的目标")


def answer_shoot(state: GameState, prompt: Prompt, cmd: Command) -> None:
    announce(state, f"猎人{cmd.actor}开枪，{cmd.target}出局。")
    put_out(state, cmd.targets[0], "开枪")


def shoot_lapses(state: GameState, prompt: Prompt) -> None:
    announce(state, f"猎人{prompt.actor}没有开枪。")


def _unused(state: GameState, cmd: Command) -> None:
    return None


# -- settlement ----------------------------------------------------------------------------------
def settle_night(state: GameState) -> None:
    kill = _target(state, KILL)
    if kill and kill != _target(state, SAVE) and state.is_alive(kill):
        announce(state, f"昨夜{kill}出局。")
        put_out(state, kill, "刀人")
    else:
        announce(state, "昨夜平安。")


def settle_vote(state: GameState) -> None:
    top = top_of(tally(state, TOY))
    if len(top) != 1:
        announce(state, "平票，无人出局。" if top else "无人投票。")
        return
    target = top[0]
    announce(state, f"{target}被投票出局。")
    put_out(state, target, "投票")
    if state.char(target).role == HUNTER:
        push_prompt(state, Prompt(target, SHOOT, "选择一名投票给你的角色开枪。"))


def _good_wins(state: GameState) -> str | None:
    return None if any(c.alive and c.role == WOLF for c in state.chars.values()) else GOOD


def _wolves_win(state: GameState) -> str | None:
    wolves = sum(1 for c in state.chars.values() if c.alive and c.role == WOLF)
    others = sum(1 for c in state.chars.values() if c.alive and c.role != WOLF)
    return WOLVES if wolves >= others else None


_NIGHT = frozenset({NIGHT})
_ANY = frozenset({START, DAY, NIGHT})

TOY = Ruleset(
    id="toy",
    name="玩具村",
    roles=(
        Role(WOLF, "狼人", WOLVES, skills=(KILL,)),
        Role(DOCTOR, "医生", GOOD, skills=(SAVE,)),
        Role(HUNTER, "猎人", GOOD, skills=(SHOOT,)),
        Role(VILLAGER, "村民", GOOD),
    ),
    deck=(WOLF, WOLF, DOCTOR, HUNTER, VILLAGER, VILLAGER),
    camp_names={GOOD: "好人阵营", WOLVES: "狼人阵营"},
    night_stages=(
        NightStage("wolves", "狼人行动", on_close=tell_doctor),
        NightStage("doctor", "医生行动", opens_with_night=False),
    ),
    skills={
        KILL: SkillSpec(KILL, "刀人", _NIGHT, ONE_TARGET, check_kill, apply_kill, stage="wolves"),
        SAVE: SkillSpec(SAVE, "救人", _NIGHT, ONE_TARGET, check_save, apply_save, stage="doctor"),
        SHOOT: SkillSpec(
            SHOOT,
            "开枪",
            _ANY,
            ONE_TARGET,
            check_shoot,
            _unused,
            prompt=True,
            actor_may_be_out=True,
            answer=answer_shoot,
            on_timeout=shoot_lapses,
        ),
    },
    settle={NIGHT: (Task("night", settle_night),), DAY: (Task("vote", settle_vote),)},
    min_players=4,
    max_players=12,
    win_conditions=(Condition("狼人全部出局", _good_wins), Condition("狼人不少于好人", _wolves_win)),
)


def toy_effects(state: GameState, effects: Counter[str]) -> None:
    """How often the 医生 saved the 刀人 target (read from the finished game's log)."""
    kills: dict[str, str] = {}
    saves: dict[str, str] = {}
    for e in state.log:
        if e.kind == ACCEPTED:
            cmd = e.data["command"]
            if cmd["skill"] == KILL:
                kills[e.phase] = cmd["targets"][0]
            elif cmd["skill"] == SAVE:
                saves[e.phase] = cmd["targets"][0]
    for phase, target in saves.items():
        effects["玩具村\t救人：" + ("救下刀人目标" if kills.get(phase) == target else "未救到")] += 1


def register_toy() -> Ruleset:
    """Register 玩具村 (idempotent): the ruleset by id, its effect counter for the simulator."""
    register(TOY)
    register_effects(TOY.id)(toy_effects)
    return TOY
