"""Read Discuz! X thread pages (saved "save page as" HTML, or fetched) into posts.

The markup follows Discuz!'s own templates (template/default/forum/viewthread_node.htm and
viewthread_node_body.htm, the discuzcode rendering of [quote], [color], [size], [font]):

- each post is `div#post_PID` holding `table#pidPID`; its floor is the `a#postnumPID` label
  (`<em>7</em><sup>#</sup>`, or 楼主/沙发/板凳/地板), its author the `div.authi` link, its time
  `em#authorpostonPID` (recent posts show `N 小时前` / `昨天 HH:MM`, the full date in the span's
  title);
- the body is `td#postmessage_PID.t_f`; inside it `i.pstatus` is the edit notice
  (本帖最后由 … 于 … 编辑), `div.quote blockquote` a reply quote whose header links to the quoted
  post (`forum.php?mod=redirect&goto=findpost&pid=…`, Discuz! 7 `redirect.php?goto=findpost`),
  `<strong>回复 <a …findpost…>N#</a> <i>作者</i></strong>` the reply header, and `div.a_pr` an ad;
- 点评 (`div.cm`, `div.pstl`), rates and signatures (`div.sign`) sit outside the body.

A page is read in the encoding it declares (meta charset; GBK/GB2312 as GB18030). A page with
no Discuz! post on it is refused with a Chinese ForumError.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlparse

from lxml import html as lxml_html
from lxml.etree import ParserError, _Element

MAX_PAGES = 500

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
    """A post this one replies to: Discuz!'s quote block or its `回复 N#` header."""

    kind: str  # "quote" or "reply"
    pid: int | None
    floor: int | None
    author: str | None


