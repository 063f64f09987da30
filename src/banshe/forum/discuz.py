"""Read Discuz! X thread pages (saved "save page as" HTML, or fetched) into posts.

The markup follows Discuz!'s own templates (template/default/forum/viewthread_node.htm and
viewthread_node_body.htm, the discuzcode rendering of [quote], [color], [size], [font]) as a real
Discuz! X3.5 renders them (../shared/discuz):

- each post is `div#post_PID` holding `table#pidPID`; its floor is the `a#postnumPID` label
  (`<em>7</em><sup>#</sup>`, or 楼主/沙发/板凳/地板). Page 1 repeats a 置顶回复 (label `顶 来自 12#`)
  and each 热门回复 (label `推荐`, no number) after floor 1: a post is taken once (by pid), at the
  floor its own label gives; a copy without a number never decides a floor or the order;
- its author is the `div.authi` link, its time `em#authorpostonPID` (recent posts show
  `N 小时前` / `昨天 HH:MM`, the full date with seconds in the span's title);
- the body is `td#postmessage_PID.t_f`; inside it `i.pstatus` is the edit notice
  (本帖最后由 … 于 … 编辑), `div.quote blockquote` a reply quote whose header links to the quoted
  post (`forum.php?mod=redirect&goto=findpost&pid=…`, Discuz! 7 `redirect.php?goto=findpost`; the
  phone version's header has no link: `作者 发表于 YYYY-M-D HH:MM` in grey),
  `<strong>回复 <a …findpost…>N#</a> <i>作者</i></strong>` the reply header, and `div.a_pr` an ad;
- `div.locked` where the body would be: 屏蔽 by a moderator ("该帖被管理员或版主屏蔽", the post
  stays with its floor, author and time) or a reply hidden from this reader ("此帖仅作者可见");
- 点评 (`div.cm`, `div.pstl`), rates and signatures (`div.sign`) sit outside the body;
- the phone (touch) version: `div.plc#pidPID`, `li.mtit` (floor, author), `li.mtime` (a relative
  time only, for a week), `div.message`.

A page is read in the encoding it declares (meta charset; GBK/GB2312 as GB18030) unless its bytes
say otherwise (a UTF-8 page labelled GBK is read as UTF-8). A Discuz! message page (`div#messagetext`:
no permission, a login wall, no such thread) is refused with Discuz!'s own message; any other
page with no post on it with a Chinese ForumError.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlparse

from lxml import html as lxml_html
from lxml.etree import ParserError, _Element

_FLOOR_NAMES = {"楼主": 1, "沙发": 2, "板凳": 3, "地板": 4}
_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?")
_EDIT = re.compile(r"本帖最后由\s*(?P<who>.*?)\s*于\s*(?P<when>\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2}(?::\d{2})?)\s*编辑")  # noqa: E501
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_\-]+)""", re.I)
_REPLY_FLOOR = re.compile(r"(\d+)\s*[#楼]")
_BLOCKS = {"div", "p", "li", "tr", "table", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "dd"}


class ForumError(Exception):
    """A page that cannot be read as a Discuz! thread (a one-line Chinese message)."""


@dataclass(frozen=True, slots=True)
class QuoteRef:
    """A post this one replies to: Discuz!'s quote block or its `回复 N#` header. A quote without a
    link (the phone version) names only its author and minute (`time`); `Thread` resolves it."""

    kind: str  # "quote" or "reply"
    pid: int | None
    floor: int | None
    author: str | None
    time: datetime | None = None


# what a page shows where a post's body would be (div.locked; div.quote on the phone version)
BANNED = "屏蔽"  # a moderator hid it (or its author was banned): the post stays, it is never a vote
HIDDEN = "仅作者可见"  # a reply the thread hides from this reader (回帖仅作者可见)


