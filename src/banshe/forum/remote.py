"""A Discuz! forum over the network, as a guest or as one account (the director's).

- `read_thread`: a thread's pages from its address, following its 下一页 links (on the same
  site), as this session sees them — logged in, the director reads hidden replies, 屏蔽 posts and
  read-restricted threads;
- `login`: through the forum's own login form (`member.php?mod=logging&action=login`, the
  `loginform_…` form with its formhash), as a person's browser does; a refusal carries Discuz!'s
  own message;
- `reply`: through the thread's reply form (`forum.php?mod=post&action=reply&tid=…`, the
  `postform` with its formhash), BBCode as given; the new post's address, pid and floor come
  back. When the thread already holds a post by this account with exactly this text, nothing
  is posted and that post is returned (`existing`): a resend never posts twice.

Every request goes through one `fetch.Fetcher` (checked connections, one deadline, byte caps).
Forms are sent back in the page's own encoding (a GBK forum gets GBK).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urljoin, urlparse

from lxml import html as lxml_html
from lxml.etree import ParserError, _Element

from .discuz import ForumError, Page, Thread, decode_with, discuz_message, parse_page
from .fetch import COMMAND_LINE, Fetched, Fetcher, FetchError, Limits, same_site

# BBCode tags Discuz!'s discuzcode turns into markup (their text stays)
_BBCODE = re.compile(
    r"\[/?(?:b|i|u|s|strike|color|size|font|align|backcolor|url|email|quote|code|hr|list|\*|p|indent|float"
    r"|table|tr|td|sup|sub|hide|free|qq)(?:=[^\]]*)?\]",
    re.I,
)


_VIEWTHREAD_LINK = re.compile(
    r"""(?:href|location\.href|window\.location(?:\.href)?)\s*=\s*['"]([^'"]*viewthread[^'"]*)"""
)


@dataclass(frozen=True, slots=True)
class Reply:
    """A post in the thread: the one just made, or the one a resend found (`existing`)."""

    url: str
    pid: int
    floor: int | None
    existing: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"url": self.url, "pid": self.pid, "floor": self.floor}
        if self.existing:
            out["existing"] = True
        return out


def forum_root(url: str) -> str:
    """The forum's base address (where forum.php and member.php are) from a thread's address."""
    return urljoin(url, ".")


def thread_id(url: str) -> int | None:
    """The tid of a thread address (`forum.php?mod=viewthread&tid=T`, or `thread-T-P-1.html`)."""
    query = parse_qs(urlparse(url).query)
    try:
        return int(query["tid"][0])
    except (KeyError, ValueError, IndexError):
        pass
    m = re.search(r"thread-(\d+)-\d+-\d+\.html", url)
    return int(m.group(1)) if m else None


def post_url(root: str, tid: int, pid: int) -> str:
    """Discuz!'s own address of one post (跳转到该帖)."""
    return f"{root}forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={pid}"


def plain_text(bbcode: str) -> str:
    """A message's text as the thread shows it, for comparing (BBCode tags and whitespace dropped)."""
    return _squash(_BBCODE.sub("", bbcode))


