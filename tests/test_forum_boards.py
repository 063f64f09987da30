"""The forum bridge on a board (issue 27): `banshe forum count` reads a thread for a game whose
`ruleset:` is a board file (beside the game file) or a built-in board, and for an export of a
game played on an uploaded board (the file travels in the export)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from banshe.boards import board_text
from banshe.cli import main

from .discuz_pages import P, encode, page, vote

DIRECTOR = "[M196]导演"
SEATS = {
    "春": "预言家", "夏": "狼人", "秋": "村民", "冬": "女巫", "东": "狼人", "南": "村民",
    "西": "猎人", "北": "狼人", "风": "守卫", "花": "村民", "雪": "狼人", "月": "村民",
}  # fmt: skip


def _board() -> str:
    """预女猎守 renamed, its 守卫 allowed to guard the same character twice (an edited board)."""
    text = board_text("预女猎守").replace("board: 预女猎守", "board: 论坛周末板", 1)
    return text.replace("id: yunvlieshou", "id: weekend-forum", 1).replace("连守: false", "连守: true", 1)


def _game(ruleset: str) -> str:
    roles = ", ".join(f"{n}: {r}" for n, r in SEATS.items())
    return f"""ruleset: {ruleset}
players: [{", ".join(SEATS)}]
roles: {{{roles}}}
phases:
  - phase: 开局
  - phase: 第1天
    inputs: [[秋, 投票, 春], [冬, 投票, 春], [南, 投票, 春], [夏, 投票, 东]]
  - phase: 第1夜
    inputs: [[风, 守护, 月], [春, 预言, 夏], [东, 杀人, 月]]
"""


def _posts(day: int = 2) -> list[P]:
    opening = f'<font size="5"><font color="Red">【第{day}天】公示</font></font><br />21:00关门'
    return [
        P(DIRECTOR, "2026-12-2 09:00", opening),
        P("春", "2026-12-2 09:10", vote("夏")),
        P("秋", "2026-12-2 09:20", vote("夏")),
        P("月", "2026-12-2 09:30", vote("东")),  # guarded on 第1夜: alive, votes
        P("冬", "2026-12-2 09:40", vote("烧卖")),  # no such character
    ]


@pytest.mark.parametrize("where", ["file", "builtin"])
def test_a_board_game_is_counted_from_its_thread(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if where == "file":
        (tmp_path / "周末板.yaml").write_text(_board(), encoding="utf-8")
        ruleset = "周末板.yaml"  # beside the game file
    else:
        ruleset = "预女猎守"
    (tmp_path / "game.yaml").write_text(_game(ruleset), encoding="utf-8")
    (tmp_path / "page1.html").write_bytes(encode(page(_posts(), "gbk"), "gbk"))
    args = ["forum", "count", str(tmp_path / "game.yaml"), str(tmp_path / "page1.html")]
    assert main([*args, "--close", "2026-12-02 21:00"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["day"] == "第2天"
    assert out["inputs"] == [["春", "投票", "夏"], ["秋", "投票", "夏"], ["月", "投票", "东"]]
    refused = {p["floor"]: p["refused"] for p in out["posts"] if p["refused"]}
    assert list(refused) == [5] and "烧卖" in refused[5]


def test_an_export_of_an_uploaded_board_is_counted_with_its_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An export whose ruleset is an uploaded board names it by its name only; the file is in it."""
    export = {
        "format": "banshe-game",
        "ruleset": "论坛周末板",
        "board": _board(),
        "seed": 1,
        "players": list(SEATS),
        "roles": SEATS,
        "commands": [],
    }
    (tmp_path / "game.json").write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "page1.html").write_bytes(encode(page(_posts(day=1)[:3], "gbk"), "gbk"))
    code = main(["forum", "count", str(tmp_path / "game.json"), str(tmp_path / "page1.html")])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert json.loads(out.out)["inputs"] == [["春", "投票", "夏"], ["秋", "投票", "夏"]]
    export["board"] = _board().replace("library: 守卫", "library: 骑士团长", 1)
    (tmp_path / "game.json").write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
    assert main(["forum", "count", str(tmp_path / "game.json"), str(tmp_path / "page1.html")]) == 2
    err = capsys.readouterr().err
    assert "板子文件有误" in err and "骑士团长" in err and "行" in err, err
