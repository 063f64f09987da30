"""Counting a thread's day (banshe.forum.count) on Discuz!-like pages, rule by rule."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from banshe.engine.events import ACCEPTED
from banshe.forum.count import CountError, Options, count, first_phase_label, load_game
from banshe.forum.discuz import read_thread
from banshe.scenario import load, play

from .discuz_pages import P, encode, page, quote, reply_header, vote

DIRECTOR = "[M196]导演"
# 第1天: 春 3 votes -> sheriff (1.5 from day 2); 第1夜: 东 kills 月. 13 alive on 第2天.
GAME = """ruleset: 品茗
players: [春, 夏, 秋, 冬, 东, 南, 西, 北, 风, 花, 雪, 月, 山, 水]
roles: {春: 预言家, 夏: 狼人, 秋: 村民, 冬: 女巫, 东: 狼人, 南: 村民, 西: 猎人, 北: 狼人, 风: 白痴, 花: 村民,
        雪: 狼人, 月: 村民, 山: 混血儿, 水: 病娇}
phases:
  - phase: 开局
    inputs: [[山, 认亲, 秋]]
  - phase: 第1天
    inputs: [[秋, 投票, 春], [冬, 投票, 春], [南, 投票, 春], [夏, 投票, 东]]
  - phase: 第1夜
    inputs: [[春, 预言, 夏], [东, 杀人, 月]]
