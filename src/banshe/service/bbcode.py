"""One BBCode renderer for every 公示 the director copies to a Discuz! thread (issue 24): the god
view's pending and published 公示, 复制本日公示 and the forum desk all use it, in the director's
reserved style of the game's ruleset (its ThreadPolicy.director_font): the heading in red size 6,
the body in red (品茗, 感染) or in size 6 (沉寂与取酒, whose players may write in red)."""

from __future__ import annotations

from ..engine.ruleset import Ruleset
from ..rulesets.thread_policy import DIRECTOR_LARGE
from . import schedule as sched


def heading(phase: str) -> str:
    return f"[size=6][color=#FF0000][b]【{phase}公示】[/b][/color][/size]"


def body(rs: Ruleset, text: str) -> str:
    if sched.policy_for(rs).director_font == DIRECTOR_LARGE:
        return f"[size=6]{text}[/size]"
    return f"[color=#FF0000]{text}[/color]"


def announcement(rs: Ruleset, phase: str, text: str) -> str:
    """One 公示 as a post."""
    return f"{heading(phase)}\n{body(rs, text)}"


def day(rs: Ruleset, phase: str, texts: list[str]) -> str:
    """A phase's published 公示 (the 票型 with its result) as one post (复制本日公示)."""
    return "\n".join([heading(phase), *(body(rs, t) for t in texts)])
