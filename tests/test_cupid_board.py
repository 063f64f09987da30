"""The library's 丘比特 on a board file (tests/boards/yunvliebai_cupid.yaml; goldens
tests/scenarios/library/22–31): the compiler's checks of its camp parameter and the new win kinds,
and the bots playing it (the 爱神之箭's pairs are legal moves; no game errs, every game ends)."""

from __future__ import annotations

from pathlib import Path

import pytest

from banshe.boards import BoardError, compile_board
from banshe.cli import main
from banshe.demo import DEMO_NAMES
from banshe.engine.events import WIN
from banshe.sim.env import play_random_game

BOARD = Path(__file__).resolve().parent / "boards" / "yunvliebai_cupid.yaml"


def _edited(old: str, new: str) -> str:
    text = BOARD.read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


def test_the_lovers_camp_must_be_declared() -> None:
    text = _edited("  lovers: 情侣阵营\n", "")
    refused = "roles.丘比特.情侣阵营：丘比特的参数 情侣阵营 是“情侣阵营”，本板子没有这个阵营"
    with pytest.raises(BoardError, match=refused):
        compile_board(text, "丘比特.yaml")


def test_the_lovers_camp_is_stored_by_id() -> None:
    rs = compile_board(BOARD.read_text(encoding="utf-8"), "丘比特.yaml")
    assert rs.board.params["cupid"]["情侣阵营"] == "lovers"
    assert rs.board.start_hooks and rs.board.out_watchers


def test_win_kinds_are_checked() -> None:
    with pytest.raises(BoardError, match="其余出局：写 其余出局: true"):
        compile_board(_edited("其余出局: true", "其余出局: 是"), "丘比特.yaml")
    with pytest.raises(BoardError, match="另需出局.0：未知的阵营“情侣”"):
        compile_board(_edited("另需出局: [情侣阵营]", "另需出局: [情侣]"), "丘比特.yaml")


def test_random_games_end_with_one_winner() -> None:
    players = DEMO_NAMES[:12]
    winners = set()
    for seed in range(30):
        state = play_random_game(str(BOARD), players, seed)
        assert len([e for e in state.log if e.kind == WIN]) == 1
        winners.add(state.winner)
    assert winners <= {"village", "wolf", "lovers"}


def test_heuristic_bots_play_it(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    args = ["simulate", "--ruleset", str(BOARD), "--games", "50", "--policy", "heuristic", "--out", str(out)]
    assert main(args) == 0
    assert '"errors": 0' in out.read_text(encoding="utf-8")