@dataclass(slots=True)
class Post:
    pid: int
    floor: int
    author: str
    time: datetime | None  # None: the page shows only a relative time (the phone version)
    body: str
    edited: bool = False
    edit_note: str | None = None
    quotes: list[QuoteRef] = field(default_factory=list)
    colors: list[str] = field(default_factory=list)
    sizes: list[str] = field(default_factory=list)
    faces: list[str] = field(default_factory=list)
    tid: int | None = None
    source: str = ""
    floor_known: bool = True  # False: a 推荐 copy, its floor label carries no number
    copy: bool = False  # a copy page 1 repeats (置顶回复 / 推荐), not the post's own place
    banned: str | None = None  # 屏蔽: the notice (a moderator reading it still sees the body)
    hidden: str | None = None  # a reply hidden from this reader: the notice (此帖仅作者可见), no body
    shown_time: str = ""  # the time as the page shows it

    @property
    def time_text(self) -> str:
        return self.time.strftime("%Y-%m-%d %H:%M") if self.time is not None else self.shown_time


@dataclass(slots=True)
class Page:
    source: str
    subject: str
    tid: int | None
    posts: list[Post]
    next_url: str | None = None


@dataclass(slots=True)
class Thread:
    pages: list[Page]

    @property
    def posts(self) -> list[Post]:
        """Every post once (by pid), thread by thread in the order given, by floor.

        Page 1 repeats a 置顶回复 (`顶 来自 N#`) and each 推荐 reply after floor 1; the post's own
        copy (its page, its floor label) is the one taken. A 推荐 copy is the only copy when its
        own page is page 1: its floor is then the one missing between the posts before and after
        it by pid (Discuz! numbers floors in posting order)."""
        chosen: dict[int, Post] = {}
        threads: dict[int | None, int] = {}
        last_page: set[int | None] = set()
        for page in self.pages:
            threads.setdefault(page.tid, len(threads))
            if page.next_url is None:
                last_page.add(page.tid)
            for post in page.posts:
                have = chosen.get(post.pid)
                if have is None or _better(post, have):
                    chosen[post.pid] = post
        out = list(chosen.values())
        for tid in threads:
            _place_unnumbered([p for p in out if p.tid == tid], tid in last_page)
        _resolve_plain_quotes(out)
        out.sort(key=lambda p: (threads.get(p.tid, 0), p.floor, p.pid))
        return out

    @property
    def subject(self) -> str:
        return self.pages[0].subject if self.pages else ""

    def floor_of(self, pid: int) -> int | None:
        for post in self.posts:
            if post.pid == pid:
                return post.floor
        return None


def _better(new: Post, have: Post) -> bool:
    """The copy to keep of a post shown twice: its own place over a copy, a numbered label first."""
    return (new.floor_known, not new.copy) > (have.floor_known, not have.copy)


def _place_unnumbered(posts: list[Post], complete: bool) -> None:
    """Give each 推荐 copy with no numbered copy the floor its pid leaves free (never renumbering)."""
    if all(p.floor_known for p in posts):
        return
    by_pid = sorted(posts, key=lambda p: p.pid)
    i = 0
    while i < len(by_pid):
        if by_pid[i].floor_known:
            i += 1
            continue
        j = i
        while j < len(by_pid) and not by_pid[j].floor_known:
            j += 1
        before = by_pid[i - 1].floor if i > 0 else 0
        if j < len(by_pid):
            after = by_pid[j].floor
        elif complete:
            after = before + (j - i) + 1
        else:
            pid = by_pid[i].pid
            raise ForumError(f"推荐帖（pid {pid}）的楼层在给出的页面中找不到：请给出帖子的全部页面")
        if after - before - 1 < j - i:  # (a deleted post may leave a wider gap: the order still holds)
            pid = by_pid[i].pid
            raise ForumError(f"推荐帖（pid {pid}）的楼层无法确定（{before}楼与{after}楼之间没有空位）")
        for k in range(i, j):
            by_pid[k].floor = before + (k - i) + 1
            by_pid[k].floor_known = True
        i = j


