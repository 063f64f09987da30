"""Seat names: one validation for created and imported games alike.

A name is what players write in vote posts (`投票对象：名字`, read after NFKC normalisation), so
two names that read the same after NFKC, or that differ only by invisible characters, would
let a vote for one land on the other. Such names are refused, as are the words the engine
reserves (导演, 弃权), empty and overlong names, and control / invisible / space characters.
"""

from __future__ import annotations

import unicodedata

from ..engine.commands import ABSTAIN, DIRECTOR

MAX_NAME = 32
# default-ignorable code points that render as nothing (Unicode DerivedCoreProperties), beyond
# the format (Cf) and control (Cc) categories refused anyway
_INVISIBLE = frozenset(
    [0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0]
    + list(range(0x180B, 0x1810))
    + list(range(0x200B, 0x2010))
    + list(range(0x202A, 0x202F))
    + list(range(0x2060, 0x2070))
    + list(range(0xFE00, 0xFE10))
    + [0xFEFF]
    + list(range(0x1BCA0, 0x1BCA4))
    + list(range(0x1D173, 0x1D17B))
    + list(range(0xE0000, 0xE1000))
)


def invisible(ch: str) -> bool:
    return ord(ch) in _INVISIBLE or unicodedata.category(ch)[0] in "CZ"


def key(text: str) -> str:
    """What a name reads as: NFKC, invisible characters and spaces removed (vote targets too)."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text) if not invisible(ch))


def check_name(name: str) -> str:
    """The name, stripped; ValueError (Chinese) when it cannot be a seat name."""
    name = name.strip()
    if not name:
        raise ValueError("角色名不能为空")
    if len(name) > MAX_NAME:
        raise ValueError(f"角色名过长（最多{MAX_NAME}个字符）：{name[:MAX_NAME]}…")
    bad = next((ch for ch in name if invisible(ch)), None)
    if bad is not None:
        raise ValueError(f"角色名“{key(name)}”含有控制字符、空白或不可见字符（U+{ord(bad):04X}）")
    if key(name) in (DIRECTOR, ABSTAIN):
        raise ValueError(f"角色名不可用：{name}（“{DIRECTOR}”“{ABSTAIN}”为保留词）")
    return name


def check_names(names: list[str]) -> list[str]:
    """Every name checked, and no two alike after NFKC (`Ａ`/`A`)."""
    out = [check_name(n) for n in names]
    seen: dict[str, str] = {}
    for n in out:
        k = key(n)
        if k in seen:
            if seen[k] == n:
                raise ValueError(f"玩家名字重复：{n}")
            raise ValueError(f"角色名“{seen[k]}”与“{n}”在投票帖中无法区分（全角/半角或兼容字符视为相同）")
        seen[k] = n
    return out
