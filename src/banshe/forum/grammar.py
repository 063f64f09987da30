"""Forum post grammar: the seed's vote and change-vote formats (pure, no engine or web).

    投票对象：饺子          改票对象：包子
    投票理由：饺子好吃      改票理由：包子也好吃

Punctuation is full- or half-width alike (the seed: 投票格式中标点符号不区分全半角), and the
reason may follow the target on the same line (投票对象与投票理由之间可以不换行).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

VOTE = "vote"
CHANGE_VOTE = "change_vote"

_LABELS = {VOTE: ("投票对象", "投票理由"), CHANGE_VOTE: ("改票对象", "改票理由")}
_TRAILING = " \t\r\n。，,.、;；!！?？"


class VoteFormatError(ValueError):
    """A post that tries to vote but breaks the format; `reason` is Chinese."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class VotePost:
    kind: str  # VOTE or CHANGE_VOTE
    target: str
    reason: str


def normalize(text: str) -> str:
    """Full-width letters, digits, colons and spaces become half-width (NFKC)."""
    return unicodedata.normalize("NFKC", text)


def parse_vote(text: str) -> VotePost | None:
    """The vote in `text`, or None when the post is not a vote post at all.

    Raises VoteFormatError when the post mentions a vote label but does not follow the format.
    """
    body = normalize(text).strip()
    mentions = [kind for kind, (obj, _r) in _LABELS.items() if obj in body]
    if not mentions:
        return None
    for kind, (obj, why) in _LABELS.items():
        if not body.startswith(obj):
            continue
        m = re.match(rf"{obj}\s*:(?P<target>.*?)(?:{why}\s*:(?P<reason>.*))?\Z", body, re.S)
        if m is None:
            raise VoteFormatError(f"格式有误：“{obj}”后面需要紧跟冒号")
        if m.group("reason") is None:
            raise VoteFormatError(f"格式有误：缺少“{why}：”一行")
        target = m.group("target").strip(_TRAILING)
        if not target:
            raise VoteFormatError(f"格式有误：{obj}为空（弃权请填写“弃权”）")
        if "\n" in target:
            raise VoteFormatError(f"格式有误：{obj}只能填写一名角色")
        return VotePost(kind, target, m.group("reason").strip())
    label = _LABELS[mentions[0]][0]
    raise VoteFormatError(f"格式有误：投票帖必须以“{label}：”开头")


def vote_kind_mentioned(text: str) -> str | None:
    """The kind of vote a post tries to make (its first label), or None when it names no label."""
    body = normalize(text)
    found = [(body.find(label), kind) for kind, labels in _LABELS.items() for label in labels if label in body]
    return min(found)[1] if found else None


def parse_post_vote(text: str) -> VotePost | None:
    """The vote in a forum post, whose vote lines may have other lines around them.

    Seed 002 投票格式: the 对象 label begins a line; the 理由 (and whatever follows it) runs to the
    end of the post. A label that does not begin a line, two vote blocks in one post, or a
    broken block raise VoteFormatError; a post with no label at all is None.
    """
    body = normalize(text)
    if vote_kind_mentioned(body) is None:
        return None
    starts = []
    offset = 0
    for line in body.splitlines(keepends=True):
        stripped = line.lstrip()
        for kind, (obj, _why) in _LABELS.items():
            if stripped.startswith(obj):
                starts.append((offset + len(line) - len(stripped), kind))
        offset += len(line)
    if len(starts) > 1:
        raise VoteFormatError("格式有误：一帖只能包含一个投票或改票")
    if not starts:
        return parse_vote(body)  # raises with the reason (the label must begin the post's vote lines)
    return parse_vote(body[starts[0][0] :])