def _resolve_plain_quotes(posts: list[Post]) -> None:
    """A quote with no link (the phone version's `作者 发表于 YYYY-M-D HH:MM`) replies to the post
    that author posted in that minute, when exactly one post of the thread matches."""
    for post in posts:
        for n, q in enumerate(post.quotes):
            if q.pid is not None or q.floor is not None or q.author is None or q.time is None:
                continue
            want = _name_key(q.author)
            found = [
                p
                for p in posts
                if p.tid == post.tid
                and p.pid != post.pid
                and p.time is not None
                and _name_key(p.author) == want
                and p.time.replace(second=0) == q.time
            ]
            if len(found) == 1:
                post.quotes[n] = QuoteRef(q.kind, found[0].pid, None, q.author, q.time)


def _name_key(name: str) -> str:
    return unicodedata.normalize("NFKC", name).strip()


# -- decoding ---------------------------------------------------------------------------------
def _codec(name: str) -> str | None:
    low = name.strip().lower().replace("_", "-")
    if low in ("gbk", "gb2312", "gb-2312", "gb18030", "cp936", "x-gbk", "euc-cn"):
        return "gb18030"  # the superset Discuz!'s GBK pages decode under
    if low in ("utf-8", "utf8"):
        return "utf-8"
    if low == "big5":
        return "big5"
    return None


def decode_page(data: bytes, declared: str | None = None) -> str:
    """The page's text in the encoding it declares (HTTP header, then meta), else UTF-8 or GB18030.

    A page labelled GBK whose bytes are valid UTF-8 with multi-byte characters is UTF-8 (a
    GBK page's Chinese text is never valid UTF-8, while UTF-8 bytes decode as GB18030 into
    mojibake without an error); a page labelled UTF-8 that is not is tried as GB18030."""
    return decode_with(data, declared)[0]


def decode_with(data: bytes, declared: str | None = None) -> tuple[str, str]:
    """(text, codec) of a page (`decode_page`); the codec is the one its forms are sent back in."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace"), "utf-8"
    names = [declared] if declared else []
    m = _CHARSET.search(data[:4096])
    if m:
        names.append(m.group(1).decode("ascii", "replace"))
    codecs = [c for c in (_codec(n) for n in names if n) if c]
    if codecs and codecs[0] != "utf-8" and _is_utf8_text(data):
        return data.decode("utf-8"), "utf-8"
    for codec in codecs[:1] + ["utf-8", "gb18030"]:
        try:
            return data.decode(codec), codec
        except UnicodeDecodeError:
            continue
    codec = codecs[0] if codecs else "utf-8"
    return data.decode(codec, "replace"), codec


def _is_utf8_text(data: bytes) -> bool:
    """Valid UTF-8 holding at least one multi-byte character."""
    if data.isascii():
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# -- text helpers ---------------------------------------------------------------------------
def _clean(text: str) -> str:
    return unicodedata.normalize("NFKC", text.replace("\xa0", " ")).strip()


def _name(text: str) -> str:
    """An account name as shown (kept as written: the count matches names after NFKC)."""
    return re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip()


def _text_of(el: _Element) -> str:
    """The element's text as a reader sees it: <br> and block elements end lines."""
    parts: list[str] = []

    def walk(node: _Element) -> None:
        tag = node.tag if isinstance(node.tag, str) else ""
        if tag == "br":
            parts.append("\n")
        elif tag in ("script", "style"):
            pass
        else:
            if tag in _BLOCKS:
                parts.append("\n")
            if node.text:
                parts.append(node.text.replace("\n", " "))  # source line breaks are spaces in HTML
            for child in node:
                walk(child)
                if child.tail:
                    parts.append(child.tail.replace("\n", " "))
            if tag in _BLOCKS:
                parts.append("\n")

    walk(el)
    raw = "".join(parts).replace("\xa0", " ").replace("\r", "")
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in raw.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def _all_text(el: _Element) -> str:
    return "".join(str(t) for t in el.itertext())


def _drop(el: _Element) -> None:
    """Remove an element but keep its tail text in place."""
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail or ""
    prev = el.getprevious()
    if tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)


def _classes(el: _Element) -> set[str]:
    return set((el.get("class") or "").split())