"""
CLOSE = datetime(2026, 12, 2, 21, 0)


def opening(day: int = 2, time: str = "2026-12-2 09:00") -> P:
    return P(DIRECTOR, time, f'<font size="5"><font color="Red">【第{day}天】公示</font></font><br />21:00关门')


def run(
    tmp: Path,
    posts: list[P],
    game: str = GAME,
    charset: str = "utf-8",
    **options: Any,
) -> dict[str, Any]:
    (tmp / "game.yaml").write_text(game, encoding="utf-8")
    (tmp / "page1.html").write_bytes(encode(page(posts, charset), charset))
    options.setdefault("close", CLOSE)
    return count(load_game(str(tmp / "game.yaml")), read_thread([str(tmp / "page1.html")]), Options(**options))


def by_floor(result: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {p["floor"]: p for p in result["posts"]}


def test_a_plain_day_gbk_with_the_engine_settlement(tmp_path: Path) -> None:
    posts = [
        opening(),
        P("春", "2026-12-2 09:10", vote("夏")),
        P("秋", "2026-12-2 09:20", "投票对象:夏 投票理由:跟警长"),
        P("夏", "2026-12-2 09:30", vote("春")),
        P("冬", "2026-12-2 09:40", "先说两句<br />投票对象：夏<br />投票理由：查杀<br />以上"),
        P("东", "2026-12-2 09:50", vote("春")),
        P("路人", "2026-12-2 10:00", vote("春")),
    ]
    result = run(tmp_path, posts, charset="gbk", day=2)
    assert result["day"] == "第2天"
    assert result["inputs"] == [
        ["春", "投票", "夏"],
        ["秋", "投票", "夏"],
        ["夏", "投票", "春"],
        ["冬", "投票", "夏"],
        ["东", "投票", "春"],
    ]
    kinds = {f: p["kind"] for f, p in by_floor(result).items()}
    assert kinds == {1: "director", 2: "vote", 3: "vote", 4: "vote", 5: "vote", 6: "vote", 7: "other"}
    # 夏 = 春 1.5 + 秋 + 冬 = 3.5; 春 = 夏 + 东 = 2
    assert result["transcript"]["outs"][-1] == {"player": "夏", "phase": "第2天", "cause": "投票"}
    assert result["post_counts"]["春"] == 1 and result["post_counts"]["雪"] == 0
    assert "月" not in result["post_counts"]  # out before the day


def test_change_vote_must_reply_to_the_own_accepted_vote_floor(tmp_path: Path) -> None:
    posts = [
        opening(),
        P("春", "2026-12-2 09:10", vote("夏")),  # 2
        P("秋", "2026-12-2 09:20", vote("夏")),  # 3
        P("春", "2026-12-2 09:30", quote("春", "2026-12-2 09:10", 2, vote("夏")) + vote("东", change=True)),  # 4 ok
        P("秋", "2026-12-2 09:40", vote("东", change=True)),  # 5 no reply
        P("冬", "2026-12-2 09:45", vote("北")),  # 6
        P("冬", "2026-12-2 09:50", quote("秋", "2026-12-2 09:20", 3, vote("夏")) + vote("东", change=True)),  # 7 ≠ own
        P("冬", "2026-12-2 09:55", reply_header("冬", 6) + vote("东", change=True)),  # 8 回复 6# ok
        P("春", "2026-12-2 10:00", quote("春", "2026-12-2 09:10", 2, vote("夏")) + vote("夏", change=True)),  # 9
        P("南", "2026-12-2 10:05", vote("春")),  # 10
        P("南", "2026-12-2 10:10", quote("南", "2026-12-2 10:05", 10, vote("春")) + vote("春")),  # 11 投票 again
        P("西", "2026-12-2 10:15", vote("春", change=True)),  # 12 改票 with no vote
    ]
    result = run(tmp_path, posts, day=2)
    floors = by_floor(result)
    assert result["inputs"] == [
        ["春", "投票", "夏"],
        ["秋", "投票", "夏"],
        ["春", "改票", "东"],
        ["冬", "投票", "北"],
        ["冬", "改票", "东"],
        ["南", "投票", "春"],
    ]
    assert "回复" in floors[5]["refused"] and "回复" in floors[7]["refused"] and "3楼" in floors[7]["refused"]
    assert "一次" in floors[9]["refused"]
    assert "已经投票" in floors[11]["refused"]
    assert "没有有效投票" in floors[12]["refused"]
    assert [f for f, p in floors.items() if p["refused"]] == [5, 7, 9, 11, 12]
    assert floors[4]["quotes"] == [{"kind": "quote", "pid": floors[2]["pid"], "floor": 2, "author": "春"}]


def test_a_refused_change_does_not_use_up_the_one_change(tmp_path: Path) -> None:
    posts = [
        opening(),
        P("春", "2026-12-2 09:10", vote("夏")),
        P("春", "2026-12-2 09:20", vote("东", change=True)),  # no reply: refused
        P("春", "2026-12-2 09:30", quote("春", "2026-12-2 09:10", 2, vote("夏")) + vote("东", change=True)),
    ]
    result = run(tmp_path, posts, day=2)
    assert result["inputs"] == [["春", "投票", "夏"], ["春", "改票", "东"]]


def test_the_last_hour_refuses_only_changes_and_late_posts_do_not_count(tmp_path: Path) -> None:
    posts = [
        opening(),
        P("春", "2026-12-2 19:00", vote("夏")),  # 2: exactly close-60: a change after it is in the last hour
        P("春", "2026-12-2 20:00", quote("春", "2026-12-2 19:00", 2, "x") + vote("东", change=True)),  # 3: ok
        P("秋", "2026-12-2 20:01", vote("夏")),  # 4: a first vote in the last hour is valid
        P("秋", "2026-12-2 20:30", quote("秋", "2026-12-2 20:01", 4, "x") + vote("东", change=True)),  # 5: last hour
        P("冬", "2026-12-2 21:00", vote("夏")),  # 6: at the close: counts
        P("南", "2026-12-2 21:01", vote("夏")),  # 7: after the close
        P("南", "2026-12-2 21:30", "晚了"),  # 8
        P(DIRECTOR, "2026-12-2 21:05", '<font color="Red">第2天投票结束</font>'),
    ]
    result = run(tmp_path, posts, day=2)
    floors = by_floor(result)
    assert result["inputs"] == [["春", "投票", "夏"], ["春", "改票", "东"], ["秋", "投票", "夏"], ["冬", "投票", "夏"]]
    assert "一小时" in floors[5]["refused"]
    assert "关门" in floors[7]["refused"]
    assert floors[8]["refused"] is None and floors[8]["kind"] == "post"
    assert result["post_counts"]["南"] == 0 and result["post_counts"]["冬"] == 1


def test_edited_votes_are_refused_edited_posts_still_count(tmp_path: Path) -> None:
    posts = [
        opening(),
        P("春", "2026-12-2 09:10", vote("夏"), edited="2026-12-2 09:12"),
        P("春", "2026-12-2 09:15", "讨论一下", edited="2026-12-2 09:20"),
        P("春", "2026-12-2 09:30", vote("夏")),
    ]
    result = run(tmp_path, posts, day=2)
    floors = by_floor(result)
    assert "编辑" in floors[2]["refused"] and floors[2]["edited"] and floors[3]["edited"]
    assert floors[3]["refused"] is None
    assert result["inputs"] == [["春", "投票", "夏"]]
    assert result["post_counts"]["春"] == 3


def test_target_names_are_exact_after_nfkc_never_guessed(tmp_path: Path) -> None:
    game = GAME.replace("players: [春,", "players: [Ａ甲,").replace("roles: {春:", "roles: {Ａ甲:")
    game = game.replace("投票, 春]", "投票, Ａ甲]")
    game = game.replace("[春, 预言, 夏]", "[Ａ甲, 预言, 夏]")
    posts = [
        opening(),
        P("秋", "2026-12-2 09:10", vote(" A甲 ")),  # NFKC: full-width Ａ = A
        P("冬", "2026-12-2 09:20", vote("夏天")),  # a nickname: refused
        P("南", "2026-12-2 09:30", vote("弃权")),
        P("西", "2026-12-2 09:40", vote("月")),  # out: the engine refuses
        P("北", "2026-12-2 09:50", "投票对象 夏<br />投票理由：没冒号"),
        P("风", "2026-12-2 09:55", "我要投票对象：夏<br />投票理由：不在行首"),
        P("Ａ甲", "2026-12-2 10:00", vote("夏")),  # the account named as GAME seats it
    ]
    result = run(tmp_path, posts, game=game, day=2)
    floors = by_floor(result)
    assert floors[8]["author"] == "Ａ甲" and floors[8]["kind"] == "vote" and ["Ａ甲", "投票", "夏"] in result["inputs"]
    assert floors[2]["refused"] is None and floors[2]["target"] == "Ａ甲"
    assert floors[3]["refused"] == "投票对象有误：没有“夏天”这名角色"
    assert floors[4]["refused"] is None and floors[4]["target"] == "弃权"
    assert "出局" in floors[5]["refused"]
    assert "冒号" in floors[6]["refused"] and floors[6]["kind"] == "vote"
    assert "开头" in floors[7]["refused"]


def test_out_characters_are_flagged_and_cannot_vote(tmp_path: Path) -> None:
    posts = [opening(), P("月", "2026-12-2 09:10", "我还有话说"), P("月", "2026-12-2 09:20", vote("夏"))]
    result = run(tmp_path, posts, day=2)
    floors = by_floor(result)
    assert [f["rule"] for f in floors[2]["flags"]] == ["诈尸"]
    assert "出局" in floors[3]["refused"] and [f["rule"] for f in floors[3]["flags"]] == ["诈尸"]
    assert {"player": "月", "rule": "诈尸", "detail": "已出局角色在讨论帖发言（诈尸）：2楼、3楼"} in result["flags"]
    assert result["inputs"] == []


def test_the_day_starts_at_the_directors_opening_and_ends_at_the_next(tmp_path: Path) -> None:
    posts = [
        P(DIRECTOR, "2026-12-1 09:00", "【第1天】公示：竞选警长"),  # 1
        P("春", "2026-12-1 10:00", vote("秋")),  # 2: day 1
        P(DIRECTOR, "2026-12-1 21:30", "第1天结果：春当选警长。第2天见"),  # 3: names 第1天 first
        P("秋", "2026-12-2 08:00", vote("夏")),  # 4: before the day's opening
        opening(),  # 5
        P("春", "2026-12-2 09:10", vote("夏")),  # 6
        P(DIRECTOR, "2026-12-3 09:00", "【第3天】公示"),  # 7
        P("秋", "2026-12-3 09:10", vote("春")),  # 8: the next day
    ]
    result = run(tmp_path, posts, day=2, close=None)
    assert [p["floor"] for p in result["posts"]] == [5, 6]
    assert result["inputs"] == [["春", "投票", "夏"]]


def test_an_opening_that_names_the_night_first(tmp_path: Path) -> None:
    posts = [
        P(DIRECTOR, "2026-12-2 08:00", "【第1夜】公示：月出局。第2天讨论开始，21:00关门"),
        P("春", "2026-12-2 09:10", vote("夏")),
    ]
    result = run(tmp_path, posts, day=2)
    assert [p["floor"] for p in result["posts"]] == [1, 2] and result["inputs"] == [["春", "投票", "夏"]]


def test_accelerated_days_refuse_changes_and_propose_no_lurking_cards(tmp_path: Path) -> None:
    posts = [
        opening(),
        P("春", "2026-12-2 09:10", vote("夏")),
        P("春", "2026-12-2 09:30", quote("春", "2026-12-2 09:10", 2, "x") + vote("东", change=True)),
    ]
    result = run(tmp_path, posts, day=2, accelerated=True)
    assert "加速" in by_floor(result)[3]["refused"]
    assert not [f for f in result["flags"] if f["rule"] == "潜水"]
    assert "导演宣布执行加速：今日不可改票。" in result["transcript"]["phases"][-1]["announcements"]
    plain = run(tmp_path, posts, day=2)
    assert {"player": "雪", "rule": "潜水", "detail": "第2天发帖不足5帖（0帖）"} in plain["flags"]
    assert {"player": "雪", "rule": "潜水", "detail": "第2天未投票"} in plain["flags"]
    assert {"player": "春", "rule": "潜水", "detail": "第2天未投票"} not in plain["flags"]


def test_lurking_three_days_needs_the_earlier_days_pages(tmp_path: Path) -> None:
    game = GAME + "  - phase: 第2天\n    inputs: [[春, 投票, 夏]]\n  - phase: 第2夜\n    inputs: []\n"
    posts: list[P] = [P(DIRECTOR, "2026-12-1 09:00", "【第1天】公示")]
    posts += [P("春", "2026-12-1 10:00", f"发言{i}") for i in range(12)]
    posts += [P("秋", "2026-12-1 11:00", f"发言{i}") for i in range(6)]
    posts += [P(DIRECTOR, "2026-12-1 21:30", "【第1夜】公示"), P("秋", "2026-12-1 22:00", "夜里")]
    posts += [P(DIRECTOR, "2026-12-2 09:00", "【第2天】公示")]
    posts += [P("春", "2026-12-2 10:00", f"发言{i}") for i in range(6)]
    posts += [P("秋", "2026-12-2 11:00", f"发言{i}") for i in range(6)]
    day3 = opening(3, "2026-12-3 09:00")
    posts += [day3]
    posts += [P("春", "2026-12-3 10:00", f"发言{i}") for i in range(6)] + [P("春", "2026-12-3 11:00", vote("夏"))]
    posts += [P("秋", "2026-12-3 11:00", f"发言{i}") for i in range(6)] + [P("秋", "2026-12-3 12:00", vote("夏"))]
    result = run(tmp_path, posts, game=game, day=3, close=datetime(2026, 12, 3, 21, 0))
    lurk = [(f["player"], f["detail"]) for f in result["flags"] if f["rule"] == "潜水"]
    assert ("秋", "连续三个未加速的讨论日均不足10帖（第1天6帖、第2天6帖、第3天7帖）") in lurk
    assert not [d for p, d in lurk if p == "春" and "连续" in d]  # 12 posts on day 1
    assert not [d for p, d in lurk if p in ("春", "秋") and "不足5帖" in d]
    only_today = run(tmp_path, posts[posts.index(day3) :], game=game, day=3, close=datetime(2026, 12, 3, 21, 0))
    assert not [f for f in only_today["flags"] if "连续" in f["detail"]]


def test_pinming_reserved_red_and_enlarged_fonts(tmp_path: Path) -> None:
    posts = [
        opening(),
        P("春", "2026-12-2 09:10", '<font color="#FF0000">红</font>'),
        P("秋", "2026-12-2 09:20", '<font color="#f00">红</font><font size="7">大</font>'),
        P("冬", "2026-12-2 09:30", '<font color="RED">红</font>'),
        P("南", "2026-12-2 09:40", '<font color="#FF3333">浅红</font><font size="5">五号</font>'),
        P("西", "2026-12-2 09:50", quote(DIRECTOR, "2026-12-2 09:00", 1, '<font color="Red">公示</font>') + "引用"),
        P("北", "2026-12-2 09:55", '<span style="font-size: 32px">大</span>'),
    ]
    floors = by_floor(run(tmp_path, posts, day=2))
    rules = {f: [x["rule"] for x in p["flags"]] for f, p in floors.items()}
    red, big = "红色字体", "放大字体"
    assert rules == {1: [], 2: [red], 3: [red, big], 4: [red], 5: [], 6: [], 7: [big]}


CHENJI = "ruleset: 沉寂与取酒\nseed: 3\nplayers: [" + ", ".join(f"演员{i}" for i in range(1, 21)) + "]\n"


def test_chenji_allows_red_and_flags_sizes_6_and_7(tmp_path: Path) -> None:
    posts = [
        P("导演", "2026-12-1 09:00", "【第1天】公示"),
        P("演员1", "2026-12-1 09:10", '<font color="Red">红</font><font size="5">五</font>'),
        P("演员2", "2026-12-1 09:20", '<font size="6">六</font>'),
        P("演员3", "2026-12-1 09:30", vote("演员2")),
    ]
    result = run(tmp_path, posts, game=CHENJI, close=None)
    floors = by_floor(result)
    assert result["day"] == "第1天"
    assert floors[2]["flags"] == [] and [f["rule"] for f in floors[3]["flags"]] == ["放大字体"]
    assert result["inputs"] == [["演员3", "投票", "演员2"]]
    assert not [f for f in result["flags"] if f["rule"] == "潜水"]  # 潜水 is 品茗's


def test_a_service_export_counts_like_its_scenario(tmp_path: Path) -> None:
    (tmp_path / "g.yaml").write_text(GAME, encoding="utf-8")
    scenario = load(tmp_path / "g.yaml")
    state, _ = play(scenario)
    export = {
        "format": "banshe-game",
        "version": 1,
        "ruleset": "品茗",
        "seed": scenario.seed,
        "options": {},
        "players": scenario.players,
        "roles": scenario.roles,
        "commands": [
            {"seq": i, "command": e.data["command"], "phase": e.phase, "superseded": False}
            for i, e in enumerate((e for e in state.log if e.kind == ACCEPTED), 1)
        ],
    }
    (tmp_path / "export.json").write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
    posts = [opening(), P("春", "2026-12-2 09:10", vote("夏")), P("秋", "2026-12-2 09:20", vote("夏"))]
    (tmp_path / "page1.html").write_bytes(encode(page(posts)))
    thread = read_thread([str(tmp_path / "page1.html")])
    from_export = count(load_game(str(tmp_path / "export.json")), thread, Options(close=CLOSE))
    from_yaml = count(load_game(str(tmp_path / "g.yaml")), thread, Options(close=CLOSE))
    assert from_export["day"] == "第2天"
    assert from_export["inputs"] == from_yaml["inputs"] == [["春", "投票", "夏"], ["秋", "投票", "夏"]]
    assert from_export["transcript"]["outs"] == from_yaml["transcript"]["outs"]
    assert from_export["transcript"]["outs"][-1]["player"] == "夏"


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("【第2天】公示", "第2天"),
        ("第十二天 公示", "第12天"),
        ("第２夜结果", "第2夜"),
        ("第一百零一天", "第101天"),
        ("公示", None),
    ],
)
def test_phase_labels(text: str, label: str | None) -> None:
    phase = first_phase_label(text)
    assert (phase.label if phase else None) == label


def test_bad_input(tmp_path: Path) -> None:
    with pytest.raises(CountError, match="找不到导演"):
        run(tmp_path, [P(DIRECTOR, "2026-12-2 09:00", "公示"), P("春", "2026-12-2 09:10", "x")], day=5)
    with pytest.raises(CountError, match="已经包含第1天"):
        run(tmp_path, [opening()], day=1)
    (tmp_path / "bad.yaml").write_text("ruleset: 不存在\nplayers: [甲]\n", encoding="utf-8")
    with pytest.raises(CountError, match="未知的规则"):
        load_game(str(tmp_path / "bad.yaml"))


def test_near_miss_labels_are_refused_votes_not_plain_posts(tmp_path: Path) -> None:
    """投票對象 (traditional), 投票对像 (a look-alike): a malformed vote, refused with the label
    it wrote, never counted as an ordinary post with no vote (the service shares the grammar)."""
    posts = [
        opening(),
        P("秋", "2026-12-2 09:10", "投票對象：夏<br />投票理由：繁体"),
        P("冬", "2026-12-2 09:20", "投票对像：夏<br />投票理由：错字"),
        P("冬", "2026-12-2 09:30", vote("夏")),  # posted again correctly: accepted
    ]
    floors = by_floor(run(tmp_path, posts, day=2))
    assert floors[2]["kind"] == "vote" and "投票對象" in floors[2]["refused"]
    assert floors[3]["kind"] == "vote" and "投票对像" in floors[3]["refused"]
    assert floors[4]["refused"] is None and floors[4]["target"] == "夏"
