"""Seat names: one validation for created and imported games alike; and what posts may not carry.

A name is what players write in vote posts (`投票对象：名字`, read after NFKC normalisation), so
two names that read the same after NFKC, or that differ only by invisible characters, would
let a vote for one land on the other. Such names are refused, as are the words the engine
reserves (导演, 弃权), empty and overlong names, and control / invisible / space characters.

Names that merely LOOK the same are refused too (issue 25): two names with one UTS #39 skeleton
(ICU's SpoofChecker: Latin "Anna" / Cyrillic "Аnna", "囗" / "口"), combining marks (a name
"Anna" + U+0301 beside "Anna"), and CJK radicals ("⻆" for "角": the radical blocks are not
text, and confusables.txt does not map every one).

Posts keep what the player typed, less what can only deceive (`clean_post`): bidi controls
(U+202E turns the rest of a line around) and stacked combining marks beyond three on one letter.
"""

from __future__ import annotations

import re
import unicodedata

import icu  # type: ignore[import-untyped]  # PyICU ships no type hints

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


# the bidi controls (UAX #9): embeddings, overrides, isolates and the marks
BIDI_CONTROLS = frozenset([0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
_BIDI = re.compile("[" + "".join(chr(c) for c in sorted(BIDI_CONTROLS)) + "]")
MAX_MARKS = 3  # combining marks kept on one letter in a post (Vietnamese and Thai need two or three)
_RADICALS = ((0x2E80, 0x2EFF), (0x2F00, 0x2FDF))  # CJK Radicals Supplement, Kangxi Radicals
_SPOOF = icu.SpoofChecker()


def invisible(ch: str) -> bool:
    return ord(ch) in _INVISIBLE or unicodedata.category(ch)[0] in "CZ"


def key(text: str) -> str:
    """What a name reads as: NFKC, invisible characters and spaces removed (vote targets too)."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text) if not invisible(ch))


def skeleton(name: str) -> str:
    """What a name looks like (UTS #39 skeleton of its vote-post reading `key`)."""
    return str(_SPOOF.getSkeleton(0, key(name)))


def check_name(name: str) -> str:
    """The name, stripped; ValueError (Chinese) when it cannot be a seat name."""
    name = name.strip()
    if not name:
        raise ValueError("角色名不能为空")
    if len(name) > MAX_NAME:
        raise ValueError(f"角色名过长（最多{MAX_NAME}个字符）：{name[:MAX_NAME]}…")
    bad = next((ch for ch in name if ord(ch) in BIDI_CONTROLS), None)
    if bad is not None:
        raise ValueError(f"角色名“{key(name)}”含有文字方向控制字符（U+{ord(bad):04X}）")
    bad = next((ch for ch in name if invisible(ch)), None)
    if bad is not None:
        raise ValueError(f"角色名“{key(name)}”含有控制字符、空白或不可见字符（U+{ord(bad):04X}）")
    bad = next((ch for ch in name if unicodedata.category(ch)[0] == "M"), None)
    if bad is not None:
        raise ValueError(f"角色名“{name}”含有组合附加符号（U+{ord(bad):04X}），请使用不带附加符号的写法")
    bad = next((ch for ch in name if any(lo <= ord(ch) <= hi for lo, hi in _RADICALS)), None)
    if bad is not None:
        raise ValueError(f"角色名“{name}”含有汉字部首符号“{bad}”（U+{ord(bad):04X}），请使用普通汉字")
    if key(name) in (DIRECTOR, ABSTAIN):
        raise ValueError(f"角色名不可用：{name}（“{DIRECTOR}”“{ABSTAIN}”为保留词）")
    return name


def check_names(names: list[str]) -> list[str]:
    """Every name checked, no two alike after NFKC (`Ａ`/`A`), none two that look alike (UTS #39)."""
    out = [check_name(n) for n in names]
    seen: dict[str, str] = {}
    looks: dict[str, str] = {}
    for n in out:
        k = key(n)
        if k in seen:
            if seen[k] == n:
                raise ValueError(f"玩家名字重复：{n}")
            raise ValueError(f"角色名“{seen[k]}”与“{n}”在投票帖中无法区分（全角/半角或兼容字符视为相同）")
        seen[k] = n
        shape = skeleton(n)
        if shape in looks:
            raise ValueError(
                f"角色名“{looks[shape]}”与“{n}”看起来相同（Unicode 易混淆字符，UTS #39），请改用能区分的名字"
            )
        looks[shape] = n
    return out


def clean_post(text: str) -> str:
    """A post's text less bidi controls and combining marks stacked beyond MAX_MARKS on a letter."""
    text = _BIDI.sub("", text)
    if text.isascii():
        return text
    out: list[str] = []
    run = 0
    for ch in text:
        if unicodedata.category(ch) in ("Mn", "Me"):
            run += 1
            if run > MAX_MARKS:
                continue
        else:
            run = 0
        out.append(ch)
    return "".join(out)
