"""Real threads on the local Discuz! for the forum bridge's contract (../shared/spec/forum-count.md).

Each builder plays one situation through the forum's own forms (the characters' accounts, the
phone version, a moderator's 屏蔽 and 置顶, 支持, a hidden-reply thread, a read-restricted one,
the forum's clock) and says how to read it and what the count must give. tests/live/test_count_live.py
counts each thread live and from its saved pages; with BANSHE_FORUM_FIXTURES=write it saves
them as tests/forum_real/NAME/ (game.yaml, pageN.html, args.txt, expect.json, notes.md), the
offline fixtures of tests/test_forum_real.py.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

GAME = """\
# The game behind the real-forum fixtures: 品茗 with the forum's accounts as its seats.
# 第1天: 一号 3 votes -> sheriff. 第1夜: 五号 kills 十二号. The fixtures count 第2天.
ruleset: 品茗
players: [一号, 二号, 三号, 四号, 五号, 六号, 七号, 八号, 九号, 十号, 十一号, 十二号, 十三号, 十四号]
roles:
  一号: 预言家
  二号: 狼人
  三号: 村民
  四号: 女巫
  五号: 狼人
  六号: 村民
  七号: 猎人
  八号: 狼人
  九号: 白痴
  十号: 村民
  十一号: 狼人
  十二号: 村民
  十三号: 混血儿
  十四号: 病娇
phases:
  - phase: 开局
    inputs:
      - [十三号, 认亲, 三号]
  - phase: 第1天
    inputs:
      - [三号, 投票, 一号]
      - [四号, 投票, 一号]
      - [六号, 投票, 一号]
      - [二号, 投票, 五号]
  - phase: 第1夜
    inputs:
      - [一号, 预言, 二号]
      - [五号, 杀人, 十二号]
