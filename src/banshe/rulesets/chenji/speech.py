"""沉寂与取酒's 癫狂 speech rule (seed 000, 角色状态: 癫狂状态), with the rulings of 2026-12-04.

癫狂状态：角色不能正常讨论，除“投票对象”外，只能使用表情以及以下16种汉字……空格符与回车符，不可使用其他
字符。Read (shared rulings): besides the 16 characters, spaces and line breaks, emoji and the forum's
表情 are allowed; a character name is allowed only as the target of a well-formed vote line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# the 16 characters a 癫狂 character may post, in the seed's order
MAD_TEXT = "啊嗷嘎咕呱哼咴叽啾喵咩哞喔汪喳吱"
MAD_CHARACTERS = frozenset(MAD_TEXT)
ABSTAIN = "弃权"
_BLANKS = frozenset(" \u3000")  # 空格符 (the ASCII and the full-width space)

# the forum's 表情: Discuz! X3.5's default set by code, and every other set's {:类型_编号:} code
FORUM_SMILIES = (
    ":loveliness:", ":funk:", ":curse:", ":dizzy:", ":shutup:", ":sleepy:", ":hug:", ":victory:",
    ":time:", ":kiss:", ":handshake", ":call:", ":lol", ":'(", ":)", ":(", ":D", ":@", ":o",
    ":P", ":$", ";P", ":L", ":Q",
)  # fmt: skip
_SMILIES = re.compile(r"\{:\d+_\d+:\}|" + "|".join(re.escape(code) for code in FORUM_SMILIES))
# a keycap emoji (1️⃣, #️⃣): its digit is part of the emoji
_KEYCAP = re.compile("[0-9#*]\ufe0f?\u20e3")

# Unicode's Extended_Pictographic code points (emoji-data.txt), and the emoji components: ZWJ,
# the variation selector, skin tones, regional indicators (flags), tags (subdivision flags)
_EMOJI_RANGES = (
    (0x00A9, 0x00A9), (0x00AE, 0x00AE), (0x200D, 0x200D), (0x203C, 0x203C), (0x2049, 0x2049),
    (0x2122, 0x2122), (0x2139, 0x2139), (0x2194, 0x2199), (0x21A9, 0x21AA), (0x231A, 0x231B),
    (0x2328, 0x2328), (0x2388, 0x2388), (0x23CF, 0x23CF), (0x23E9, 0x23F3), (0x23F8, 0x23FA),
    (0x24C2, 0x24C2), (0x25AA, 0x25AB), (0x25B6, 0x25B6), (0x25C0, 0x25C0), (0x25FB, 0x25FE),
    (0x2600, 0x2605), (0x2607, 0x2612), (0x2614, 0x2685), (0x2690, 0x2705), (0x2708, 0x2712),
    (0x2714, 0x2714), (0x2716, 0x2716), (0x271D, 0x271D), (0x2721, 0x2721), (0x2728, 0x2728),
    (0x2733, 0x2734), (0x2744, 0x2744), (0x2747, 0x2747), (0x274C, 0x274C), (0x274E, 0x274E),
    (0x2753, 0x2755), (0x2757, 0x2757), (0x2763, 0x2767), (0x2795, 0x2797), (0x27A1, 0x27A1),
    (0x27B0, 0x27B0), (0x27BF, 0x27BF), (0x2934, 0x2935), (0x2B05, 0x2B07), (0x2B1B, 0x2B1C),
    (0x2B50, 0x2B50), (0x2B55, 0x2B55), (0x3030, 0x3030), (0x303D, 0x303D), (0x3297, 0x3297),
    (0x3299, 0x3299), (0xFE0F, 0xFE0F), (0x1F000, 0x1F0FF), (0x1F10D, 0x1F10F), (0x1F12F, 0x1F12F),
    (0x1F16C, 0x1F171), (0x1F17E, 0x1F17F), (0x1F18E, 0x1F18E), (0x1F191, 0x1F19A),
    (0x1F1AD, 0x1F1FF), (0x1F201, 0x1F20F), (0x1F21A, 0x1F21A), (0x1F22F, 0x1F22F),
    (0x1F232, 0x1F23A), (0x1F23C, 0x1F23F), (0x1F249, 0x1F53D), (0x1F546, 0x1F64F),
    (0x1F680, 0x1F6FF), (0x1F774, 0x1F77F), (0x1F7D5, 0x1F7FF), (0x1F80C, 0x1F80F),
    (0x1F848, 0x1F84F), (0x1F85A, 0x1F85F), (0x1F888, 0x1F88F), (0x1F8AE, 0x1F8FF),
    (0x1F90C, 0x1F93A), (0x1F93C, 0x1F945), (0x1F947, 0x1FAFF), (0x1FC00, 0x1FFFD),
    (0xE0020, 0xE007F),
)  # fmt: skip

# a vote post's lines (the vote format's labels are not speech: 除“投票对象”外)
_TARGET_LINE = re.compile(r"[ \u3000]*(?:投票|改票)对象[ \u3000]*[：:][ \u3000]*(?P<target>.*?)[ \u3000]*")
_REASON_LINE = re.compile(r"[ \u3000]*(?:投票|改票)理由[ \u3000]*[：:](?P<rest>.*)")


def is_emoji(ch: str) -> bool:
    """One code point of an emoji (pictograph or emoji component)."""
    cp = ord(ch)
    if cp < 0xA9:
        return False
    return any(lo <= cp <= hi for lo, hi in _EMOJI_RANGES)


def _odd_character(speech: str) -> str | None:
    """The first character 癫狂 speech may not use, or None: the 16 characters, spaces, emoji and
    the forum's 表情 only."""
    speech = _KEYCAP.sub("", _SMILIES.sub("", speech))
    for ch in speech:
        if ch not in MAD_CHARACTERS and ch not in _BLANKS and not is_emoji(ch):
            return ch
    return None


def mad_speech_refusal(text: str, names: Iterable[str] = ()) -> str | None:
    """Why `text` breaks the 癫狂 speech rule, or None when it keeps it. `names`: the characters a
    vote line may name (its target, or 弃权); a name anywhere else is speech like any other word."""
    targets = {*names, ABSTAIN}
    for number, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
        vote = _TARGET_LINE.fullmatch(line)
        if vote is not None and vote.group("target") in targets:
            continue  # a well-formed vote line: its target is the one name allowed
        reason = _REASON_LINE.fullmatch(line)
        speech = reason.group("rest") if reason is not None else (vote.group("target") if vote else line)
        odd = _odd_character(speech)
        if odd is not None:
            where = f"第{number}行" if "\n" in text or "\r" in text else "发言"
            shown = odd if odd.isprintable() and not odd.isspace() else f"U+{ord(odd):04X}"
            return (
                f"你处于癫狂状态，只能使用表情、“{MAD_TEXT}”、空格与换行发言；"
                f"角色名只能写在投票对象一行（{where}中的“{shown}”不允许）"
            )
    return None


def is_allowed_mad_post(text: str, vote_targets: Iterable[str] = ()) -> bool:
    """True when `text` keeps the 癫狂 speech rule (`mad_speech_refusal`)."""
    return mad_speech_refusal(text, vote_targets) is None