def _findpost_pid(href: str) -> int | None:
    """The pid a Discuz! findpost link points at (forum.php?mod=redirect&goto=findpost / redirect.php)."""
    if "findpost" not in href:
        return None
    query = parse_qs(urlparse(href.replace("&amp;", "&")).query)
    try:
        return int(query["pid"][0])
    except (KeyError, ValueError, IndexError):
        return None


def _parse_date(text: str) -> datetime | None:
    """The first `YYYY-M-D HH:MM[:SS]` in a text (seconds count where the page gives them)."""
    m = _DATE.search(text)
    if not m:
        return None
    y, mo, d, h, mi = (int(m.group(i)) for i in range(1, 6))
    sec = int(m.group(6)) if m.group(6) else 0
    try:
        return datetime(y, mo, d, h, mi, sec)
    except ValueError:
        return None


def discuz_message(root: _Element) -> str | None:
    """The text of a Discuz! message page (`div#messagetext`: no permission, a login wall, no such
    thread, a refused login or post), or None."""
    for div in root.iter("div"):
        if div.get("id") == "messagetext":
            texts = [_name(_all_text(p)) for p in div.iter("p") if not _classes(p) & {"alert_btnleft"}]
            text = " ".join(t for t in texts if t) or _name(_all_text(div))  # Discuz!'s words as written
            return re.sub(r"\s+", " ", text).strip() or None
    return None


# -- one post -------------------------------------------------------------------------------
def _floor_label(label: str) -> tuple[int | None, bool]:
    """(floor, copy) of a floor label: `7#`, 楼主/沙发/板凳/地板, `顶 来自 12#` (a 置顶回复's copy),
    `推荐` (a 热门回复's copy, no floor)."""
    label = _clean(label)
    copy = "来自" in label or "推荐" in label
    if "来自" in label:
        label = label.split("来自", 1)[1]
    for name, n in _FLOOR_NAMES.items():
        if name in label:
            return n, copy
    digits = re.findall(r"\d+", label)
    return (int(digits[-1]) if digits else None), copy


def _floor(container: _Element, pid: int) -> tuple[int | None, bool]:
    for a in container.iter("a"):
        if a.get("id") == f"postnum{pid}":
            return _floor_label(_all_text(a))
    return None, False


def _author(container: _Element, pid: int) -> str | None:
    for el in container.iter("div"):
        if el.get("id") == f"favatar{pid}":
            for authi in el.iter("div"):
                if "authi" in _classes(authi):
                    for a in authi.iter("a"):
                        name = _name(_all_text(a))
                        if name:
                            return name
            for strong in el.iter("strong"):
                name = _name(_all_text(strong))
                if name:
                    return name
    for authi in container.iter("div"):
        if not _classes(authi) & {"authi", "postinfo"}:  # X: div.authi; Discuz! 7: td.postauthor div.postinfo
            continue
        for a in authi.iter("a"):
            href = a.get("href") or ""
            if "space" in href and "uid=" in href and "authorid" not in href:
                name = _name(_all_text(a))
                if name:
                    return name
    return None


def _plain_author(container: _Element, pid: int) -> str | None:
    """An author with no space link: 匿名, a guest, a deleted member (Discuz! 7's td.postauthor too)."""
    for el in container.iter("div", "td"):
        cls = _classes(el)
        if el.get("id") == f"favatar{pid}" or "postauthor" in cls:
            for info in el.iter("div"):
                if _classes(info) & {"pi", "postinfo"}:
                    text = _name(_all_text(info)).split(" ")[0]
                    if text:
                        return text
    return None


def _post_time(container: _Element, pid: int) -> tuple[datetime | None, str]:
    """(the full time, the text shown): recent posts show `N 小时前` with the date in a title."""
    for em in container.iter("em", "span"):
        if em.get("id") == f"authorposton{pid}":
            shown = _clean(_all_text(em)).removeprefix("发表于").strip()
            for span in em.iter("span"):
                when = _parse_date(span.get("title") or "")
                if when:
                    return when, shown
            return _parse_date(shown), shown
    return None, ""


