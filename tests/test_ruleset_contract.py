"""The engine/ruleset contract of issue 15's first step: the engine imports nothing above
itself, a game holds its Ruleset by reference, per-ruleset state is typed (品茗), and 品茗's
identities are data (`Role`) from which the engine derives holders, camps and charges."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from banshe.engine import Command, replay, step
from banshe.engine.commands import CLOSE_PHASE, DIRECTOR
from banshe.engine.core import apply_in_place
from banshe.engine.core import new_game as engine_new_game
from banshe.engine.model import GameState, RulesetState
from banshe.engine.ruleset import NO_TARGET, NightStage, Role, Ruleset, SkillSpec, Task
from banshe.rulesets import CHENJI, PINMING, find_ruleset, new_game, resolve
from banshe.rulesets.chenji.state import ChenjiState
from banshe.rulesets.pinming.state import PinmingState, ext

from .helpers import ROLES, SEATS, close, pinming, to_day

SEATS_20 = [f"p{i}" for i in range(20)]


def test_engine_imports_no_ruleset() -> None:
    code = "import sys, banshe.engine; print(sorted(m for m in sys.modules if m.startswith('banshe.rulesets')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_state_holds_its_ruleset() -> None:
    state = engine_new_game(PINMING, SEATS, dict(ROLES), None, 5)
    assert state.rules is PINMING and state.ruleset == "pinming"
    assert new_game("品茗", SEATS, dict(ROLES), None, 5).rules is PINMING
    assert resolve("M196") is PINMING and resolve(PINMING) is PINMING
    with pytest.raises(KeyError):
        resolve("没有这个规则")
    assert step(state, Command("十三", "recognize", ("五",))).state.rules is PINMING
    assert state.clone().rules is PINMING
    assert replay(state).rules is PINMING


def test_pinming_state_is_typed_and_copied() -> None:
    state = pinming()
    assert isinstance(state.ext, PinmingState)
    apply_in_place(state, Command("十三", "recognize", ("五",)))
    close(state)  # 开局 settles; 第1天
    copy = state.clone()
    assert ext(copy) is not ext(state) and ext(copy) == ext(state)
    ext(copy).surrender.append("九")
    assert ext(state).surrender == [] and copy.fingerprint() != state.fingerprint()
    to_day(state, 1)
    apply_in_place(state, Command(DIRECTOR, CLOSE_PHASE))  # 第1夜
    apply_in_place(state, Command("九", "kill", ("五",)))
    apply_in_place(state, Command("一", "check", ("九",)))
    assert (ext(state).kill, ext(state).check) == ("五", ("一", "九"))
    apply_in_place(state, Command(DIRECTOR, CLOSE_PHASE))  # settles the night: 第2天
    assert state.phase.label == "第2天"
    assert (ext(state).kill, ext(state).check, ext(state).duel) == (None, None, [])  # new_phase
    assert ext(state).recognized == "五"  # game-long
    assert replay(state).fingerprint() == state.fingerprint()


def test_rulesets_without_typed_state_get_the_empty_one() -> None:
    bare = Ruleset(id="bare", name="空白", roles=(Role("a", "甲", "x"),), skills={})
    state = engine_new_game(bare, ["p0"], {"p0": "a"}, None, 1)
    assert type(state.ext) is RulesetState and state.ext.fingerprint() == "RulesetState()"
    assert state.ext.reports() is None  # its night notices, if any, are `flags[report_key]`
    assert CHENJI.state_type is ChenjiState and isinstance(new_game("chenji", SEATS_20, seed=1).ext, ChenjiState)


def test_pinming_holders_and_charges_come_from_its_roles() -> None:
    group = frozenset({"wolf", "halfblood", "yandere"})
    assert dict(PINMING.skill_holders()) == {
        "recognize": frozenset({"halfblood"}),
        "check": frozenset({"seer"}),
        "kill": group,
        "antidote": frozenset({"witch"}),
        "poison": frozenset({"witch"}),
        "shoot": frozenset({"hunter"}),
        "feign": frozenset({"idiot"}),
        "duel": group,
        "slash": group,
        "surrender": group,
    }
    assert dict(PINMING.role_names) == {r.id: r.name for r in PINMING.roles}
    state = pinming()
    witch, hunter, wolf = state.char("二"), state.char("三"), state.char("九")
    assert list(witch.charges.items()) == [("spirit", 1), ("antidote", 1), ("poison", 1)]
    assert (hunter.charges, wolf.charges, state.char("四").charges) == ({"shoot": 1}, {}, {"feign": 1})
    assert (witch.camp, wolf.camp, state.char("十三").camp) == ("village", "wolf", "village")


def _skill(sid: str) -> SkillSpec:
    return SkillSpec(sid, sid, frozenset({"day"}), NO_TARGET, lambda s, c: None, lambda s, c: None)


def test_a_declared_ruleset_is_checked() -> None:
    rs = Ruleset(id="toy", name="玩具", roles=(Role("a", "甲", "x", skills=("s",)),), skills={"s": _skill("s")})
    assert rs.role_names == {"a": "甲"} and rs.skill_holders() == {"s": frozenset({"a"})}
    assert rs.starting_role("a") == Role("a", "甲", "x", skills=("s",)) and rs.starting_role("b") is None
    with pytest.raises(ValueError, match="undeclared skill"):
        Ruleset(id="toy", name="玩具", roles=(Role("a", "甲", "x", skills=("t",)),), skills={"s": _skill("s")})
    with pytest.raises(ValueError, match="duplicate role"):
        Ruleset(id="toy", name="玩具", roles=(Role("a", "甲", "x"), Role("a", "乙", "x")))
    assert find_ruleset("pinming").roles  # the built-in 品茗 declares its identities


@pytest.mark.parametrize(("ruleset", "players"), [("pinming", 14), ("chenji", 20)])
def test_a_night_that_ends_the_game_publishes_its_queued_notices(ruleset: str, players: int) -> None:
    # issue 12 (最后一夜必须公示): the typed state's queue (`RulesetState.reports`) goes out with the result
    from banshe.demo import DEMO_NAMES
    from banshe.engine.events import ANNOUNCE
    from banshe.sim.env import play_random_game

    published = 0
    for seed in range(60):
        state = play_random_game(ruleset, DEMO_NAMES[:players], seed)
        queue = state.ext.reports()
        assert queue is not None
        if state.ended_in is None or state.ended_in.kind != "night":
            continue
        assert queue == []  # nothing left for a day that never comes
        closing = [e.text for e in state.log if e.kind == ANNOUNCE and e.phase == state.ended_in.label]
        # `第N夜出局：…。` (or `第N夜无人出局。`) and then the queued notices
        published += any(t.startswith(state.ended_in.label) and t.partition("。")[2] for t in closing)
    assert published > 0


def test_declared_stages_and_settlement_are_checked() -> None:
    night = (NightStage("a", "甲阶段"), NightStage("b", "乙阶段", frozenset({"s"})))
    staged = SkillSpec("t", "t", frozenset({"night"}), NO_TARGET, lambda s, c: None, lambda s, c: None, stage="a")
    rs = Ruleset(id="toy", name="玩具", night_stages=night, skills={"s": _skill("s"), "t": staged})
    # the stage a skill names is filled in, next to the skills a stage lists
    assert [st.skills for st in rs.night_stages] == [frozenset({"t"}), frozenset({"s"})]
    assert (rs.stage_of("t"), rs.stage_of("s")) == (0, 1)
    with pytest.raises(ValueError, match="undeclared night stage"):
        Ruleset(id="toy", name="玩具", night_stages=night, skills={"t": replace(staged, stage="c")})

    def one(state: GameState) -> None:
        return None

    def other(state: GameState) -> None:
        return None

    with pytest.raises(ValueError, match="'advance' is the engine's"):
        Ruleset(id="toy", name="玩具", settle={"day": (Task("advance", one),)})
    with pytest.raises(ValueError, match="two settlement steps named x"):
        Ruleset(id="toy", name="玩具", settle={"day": (Task("x", one),), "night": (Task("x", other),)})


def test_pinming_settlement_is_its_declared_steps() -> None:
    # the agenda holds the step names, as the string tasks did (竞岗 on 第1天, the vote later)
    state = pinming()
    assert PINMING.settlement(state) == [("start",)]
    to_day(state, 1)
    assert PINMING.settlement(state) == [("showdown_lapse",), ("election",), ("red_cards",)]
    close(state)
    assert PINMING.settlement(state) == [("showdown_lapse",), ("night",)]
    to_day(state, 2)
    assert PINMING.settlement(state) == [("showdown_lapse",), ("vote",), ("red_cards",)]
    assert [sorted(st.skills) for st in PINMING.night_stages] == [["check"], ["kill"], ["antidote", "poison"]]


@pytest.mark.parametrize("ruleset", ["pinming", "chenji", "ganran"])
def test_no_ruleset_overrides_what_reads_its_declarations(ruleset: str) -> None:
    # stages' on_close, settle steps and prompt skills' check/answer/on_timeout are read by these
    rs = find_ruleset(ruleset)
    for reader in ("on_stage_closed", "settlement", "run_task", "answer_prompt", "check_answer", "prompt_default"):
        assert getattr(type(rs), reader) is getattr(Ruleset, reader), reader
    # every prompt a player can answer declares its answer (品茗's 装傻 refuses every answer)
    unanswered = [sid for sid, spec in rs.skills.items() if spec.prompt and spec.answer is None]
    assert unanswered == (["feign"] if ruleset == "pinming" else [])


def test_a_ruleset_is_one_ruleset_made_from_data_and_the_functions_it_names() -> None:
    # issue 27: no class subclasses `Ruleset`; every ruleset and compiled board is a plain
    # `Ruleset(...)` whose hooks are the functions its declaration names
    from banshe.boards import list_boards
    from banshe.rulesets.ganran import rules as ganran
    from banshe.rulesets.pinming import rules as pinming_rules

    boards = [info.ruleset for info in list_boards()]
    assert boards and all(type(rs) is Ruleset for rs in boards)
    assert all(type(find_ruleset(r)) is Ruleset for r in ("pinming", "chenji", "ganran"))
    assert Ruleset.__subclasses__() == []
    assert PINMING.gate is pinming_rules.showdown_gate
    # the vote's candidates: the library's (`living_less`, from the roles' declared exclusions:
    # 装傻), no copy of its own
    assert not hasattr(pinming_rules, "votable")
    rs = find_ruleset("ganran")
    assert rs.stage_for is ganran.stage_for and rs.review_text is ganran.infection_chain
    # what was a hook and is data now: aliases, a display-only camp, skills no identity is promised
    assert CHENJI.role_id("爱神") == "cupid" and rs.playing_camps() == list(ganran.REAL_CAMPS)
    assert not set(rs.skill_holders()) & ganran.INFECTION_SKILLS
