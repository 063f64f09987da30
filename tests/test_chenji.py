"""沉寂与取酒 V1.5: setup, camps, the 癫狂 speech check, achievements and coins, the demo table."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from banshe.demo import DEMO_NAMES, run_demo
from banshe.engine import Command, Event, GameState, IllegalCommand, apply_in_place, replay
from banshe.engine.commands import CLOSE_PHASE, DEDUCT, DIRECTOR
from banshe.engine.ruleset import Ruleset
from banshe.rulesets import find_ruleset, new_game
from banshe.rulesets.chenji import is_allowed_mad_post
from banshe.rulesets.chenji.achievements import PostGame, best_of_families, compute_awards, settle
from banshe.rulesets.chenji.roles import CITIZEN, ORDINARY, PRIVILEGED, REBEL, WOLVES, deal
from banshe.rulesets.chenji.state import ext
from banshe.scenario import load, play

GOLDEN = Path(__file__).resolve().parent / "scenarios" / "chenji"
NAMES = list("甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉")
_ROLE_TEXT = (
    "预言家 女巫 长老 守卫 猎人 白痴 沉寂的先知者 权力魔术师 善良的小公主 诽谤者 "
    "良民 良民 乱民 白狼 头狼 黑狼 狼使 修女 吹笛者 丘比特"
)
ROLES = dict(zip(NAMES, _ROLE_TEXT.split(" "), strict=True))


def test_ruleset_is_found_by_every_name() -> None:
    for name in ("chenji", "沉寂与取酒", "沉取", "沉寂与取酒V1.5"):
        assert find_ruleset(name).id == "chenji"
    rs = find_ruleset("chenji")
    assert rs.role_id("爱神") == "cupid" and rs.role_id("使者") == "envoy" and rs.role_id("吹笛") == "piper"


def test_the_declarations_carry_stages_settlement_and_the_prompts() -> None:
    # 特权行使时间: each night skill names its stage; 22:15 closes with the 预言 results and 通灵
    rs = find_ruleset("chenji")
    assert [sorted(st.skills) for st in rs.night_stages] == [
        ["mute", "shield"],
        ["finale", "guard_faith", "heartbreak", "pipe", "wither"],
        ["bite", "check", "kill", "power", "slander", "tianyan"],
        ["antidote", "poison"],
        ["pure", "redeem"],
    ]
    assert [st.on_close is not None for st in rs.night_stages] == [False, False, True, False, False]
    assert {kind: [t.name for t in tasks] for kind, tasks in rs.settle.items()} == {
        "start": ["start"],
        "night": ["night"],
        "day": ["election", "vote"],
    }
    # every prompt skill declares its answer and its lapse; 最后一枪 (the library's 猎人) does
    # nothing when it is not answered: this seed's 逾期告知 is false
    prompts = {sid: spec for sid, spec in rs.skills.items() if spec.prompt}
    assert sorted(prompts) == ["feign", "heir", "shoot", "succeed"]
    assert all(spec.answer is not None and spec.on_timeout is not None for spec in prompts.values())
    assert rs.board.params["hunter"]["逾期告知"] is False
    # nothing is left on the hooks the declarations replace
    for hook in ("on_stage_closed", "settlement", "run_task", "answer_prompt", "check_answer", "prompt_default"):
        assert getattr(type(rs), hook) is getattr(Ruleset, hook), hook


@pytest.mark.parametrize("count", range(20, 31))
def test_deal_follows_the_seed(count: int) -> None:
    roles = deal(count, random.Random(count))
    c = Counter(roles)
    assert len(roles) == count
    assert all(c[r] == 1 for r in (*PRIVILEGED, *WOLVES, "piper", "cupid"))
    assert sum(c[r] for r in ORDINARY) == 6 and all(c[r] <= 1 for r in ORDINARY)
    # beyond 20: 良民, 乱民, 良民, 良民, 乱民, 良民 … (2:1)
    extra = count - 20
    rebels = (extra + 1) // 3
    assert c[CITIZEN] == 2 + extra - rebels and c[REBEL] == 1 + rebels


def test_six_ordinary_drawn_with_the_seed() -> None:
    a = new_game("chenji", DEMO_NAMES[:20], seed=7)
    b = new_game("chenji", DEMO_NAMES[:20], seed=7)
    assert {n: c.role for n, c in a.chars.items()} == {n: c.role for n, c in b.chars.items()}
    draws = {frozenset(r for r in deal(20, random.Random(s)) if r in ORDINARY) for s in range(30)}
    assert len(draws) > 1


@pytest.mark.parametrize("count", [19, 31])
def test_player_count_outside_20_to_30_is_refused(count: int) -> None:
    names = [f"p{i}" for i in range(count)]
    with pytest.raises(ValueError, match="20到30"):
        new_game("chenji", names, seed=1)


def test_scenario_with_19_players_exits_2(tmp_path: Path) -> None:
    names = NAMES[:19]
    roles = "\n".join(f"  {n}: {ROLES[n]}" for n in names)
    f = tmp_path / "bad.yaml"
    f.write_text(f"ruleset: 沉取\nplayers: [{', '.join(names)}]\nroles:\n{roles}\nphases: []\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "banshe", "run-scenario", str(f)], capture_output=True, text=True)
    assert run.returncode == 2 and "bad.yaml" in run.stderr


def test_duplicate_unique_identity_is_refused() -> None:
    roles = dict(ROLES, 子="预言家")
    with pytest.raises(ValueError, match="预言家"):
        new_game("chenji", NAMES, roles, seed=1)


def _start(arrow: list[str] | None = None, rejoin: bool = False) -> GameState:
    state = new_game("chenji", NAMES, ROLES, seed=3)
    if arrow:
        apply_in_place(state, Command("酉", "arrow", tuple(arrow)))
    if rejoin:
        apply_in_place(state, Command("卯", "rejoin"))
    apply_in_place(state, Command(DIRECTOR, CLOSE_PHASE))
    return state


def test_lover_camps() -> None:
    s = _start(["辰", "巳"])  # two wolves: stay 狼人阵营, cupid follows, still in the wolf group
    assert (s.chars["辰"].camp, s.chars["巳"].camp, s.chars["酉"].camp) == ("wolf", "wolf", "wolf")
    assert "辰" in s.groups["wolves"]
    s = _start(["巳", "子"])  # one wolf + villager: 情侣阵营; the wolf leaves the wolf group
    assert (s.chars["巳"].camp, s.chars["子"].camp, s.chars["酉"].camp) == ("lovers", "lovers", "lovers")
    assert "巳" not in s.groups["wolves"] and set(s.groups["lovers"]) == {"巳", "子"}
    s = _start(["酉", "子"])  # cupid may pick itself
    assert s.chars["酉"].camp == "village" and "lovers" not in s.camps_in_game
    s = _start(["卯", "子"])  # 白狼 (not 归群) + villager → 情侣阵营; no 白狼阵营 left in the game
    assert "white_wolf" not in s.camps_in_game and s.chars["卯"].camp == "lovers"


def test_rejoin_moves_white_wolf_into_the_wolf_group() -> None:
    s = _start(["子", "丑"], rejoin=True)
    assert s.chars["卯"].camp == "wolf" and "卯" in s.groups["wolves"]
    assert "white_wolf" not in s.camps_in_game


def test_no_arrow_draws_lovers_with_the_seed() -> None:
    s = _start()
    pair = ext(s).lovers
    assert len(set(pair)) == 2
    again = replay(s)
    assert ext(again).lovers == pair and again.fingerprint() == s.fingerprint()


def test_mad_post_check() -> None:
    assert is_allowed_mad_post("啊啊 嗷\n喵喵喵 汪")
    assert is_allowed_mad_post("")
    assert is_allowed_mad_post("吱\r\n喳")
    assert not is_allowed_mad_post("我是预言家")
    assert not is_allowed_mad_post("喵1")
    assert not is_allowed_mad_post("喵！")
    assert not is_allowed_mad_post("[图]")
    # emoji and the forum's 表情 are allowed (rulings 2026-12-04)
    assert is_allowed_mad_post("😀😀")
    assert is_allowed_mad_post("喵 👨\u200d👩\u200d👧 🇨🇳 ❤️ 1️⃣")
    assert is_allowed_mad_post("喵{:2_25:} :) :lol :loveliness:")
    assert not is_allowed_mad_post("█▇▆")  # 字符画's blocks are no emoji
    # 除“投票对象”外: a name only as the target of a well-formed vote line
    assert not is_allowed_mad_post("喵喵 投给 甲", vote_targets=["甲"])
    assert not is_allowed_mad_post("喵喵 甲", vote_targets=["甲", "乙"])
    assert not is_allowed_mad_post("内伊 内伊 啊啊啊", vote_targets=["内伊"])
    assert is_allowed_mad_post("投票对象：甲\n投票理由：喵喵😀", vote_targets=["甲", "乙"])
    assert is_allowed_mad_post("改票对象 ： 乙 \r\n改票理由:嗷", vote_targets=["甲", "乙"])
    assert is_allowed_mad_post("投票对象：弃权\n投票理由：喵")
    assert not is_allowed_mad_post("投票对象：甲\n投票理由：甲是狼", vote_targets=["甲"])
    assert not is_allowed_mad_post("投票对象：甲 乙\n投票理由：喵", vote_targets=["甲", "乙"])
    assert not is_allowed_mad_post("投票对象：丙\n投票理由：喵", vote_targets=["甲", "乙"])


def _played(name: str) -> GameState:
    state, _records = play(load(GOLDEN / name))
    return state


def test_awards_from_a_finished_game() -> None:
    s = _played("w03_piper_wins.yaml")  # 吹笛者阵营 wins; the piper is alive and piped no 特权
    awards = best_of_families(compute_awards(s))
    got = {(a.player, a.title): a.points for a in awards}
    assert got[("申", "吹笛者阵营获得最终胜利")] == 100
    assert got[("申", "未出局且所有【吹笛】对象中无特权身份")] == 30
    # the 女巫 poisoned the 黑狼
    assert got[("乙", "【毒药】对象为狼人或吹笛者")] == 4
    # 良民 子 and 丑 went out at night by 指杀 (其他村民阵营身份)
    assert got[("子", "在游戏日夜晚由于指杀出局")] == 1
    assert all(a.family != "胜者为王" or a.player == "申" for a in awards)


def test_the_hunters_award_is_read_from_the_outs() -> None:
    # 猎人 最后一枪 (the library's skill) 击毙狼人或吹笛者: 5 points; at the 长老: none
    shot_wolf = {(a.player, a.title) for a in compute_awards(_played("g31_hunter_shoots.yaml"))}
    assert ("戊", "【最后一枪】击毙狼人或吹笛者") in shot_wolf
    shot_elder = {a.title for a in compute_awards(_played("g55_elder_shot_weixin.yaml"))}
    assert "【最后一枪】击毙狼人或吹笛者" not in shot_elder


def test_guard_and_nun_block_tiers() -> None:
    s = _played("g05_shield_blocks_kill_once_per_target.yaml")
    awards = best_of_families(compute_awards(s))
    assert [a.points for a in awards if a.player == "丁" and a.family == "神圣之盾"] == [2]
    s = _played("g19_redeem.yaml")
    awards = best_of_families(compute_awards(s))
    assert [a.points for a in awards if a.player == "未" and a.family == "救赎"] == [1]


def test_predictions_sheet_and_downward_compatibility() -> None:
    state = new_game("chenji", NAMES, ROLES, seed=3)
    apply_in_place(state, Command("酉", "arrow", ("子", "丑")))
    sheet = " ".join(f"{n}:{r}" for n, r in ROLES.items() if n not in ("甲", "乙", "丙"))  # 16 of 19 right
    apply_in_place(state, Command("甲", "id_sheet", text=sheet))
    apply_in_place(state, Command(DIRECTOR, CLOSE_PHASE))  # → 第1天
    apply_in_place(state, Command(DIRECTOR, CLOSE_PHASE))  # → 第1夜
    for night, target in ((1, "巳"), (2, "辰"), (3, "子")):
        guess = "村民" if target == "子" else "狼人"
        apply_in_place(state, Command("甲", "predict", text=f"预言 {target} {guess}"))
        with pytest.raises(IllegalCommand):
            apply_in_place(state, Command("甲", "predict", text="预言 巳"))
        apply_in_place(state, Command(DIRECTOR, "close_stage"))
        apply_in_place(state, Command(DIRECTOR, "close_stage"))
        apply_in_place(state, Command("甲", "check", (target,)))
        apply_in_place(state, Command(DIRECTOR, CLOSE_PHASE))
        apply_in_place(state, Command(DIRECTOR, CLOSE_PHASE))
        assert state.phase.number == night + 1
    all_awards = compute_awards(state)
    seer = [a for a in all_awards if a.player == "甲" and a.family == "预言与预想相同"]
    assert {a.points for a in seer} == {7, 20}  # 3 matches (7) and 3 in a row (20)
    assert [a.points for a in best_of_families(all_awards) if a.player == "甲" and a.family == "预言与预想相同"] == [20]
    sheet_award = [a for a in all_awards if a.player == "甲" and a.family == "慧眼识人"]
    assert [a.points for a in sheet_award] == [20]  # 16/19 ≈ 84% → 80%以上
    with pytest.raises(IllegalCommand):  # 身份表 only before 第4天
        apply_in_place(state, Command("乙", "id_sheet", text="甲:预言家"))


def test_coins_by_points_and_deduction() -> None:
    state = new_game("chenji", NAMES, ROLES, seed=3, options={"竞拍金币总额": 1000})
    apply_in_place(state, Command(DIRECTOR, DEDUCT, ("乙",), amount=2))
    apply_in_place(state, Command(DIRECTOR, DEDUCT, ("丙",), amount=6))
    st = settle(state, PostGame(award_votes={"甲": "乙", "丙": "乙", "丁": "乙"}))
    assert st.points["甲"] == 7 + 5  # 未被扣分 + 完整参与评奖
    assert st.points["乙"] == 2  # 未扣至6分 (no 未被扣分), did not take part in 评奖
    assert st.points["丙"] == 5  # 扣至6分: nothing for 乐在其中 but still took part
    assert st.coins["丙"] == 0.0  # 扣至6分者不得金币
    assert st.per_point == pytest.approx(1000 / sum(st.points.values()))
    assert st.coins["甲"] == pytest.approx(12 * st.per_point, abs=0.01)


def test_loss_vote_needs_more_than_half() -> None:
    s = _played("w01_wolves_win_by_votes.yaml")  # 狼人阵营 wins; 村民阵营 lost
    votes = {"甲": "子", "乙": "子", "丙": "壬", "丁": "子"}
    awards = compute_awards(s, PostGame(award_votes=votes))
    assert [(a.player, a.points) for a in awards if a.family == "虽败犹荣"] == [("子", 50)]
    awards = compute_awards(s, PostGame(award_votes={"甲": "子", "乙": "壬"}))
    assert [a for a in awards if a.family == "虽败犹荣"] == []


def test_demo_prints_the_achievement_table() -> None:
    text = run_demo("沉寂与取酒", seed=3, players=24)
    assert "==== 成就与金币 ====" in text and "每点折合" in text
    assert "结果：" in text and "胜利" in text


def test_review_command_prints_awards_and_coins() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "banshe", "review", str(GOLDEN / "w03_piper_wins.yaml")],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "竞拍金币总额：3000" in run.stdout
    assert "子（良民）：58点" in run.stdout  # 虽败犹荣 50 (2 of 3 votes) + 未被扣分 7 + 夜晚指杀出局 1
    assert "申（吹笛者）：137点" in run.stdout


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.yaml")), ids=lambda p: p.stem)
def test_golden_games_replay_identically(path: Path) -> None:
    state, _records = play(load(path))
    assert replay(state).fingerprint() == state.fingerprint()


def test_kill_predictions_from_scenario_inputs() -> None:
    from banshe.scenario import parse

    doc = {
        "ruleset": "沉取",
        "players": NAMES,
        "roles": ROLES,
        "phases": [
            {"phase": "开局", "inputs": [["酉", "爱神之箭", ["子", "丑"]]]},
            {"phase": "第1夜", "inputs": [["巳", "预想", "杀人", "甲", "出局"], ["巳", "杀人", "甲"]]},
            {"phase": "第2夜", "inputs": [["巳", "预想", "杀人 丙 未出局"], ["巳", "杀人", "丙"]]},
            {"phase": "第3夜", "inputs": [["巳", "预想", "杀人", "丙", "出局"], ["巳", "杀人", "丙"]]},
            {"phase": "第4夜", "inputs": [["巳", "预想", "杀人", "乙", "未出局"], ["巳", "杀人", "乙"]]},
        ],
    }
    state, records = play(parse(doc))
    assert all(not r.rejected for r in records)
    awards = compute_awards(state)
    mine = sorted(a.points for a in awards if a.player == "巳" and a.family == "指杀与预想相同")
    assert mine == [7, 20]  # 3 of 4 right (7), 3 in a row (20)
    assert [a.points for a in best_of_families(awards) if a.player == "巳" and a.family == "指杀与预想相同"] == [20]


def _night_game(inputs: list[list[object]], roles: dict[str, str] | None = None) -> GameState:
    from banshe.scenario import parse

    doc = {
        "ruleset": "沉取",
        "players": NAMES,
        "roles": roles or ROLES,
        "phases": [
            {"phase": "开局", "inputs": [["酉", "爱神之箭", ["子", "丑"]]]},
            {"phase": "第1夜", "inputs": inputs},
        ],
    }
    state, records = play(parse(doc))
    assert all(not r.rejected for r in records), [r.rejected for r in records]
    return state


def _feedback(state: GameState, player: str, skill: str) -> list[Event]:
    return [
        e for e in state.log if e.kind == "feedback" and e.audience.members == (player,) and e.data["skill"] == skill
    ]


def test_wither_voids_tianyan_and_it_stays_spent() -> None:
    s = _night_game([["申", "摇落", "庚"], ["庚", "天眼", "巳"]])
    assert _feedback(s, "庚", "预言") == []
    assert not s.chars["庚"].has_charge("tianyan") and not s.chars["庚"].has_charge("zhiji")


def test_no_tongling_after_antidote_night() -> None:
    s = _night_game([["巳", "杀人", "子"], ["乙", "解药", "子"]])
    assert s.chars["子"].alive
    assert len(_feedback(s, "乙", "通灵")) == 1
    apply_in_place(s, Command(DIRECTOR, CLOSE_PHASE))  # the script ended at 第2天: → 第2夜
    for _ in range(2):  # 21:45 and 22:00 close; 杀人 is a 22:15 skill
        apply_in_place(s, Command(DIRECTOR, "close_stage"))
    apply_in_place(s, Command("巳", "kill", ("丑",)))
    apply_in_place(s, Command(DIRECTOR, CLOSE_PHASE))
    assert len(_feedback(s, "乙", "通灵")) == 1  # 通灵 lost from the next night


def test_check_post_enforces_the_mad_speech_rule() -> None:
    from banshe.rulesets.chenji.rules import MAD

    rs = find_ruleset("chenji")
    state = new_game("chenji", DEMO_NAMES[:20], None, None, 3)
    author, other = state.order[0], state.order[1]
    assert rs.check_post(state, author, "我觉得他是狼") is None  # not 癫狂: anything goes
    state.char(author).statuses.add(MAD)
    assert rs.check_post(state, author, "嗷呜 喵\n汪汪") is not None  # 呜 is not one of the 16
    assert rs.check_post(state, author, "嗷嗷 喵\n汪汪") is None
    assert rs.check_post(state, author, "😀😀") is None
    assert rs.check_post(state, author, f"投票对象：{other}\n投票理由：喵喵") is None
    reason = rs.check_post(state, author, f"投票对象：{other}\n投票理由：他是狼")
    assert reason is not None and "癫狂" in reason and "第2行" in reason
    assert rs.check_post(state, author, f"{other} {other} 啊啊啊") is not None


def test_award_votes_posted_after_the_game_reach_the_table() -> None:
    from banshe.scenario import load, play

    path = Path(__file__).resolve().parent / "scenarios" / "chenji" / "w09_award_votes_after_the_game.yaml"
    state, _records = play(load(path))
    assert state.winner == "wolf"
    assert ext(state).award_votes == {"甲": "乙", "丙": "乙", "丁": "乙"}
    table = "\n".join(find_ruleset("chenji").review(state, None))
    line = next(row for row in table.splitlines() if row.strip().startswith("乙"))
    assert "评奖投票过半" in line  # 虽败犹荣
    for voter in ("甲", "丙", "丁"):
        row = next(r for r in table.splitlines() if r.strip().startswith(voter))
        assert "完整参与评奖" in row
    # nothing else is accepted after the end
    with pytest.raises(IllegalCommand, match="游戏已经结束"):
        apply_in_place(state, Command("乙", "check", ("丙",)))


def _to_princess_stage(kill: str | None) -> GameState:
    state = new_game("chenji", NAMES, ROLES, seed=1)
    apply_in_place(state, Command("酉", "arrow", targets=("子", "丑")))
    apply_in_place(state, Command(DIRECTOR, CLOSE_PHASE))
    apply_in_place(state, Command(DIRECTOR, CLOSE_PHASE))
    assert state.phase.label == "第1夜"
    while state.stage < 2:  # 22:15, 杀人
        apply_in_place(state, Command(DIRECTOR, "close_stage"))
    if kill:
        apply_in_place(state, Command("巳", "kill", targets=(kill,)))
    while state.stage < 4:  # 22:45, 纯真与救赎
        apply_in_place(state, Command(DIRECTOR, "close_stage"))
    return state


def test_pure_offers_what_its_text_allows_not_the_kill_target() -> None:
    """纯真 (issue 11): the 小公主 is not told tonight's 指杀 targets, so her options and refusals may
    not depend on them: every other alive character, whether or not the wolves chose one."""
    from banshe.engine.view import legal_commands

    offers = []
    for kill in (None, "甲", "丙"):
        state = _to_princess_stage(kill)
        offers.append(sorted(c.targets[0] for c in legal_commands(state, "壬") if c.skill == "pure"))
        # a character nobody targeted is accepted (spent, with no effect: rulings step (5))
        apply_in_place(state, Command("壬", "pure", targets=("丁",)))
        with pytest.raises(IllegalCommand, match="限定技"):
            apply_in_place(state, Command("壬", "pure", targets=("甲",)))
    assert offers[0] == offers[1] == offers[2] == sorted(n for n in NAMES if n != "壬")


def test_pure_on_the_real_target_still_saves_it() -> None:
    state = _to_princess_stage("甲")
    apply_in_place(state, Command("壬", "pure", targets=("甲",)))
    apply_in_place(state, Command(DIRECTOR, CLOSE_PHASE))
    assert state.is_alive("甲") and not state.is_alive("壬")
    assert [(o.player, o.cause) for o in state.outs] == [("壬", "纯真")]


# -- issue 15: identities as data, typed state, bot policy with the bots -------------------------
_DECL_ROLES = dict(ROLES, 丙="死士", 丁="刺客")  # 长老/守卫 swapped for the two skills the bots ration


def _day_one(roles: dict[str, str]) -> GameState:
    state = new_game("chenji", NAMES, roles=roles, seed=3)
    apply_in_place(state, Command(DIRECTOR, CLOSE_PHASE))  # 开局 settles: 第1天
    assert state.phase.label == "第1天"
    return state


def test_roles_declare_holders_camps_lives_and_charges() -> None:
    rs = find_ruleset("chenji")
    holders = rs.skill_holders()
    assert holders["tianyan"] == {"silent"} and holders["bite"] == {"white_wolf"} and "kill" not in holders
    state = new_game("chenji", NAMES, roles=ROLES, seed=3)
    assert state.chars["丙"].lives == 2 and state.chars["乙"].charges == {"spirit": 1, "antidote": 1, "poison": 1}
    assert state.chars["寅"].camp == "wolf" and state.chars["卯"].camp == "white_wolf"  # 乱民, 白狼
    assert rs.role_name("silent") == "沉寂的先知者"
    with pytest.raises(IllegalCommand, match="甲不是吹笛者，不能发动<吹笛>"):
        rs.skills["pipe"].check(state, Command("甲", "pipe", ("乙",)))


def test_martyrdom_and_stab_are_every_legal_move_the_bots_ration_them() -> None:
    from banshe.engine.actions import flatten, legal_actions
    from banshe.engine.view import legal_commands
    from banshe.rulesets.chenji.bots import prune

    state = _day_one(_DECL_ROLES)
    martyr = [c for c in legal_commands(state, "丙") if c.skill == "martyrdom"]
    stabs = {c.targets[0] for c in legal_commands(state, "丁") if c.skill == "stab"}
    assert len(martyr) == 1  # 死节: 你也可选择在任意时间亮明身份并立即出局 — a player's page offers it
    assert stabs == set(state.alive_names()) - {"丁"}  # 行刺: 刺杀一名其他角色
    kept_martyr = kept_stab = 0
    for _ in range(400):  # the bots' share depends on the position (the log's length)
        state.log.append(state.log[-1])
        kept_martyr += any(c.skill == "martyrdom" for c in flatten(prune(state, "丙", legal_actions(state, "丙"))))
        stab = [c for c in flatten(prune(state, "丁", legal_actions(state, "丁"))) if c.skill == "stab"]
        assert len(stab) <= 1
        kept_stab += len(stab)
    assert 0 < kept_martyr < 20 and 10 < kept_stab < 80


def test_chenji_state_is_typed_copied_and_emptied_each_phase() -> None:
    state = new_game("chenji", NAMES, roles=ROLES, seed=3)
    apply_in_place(state, Command("酉", "arrow", ("甲", "乙")))
    assert ext(state).arrow == ("甲", "乙")
    apply_in_place(state, Command(DIRECTOR, CLOSE_PHASE))
    data = ext(state)
    assert data.lovers == ["甲", "乙"] and data.cupid == "酉" and data.killer == "巳" and data.arrow is None
    copy = state.clone()
    ext(copy).lovers.append("丙")
    ext(copy).stats.piped.append("丙")
    assert data.lovers == ["甲", "乙"] and data.stats.piped == []
    assert replay(state).fingerprint() == state.fingerprint()