def _squash(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", unescape(text)).split())


def _document(text: str, source: str) -> _Element:
    try:
        return lxml_html.document_fromstring(text or "<html></html>")
    except (ParserError, ValueError):
        raise ForumError(f"{source}：不是可以读取的 HTML 页面") from None


def find_form(root: _Element, form_id: str) -> tuple[str, dict[str, str]] | None:
    """(action, fields) of the form whose id is form_id (or starts with it, for `loginform_…`),
    with every field a browser would send back (hidden ones included)."""
    for form in root.iter("form"):
        fid = form.get("id") or ""
        if fid != form_id and not fid.startswith(form_id + "_"):
            continue
        fields: dict[str, str] = {}
        for el in form.iter("input", "textarea", "select"):
            name = el.get("name")
            if not name or el.get("disabled") is not None:
                continue
            if el.tag == "input":
                kind = (el.get("type") or "text").lower()
                if kind in ("checkbox", "radio"):
                    if el.get("checked") is not None:
                        fields[name] = el.get("value") or "on"
                elif kind not in ("submit", "button", "image", "file", "reset"):
                    fields[name] = el.get("value") or ""
            elif el.tag == "textarea":
                fields[name] = el.text or ""
            else:
                options = list(el.iter("option"))
                picked = next((o for o in options if o.get("selected") is not None), options[0] if options else None)
                if picked is not None:
                    fields[name] = picked.get("value") or ""
        return form.get("action") or "", fields
    return None


class ForumSession:
    """One browser on one forum: a guest, or an account after `login`. One operation's limits."""

    def __init__(self, fetcher: Fetcher) -> None:
        self.fetcher = fetcher
        self.username: str | None = None

    @classmethod
    def open(cls, allow_private: bool, limits: Limits | None = None) -> ForumSession:
        return cls(Fetcher(allow_private=allow_private, limits=limits or Limits()))

    @classmethod
    def command_line(cls) -> ForumSession:
        """The command line's session: any address its user gives, generous limits."""
        return cls.open(allow_private=True, limits=COMMAND_LINE)

    def __enter__(self) -> ForumSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.fetcher.close()

    # -- reading ------------------------------------------------------------------------------
    def read_thread(self, url: str) -> list[Page]:
        """The thread's pages from its address, following 下一页 on the same site."""
        out: list[Page] = []
        seen: set[str] = set()
        next_url: str | None = url
        while next_url and next_url not in seen:
            if len(out) >= self.fetcher.limits.max_pages:
                raise ForumError(f"{url}：帖子超过 {self.fetcher.limits.max_pages} 页，没有读完")
            seen.add(next_url)
            got = self.fetcher.get(next_url)
            page = self._page(got, next_url)
            out.append(page)
            if page.next_url and not same_site(page.next_url, got.url):
                raise FetchError(f"下一页不在同一个网站：{page.next_url[:200]}")
            next_url = page.next_url
        return out

    def _page(self, got: Fetched, source: str) -> Page:
        text, _codec = decode_with(got.content, got.charset)
        if got.status != 200:
            message = discuz_message(_document(text, source)) if got.content else None
            if message:
                raise ForumError(f"{source}：论坛的提示：{message}")
            raise FetchError(f"服务器返回 {got.status}")
        return parse_page(text, source, got.url)

    # -- logging in -----------------------------------------------------------------------------
    def login(self, thread_or_forum_url: str, username: str, password: str) -> None:
        """Log in through the forum's login form; ForumError with Discuz!'s message when refused."""
        root = forum_root(thread_or_forum_url)
        got = self.fetcher.get(urljoin(root, "member.php"), {"mod": "logging", "action": "login"})
        text, codec = decode_with(got.content, got.charset)
        doc = _document(text, "登录页")
        form = find_form(doc, "loginform")
        if form is None:
            raise ForumError(f"论坛登录失败：{discuz_message(doc) or '找不到登录表单'}")
        action, fields = form
        fields.update({"username": username, "password": password, "questionid": "0", "answer": ""})
        fields.setdefault("loginfield", "username")
        answer = self.fetcher.post(urljoin(got.url, action), fields, codec)
        if not self._logged_in():
            answer_text, _ = decode_with(answer.content, answer.charset)
            message = discuz_message(_document(answer_text, "登录")) or "论坛没有接受登录"
            raise ForumError(f"论坛登录失败（{username}）：{message}")
        self.username = username

    def _logged_in(self) -> bool:
        return any(name.endswith("_auth") for name in self.fetcher.client.cookies)

    # -- posting --------------------------------------------------------------------------------
    def existing(self, url: str, text: str) -> Reply | None:
        """This account's post in the thread whose text is exactly `text` (the last one), if any."""
        if self.username is None:
            return None
        want = plain_text(text)
        me = _squash(self.username)
        found = [p for p in Thread(self.read_thread(url)).posts if _squash(p.author) == me and _squash(p.body) == want]
        if not found:
            return None
        post = found[-1]
        tid = post.tid or thread_id(url) or 0
        return Reply(post_url(forum_root(url), tid, post.pid), post.pid, post.floor, existing=True)

    def reply(self, url: str, message: str) -> Reply:
        """Reply in the thread through its reply form (after checking it does not hold the text)."""
        if self.username is None:
            raise ForumError("发帖需要先登录论坛")
        if not message.strip():
            raise ForumError("回复内容是空的")
        done = self.existing(url, message)
        if done is not None:
            return done
        root = forum_root(url)
        tid = thread_id(url)
        if tid is None:
            raise ForumError(f"{url}：地址中没有帖子编号（tid）")
        got = self.fetcher.get(urljoin(root, "forum.php"), {"mod": "post", "action": "reply", "tid": tid})
        text, codec = decode_with(got.content, got.charset)
        doc = _document(text, "回复页")
        form = find_form(doc, "postform")
        if form is None:
            raise ForumError(f"论坛拒绝回复：{discuz_message(doc) or '找不到回复表单'}")
        action, fields = form
        fields.update({"message": message, "wysiwyg": "0", "replysubmit": "yes"})
        answer = self.fetcher.post(urljoin(got.url, action), fields, codec)
        answer_text, _ = decode_with(answer.content, answer.charset)
        pid = _new_pid(answer, answer_text)
        if pid is None:
            message_text = discuz_message(_document(answer_text, "回复"))
            raise ForumError(f"论坛拒绝回复：{message_text or '论坛没有返回新帖的地址'}")
        return Reply(post_url(root, tid, pid), pid, self.floor_of(root, tid, pid))

    def floor_of(self, root: str, tid: int, pid: int) -> int | None:
        """The floor of one post, read from the page Discuz!'s 跳转 leads to."""
        got = self.fetcher.get(post_url(root, tid, pid))
        page = self._page(got, post_url(root, tid, pid))
        for post in Thread([page]).posts:
            if post.pid == pid:
                return post.floor
        return None


def _new_pid(answer: Fetched, text: str) -> int | None:
    """The new post's pid: from the redirects after the form, or the message page's link."""
    if 'class="alert_error"' in text:
        return None
    urls = [*answer.hops, answer.url]
    urls += _VIEWTHREAD_LINK.findall(text)
    for raw in urls:
        u = unescape(raw)
        query = parse_qs(urlparse(u).query)
        if "pid" in query and query["pid"][0].isdigit():
            return int(query["pid"][0])
        m = re.search(r"#pid(\d+)", u)
        if m:
            return int(m.group(1))
    return None


__all__ = ["ForumSession", "Reply", "find_form", "forum_root", "plain_text", "post_url", "thread_id"]
