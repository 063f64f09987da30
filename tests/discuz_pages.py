# ruff: noqa: E501
"""Build Discuz! X3-like thread pages for the forum tests (the structure of viewthread_node.htm).

Each page has the chrome a browser saves: header, navigation, an ad row, a sidebar, per-post
user cards, an a_pr ad inside the message cell, 点评 (div.cm / div.pstl), rates, signatures and
the 下一页 pager. `page()` returns the HTML text; `encode()` gives the bytes in the charset the
page declares.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

TID = 90001


@dataclass
class P:
    """One post: `body` is HTML as Discuz!'s discuzcode renders it."""

    author: str
    time: str  # "2026-12-2 10:31" (shown in a span title, as Discuz! does for recent posts)
    body: str
    floor: int = 0  # filled by page(): 1, 2, 3 … unless given
    pid: int = 0
    uid: int = 0
    edited: str | None = None  # "2026-12-2 11:00": an edit notice by the author at that time
    signature: str | None = None
    comments: list[tuple[str, str]] = field(default_factory=list)  # 点评 (author, text)
    relative: bool = True  # the date only in the span's title (N 小时前)
    author_on_left: bool = True


def pid_of(floor: int) -> int:
    return 3300000 + floor


def quote(author: str, time: str, floor: int, text: str, legacy: bool = False) -> str:
    """Discuz!'s [quote] of another post, with the findpost link to it (X3, or Discuz! 7's redirect.php)."""
    pid = pid_of(floor)
    if legacy:
        href = f"redirect.php?goto=findpost&amp;pid={pid}&amp;ptid={TID}"
        head = f"原帖由 <i>{escape(author)}</i> 于 {time} 发表"
        return (
            f'<div class="quote"><blockquote><font size="2"><font color="#999999">{head}</font> '
            f'<a href="{href}" target="_blank"><img src="images/common/back.gif" border="0" /></a></font><br />'
            f"{text}</blockquote></div><br />\n"
        )
    href = f"http://bbs.example.com/forum.php?mod=redirect&amp;goto=findpost&amp;pid={pid}&amp;ptid={TID}"
    return (
        f'<div class="quote"><blockquote><font size="2"><a href="{href}" target="_blank">'
        f'<font color="#999999">{escape(author)} 发表于 {time}</font></a></font><br />\n{text}</blockquote></div><br />\n'
    )


def reply_header(author: str, floor: int) -> str:
    """The `回复 N# 作者` header Discuz! writes for a reply to a floor."""
    href = f"forum.php?mod=redirect&amp;goto=findpost&amp;pid={pid_of(floor)}&amp;ptid={TID}"
    return f'<strong>回复 <a href="{href}" target="_blank">{floor}#</a> <i>{escape(author)}</i> </strong><br />\n'


def vote(target: str, reason: str = "理由", change: bool = False) -> str:
    word = "改票" if change else "投票"
    return f"{word}对象：{target}<br />\n{word}理由：{reason}"


_FLOOR_NAMES = {1: "楼主", 2: "沙发", 3: "板凳", 4: "地板"}


def _floor_label(floor: int) -> str:
    if floor in _FLOOR_NAMES:
        return _FLOOR_NAMES[floor]
    return f"<em>{floor}</em><sup>#</sup>"


def _post_html(p: P) -> str:
    uid = p.uid or 500000 + sum(ord(c) for c in p.author)
    href = (
        f"forum.php?mod=viewthread&amp;tid={TID}"
        if p.floor == 1
        else f"forum.php?mod=redirect&amp;goto=findpost&amp;ptid={TID}&amp;pid={p.pid}"
    )
    when = f'<span title="{p.time}">3&nbsp;小时前</span>' if p.relative else p.time
    left_author = (
        f'<div class="pi"><div class="authi"><a href="home.php?mod=space&amp;uid={uid}" target="_blank" '
        f'class="xw1">{escape(p.author)}</a></div></div>'
        if p.author_on_left
        else ""
    )
    top_author = (
        ""
        if p.author_on_left
        else f'<a href="home.php?mod=space&amp;uid={uid}" target="_blank" class="xi2">{escape(p.author)}</a>'
    )
    edit = (
        f'<i class="pstatus"> 本帖最后由 {escape(p.author)} 于 {p.edited} 编辑 </i><br />\n' if p.edited else ""
    )
    comments = ""
    if p.comments:
        rows = "".join(
            f'<div class="pstl xs1 cl"><div class="psta vm"><a href="home.php?mod=space&amp;uid=1" class="xi2 xw1">'
            f'{escape(a)}</a></div><div class="psti">{t}&nbsp;<span class="xg1">发表于 2026-12-2 12:00</span></div></div>'
            for a, t in p.comments
        )
        comments = f'<h3 class="psth xs1"><span class="icon_ring vm"></span>点评</h3>{rows}'
    sign = f'<div class="sign" style="max-height:100px;">{p.signature}</div>' if p.signature else ""
    return f"""<div id="post_{p.pid}" >
<table id="pid{p.pid}" class="plhin" summary="pid{p.pid}" cellspacing="0" cellpadding="0">
<tr>
<td class="pls" rowspan="2">
<div id="favatar{p.pid}" class="pls favatar">
{left_author}
<div class="p_pop blk bui card_gender_0" id="userinfo{p.pid}" style="display: none;">
<div class="i y"><div><strong><a href="home.php?mod=space&amp;uid={uid}" target="_blank" class="xi2">{escape(p.author)}</a></strong><em>当前离线</em></div></div>
</div>
<div class="tns xg2"><table cellspacing="0" cellpadding="0"><th><p><a href="#" class="xi2">12</a></p>主题</th></table></div>
<p><em><a href="home.php?mod=spacecp&amp;ac=usergroup&amp;gid=10" target="_blank">注册会员</a></em></p>
</div>
</td>
<td class="plc">
<div class="pi">
<strong>
<a href="{href}" id="postnum{p.pid}" onclick="setCopy(this.href, '帖子地址复制成功');return false;">
{_floor_label(p.floor)}</a>
</strong>
<div class="pti">
<div class="pdbt"></div>
<div class="authi">
<img class="authicn vm" id="authicon{p.pid}" src="static/image/common/online_member.gif" />
{top_author}
<em id="authorposton{p.pid}">发表于 {when}</em>
<span class="pipe">|</span><a href="forum.php?mod=viewthread&amp;tid={TID}&amp;page=1&amp;authorid={uid}" rel="nofollow">只看该作者</a>
</div>
</div>
</div><div class="pct"><style type="text/css">.pcb{{margin-right:0}}</style><div class="pcb">
<div class="t_fsz">
<table cellspacing="0" cellpadding="0"><tr><td class="t_f" id="postmessage_{p.pid}">
<div class="a_pr"><a href="plugin.php?id=ad" target="_blank">【推广】投票对象：广告 投票理由：广告</a></div>
{edit}{p.body}</td></tr></table>
</div>
<div id="comment_{p.pid}" class="cm">{comments}</div>
<div id="post_rate_div_{p.pid}"></div>
</div>
</div>
</td></tr>
<tr><td class="plc plm">{sign}</td></tr>
<tr id="_postposition{p.pid}"></tr>
<tr><td class="pls"></td><td class="plc" style="overflow:visible;"><div class="po hin"><div class="pob cl">
<em><a class="fastre" href="forum.php?mod=post&amp;action=reply&amp;tid={TID}&amp;repquote={p.pid}">回复</a></em>
</div></div></td></tr>
<tr class="ad"><td class="pls"></td><td class="plc"></td></tr>
</table>
</div>
"""