"""
HOT_REPLIES = {"repliesrank": "1", "threadhotreplies": "3"}  # 支持/反对 buttons, up to 3 推荐 copies
OFF = {"repliesrank": "0", "threadhotreplies": "0"}  # the board's defaults
OPENING = "[color=#FF0000][b]【第2天】公示[/b][/color]\n第1夜十二号出局。第2天开始，请大家发言、投票。"
NIGHT_OUT = ["十二号", "第1夜", "杀人"]


def vote(target: str, reason: str = "发言有问题", change: bool = False) -> str:
    word = "改票" if change else "投票"
    return f"{word}对象：{target}\n{word}理由：{reason}"


@dataclass
class Made:
    """A thread made on the forum, how to read it, and what the count must give."""

    tid: int
    expect: dict[str, Any]
    notes: str
    args: list[str] = field(default_factory=lambda: ["--day", "2"])
    reader: str | None = None  # the account the pages are read as (None: a guest)
    mobile: bool = False  # the phone (touch) version
    url: str = ""
    table: list[str] = field(default_factory=list)  # texts `--table` must print
    live: dict[str, Any] | None = None  # what the count from the address gives, when it differs


class Board:
    """The forum with one logged-in browser per account (logging in is the slow part)."""

    def __init__(self, discuz: ModuleType, shared: Path) -> None:
        self.discuz = discuz
        self.forum = discuz.Forum()
        self.shared = shared
        self._sessions: dict[tuple[str | None, bool], Any] = {}

    def as_(self, name: str | None, mobile: bool = False) -> Any:
        key = (name, mobile)
        if key not in self._sessions:
            self._sessions[key] = self.forum.login(name, mobile=mobile) if name else self.forum.guest(mobile)
        return self._sessions[key]

    def close(self) -> None:
        for session in self._sessions.values():
            session.close()

    def at(self, when: str) -> None:
        self.forum.set_clock(when)

    def post(self, name: str, tid: int, text: str, when: str, quote: int | None = None, mobile: bool = False) -> int:
        self.at(when)
        pid: int = self.as_(name, mobile).reply(tid, text, quote=quote)
        return pid

    def thread(self, when: str, subject: str = "第2天讨论帖", text: str = OPENING, **extra: str) -> int:
        """A new thread by 导演 (extra: more fields of the 发帖 form, e.g. hiddenreplies=1)."""
        self.at(when)
        director = self.as_("导演")
        if not extra:
            tid: int = director.new_thread(subject, text)[0]
            return tid
        fields = {"subject": subject, "message": text, "wysiwyg": "0", **extra}
        where = {"mod": "post", "action": "newthread", "fid": self.forum.fid}
        r = director._submit(where, "postform", fields, "topicsubmit")
        tid = director._ids(r)["tid"]
        return tid

    def settings(self, **values: str) -> None:
        cmd = [str(self.shared / "discuz" / "settings.sh"), *(f"{k}={v}" for k, v in values.items())]
        subprocess.run(cmd, check=True, capture_output=True, env=dict(os.environ))

    def pages(self, tid: int, reader: str | None, mobile: bool) -> list[bytes]:
        """Every page of the thread as `reader` sees it, as the browser received it."""
        session = self.as_(reader, mobile)
        params: dict[str, Any] = {"mod": "viewthread", "tid": tid, "extra": "page=1", "page": 1}
        if mobile:
            params["mobile"] = "2"
        first = session.http.get("forum.php", params=params).content
        count = self.discuz.page_count(first.decode("utf-8", "replace"))
        out = [first]
        for n in range(2, count + 1):
            out.append(session.http.get("forum.php", params={**params, "page": n}).content)
        return out

    def url(self, tid: int, mobile: bool) -> str:
        url: str = self.forum.thread_url(tid)
        return url + ("&mobile=2" if mobile else "")


def hot_and_stuck(b: Board) -> Made:
    """推荐 and 置顶 copies on page 1 (issue 23, 1); the board's 支持 and 热门回复 are on (`HOT_REPLIES`)."""
    tid = b.thread("2026-12-02 09:00")
    p = {1: 0}
    plan: list[tuple[int, str, str, int | None]] = [
        (2, "三号", vote("二号"), None),
        (3, "四号", "我先听听大家的发言再说。", None),
        (4, "五号", vote("一号"), None),
        (5, "六号", vote("二号"), None),
        (6, "七号", "七号发言：昨晚很安静。", None),
        (7, "二号", vote("一号", "警长带队太乱"), None),
        (8, "八号", "八号发言：跟票警长。", None),
        (9, "九号", vote("二号"), None),
        (10, "十号", "十号发言：二号可疑。", None),
        (11, "十一号", vote("一号"), None),
        (12, "三号", vote("五号", "被说服了", change=True), 2),
        (13, "十三号", vote("二号"), None),
        (14, "五号", vote("二号", "改投二号", change=True), 4),
        (15, "七号", vote("十一号"), None),
        (16, "八号", vote("一号"), None),
    ]
    for floor, name, text, quoted in plan:
        when = f"2026-12-02 09:{floor * 3:02d}:00"
        p[floor] = b.post(name, tid, text, when, quote=p[quoted] if quoted else None)
    b.at("2026-12-02 12:00")
    b.as_("admin").stick_reply(tid, p[9])
    for name in ("一号", "四号", "十号"):
        b.as_(name).support(tid, p[12])
    for name in ("一号", "四号"):
        b.as_(name).support(tid, p[14])
    b.as_("一号").support(tid, p[7])
    expect = {
        "day": "第2天",
        "floors": list(range(1, 17)),
        "inputs": [
            ["三号", "投票", "二号"],
            ["五号", "投票", "一号"],
            ["六号", "投票", "二号"],
            ["二号", "投票", "一号"],
            ["九号", "投票", "二号"],
            ["十一号", "投票", "一号"],
            ["三号", "改票", "五号"],
            ["十三号", "投票", "二号"],
            ["五号", "改票", "二号"],
            ["七号", "投票", "十一号"],
            ["八号", "投票", "一号"],
        ],
        "refused": {},
        "kinds": {"7": "vote", "9": "vote", "12": "change_vote", "14": "change_vote"},
        "post_counts": {"三号": 2, "五号": 2, "七号": 2, "二号": 1},
        "transcript": {"outs": [NIGHT_OUT, ["二号", "第2天", "投票"]], "sheriff": [["第1天", "一号"]]},
    }
    notes = (
        "Page 1 repeats 9# (置顶回复, label `顶 来自 9#`) and the 推荐 replies 12#, 14#, 7# (label `推荐`, no "
        "number) after floor 1. 12# and 14# also stay on page 2 at their own floors; 7# is on page 1, so "
        "it is shown once, as the copy, and the number 7 appears nowhere. Read once each, at their own "
        "floors (7# from the gap between 6# and 8#), the two 改票 come after their votes: 二号 4 "
        "(六号、九号、十三号、五号's change) against 一号 3. Numbering the copies 2, 3, 4 puts both 改票 "
        "before their votes (refused) and ties 二号 and 一号."
    )
    return Made(tid, expect, notes)