@dataclass(slots=True)
class Post:
    pid: int
    floor: int
    author: str
    time: datetime
    body: str
    edited: bool = False
    edit_note: str | None = None
    quotes: list[QuoteRef] = field(default_factory=list)
    colors: list[str] = field(default_factory=list)
    sizes: list[str] = field(default_factory=list)
    faces: list[str] = field(default_factory=list)
    tid: int | None = None
    source: str = ""

    @property
    def time_text(self) -> str:
        return self.time.strftime("%Y-%m-%d %H:%M")


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
        """Every post once, thread by thread in the order given, by floor."""
        seen: set[int] = set()
        threads: dict[int | None, int] = {}
        out: list[Post] = []
        for page in self.pages:
            threads.setdefault(page.tid, len(threads))
            for post in page.posts:
                if post.pid not in seen:  # a stuck reply (置顶回复) also shows at the top of a page
                    seen.add(post.pid)
                    out.append(post)
        out.sort(key=lambda p: (threads.get(p.tid, 0), p.floor))
        return out

    @property
    def subject(self) -> str:
        return self.pages[0].subject if self.pages else ""

    def floor_of(self, pid: int) -> int | None:
        for post in self.posts:
            if post.pid == pid:
                return post.floor
        return None


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
    """The page's text in the encoding it declares (HTTP header, then meta), else UTF-8 or GB18030."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace")
    names = [declared] if declared else []
    m = _CHARSET.search(data[:4096])
    if m:
        names.append(m.group(1).decode("ascii", "replace"))
    for name in names:
        codec = _codec(name) if name else None
        if codec:
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                return data.decode(codec, "replace")
    for codec in ("utf-8", "gb18030"):
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", "replace")


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
    m = _DATE.search(text)
    if not m:
        return None
    y, mo, d, h, mi = (int(m.group(i)) for i in range(1, 6))
    try:
        return datetime(y, mo, d, h, mi)
    except ValueError:
        return None


# -- one post -------------------------------------------------------------------------------
def _floor(container: _Element, pid: int) -> int | None:
    for a in container.iter("a"):
        if a.get("id") == f"postnum{pid}":
            label = _clean(_all_text(a))
            label = label.replace("来自", " ")  # a stuck reply: 置顶 来自 N#
            for name, n in _FLOOR_NAMES.items():
                if name in label:
                    return n
            digits = re.findall(r"\d+", label)
            return int(digits[-1]) if digits else None
    return None


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


def _post_time(container: _Element, pid: int) -> datetime | None:
    for em in container.iter("em", "span"):
        if em.get("id") == f"authorposton{pid}":
            for span in em.iter("span"):
                title = span.get("title") or ""
                when = _parse_date(title)
                if when:
                    return when
            return _parse_date(_clean(_all_text(em)))
    return None


def _quote_ref(block: _Element) -> QuoteRef:
    pid = None
    for a in block.iter("a"):
        pid = _findpost_pid(a.get("href") or "")
        if pid is not None:
            break
    header = ""
    for font in block.iter("font"):
        if (font.get("size") or "") == "2":
            header = _clean(_all_text(font))
            break
    if not header:
        header = _clean(_all_text(block)).split("\n")[0]
    author = None
    m = re.match(r"\s*原帖由\s*(.+?)\s*于\s*\d{4}-", header) or re.match(r"\s*(.+?)\s*发表于\s*\d{4}-", header)
    if m:
        author = m.group(1).strip()
    return QuoteRef("quote", pid, None, author)


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


def _read_post(container: _Element, pid: int, source: str, tid: int | None) -> Post | None:
    td = None
    for el in container.iter("td", "div"):
        if el.get("id") == f"postmessage_{pid}":
            td = el
            break
    if td is None:
        return None  # a deleted post (帖子已删除) or one hidden from this viewer
    floor = _floor(container, pid)
    author = _author(container, pid)
    when = _post_time(container, pid)
    if author is None:
        author = _plain_author(container, pid)
    if author is None:
        raise ForumError(f"{source}：帖子 {pid} 找不到作者（div.authi）")
    if when is None:
        raise ForumError(f"{source}：帖子 {pid}（{author}）的发表时间无法识别")
    post = Post(pid=pid, floor=floor or 0, author=author, time=when, body="", tid=tid, source=source)
    _read_body(td, post)
    return post


def _read_touch_post(container: _Element, pid: int, source: str, tid: int | None) -> Post | None:
    """template/default/touch/forum/viewthread.htm: li.mtit (floor in span.y, author in span.z), li.mtime."""
    body = next((d for d in container.iter("div") if "message" in _classes(d)), None)
    if body is None:
        return None
    floor: int | None = None
    author: str | None = None
    when: datetime | None = None
    for li in container.iter("li"):
        cls = _classes(li)
        if "mtit" in cls:
            for span in li.iter("span"):
                text = _clean(_all_text(span))
                if "y" in _classes(span):
                    named = [n for name, n in _FLOOR_NAMES.items() if name in text]
                    digits = re.findall(r"\d+", text)
                    floor = named[0] if named else (int(digits[-1]) if digits else None)
                elif "z" in _classes(span) and text:
                    author = _name(_all_text(span))
        elif "mtime" in cls:
            for span in li.iter("span"):
                when = when or _parse_date(span.get("title") or "")
            when = when or _parse_date(_clean(_all_text(li)))
    if author is None or when is None:
        raise ForumError(f"{source}：帖子 {pid} 的作者或发表时间无法识别")
    post = Post(pid=pid, floor=floor or 0, author=author, time=when, body="", tid=tid, source=source)
    _read_body(body, post)
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
        post = _read_post(div, int(m.group(1)), source, tid)
        if post is not None:
            posts.append(post)
    if not posts:  # the mobile (touch) view: div.plc#pidPID, ul.authi, div.message
        for div in root.iter("div"):
            m = re.fullmatch(r"pid(\d+)", div.get("id") or "")
            if m and "plc" in _classes(div):
                post = _read_touch_post(div, int(m.group(1)), source, tid)
                if post is not None:
                    posts.append(post)
    if not posts:
        raise ForumError(f"{source}：不是 Discuz! 帖子页面（找不到任何楼层 div#post_…）")
    previous = 0
    for post in posts:
        if post.floor <= 0:
            post.floor = previous + 1  # an unreadable floor label follows the one before it
        previous = post.floor
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


def read_thread(sources: Sequence[str], timeout: float = 30.0) -> Thread:
    """Pages from files, folders (their .html files by page number) or http(s):// addresses."""
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
            pages.extend(fetch_thread(raw, timeout))
        else:
            files.append(raw)
    flush()
    if not pages:
        raise ForumError("没有给出帖子页面")
    return Thread(pages)


def fetch_thread(url: str, timeout: float = 30.0) -> Iterable[Page]:
    """A thread from its address, following its 下一页 links."""
    import httpx

    out: list[Page] = []
    seen: set[str] = set()
    next_url: str | None = url
    with httpx.Client(timeout=timeout, follow_redirects=True, headers={"User-Agent": "banshe forum count"}) as client:
        while next_url and next_url not in seen and len(out) < MAX_PAGES:
            seen.add(next_url)
            try:
                response = client.get(next_url)
            except httpx.HTTPError as exc:
                raise ForumError(f"{next_url}：无法打开（{exc.__class__.__name__}）") from None
            if response.status_code != 200:
                raise ForumError(f"{next_url}：服务器返回 {response.status_code}")
            page = parse_page(decode_page(response.content, response.charset_encoding), next_url, str(response.url))
            out.append(page)
            next_url = page.next_url
    return out


__all__ = ["ForumError", "Page", "Post", "QuoteRef", "Thread", "decode_page", "parse_page", "read_thread"]