def _quote_ref(block: _Element) -> QuoteRef:
    pid = None
    for a in block.iter("a"):
        pid = _findpost_pid(a.get("href") or "")
        if pid is not None:
            break
    header = ""
    for font in block.iter("font"):
        if (font.get("size") or "") == "2" or (font.get("color") or "").lower() == "#999999":
            header = _clean(_all_text(font))  # the phone version: the grey header with no link
            break
    if not header:
        header = _clean(_text_of(block)).split("\n")[0]
    author = None
    m = re.match(r"\s*原帖由\s*(.+?)\s*于\s*\d{4}-", header) or re.match(r"\s*(.+?)\s*发表于\s*\d{4}-", header)
    if m:
        author = m.group(1).strip()
    when = _parse_date(header) if author else None
    return QuoteRef("quote", pid, None, author, when.replace(second=0) if when else None)


def _reply_header(strong: _Element) -> QuoteRef | None:
    text = _clean(_all_text(strong))
    if not text.startswith("回复"):
        return None
    pid = None
    floor = None
    for a in strong.iter("a"):
        pid = pid or _findpost_pid(a.get("href") or "")
        m = _REPLY_FLOOR.search(_clean(_all_text(a)))
        if m and floor is None:
            floor = int(m.group(1))
    if floor is None:
        m = _REPLY_FLOOR.search(text)
        if m:
            floor = int(m.group(1))
    if pid is None and floor is None:
        return None
    author = None
    for i in strong.iter("i"):
        author = _clean(_all_text(i)) or None
    return QuoteRef("reply", pid, floor, author)