def _banned_thread(b: Board) -> int:
    tid = b.thread("2026-12-02 10:00")
    b.post("三号", tid, vote("二号"), "2026-12-02 10:10:00")
    banned_vote = b.post("四号", tid, vote("五号"), "2026-12-02 10:20:00")
    ghost = b.post("十二号", tid, "我是十二号，出局了还想说几句。", "2026-12-02 10:30:00")
    b.post("四号", tid, vote("二号", "重新投票"), "2026-12-02 10:40:00")
    b.post("五号", tid, "五号发言：四号的票被屏蔽了。", "2026-12-02 10:50:00")
    b.at("2026-12-02 11:00")
    admin = b.as_("admin")
    admin.ban_post(tid, banned_vote)
    admin.ban_post(tid, ghost)
    return tid


_BANNED_EXPECT = {
    "day": "第2天",
    "floors": [1, 2, 3, 4, 5, 6],
    "banned": [3, 4],
    "inputs": [["三号", "投票", "二号"], ["四号", "投票", "二号"]],
    "refused": {},
    "kinds": {"3": "post", "4": "post", "5": "vote"},
    "times": {"3": "2026-12-02 10:20", "4": "2026-12-02 10:30"},
    "post_counts": {"四号": 2, "三号": 1, "五号": 1},
    "post_flags": {"4": ["诈尸"], "3": []},
    "flags_present": [["十二号", "诈尸"]],
}


def banned_guest(b: Board) -> Made:
    """屏蔽 posts as a guest sees them: floor, author and time, no body (issue 23, 2)."""
    tid = _banned_thread(b)
    notes = (
        "A moderator hid (屏蔽) 四号's vote at 3# and the out 十二号's post at 4#: a guest sees "
        "`div.locked` 该帖被管理员或版主屏蔽 where the body would be. Both stay posts of the day "
        "(floor, author, time, post count; 4# flagged 诈尸); neither is a vote, so 四号's 5# is "
        "the first vote."
    )
    return Made(tid, dict(_BANNED_EXPECT), notes)


def banned_moderator(b: Board) -> Made:
    """屏蔽 posts as the administrator sees them: the body shows, it is still not a vote."""
    tid = _banned_thread(b)
    notes = (
        "The same 屏蔽 thread read as the administrator: Discuz! shows the hidden bodies under "
        "`div.locked` 该帖被管理员或版主屏蔽，只有管理员或有管理权限的成员可见. 3# is still not a vote."
    )
    return Made(tid, dict(_BANNED_EXPECT), notes, reader="admin")


def _hidden_thread(b: Board) -> int:
    tid = b.thread("2026-12-02 11:00", "第2天投票帖（回帖仅作者可见）", hiddenreplies="1")
    v3 = b.post("三号", tid, vote("二号"), "2026-12-02 11:10:00")
    b.post("四号", tid, vote("二号"), "2026-12-02 11:20:00")
    b.post("五号", tid, vote("三号"), "2026-12-02 11:30:00")
    b.post("三号", tid, vote("五号", change=True), "2026-12-02 11:40:00", quote=v3)
    return tid


def hidden_guest(b: Board) -> Made:
    """A half-public vote thread (回帖仅作者可见) read as a guest: refused (issue 23, 2)."""
    tid = _hidden_thread(b)
    notes = "回帖仅作者可见: a guest sees `div.locked` 此帖仅作者可见 for every reply; the count is refused."
    return Made(tid, {"error": "此帖仅作者可见"}, notes)


