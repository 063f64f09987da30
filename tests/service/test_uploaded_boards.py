"""A director's own board in the service (issue 27): a board file uploaded (or pasted) on the
new-game form is checked line by line, kept, offered in the rules list and played; its games
export with the file and load again after a restart; another director never sees it."""

from __future__ import annotations

import re

from sqlalchemy import func, select

from banshe.boards import board_text
from banshe.rulesets import registry
from banshe.service.models import Game, UploadedBoard
from banshe.service.uploaded_boards import MAX_BOARD_BYTES, board_id

from .conftest import Harness, make_harness

SEATS = ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛", "壬", "癸", "子", "丑"]


def _my_board() -> str:
    """预女猎守 with its name changed and the 守卫 allowed to guard the same character twice."""
    text = board_text("预女猎守")
    text = text.replace("board: 预女猎守", "board: 周末预女猎守", 1).replace("id: yunvlieshou", "id: weekend", 1)
    assert "连守: false" in text
    return text.replace("连守: false", "连守: true", 1)


def _upload(h: Harness, text: str, *, as_file: bool = True) -> tuple[int, str, str]:
    """POST the upload form; (status, location, page)."""
    data = {"csrf": h.csrf}
    if as_file:
        files = {"board_file": ("周末板.yaml", text.encode("utf-8"), "application/x-yaml")}
        r = h.client.post("/d/boards", data=data, files=files, follow_redirects=False)
    else:
        r = h.client.post("/d/boards", data={**data, "board_text": text}, follow_redirects=False)
    return r.status_code, r.headers.get("location", ""), r.text


def _error(page: str) -> str:
    m = re.search(r'id="error">([^<]*)<', page)
    return m.group(1) if m else ""


def _create(h: Harness, ruleset: str, seed: str = "5") -> tuple[int, str]:
    data = {"csrf": h.csrf, "ruleset": ruleset, "seats": "\n".join(SEATS), "seed": seed, "auto_publish": "on"}
    r = h.client.post("/d/new", data=data, follow_redirects=False)
    return r.status_code, r.headers.get("location", r.text)


def _count(h: Harness) -> int:
    with h.service.sessions() as s:
        return s.scalar(select(func.count()).select_from(UploadedBoard)) or 0


def test_an_uploaded_board_is_offered_played_exported_and_found_after_a_restart(harness: Harness) -> None:
    h = harness
    h.login()
    text = _my_board()
    code, where, page = _upload(h, text)
    rid = board_id(text)
    assert code == 303, _error(page)
    assert where == f"/d/new?ruleset={rid}"
    form = h.client.get(where).text
    assert f'<option value="{rid}" selected>周末预女猎守</option>' in form
    assert "守卫行动时限" in form  # the board's own night stages on the timetable
    assert h.client.get(f"/d/boards/{rid}").text == text  # the file, as uploaded
    # the same text again is the same board, pasted or uploaded
    assert _upload(h, text, as_file=False)[:2] == (303, where)
    assert _count(h) == 1

    code, god = _create(h, rid)
    assert code == 303, god
    game = int(god.rsplit("/", 1)[1])
    shown = h.client.get(god).text
    assert "周末预女猎守" in shown and "守卫" in shown
    _game, state = h.service.read(game)
    assert sorted(c.role for c in state.chars.values()) == sorted(registry.get_ruleset(rid).deck)  # its deck
    for token in h.links(game).values():
        assert h.client.get(f"/p/{token}").status_code == 200

    export = h.client.get(f"{god}/export.json").json()
    assert export["board"] == text and export["ruleset"] == "周末预女猎守"

    # a restart: the process forgets the board; the game finds it again in the database
    registry.unregister(rid)
    again = make_harness(h.url, h.clock)
    with again.client:
        again.login("导演乙", "another-password")
        assert again.client.get(f"/d/boards/{rid}").status_code == 404  # another director's
        assert f'value="{rid}"' not in again.client.get(f"/d/new?ruleset={rid}").text
        assert _create(again, rid)[0] == 400
        # an export carries its board: the other director imports the game with it
        files = {"file": ("game.json", h.client.get(f"{god}/export.json").content, "application/json")}
        r = again.client.post("/d/import", data={"csrf": again.csrf}, files=files, follow_redirects=False)
        assert r.status_code == 303, _error(r.text)
        assert f'value="{rid}"' in again.client.get("/d/new").text  # now his board too
    again.client.app.state.engine.dispose()  # type: ignore[attr-defined]
    registry.unregister(rid)
    assert h.client.get(god).status_code == 200  # the first process finds it again too
    with h.service.sessions() as s:
        assert s.scalar(select(func.count(Game.id))) == 2


