"""Forum post grammar: the seed's vote and change-vote formats (pure, no engine or web).

    投票对象：饺子          改票对象：包子
    投票理由：饺子好吃      改票理由：包子也好吃

Punctuation is full- or half-width alike (the seed: 投票格式中标点符号不区分全半角), and the
reason may follow the target on the same line (投票对象与投票理由之间可以不换行).

Near-misses of a label (traditional or variant characters after NFKC: 投票對象, 投票对像, 頭票对象,
改票對象; spaces inside the label) are malformed votes, refused with the reason, never taken as an
ordinary post (seed 002: 投票格式…有误的票无效。无效票须通过重新发帖来更正).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

VOTE = "vote"
CHANGE_VOTE = "change_vote"

_LABELS = {VOTE: ("投票对象", "投票理由"), CHANGE_VOTE: ("改票对象", "改票理由")}
_TRAILING = " \t\r\n。，,.、;；!！?？"

# the label characters and their traditional / variant / look-alike forms (after NFKC)
_VARIANTS = {"投": "投頭头", "改": "改攺", "票": "票", "对": "对對対", "象": "象像", "理": "理", "由": "由"}
# colon look-alikes NFKC leaves alone (：and ﹕ already become ":")
_ODD_COLONS = "∶︰;；ː꞉˸᠄"


def _fuzzy(label: str) -> re.Pattern[str]:
    return re.compile(r"[ \t\u3000]*".join(f"[{_VARIANTS.get(c, c)}]" for c in label))


_FUZZY = {label: _fuzzy(label) for labels in _LABELS.values() for label in labels}


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


def _near_miss(body: str) -> None:
    """Raise when `body` (normalized) writes a label with variant characters or spaces inside."""
    for labels in _LABELS.values():
        for label in labels:
            for m in _FUZZY[label].finditer(body):
                if m.group() != label:
                    raise VoteFormatError(f"格式有误：“{m.group()}”应写作“{label}”（请按投票格式重新发帖）")


def parse_vote(text: str) -> VotePost | None:
    """The vote in `text`, or None when the post is not a vote post at all.

    Raises VoteFormatError when the post mentions a vote label but does not follow the format
    (a near-miss label included).
    """
    body = normalize(text).strip()
    _near_miss(body)
    mentions = [kind for kind, (obj, _r) in _LABELS.items() if obj in body]
    if not mentions:
        return None
    for kind, (obj, why) in _LABELS.items():
        if not body.startswith(obj):
            continue
        m = re.match(rf"{obj}\s*:(?P<target>.*?)(?:{why}\s*:(?P<reason>.*))?\Z", body, re.S)
        if m is None:
            after = body[len(obj) :].lstrip()
            if after[:1] and after[0] in _ODD_COLONS:
                raise VoteFormatError(f"格式有误：“{obj}”后面需要紧跟冒号“：”（写成了“{after[0]}”）")
            raise VoteFormatError(f"格式有误：“{obj}”后面需要紧跟冒号“：”")
        if m.group("reason") is None:
            if why in body:
                raise VoteFormatError(f"格式有误：“{why}”后面需要紧跟冒号“：”")
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
    """The kind of vote a post tries to make (its first label, near-misses included), or None
    when it names no label."""
    body = normalize(text)
    found = [
        (m.start(), kind)
        for kind, labels in _LABELS.items()
        for label in labels
        if (m := _FUZZY[label].search(body)) is not None
    ]
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
    _near_miss(body)
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