def _style_props(style: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for decl in style.split(";"):
        key, sep, value = decl.partition(":")
        if sep:
            out[key.strip().lower()] = value.strip()
    return out


def _read_body(td: _Element, post: Post) -> None:
    for el in list(td.iter("div", "blockquote")):
        if el.getparent() is None:
            continue
        if (el.tag == "div" and "quote" in _classes(el)) or (el.tag == "blockquote" and not _inside_quote(el)):
            post.quotes.append(_quote_ref(el))
            _drop(el)
    for el in list(td.iter()):
        if not isinstance(el.tag, str):
            continue
        cls = _classes(el)
        style = (el.get("style") or "").replace(" ", "").lower()
        if el.tag == "i" and "pstatus" in cls:
            note = _clean(_all_text(el))
            if _EDIT.search(note):
                post.edit_note = note
                post.edited = True
            _drop(el)
        elif el.tag in ("script", "style") or "jammer" in cls or "display:none" in style:
            _drop(el)  # Discuz!'s anti-copy 干扰码 and hidden text are not the post
        elif el.tag == "div" and cls & {"a_pr", "a_pt", "a_pb", "sign", "cm", "pstl", "attach_nopermission", "locked"}:
            _drop(el)
    for strong in list(td.iter("strong", "b")):
        ref = _reply_header(strong)
        if ref is not None:
            post.quotes.append(ref)
            _drop(strong)
    for el in td.iter():
        if not isinstance(el.tag, str):
            continue
        props = _style_props(el.get("style") or "")
        if el.tag == "font":
            if el.get("color"):
                post.colors.append(el.get("color") or "")
            if el.get("size"):
                post.sizes.append(el.get("size") or "")
            if el.get("face"):
                post.faces.append(el.get("face") or "")
        if "color" in props:
            post.colors.append(props["color"])
        if "font-size" in props:
            post.sizes.append(props["font-size"])
        if "font-family" in props:
            post.faces.append(props["font-family"])
    post.body = _text_of(td)


def _inside_quote(el: _Element) -> bool:
    parent = el.getparent()
    while parent is not None:
        if parent.tag == "div" and "quote" in _classes(parent):
            return True
        parent = parent.getparent()
    return False


def _notices(container: _Element, body: _Element | None, tag_class: tuple[str, str]) -> tuple[str | None, str | None]:
    """(屏蔽 notice, hidden-reply notice) shown where the body is, outside the body itself
    (a [hide] block inside a body is also a div.locked, and is the post's own text)."""
    banned = hidden = None
    tag, cls = tag_class
    for el in container.iter(tag):
        if cls not in _classes(el) or (body is not None and _is_within(el, body)):
            continue
        if el.find(".//blockquote") is not None:
            continue
        text = _clean(_all_text(el))
        if BANNED in text and banned is None:
            banned = text.removeprefix("提示:").strip()
        elif HIDDEN in text and hidden is None:
            hidden = text
    return banned, hidden


def _is_within(el: _Element, ancestor: _Element) -> bool:
    node: _Element | None = el
    while node is not None:
        if node is ancestor:
            return True
        node = node.getparent()
    return False


def _read_post(container: _Element, pid: int, source: str, tid: int | None) -> Post:
    td = None
    for el in container.iter("td", "div"):
        if el.get("id") == f"postmessage_{pid}":
            td = el
            break
    banned, hidden = _notices(container, td, ("div", "locked"))
    floor, copy = _floor(container, pid)
    author = _author(container, pid)
    when, shown = _post_time(container, pid)
    if author is None:
        author = _plain_author(container, pid)
    if author is None:
        raise ForumError(f"{source}：帖子 {pid} 找不到作者（div.authi）")
    if when is None and not shown:
        raise ForumError(f"{source}：帖子 {pid}（{author}）的发表时间无法识别")
    post = Post(pid=pid, floor=floor or 0, author=author, time=when, body="", tid=tid, source=source)
    post.floor_known, post.copy, post.shown_time, post.banned = floor is not None, copy, shown, banned
    if td is not None:
        _read_body(td, post)
    elif hidden is not None:
        post.hidden = hidden
    elif banned is None:
        post.banned = "正文不在页面上"  # nothing dropped silently: the post stays, never a vote
    return post


def _read_touch_post(container: _Element, pid: int, source: str, tid: int | None) -> Post | None:
    """template/default/touch/forum/viewthread.htm: li.mtit (floor in span.y, author in span.z),
    li.mtime (a relative time for a week: `3&nbsp;天前`, then the full date), div.message."""
    body = next((d for d in container.iter("div") if "message" in _classes(d)), None)
    if body is None:
        return None
    floor: int | None = None
    copy = False
    author: str | None = None
    when: datetime | None = None
    shown = ""
    for li in container.iter("li"):
        cls = _classes(li)
        if "mtit" in cls:
            for span in li.iter("span"):
                text = _all_text(span)
                if "y" in _classes(span):
                    floor, copy = _floor_label(text)
                elif "z" in _classes(span) and text.strip():
                    author = _name(text)
        elif "mtime" in cls:
            for span in li.iter("span"):
                when = when or _parse_date(span.get("title") or "")
            own = "".join([li.text or ""] + [(c.tail or "") for c in li] + [_all_text(c) for c in li if c.get("title")])
            shown = _clean(own)
            when = when or _parse_date(shown)
    if author is None or (when is None and not shown):
        raise ForumError(f"{source}：帖子 {pid} 的作者或发表时间无法识别")
    notices = [d for d in body if isinstance(d.tag, str) and d.tag == "div" and "quote" in _classes(d)]
    banned, hidden = _notices(body, None, ("div", "quote")) if notices else (None, None)
    post = Post(pid=pid, floor=floor or 0, author=author, time=when, body="", tid=tid, source=source)
    post.floor_known, post.copy, post.shown_time, post.banned = floor is not None, copy, shown, banned
    for d in notices:
        text = _clean(_all_text(d))
        if d.find(".//blockquote") is None and (BANNED in text or HIDDEN in text):
            _drop(d)
    _read_body(body, post)
    if hidden is not None and not post.body:
        post.hidden = hidden
    return post


# -- a page -----------------------------------------------------------------------------------
def parse_page(text: str, source: str = "<page>", base_url: str | None = None) -> Page:
    """One Discuz! viewthread page; ForumError when it is not one."""
    try:
        root = lxml_html.document_fromstring(text)
    except (ParserError, ValueError) as exc:
        raise ForumError(f"{source}：不是可以读取的 HTML 页面（{exc}）") from None
    found = root.xpath('//*[@id="thread_subject"]')
    subject_el = found[0] if isinstance(found, list) and found and isinstance(found[0], _Element) else None
    subject = _clean(_all_text(subject_el)) if subject_el is not None else ""
    if not subject:
        titles = root.findall(".//title")
        subject = _clean(_all_text(titles[0])).split(" - ")[0] if titles else ""
    tid = _thread_id(root)
    posts: list[Post] = []
    for div in root.iter("div"):
        m = re.fullmatch(r"post_(\d+)", div.get("id") or "")
        if not m:
            continue
        posts.append(_read_post(div, int(m.group(1)), source, tid))
    if not posts:  # the mobile (touch) view: div.plc#pidPID, ul.authi, div.message
        for div in root.iter("div"):
            m = re.fullmatch(r"pid(\d+)", div.get("id") or "")
            if m and "plc" in _classes(div):
                post = _read_touch_post(div, int(m.group(1)), source, tid)
                if post is not None:
                    posts.append(post)
    if not posts:
        message = discuz_message(root)
        if message:
            raise ForumError(f"{source}：论坛的提示：{message}")
        raise ForumError(f"{source}：不是 Discuz! 帖子页面（找不到任何楼层 div#post_…）")
    return Page(source, subject, tid, posts, _next_url(root, base_url))


def _thread_id(root: _Element) -> int | None:
    for link in root.iter("link", "a"):
        href = link.get("href") or ""
        if "tid=" in href and ("viewthread" in href or link.tag == "link"):
            query = parse_qs(urlparse(href.replace("&amp;", "&")).query)
            try:
                return int(query["tid"][0])
            except (KeyError, ValueError, IndexError):
                continue
        m = re.search(r"thread-(\d+)-\d+-\d+\.html", href)
        if m:
            return int(m.group(1))
    return None


def _next_url(root: _Element, base_url: str | None) -> str | None:
    for a in root.iter("a"):
        if "nxt" in _classes(a) and a.get("href"):
            href = a.get("href") or ""
            if href.startswith("javascript"):
                continue
            base = base_url or ""
            bases = root.findall(".//base")
            if bases and bases[0].get("href"):
                base = urljoin(base, bases[0].get("href") or "")
            return urljoin(base, href) if base else href
    return None


# -- sources ----------------------------------------------------------------------------------
def _page_files(paths: Sequence[str]) -> list[Path]:
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(
                (f for f in p.iterdir() if f.suffix.lower() in (".html", ".htm")),
                key=lambda f: (_page_number(f.name), f.name),
            )
            if not found:
                raise ForumError(f"{p}：文件夹中没有 .html 页面")
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise ForumError(f"{p}：找不到这个文件")
    return out


def _page_number(name: str) -> int:
    digits = re.findall(r"\d+", name)
    return int(digits[-1]) if digits else 0


def read_thread(sources: Sequence[str], fetch: Callable[[str], list[Page]] | None = None) -> Thread:
    """Pages from files, folders (their .html files by page number) or http(s):// addresses
    (read by `fetch`, e.g. a logged-in `remote.ForumSession.read_thread`; by default as a guest
    with the command line's limits)."""
    pages: list[Page] = []
    files: list[str] = []

    def flush() -> None:
        for f in _page_files(files):
            try:
                data = f.read_bytes()
            except OSError as exc:
                raise ForumError(f"{f}：无法读取文件（{exc.strerror}）") from None
            pages.append(parse_page(decode_page(data), str(f)))
        files.clear()

    for raw in sources:
        if raw.startswith(("http://", "https://")):
            flush()
            if fetch is None:
                from .remote import ForumSession

                with ForumSession.command_line() as guest:
                    pages.extend(guest.read_thread(raw))
            else:
                pages.extend(fetch(raw))
        else:
            files.append(raw)
    flush()
    if not pages:
        raise ForumError("没有给出帖子页面")
    return Thread(pages)


__all__ = [
    "ForumError",
    "Page",
    "Post",
    "QuoteRef",
    "Thread",
    "decode_page",
    "decode_with",
    "discuz_message",
    "parse_page",
    "read_thread",
]
