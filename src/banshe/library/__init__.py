"""The role library: each known role written once (`roles/`), the flow the library's boards share
(`flow`), their typed game data (`state`) and the `Ruleset` a board compiles to (`board`).

Above the engine, below the boards (`banshe.boards` compiles a board file onto it)."""

from .board import Board
from .role import LibraryRole, Param
from .roles import LIBRARY, find_role

__all__ = ["LIBRARY", "Board", "LibraryRole", "Param", "find_role"]