def hidden_director(b: Board) -> Made:
    """The same thread read by its author, the director (`--login 导演`): every reply counts."""
    tid = _hidden_thread(b)
    expect = {
        "day": "第2天",
        "floors": [1, 2, 3, 4, 5],
        "inputs": [
            ["三号", "投票", "二号"],
            ["四号", "投票", "二号"],
            ["五号", "投票", "三号"],
            ["三号", "改票", "五号"],
        ],
        "refused": {},
    }
    notes = "The hidden-reply thread read by its author 导演, who sees every reply."
    return Made(tid, expect, notes, reader="导演")


def phone_quote(b: Board) -> Made:
    """改票 posted from the phone: the quote header has no link (issue 23, 3)."""
    tid = b.thread("2026-12-02 09:00")
    v3 = b.post("三号", tid, vote("二号"), "2026-12-02 09:10:00")
    v5 = b.post("五号", tid, vote("三号"), "2026-12-02 09:20:05")
    b.post("五号", tid, "五号补充：三号昨天的发言很奇怪。", "2026-12-02 09:20:40")
    b.post("三号", tid, vote("四号", "手机改票", change=True), "2026-12-02 09:40:00", quote=v3, mobile=True)
    b.post("五号", tid, vote("一号", "手机改票", change=True), "2026-12-02 09:50:00", quote=v5, mobile=True)
    expect = {
        "day": "第2天",
        "floors": [1, 2, 3, 4, 5, 6],
        "inputs": [["三号", "投票", "二号"], ["五号", "投票", "三号"], ["三号", "改票", "四号"]],
        "refused": {"6": "没有回复任何楼层"},
    }
    notes = (
        "5# and 6# were posted from the phone version: their quote header is `三号 发表于 2026-12-2 09:10` "
        "in grey, with no link. 三号 posted once in that minute, so 5# replies to 2#; 五号 posted twice "
        "in 09:20 (3# and 4#), so 6#'s quote identifies no single post and its 改票 is refused."
    )
    return Made(tid, expect, notes)


def seconds(b: Board) -> Made:
    """Post times with seconds around the close and the last hour (issue 23, 4)."""
    tid = b.thread("2026-12-02 19:00:00")
    v3 = b.post("三号", tid, vote("二号"), "2026-12-02 19:30:00")
    v6 = b.post("六号", tid, vote("二号"), "2026-12-02 19:40:00")
    b.post("六号", tid, vote("五号", change=True), "2026-12-02 19:59:50", quote=v6)
    b.post("三号", tid, vote("五号", change=True), "2026-12-02 20:00:30", quote=v3)
    b.post("四号", tid, vote("五号"), "2026-12-02 20:59:50")
    b.post("五号", tid, vote("二号"), "2026-12-02 21:00:30")
    expect = {
        "day": "第2天",
        "floors": [1, 2, 3, 4, 5, 6, 7],
        "inputs": [
            ["三号", "投票", "二号"],
            ["六号", "投票", "二号"],
            ["六号", "改票", "五号"],
            ["四号", "投票", "五号"],
        ],
        "refused": {"5": "关门前一小时", "7": "关门"},
        "times": {"5": "2026-12-02 20:00", "7": "2026-12-02 21:00"},
        "post_counts": {"五号": 0, "六号": 2, "三号": 2},
    }
    notes = (
        "--close 21:00. The page gives seconds (`2026-12-2 20:00:30` in the title): 5#'s 改票 at "
        "20:00:30 is inside the last hour (20:00 < t ≤ 21:00), 4#'s at 19:59:50 is not; 7#'s vote "
        "at 21:00:30 is after the close and does not count as a post."
    )
    return Made(tid, expect, notes, args=["--day", "2", "--close", "2026-12-02 21:00"])


def no_permission(b: Board) -> Made:
    """A read-restricted thread: Discuz!'s own message (`div#messagetext`) (issue 23, 5)."""
    b.at("2026-12-02 09:00")
    admin = b.as_("admin")
    fields = {"subject": "第2天讨论帖（阅读权限）", "message": OPENING, "wysiwyg": "0", "readperm": "200"}
    r = admin._submit({"mod": "post", "action": "newthread", "fid": b.forum.fid}, "postform", fields, "topicsubmit")
    tid: int = admin._ids(r)["tid"]
    notes = "A thread with 阅读权限 200 read as a guest: Discuz! answers with its message page."
    return Made(tid, {"error": "抱歉，本帖要求阅读权限高于 200 才能浏览"}, notes)


