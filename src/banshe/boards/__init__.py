"""Boards (板子): games a director writes as a file (docs/boards.md).

- `compile_board(text, source)` — a board file's text -> its `Ruleset` (`BoardError`, in Chinese,
  naming the file, line and field).
- `load_board(name_or_path_or_text)` — a registered board or ruleset by name (id, Chinese name,
  alias), a board file by path, or a board file's text.
- `list_boards()` — every board: the built-in files (`builtin/*.yaml`: the three seeds and the
  standard boards) and those other packages declare under the entry point group `banshe.boards`
  (an entry point's object is a board file's path, its text, or a `Ruleset`).
- `board_text(name)` — the file of a listed board (`banshe boards show`).
- `register_text(text, source)` — compile and register an uploaded board (the director service:
  store the text with the game and register it again after a restart; same text, same board).

Importing this package registers the built-in boards with `banshe.rulesets.registry`, so every
adapter that names a ruleset (scenario files, `demo`, `simulate`, the service) accepts them; the
registry imports it on first use and asks `find_board` for a name it does not know (a path).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from banshe.engine.ruleset import Ruleset
from banshe.rulesets import registry

from .compiler import BoardError, compile_board

BUILTIN = Path(__file__).parent / "builtin"
ENTRY_POINT_GROUP = "banshe.boards"
_log = logging.getLogger("banshe")


@dataclass(frozen=True)
class BoardInfo:
    ruleset: Ruleset
    source: str  # "内置", a path, or "入口点 <name>"
    text: str  # the board file


_BOARDS: dict[str, BoardInfo] = {}  # ruleset id -> its board
_BY_PATH: dict[tuple[str, str], Ruleset] = {}  # (resolved path, text) -> compiled


def _register(rs: Ruleset, source: str, text: str) -> Ruleset:
    known = registry.registered(rs.id)
    if known is None:
        registry.register(rs)
        known = rs
    _BOARDS.setdefault(rs.id, BoardInfo(known, source, text))
    return known


def _load_builtin() -> None:
    for path in sorted(BUILTIN.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        rs = compile_board(text, f"内置板子 {path.name}")
        _register(rs, "内置", text)


def _load_entry_points() -> None:
    try:
        found = metadata.entry_points(group=ENTRY_POINT_GROUP)
    except Exception:  # a broken installed distribution must not stop the built-in boards
        return
    for ep in found:
        try:
            obj: Any = ep.load()
            if callable(obj) and not isinstance(obj, Ruleset):
                obj = obj()
            if isinstance(obj, Ruleset):
                _register(obj, f"入口点 {ep.name}", "")
            elif isinstance(obj, Path) or (isinstance(obj, str) and "\n" not in obj):
                text = Path(obj).read_text(encoding="utf-8")
                _register(compile_board(text, str(obj)), f"入口点 {ep.name}", text)
            elif isinstance(obj, str):
                _register(compile_board(obj, f"入口点 {ep.name}"), f"入口点 {ep.name}", obj)
        except Exception as exc:  # another package's broken board must not stop the built-in ones
            _log.warning("入口点 %s 的板子无法加载：%s", ep.name, exc)


def list_boards() -> list[BoardInfo]:
    """Every listed board, built-in first, in file order."""
    return list(_BOARDS.values())


def board_text(name: str) -> str:
    """The board file of a listed board (by id, Chinese name or alias). Raises KeyError."""
    rs = registry.find_ruleset(name)
    info = _BOARDS.get(rs.id)
    if info is None or not info.text:
        raise KeyError(name)
    return info.text


def load_file(path: str | Path) -> Ruleset:
    """A board file by path; the same file (same text) gives the same `Ruleset`. A board whose
    id is not registered yet is registered (so the simulator's workers and a game's saved
    ruleset id find it again); the file a built-in board shows is that board."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BoardError(f"{p}：无法读取板子文件（{exc}）") from None
    key = (str(p.resolve()), text)
    rs = _BY_PATH.get(key)
    if rs is None:
        rs = register_text(text, str(p))
        _BY_PATH[key] = rs
    return rs


def register_text(text: str, source: str = "<上传的板子>") -> Ruleset:
    """Compile a board file's text and register it (the service's uploaded board, a saved game's
    board after a restart): a board registered with the same text is returned as it is; a board
    whose id or name another board already has is refused (`BoardError`: a game stores its
    board's id, and everything finds the board again by it)."""
    rs = compile_board(text, source)
    known = registry.registered(rs.id)
    if known is not None and _same_board(known, text):
        return known  # the file a built-in board shows: it plays as the built-in one
    _claim(rs, known, source)
    registry.register(rs)
    _BOARDS.setdefault(rs.id, BoardInfo(rs, source, text))
    return rs


def _claim(rs: Ruleset, known: Ruleset | None, source: str) -> None:
    """A board file's id and name must be its own: a game stores its board's id, and the pages,
    the simulator's workers and the forum bridge find the board again by it."""
    if known is not None:
        where = _BOARDS[known.id].source if known.id in _BOARDS else "已登记的规则"
        raise BoardError(f"{source}：id “{rs.id}”已被板子“{known.name}”（{where}）使用：改过的板子请换一个 id 和 board")
    for other in registry.all_rulesets():
        if rs.name == other.name or rs.name in other.aliases:
            raise BoardError(f"{source}：板子名“{rs.name}”已被“{other.name}”（{other.id}）使用，请换一个 board 名")


def _same_board(rs: Ruleset, text: str) -> bool:
    info = _BOARDS.get(rs.id)
    return info is not None and info.text == text


def find_board(name: str) -> Ruleset | None:
    """For the registry: a board file's path (None: `name` names no file)."""
    if not name.endswith((".yaml", ".yml")) and "/" not in name:
        return None
    if not Path(name).is_file():
        return None
    return load_file(name)


def load_board(name_or_path_or_text: str) -> Ruleset:
    """A board by name, by path or by its text. Raises `BoardError` (Chinese)."""
    value = name_or_path_or_text
    if "\n" in value:
        return compile_board(value, "<上传的板子>")
    try:
        return registry.find_ruleset(value)
    except KeyError:
        pass
    if Path(value).is_file():
        return load_file(value)
    raise BoardError(f"没有名为“{value}”的板子，也没有这个板子文件")


_load_builtin()
_load_entry_points()
registry.set_board_finder(find_board)

__all__ = [
    "BoardError",
    "BoardInfo",
    "board_text",
    "compile_board",
    "find_board",
    "list_boards",
    "load_board",
    "load_file",
    "register_text",
]