def page(
    posts: list[P],
    charset: str = "utf-8",
    subject: str = "[M196]品茗——第2天讨论帖",
    number: int = 1,
    pages: int = 1,
    first_floor: int = 1,
) -> str:
    """A whole saved page; floors count on from `first_floor` unless a post names its own."""
    floor = first_floor
    for p in posts:
        if not p.floor:
            p.floor = floor
        floor = p.floor + 1
        if not p.pid:
            p.pid = pid_of(p.floor)
    pager = ""
    if pages > 1:
        links = "".join(
            f"<strong>{n}</strong>" if n == number else f'<a href="forum.php?mod=viewthread&amp;tid={TID}&amp;page={n}">{n}</a>'
            for n in range(1, pages + 1)
        )
        nxt = (
            f'<a href="forum.php?mod=viewthread&amp;tid={TID}&amp;extra=&amp;page={number + 1}" class="nxt">下一页</a>'
            if number < pages
            else ""
        )
        pager = f'<div class="pgs mtm mbm cl"><div class="pg">{links}{nxt}</div></div>'
    body = "".join(_post_html(p) for p in posts)
    return f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
<meta http-equiv="Content-Type" content="text/html; charset={charset}" />
<title>{escape(subject)} - 版杀区 - 小镇 - Powered by Discuz!</title>
<link href="http://bbs.example.com/forum.php?mod=viewthread&amp;tid={TID}&amp;page={number}" rel="canonical" />
<meta name="generator" content="Discuz! X3.4" />
<base href="http://bbs.example.com/" />
</head>
<body id="nv_forum" class="pg_viewthread">
<div id="toptb" class="cl"><div class="wp"><a href="javascript:;">设为首页</a></div></div>
<div id="hd"><div class="wp"><div id="um"><strong class="vwmy"><a href="home.php?mod=space&amp;uid=1">访客甲</a></strong></div>
<div id="nv"><ul><li id="mn_forum"><a href="forum.php">论坛</a></li></ul></div></div></div>
<div class="wp a_t"><a href="plugin.php?id=ad&amp;slot=top" target="_blank">【公告】投票对象：广告</a></div>
<div id="wp" class="wp"><div id="ct" class="wp cl">
<div id="pgt" class="pgs mbm cl">{pager}</div>
<div id="postlist" class="pl bm">
<table cellspacing="0" cellpadding="0"><tr><td class="plc ptm pbn vwthd">
<h1 class="ts"><span id="thread_subject">{escape(subject)}</span></h1></td></tr></table>
{body}
<div id="postlistreply" class="pl"><div id="post_new" class="viewthread_table" style="display: none"></div></div>
</div>
{pager}
<div class="sd"><div class="bm"><div class="bm_h"><h2>热门主题</h2></div><ul><li><a href="forum.php?mod=viewthread&amp;tid=1">投票对象：侧栏</a></li></ul></div></div>
</div></div>
<div id="ft" class="wp cl"><p>Powered by <strong><a href="http://www.discuz.net" target="_blank">Discuz!</a></strong> <em>X3.4</em></p></div>
</body>
</html>
"""


def encode(text: str, charset: str = "utf-8") -> bytes:
    return text.encode("gb18030" if charset.lower() in ("gbk", "gb2312", "gb18030") else charset)
