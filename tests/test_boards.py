"""Boards (板子): the commands (`banshe boards` list/show/check), a board file written outside the
package played through `demo`, `simulate` and `run-scenario`, the compiler's errors, and boards
from other packages (entry point group `banshe.boards`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

import banshe.boards as boards
from banshe.boards import BoardError, compile_board, load_board
from banshe.cli import main
from banshe.engine.core import new_game
from banshe.rulesets import registry

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "scenarios" / "boards" / "generated"

# 预女猎白 with the 白痴 swapped for a 守卫, and an option that puts a 狼王 in place of a 狼人
MY_BOARD = """\
board: 测试守卫局
id: test_guard_board
description: 预女猎白，白痴换成守卫；选项“狼王局”把一名狼人换成狼王。
camps: {village: 村民阵营, wolf: 狼人阵营}
roles:
  预言家: {library: 预言家}
  女巫: {library: 女巫, 自救: 不能}
  猎人: {library: 猎人}
  守卫: {library: 守卫}
  村民: {library: 村民}
  狼人: {library: 狼人}
  狼王: {library: 狼王}
gods: [预言家, 女巫, 猎人, 守卫]
deck: [预言家, 女巫, 猎人, 守卫, 村民*4, 狼人*4]
options:
  狼王局: {default: false, description: 一名狼人换成狼王, swap: {狼人: 狼王}}
flow: {first: 白天, sheriff: {weight: 1.5}, tie: 无人出局, last_words: 4}
night:
  - {id: guard, name: 守卫行动, skills: [守护]}
  - {id: seer, name: 预言家行动, skills: [预言]}
  - {id: wolves, name: 狼人行动, skills: [杀人]}
  - {id: witch, name: 女巫行动, skills: [救药, 毒药], waits: true}
wins:
  - {camp: 狼人阵营, 屠边: [神, 村民]}
  - {camp: 村民阵营, 全部出局: [狼人, 狼王]}
"""

SCENARIO = """\
ruleset: my_board.yaml
options: {狼王局: true}
players: [一, 二, 三, 四, 五, 六, 七, 八, 九, 十, 十一, 十二]
roles: {一: 预言家, 二: 女巫, 三: 猎人, 四: 守卫, 五: 村民, 六: 村民, 七: 村民, 八: 村民,
        九: 狼王, 十: 狼人, 十一: 狼人, 十二: 狼人}
phases:
  - phase: 第1夜
    inputs:
      - [四, 守护, 五]
      - [十, 杀人, 五]
  - phase: 第2夜
    inputs:
      - [四, 守护, 五]
      - [十, 杀人, 九]
      - [九, 最后一枪, 六]