def test_a_bad_board_file_is_refused_with_its_line_and_nothing_is_kept(harness: Harness) -> None:
    h = harness
    h.login()
    text = _my_board()
    cases = [
        (text.replace("library: 守卫", "library: 骑士团长", 1), "第"),  # no such library role
        (text.replace("deck:", "deck: [", 1), "不是合法的YAML"),
        ("board: 小板子\ncode: os:system\n", "不能指定代码"),
        ("a: &x [1, 2]\nb: *x\n", "锚点与别名"),
        ("", "请选择板子文件"),
    ]
    for bad, words in cases:
        code, _where, page = _upload(h, bad, as_file=False)
        assert code == 400 and words in _error(page), (words, _error(page))
        assert "板子文件有误" in _error(page) or words == "请选择板子文件"
    line = _error(_upload(h, cases[0][0])[2])
    assert re.search(r"第\d+行", line) and "周末板.yaml" in line, line
    files = {"board_file": ("x.yaml", "板子".encode("gbk"), "text/plain")}
    r = h.client.post("/d/boards", data={"csrf": h.csrf}, files=files, follow_redirects=False)
    assert r.status_code == 400 and "UTF-8" in _error(r.text)
    files = {"board_file": ("x.yaml", b"#" * (MAX_BOARD_BYTES + 1), "text/plain")}
    r = h.client.post("/d/boards", data={"csrf": h.csrf}, files=files, follow_redirects=False)
    assert r.status_code == 400 and "过大" in _error(r.text)
    r = h.client.post("/d/boards", data={"csrf": "forged", "board_text": text}, follow_redirects=False)
    assert r.status_code == 403
    assert _count(h) == 0


def test_built_in_boards_are_on_the_form_with_their_files(harness: Harness) -> None:
    h = harness
    h.login()
    form = h.client.get("/d/new").text
    for name in ("品茗", "沉寂与取酒", "感染", "预女猎白", "预女猎守", "狼王守卫"):
        assert f">{name}</option>" in form
    shown = h.client.get("/d/new?ruleset=预女猎守").text
    assert 'id="board-file"' in shown
    rid = registry.find_ruleset("预女猎守").id
    assert h.client.get(f"/d/boards/{rid}").text == board_text("预女猎守")
    code, god = _create(h, rid)
    assert code == 303, god


def test_an_option_that_changes_the_deck_is_checked_with_the_table(harness: Harness) -> None:
    """A board's option that swaps a role: the hand-entered table is checked against the deck
    the chosen options deal (狼王局 on: a 狼王 in place of a 狼人)."""
    h = harness
    h.login()
    text = _my_board().replace("board: 周末预女猎守", "board: 选项板子", 1)
    text += "\noptions:\n  狼王局: {default: false, description: 一名狼人换成狼王, swap: {狼人: 狼王}}\n"
    text = text.replace("  狼人: {library: 狼人}\n", "  狼人: {library: 狼人}\n  狼王: {library: 狼王}\n", 1)
    code, where, page = _upload(h, text, as_file=False)
    assert code == 303, _error(page)
    rid = board_id(text)
    assert 'name="opt_狼王局"' in h.client.get(where).text
    roles = ["预言家", "女巫", "猎人", "守卫", "村民", "村民", "村民", "村民", "狼王", "狼人", "狼人", "狼人"]
    seats = "\n".join(f"{n} {r}" for n, r in zip(SEATS, roles, strict=True))
    data = {"csrf": h.csrf, "ruleset": rid, "seats": seats, "seed": "1"}
    r = h.client.post("/d/new", data=data, follow_redirects=False)
    assert r.status_code == 400 and "狼王×1" in _error(r.text), _error(r.text)  # 狼王局 off: no 狼王
    r = h.client.post("/d/new", data={**data, "opt_狼王局": "on"}, follow_redirects=False)
    assert r.status_code == 303, _error(r.text)