def _phone_thread(b: Board) -> int:
    tid = b.thread("2026-12-02 09:00")
    v3 = b.post("三号", tid, vote("二号"), "2026-12-02 09:10:00", mobile=True)
    b.post("四号", tid, vote("三号"), "2026-12-02 09:20:00", mobile=True)
    b.post("三号", tid, vote("四号", "手机改票", change=True), "2026-12-02 09:30:00", quote=v3, mobile=True)
    b.post("十号", tid, "十号用手机发言。", "2026-12-02 09:40:00", mobile=True)
    return tid


_PHONE_EXPECT = {
    "day": "第2天",
    "floors": [1, 2, 3, 4, 5],
    "inputs": [["三号", "投票", "二号"], ["四号", "投票", "三号"], ["三号", "改票", "四号"]],
    "refused": {},
    "times": {"2": "2026-12-02 09:10", "4": "2026-12-02 09:30"},
}
_PHONE_LIVE = (
    " Counted from its address, banshe gets the desktop pages (Discuz! sends a browser that is not a"
    " phone from `mobile=2` to `mobile=no`), which carry the full times."
)


def phone_recent(b: Board) -> Made:
    """The phone version within a week: relative times only, refused (issue 23, 5)."""
    tid = _phone_thread(b)
    b.at("2026-12-03 10:00")
    notes = "The phone version read the next day: `li.mtime` says `昨天 09:10`, no full time." + _PHONE_LIVE
    return Made(tid, {"error": "只显示相对时间"}, notes, mobile=True, live=dict(_PHONE_EXPECT))


def phone_old(b: Board) -> Made:
    """The phone version after a week: full times, read like the desktop pages."""
    tid = _phone_thread(b)
    b.at("2026-12-11 10:00")
    notes = "The phone version nine days later: `li.mtime` gives `2026-12-2 09:10:00`; 4#'s quote has no link."
    return Made(tid, dict(_PHONE_EXPECT), notes + _PHONE_LIVE, mobile=True)


def jammer_sheriff_out(b: Board) -> Made:
    """The anti-scraping jammer on every line; the sheriff voted out (`--table`, issue 23, 5)."""
    b.at("2026-12-02 09:00")
    tid: int = b.as_("导演").new_thread("第2天讨论帖", OPENING, fid=b.forum.jammer_fid)[0]
    voters = ["二号", "五号", "八号", "十一号", "三号"]
    first = 0
    for i, name in enumerate(voters):
        pid = b.post(name, tid, vote("一号", "第一行理由\n第二行理由"), f"2026-12-02 09:{10 + i:02d}:00")
        first = first or pid
    b.post("四号", tid, vote("二号"), "2026-12-02 09:30:00")
    b.post("二号", tid, "回复三号：\n我觉得你也很可疑\n第三行", "2026-12-02 09:40:00", quote=first)
    expect = {
        "day": "第2天",
        "floors": [1, 2, 3, 4, 5, 6, 7, 8],
        "inputs": [[n, "投票", "一号"] for n in voters] + [["四号", "投票", "二号"]],
        "refused": {},
        "post_counts": {"二号": 2},
        "transcript": {
            "outs": [NIGHT_OUT, ["一号", "第2天", "投票"]],
            "sheriff": [["第1天", "一号"], ["第2天", None]],
        },
    }
    notes = (
        "版杀·防采集 (jammer on): every line break of every post gets random hidden text "
        "(`font.jammer`, `display:none`), different on every load. The sheriff 一号 is voted out and, "
        "with no 殉职 choice, the badge is torn: `--table` says 警长：无（警徽撕毁）."
    )
    return Made(tid, expect, notes, table=["警长：无（警徽撕毁）"])


BUILDERS: dict[str, Callable[[Board], Made]] = {
    "01_hot_and_stuck": hot_and_stuck,
    "02_banned_guest": banned_guest,
    "03_banned_moderator": banned_moderator,
    "04_hidden_guest": hidden_guest,
    "05_hidden_director": hidden_director,
    "06_phone_quote": phone_quote,
    "07_seconds": seconds,
    "08_no_permission": no_permission,
    "09_phone_recent": phone_recent,
    "10_phone_old": phone_old,
    "11_jammer_sheriff_out": jammer_sheriff_out,
}