"""


@pytest.fixture
def board_file(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "my_board.yaml"
    path.write_text(MY_BOARD, encoding="utf-8")
    yield path
    registry.unregister("test_guard_board")
    boards._BOARDS.pop("test_guard_board", None)
    boards._BY_PATH.clear()


def test_boards_lists_the_seeds_and_the_standard_boards(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["boards"]) == 0
    out = capsys.readouterr().out
    for name in ("品茗", "沉寂与取酒", "感染", "预女猎白", "预女猎守", "狼王守卫"):
        assert name in out


def test_roles_lists_the_library_with_its_parameters(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["boards", "roles"]) == 0
    out = capsys.readouterr().out
    for name in (
        "预言家",
        "女巫",
        "猎人",
        "白痴",
        "守卫",
        "村民",
        "狼人",
        "狼王",
        "替罪羊",
        "冤死",
        "同守同救",
        "不能开枪",
    ):
        assert name in out


def test_show_names_the_code_of_a_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["boards", "show", "品茗"]) == 0
    assert "code: banshe.rulesets.pinming:PINMING" in capsys.readouterr().out
    assert main(["boards", "show", "没有这个板子"]) == 2


@pytest.mark.parametrize("board", ["预女猎守", "狼王守卫", "品茗"])
def test_a_shown_board_loaded_from_a_path_plays_as_the_built_in(
    board: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["boards", "show", board]) == 0
    path = tmp_path / "shown.yaml"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    assert load_board(str(path)) is load_board(board)
    assert main(["boards", "check", str(path)]) == 0
    capsys.readouterr()
    scenario = SHARED / ("yls_s4242_00001.yaml" if board == "预女猎守" else "lwsw_s4242_00001.yaml")
    if board == "品茗":
        scenario = Path(__file__).resolve().parent / "scenarios" / "pinming" / "09_sheriff_vote_counts_1_5.yaml"
    text = scenario.read_text(encoding="utf-8")
    by_path = tmp_path / "by_path.yaml"
    by_path.write_text(text.replace(f"ruleset: {board}", f"ruleset: {path}", 1), encoding="utf-8")
    assert f"ruleset: {path}" in by_path.read_text(encoding="utf-8")
    assert main(["run-scenario", str(scenario)]) == 0
    built_in = capsys.readouterr().out
    assert main(["run-scenario", str(by_path)]) == 0
    assert capsys.readouterr().out == built_in


def test_a_new_board_file_plays_through_demo_simulate_and_run_scenario(
    board_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["boards", "check", str(board_file)]) == 0
    assert "测试守卫局" in capsys.readouterr().out

    assert main(["demo", "--ruleset", str(board_file), "--seed", "3"]) == 0
    demo = capsys.readouterr().out
    assert demo.startswith("【测试守卫局】演示对局（seed=3，12人）")
    assert "守卫" in demo and "白痴" not in demo

    out = tmp_path / "sim.json"
    args = ["simulate", "--ruleset", str(board_file), "--games", "30", "--no-progress", "--out", str(out)]
    assert main([*args, "--option", "狼王局=true", "--policy", "heuristic"]) == 0
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["ruleset"] == "test_guard_board"
    assert summary["games"] == 30 and summary["errors"] == 0 and summary["options"] == {"狼王局": True}

    scenario = tmp_path / "game.yaml"  # beside the board: `ruleset: my_board.yaml`
    scenario.write_text(SCENARIO, encoding="utf-8")
    capsys.readouterr()
    assert main(["run-scenario", str(scenario)]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["ruleset"] == "测试守卫局"
    # 第1夜: the guarded 五 survives; 第2夜: the repeat 守护 is refused, the 狼王 killed shoots
    assert got["outs"] == [
        {"player": "九", "phase": "第2夜", "cause": "杀人"},
        {"player": "六", "phase": "第2夜", "cause": "最后一枪"},
    ]
    assert [(p["phase"], [r["index"] for r in p["rejected"]]) for p in got["phases"] if p["rejected"]] == [
        ("第2夜", [0])
    ]


def test_an_option_changes_the_deal(board_file: Path) -> None:
    rs = load_board(str(board_file))
    names = [f"p{i}" for i in range(12)]
    plain = new_game(rs, names, seed=1)
    with_king = new_game(rs, names, options={"狼王局": True}, seed=1)
    assert sorted(c.role for c in plain.chars.values()).count("wolf") == 4
    roles = sorted(c.role for c in with_king.chars.values())
    assert roles.count("wolf") == 3 and roles.count("wolf_king") == 1


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (("自救: 不能", "自救: 也许"), "第7行：roles.女巫.自救：不认识的值“也许”"),
        (("守卫: {library: 守卫}", "守卫: {library: 守门人}"), "第9行：roles.守卫.library：角色库中没有身份“守门人”"),
        (("猎人: {library: 猎人}", "猎人: {library: 猎人, 子弹: 2}"), "第8行：roles.猎人.子弹：猎人没有参数“子弹”"),
        (("村民*4", "平民*4"), "第14行：deck.4：没有身份“平民”"),
        (("skills: [守护]", "skills: [守夜]"), "第19行：night.0.skills.0：本板子的身份没有技能“守夜”"),
        (("屠边: [神, 村民]", "屠边: [神, 平民]"), "第24行：wins.0.屠边.1：本板子没有身份“平民”"),
        (
            ("tie: 无人出局", "tie: 抽签"),
            "第17行：flow.tie：看不懂的平票规则“抽签”（可用：无人出局、警长决定、替罪羊）",
        ),
        (("tie: 无人出局", "tie: 替罪羊"), "第17行：flow.tie：平票规则 替罪羊 要求本板子配置中有替罪羊"),
        (
            ("sheriff: {weight: 1.5}, tie: 无人出局", "sheriff: false, tie: 警长决定"),
            "第17行：flow.tie：没有警长的板子不能用 警长决定（平票规则只能是 无人出局）",
        ),
        (("deck:", "dek:"), "第14行：dek：未知的字段"),
        (("first: 白天", "first: 黄昏"), "第17行：flow.first：看不懂的开局阶段“黄昏”（可用：白天、夜晚）"),
        (("skills: [守护]}", "skills: [守护], deadline: 一小时}"), "第19行：night.0.deadline：看不懂的时限“一小时”"),
    ],
)
def test_check_names_the_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: tuple[str, str], fragment: str
) -> None:
    assert change[0] in MY_BOARD
    path = tmp_path / "bad.yaml"
    path.write_text(MY_BOARD.replace(change[0], change[1], 1), encoding="utf-8")
    assert main(["boards", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}：{fragment}" in err
    assert len(err.strip().splitlines()) == 1


GOAT_ROLE = ("  狼王: {library: 狼王}\n", "  狼王: {library: 狼王}\n  替罪羊: {library: 替罪羊}\n")


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        # flow.tie: 替罪羊 needs a 替罪羊 the deck (or an option) seats — declared but never dealt
        ((GOAT_ROLE, ("tie: 无人出局", "tie: 替罪羊")), "第18行：flow.tie：平票规则 替罪羊 要求本板子配置中有替罪羊"),
        # a 替罪羊 under another tie rule has nothing to do
        ((GOAT_ROLE, ("村民*4", "村民*3, 替罪羊")), "第13行：roles.替罪羊：替罪羊只在平票规则是 替罪羊 的板子里有用"),
        (
            (("自救: 不能}", "自救: 不能}\n  冤死者: {library: 替罪羊, 出局原因: 杀人}"),),
            "第8行：roles.冤死者.出局原因：不认识的值“杀人”（可用：冤死、投票）",
        ),
    ],
)
def test_check_the_scapegoat_tie(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changes: tuple[tuple[str, str], ...], fragment: str
) -> None:
    text = MY_BOARD
    for old, new in changes:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["boards", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}：{fragment}" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "changes",
    [
        (("村民*4", "村民*3, 替罪羊"),),
        (("swap: {狼人: 狼王}}", "swap: {狼人: 狼王}}\n  替罪羊局: {default: false, swap: {村民: 替罪羊}}"),),
    ],
    ids=["dealt", "by_option"],
)
def test_a_scapegoat_board_compiles(changes: tuple[tuple[str, str], ...]) -> None:
    text = MY_BOARD.replace(*GOAT_ROLE, 1).replace("tie: 无人出局", "tie: 替罪羊", 1)
    for old, new in changes:
        assert old in text
        text = text.replace(old, new, 1)
    rs = compile_board(text.replace("test_guard_board", "scapegoat_board"), "替罪羊.yaml")
    assert rs.role_name("scapegoat") == "替罪羊" and "take_the_blame" in rs.skills


def test_compile_board_from_uploaded_text_raises_board_error() -> None:
    rs = compile_board(MY_BOARD.replace("test_guard_board", "uploaded_board"), "上传.yaml")
    assert rs.id == "uploaded_board" and rs.role_name("guard") == "守卫"
    with pytest.raises(BoardError, match="上传.yaml：第1行：board：缺少板子的名字"):
        compile_board("id: x\n", "上传.yaml")
    with pytest.raises(BoardError, match="不是合法的YAML"):
        compile_board("board: [\n", "上传.yaml")


def test_an_edited_board_must_take_its_own_id(tmp_path: Path) -> None:
    path = tmp_path / "edited.yaml"
    path.write_text(boards.board_text("预女猎守").replace("连守: false", "连守: true"), encoding="utf-8")
    with pytest.raises(BoardError, match="已被板子“预女猎守”"):
        load_board(str(path))


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (("公示开枪: false", "公示开枪: true"), "roles.猎人.公示开枪：与代码中的参数（false）不符"),
        (("不能开枪: []", "不能开枪: [罚下]"), "roles.猎人.不能开枪：与代码中的参数（[]）不符"),
        (("library: 猎人,", "library: 狼王,"), "roles.猎人：代码中的猎人不是角色库的狼王，不能写参数"),
        (("  女巫: {}", "  女巫: {自救: 能}"), "roles.女巫：代码中的女巫不是角色库的女巫，不能写参数"),
    ],
)
def test_a_code_board_shows_its_library_parameters_as_the_code_sets_them(
    change: tuple[str, str], fragment: str
) -> None:
    # 沉寂与取酒's 猎人 is the library's, with the seed's parameters written in its board file
    text = boards.board_text("沉寂与取酒")
    assert compile_board(text).board.params["hunter"]["公示开枪"] is False
    assert change[0] in text
    with pytest.raises(BoardError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        compile_board(text.replace(change[0], change[1], 1))


ENTRY_BOARD = MY_BOARD.replace("test_guard_board", "test_entry_board").replace("测试守卫局", "入口点板子")


def test_a_package_registers_a_board_by_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    ep = metadata.EntryPoint(name="入口点板子", value="tests.test_boards:ENTRY_BOARD", group=boards.ENTRY_POINT_GROUP)

    def entry_points(group: str) -> list[metadata.EntryPoint]:
        return [ep] if group == boards.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(metadata, "entry_points", entry_points)
    try:
        boards._load_entry_points()
        assert load_board("入口点板子").id == "test_entry_board"
        assert any(info.ruleset.id == "test_entry_board" for info in boards.list_boards())
    finally:
        registry.unregister("test_entry_board")
        boards._BOARDS.pop("test_entry_board", None)


def test_a_board_without_a_sheriff_votes_out_from_day_1() -> None:
    from banshe.scenario import parse, play, transcript

    text = MY_BOARD.replace("test_guard_board", "no_sheriff_board").replace("测试守卫局", "无警长局")
    rs = compile_board(text.replace("sheriff: {weight: 1.5}", "sheriff: false"), "无警长局.yaml")
    registry.register(rs)
    try:
        assert "succeed" not in rs.skills
        doc = {
            "ruleset": "no_sheriff_board",
            "players": list("甲乙丙丁戊己庚辛壬癸子丑"),
            "roles": dict(
                zip(
                    "甲乙丙丁戊己庚辛壬癸子丑",
                    ["预言家", "女巫", "猎人", "守卫"] + ["村民"] * 4 + ["狼人"] * 4,
                    strict=True,
                )
            ),
            "phases": [
                {"phase": "第1天", "inputs": [["甲", "投票", "子"], ["乙", "投票", "子"], ["子", "投票", "甲"]]}
            ],
        }
        scenario = parse(doc, "无警长局")
        state, records = play(scenario)
        got = transcript(state, records)
        assert got["outs"] == [{"player": "子", "phase": "第1天", "cause": "投票"}]
        assert got["sheriff"] == []
        day1 = next(p["announcements"] for p in got["phases"] if p["phase"] == "第1天")
        assert day1 and not any("警长" in line for line in day1)
    finally:
        registry.unregister("no_sheriff_board")


def test_a_night_first_board_opens_with_night_1() -> None:
    from banshe.engine.model import DAY, NIGHT, START, Phase
    from banshe.scenario import ScenarioError, parse

    text = MY_BOARD.replace("test_guard_board", "night_first_board").replace("测试守卫局", "夜晚开局")
    rs = compile_board(text.replace("first: 白天", "first: 夜晚"), "夜晚开局.yaml")
    assert rs.night_first and not compile_board(text, "白天.yaml").night_first
    state = new_game(rs, list("甲乙丙丁戊己庚辛壬癸子丑"), seed=1)
    order = [state.phase]
    for _ in range(4):
        order.append(order[-1].next())
    assert [p.label for p in order] == ["开局", "第1夜", "第1天", "第2夜", "第2天"]
    assert [p.ordinal for p in order] == [0, 1, 2, 3, 4]
    # equality is kind and number only; the order is the ruleset's
    assert Phase(DAY, 1, True) == Phase(DAY, 1) and Phase.parse("第1夜", True).ordinal == 1
    assert Phase(START).next() == Phase(DAY, 1) and Phase(NIGHT, 1).next() == Phase(DAY, 2)
    # a forum thread's 公示 labels are read in the board's order too
    from banshe.forum.count import first_phase_label

    night_1, day_1 = first_phase_label("第一夜公示", True), first_phase_label("第1天讨论开始", True)
    assert night_1 is not None and day_1 is not None and night_1.ordinal < day_1.ordinal
    players = list("甲乙丙丁戊己庚辛壬癸子丑")
    doc = {"ruleset": "night_first_board", "players": players, "phases": [{"phase": "第1天"}, {"phase": "第1夜"}]}
    registry.register(rs)
    try:
        with pytest.raises(ScenarioError, match="阶段顺序错误：第1夜"):
            parse(doc, "夜晚开局")
    finally:
        registry.unregister("night_first_board")


def test_a_board_names_a_role_written_as_code_outside_the_library() -> None:
    from banshe.scenario import parse, play, transcript

    text = MY_BOARD.replace("test_guard_board", "knight_board").replace("测试守卫局", "骑士局")
    text = text.replace("守卫: {library: 守卫}", "骑士: {library: 'tests.board_roles:KNIGHT_ROLE'}")
    text = text.replace("守卫", "骑士").replace("  - {id: guard, name: 骑士行动, skills: [守护]}\n", "")
    rs = compile_board(text, "骑士局.yaml")
    registry.register(rs)
    try:
        seats = list("甲乙丙丁戊己庚辛壬癸子丑")
        roles = ["预言家", "女巫", "猎人", "骑士"] + ["村民"] * 4 + ["狼人"] * 4
        doc = {
            "ruleset": "骑士局",
            "players": seats,
            "roles": dict(zip(seats, roles, strict=True)),
            "phases": [{"phase": "第2天", "inputs": [["丁", "决斗", "子"], ["丁", "决斗", "丑"]]}],
        }
        state, records = play(parse(doc, "骑士局"))
        got = transcript(state, records)
        assert got["outs"] == [{"player": "子", "phase": "第2天", "cause": "决斗"}]
        assert [r["index"] for p in got["phases"] for r in p["rejected"]] == [1]  # 决斗<限定>: once
    finally:
        registry.unregister("knight_board")
    with pytest.raises(BoardError, match="roles.骑士.library：tests.board_roles 中没有名为 NOPE 的角色"):
        compile_board(text.replace("KNIGHT_ROLE", "NOPE"), "骑士局.yaml")


def test_an_uploaded_board_is_registered_once_by_its_text() -> None:
    text = MY_BOARD.replace("test_guard_board", "uploaded_once").replace("测试守卫局", "上传的局")
    try:
        rs = boards.register_text(text, "上传的局.yaml")
        assert boards.register_text(text, "上传的局.yaml") is rs  # a restart registers the saved text again
        assert registry.find_ruleset("uploaded_once") is rs and registry.find_ruleset("上传的局") is rs
        with pytest.raises(BoardError, match="id “uploaded_once”已被板子“上传的局”"):
            boards.register_text(text.replace("自救: 不能", "自救: 能"), "改过的.yaml")
        with pytest.raises(BoardError, match="板子名“上传的局”已被"):
            boards.register_text(text.replace("uploaded_once", "uploaded_twice"), "同名.yaml")
    finally:
        registry.unregister("uploaded_once")
        boards._BOARDS.pop("uploaded_once", None)


def test_a_broken_entry_point_only_warns(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    ep = metadata.EntryPoint(name="坏板子", value="tests.no_such_module:BOARD", group=boards.ENTRY_POINT_GROUP)
    monkeypatch.setattr(metadata, "entry_points", lambda group: [ep] if group == boards.ENTRY_POINT_GROUP else [])
    before = len(boards.list_boards())
    with caplog.at_level("WARNING", logger="banshe"):
        boards._load_entry_points()
    assert "入口点 坏板子 的板子无法加载" in caplog.text
    assert len(boards.list_boards()) == before


def test_the_seer_may_answer_the_camp_by_name() -> None:
    from banshe.engine.events import FEEDBACK
    from banshe.scenario import parse, play

    text = MY_BOARD.replace("test_guard_board", "camp_name_board").replace("测试守卫局", "阵营名局")
    text = text.replace("预言家: {library: 预言家}", "预言家: {library: 预言家, 答案: 阵营名}")
    rs = compile_board(text, "阵营名局.yaml")
    assert rs.board.params["seer"]["答案"] == "阵营名"
    registry.register(rs)
    try:
        players = list("甲乙丙丁戊己庚辛壬癸子丑")
        roles = ["预言家", "女巫", "猎人", "守卫"] + ["村民"] * 4 + ["狼人"] * 4
        doc = {
            "ruleset": "camp_name_board",
            "players": players,
            "roles": dict(zip(players, roles, strict=True)),
            "phases": [{"phase": "第1夜", "inputs": [["甲", "预言", "子"]]}],
        }
        state, _records = play(parse(doc, "阵营名局"))
        answers = [e.data.get("result") for e in state.log if e.kind == FEEDBACK and e.data.get("skill") == "预言"]
        assert answers == ["狼人阵营"]
    finally:
        registry.unregister("camp_name_board")
    with pytest.raises(BoardError, match="不认识的值“三分”"):
        compile_board(text.replace("答案: 阵营名", "答案: 三分"), "阵营名局.yaml")
