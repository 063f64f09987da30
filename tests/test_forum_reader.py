"""Reading Discuz! X pages (banshe.forum.discuz): encodings, floors, authors, times, quotes, chrome."""

from __future__ import annotations

from pathlib import Path

import pytest

from banshe.forum.discuz import ForumError, Thread, decode_page, parse_page, read_thread

from .discuz_pages import TID, P, encode, page, pid_of, quote, reply_header, vote


def _write(tmp: Path, name: str, html: str, charset: str = "utf-8") -> Path:
    path = tmp / name
    path.write_bytes(encode(html, charset))
    return path


@pytest.mark.parametrize("charset", ["gbk", "GB2312", "gb18030", "utf-8"])
def test_pages_are_read_in_the_encoding_they_declare(tmp_path: Path, charset: str) -> None:
    posts = [P("导演", "2026-12-2 09:00", "【第2天】公示"), P("饺子", "2026-12-2 10:31", vote("包子", "皮薄馅大"))]
    html = page(posts, charset)
    thread = read_thread([str(_write(tmp_path, "p.html", html, charset))])
    assert [(p.floor, p.author, p.body) for p in thread.posts] == [
        (1, "导演", "【第2天】公示"),
        (2, "饺子", "投票对象：包子\n投票理由：皮薄馅大"),
    ]
    assert thread.subject == "[M196]品茗——第2天讨论帖"
    assert thread.pages[0].tid == TID


def test_undeclared_encoding_falls_back_to_utf8_then_gb18030() -> None:
    assert decode_page("投票对象：包子".encode()) == "投票对象：包子"
    assert decode_page("投票对象：包子".encode("gbk")) == "投票对象：包子"
    assert decode_page("<meta charset=gbk>包子".encode("gbk")).endswith("包子")


def test_floor_labels_authors_and_full_dates() -> None:
    posts = [
        P("导演", "2026-12-2 09:00", "公示"),
        P("甲", "2026-12-2 9:05", "沙发", relative=False),
        P("乙", "2026-12-1 23:59", "板凳", author_on_left=False),
        P("丙", "2026-12-2 10:00:33", "地板"),
        P("丁", "2026-12-2 11:00", "五楼"),
    ]
    parsed = parse_page(page(posts)).posts
    assert [p.floor for p in parsed] == [1, 2, 3, 4, 5]
    assert [p.author for p in parsed] == ["导演", "甲", "乙", "丙", "丁"]
    assert [p.time_text for p in parsed] == [
        "2026-12-02 09:00",
        "2026-12-02 09:05",
        "2026-12-01 23:59",
        "2026-12-02 10:00",
        "2026-12-02 11:00",
    ]
    assert all(p.pid == pid_of(p.floor) for p in parsed)


def test_quotes_reply_headers_and_edit_notices_leave_the_body() -> None:
    body = quote("甲", "2026-12-2 09:15", 2, vote("戊")) + vote("乙", change=True)
    legacy = quote("乙", "2026-12-2 09:20", 3, "投票对象：丙", legacy=True) + "我同意"
    replied = reply_header("丙", 4) + "回复正文"
    posts = [
        P("导演", "2026-12-2 09:00", "公示"),
        P("甲", "2026-12-2 09:15", vote("戊")),
        P("乙", "2026-12-2 09:20", "投票对象：丙<br />投票理由：x"),
        P("丙", "2026-12-2 09:30", body, edited="2026-12-2 09:40"),
        P("丁", "2026-12-2 09:50", legacy),
        P("戊", "2026-12-2 10:00", replied),
    ]
    parsed = parse_page(page(posts)).posts
    changed, old, rep = parsed[3], parsed[4], parsed[5]
    assert changed.body == "改票对象：乙\n改票理由：理由"
    assert changed.edited and changed.edit_note == "本帖最后由 丙 于 2026-12-2 09:40 编辑"
    assert [(q.kind, q.pid, q.author) for q in changed.quotes] == [("quote", pid_of(2), "甲")]
    assert old.body == "我同意" and [(q.pid, q.author) for q in old.quotes] == [(pid_of(3), "乙")]
    assert rep.body == "回复正文"
    assert [(q.kind, q.pid, q.floor, q.author) for q in rep.quotes] == [("reply", pid_of(4), 4, "丙")]
    assert not parsed[1].edited and parsed[1].quotes == []


def test_signatures_comments_ads_and_hidden_text_are_not_the_post() -> None:
    body = (
        '投票对象：包子<span style="display:none">投票对象：烧卖</span>'
        '<font class="jammer">x1</font><br />投票理由：好'
    )
    p = P("饺子", "2026-12-2 10:00", body, signature="投票对象：签名", comments=[("包子", "投票对象：点评")])
    parsed = parse_page(page([P("导演", "2026-12-2 09:00", "公示"), p])).posts[1]
    assert parsed.body == "投票对象：包子\n投票理由：好"


def test_fonts_colours_and_sizes_of_the_body_only() -> None:
    body = (
        quote("导演", "2026-12-2 09:00", 1, '<font color="Red">公示</font>')
        + '<font color="#ff0000">红</font><font size="6">大</font><font face="楷体">楷</font>'
        + '<span style="color: rgb(255, 0, 0); font-size: 32px">css</span>'
    )
    parsed = parse_page(page([P("导演", "2026-12-2 09:00", "x"), P("甲", "2026-12-2 10:00", body)])).posts[1]
    assert parsed.colors == ["#ff0000", "rgb(255, 0, 0)"]
    assert parsed.sizes == ["6", "32px"]
    assert parsed.faces == ["楷体"]


def test_several_pages_and_a_folder_in_page_order(tmp_path: Path) -> None:
    first = page([P("导演", "2026-12-2 09:00", "公示"), P("甲", "2026-12-2 09:10", "一")], pages=3, number=1)
    second = page([P("乙", "2026-12-2 09:20", "二")], "gbk", pages=3, number=2, first_floor=3)
    third = page([P("丙", "2026-12-2 09:30", "三")], pages=3, number=3, first_floor=4)
    folder = tmp_path / "thread"
    folder.mkdir()
    _write(folder, "page10.html", third)  # sorted by page number, not by name
    _write(folder, "page2.html", second, "gbk")
    _write(folder, "page1.html", first)
    (folder / "notes.txt").write_text("not a page", encoding="utf-8")
    thread = read_thread([str(folder)])
    assert [(p.floor, p.author) for p in thread.posts] == [(1, "导演"), (2, "甲"), (3, "乙"), (4, "丙")]
    assert thread.pages[0].next_url == f"http://bbs.example.com/forum.php?mod=viewthread&tid={TID}&extra=&page=2"
    assert thread.pages[2].next_url is None


def test_a_stuck_reply_is_listed_once() -> None:
    first = page([P("导演", "2026-12-2 09:00", "公示"), P("甲", "2026-12-2 09:10", "置顶")], pages=2)
    # page 2 shows the stuck reply (置顶回复, label "来自 2#") above its own floors
    second = page([P("甲", "2026-12-2 09:10", "置顶", floor=2), P("乙", "2026-12-2 09:20", "三楼", floor=3)], number=2)
    second = second.replace("沙发</a>", '<em class="replystick">置顶</em> 来自 2#</a>', 1)
    thread = Thread([parse_page(first, "page1"), parse_page(second, "page2")])
    assert [(p.floor, p.author) for p in thread.posts] == [(1, "导演"), (2, "甲"), (3, "乙")]


@pytest.mark.parametrize(
    "html",
    [
        "<html><head><title>百度一下</title></head><body><p>投票对象：甲</p></body></html>",
        "<html><body><div id='postlist'></div></body></html>",
        "",
    ],
)
def test_a_page_that_is_not_a_discuz_thread_is_refused(html: str) -> None:
    with pytest.raises(ForumError) as err:
        parse_page(html, "x.html")
    assert "Discuz!" in str(err.value) or "HTML" in str(err.value)


def test_missing_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ForumError, match="找不到这个文件"):
        read_thread([str(tmp_path / "none.html")])
    with pytest.raises(ForumError, match="没有 .html"):
        read_thread([str(tmp_path)])


TOUCH = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>第2天讨论帖 - 手机版</title></head><body>
<div class="viewthread"><div class="view_tit">[M196]品茗——第2天讨论帖</div>
<div class="plc cl" id="pid4400001"><div class="avatar"><img src="a.png" /></div>
<div class="display pi pione"><ul class="authi">
<li class="mtit"><span class="y">楼主</span><span class="z"><a href="home.php?mod=space&uid=1">导演</a></span></li>
<li class="mtime"><span class="y"><i class="dm-eye"></i><em>120</em></span>
<span title="2026-12-2 09:00">昨天&nbsp;09:00</span></li>
</ul><div class="message">【第2天】公示</div></div></div>
<div class="plc cl" id="pid4400002"><div class="display pi"><ul class="authi">
<li class="mtit"><span class="y">5#</span><span class="z"><a href="home.php?mod=space&uid=2">饺子</a></span></li>
<li class="mtime">2026-12-2 10:31</li></ul>
<div class="message"><div class="quote"><blockquote>
<a href="forum.php?mod=redirect&goto=findpost&pid=4400001&ptid=7">导演 发表于 2026-12-2 09:00</a><br />
公示</blockquote></div>
改票对象：包子<br />改票理由：好吃</div></div></div>
<div class="pg"><a href="forum.php?mod=viewthread&tid=7&page=2&mobile=2" class="nxt">下一页</a></div>
</div></body></html>"""


def test_the_mobile_touch_view_is_read_too() -> None:
    parsed = parse_page(TOUCH, "touch.html", "http://m.example.com/forum.php")
    assert [(p.floor, p.author, p.time_text, p.body) for p in parsed.posts] == [
        (1, "导演", "2026-12-02 09:00", "【第2天】公示"),
        (5, "饺子", "2026-12-02 10:31", "改票对象：包子\n改票理由：好吃"),
    ]
    assert [q.pid for q in parsed.posts[1].quotes] == [4400001]
    assert parsed.next_url == "http://m.example.com/forum.php?mod=viewthread&tid=7&page=2&mobile=2"


def test_anonymous_and_discuz7_authors() -> None:
    html = page([P("导演", "2026-12-2 09:00", "公示"), P("匿名", "2026-12-2 09:10", "无名氏")])
    anonymous = html.replace('<a href="home.php?mod=space&amp;uid=', '<a class="x" href="javascript:;" data-uid="')
    assert [p.author for p in parse_page(anonymous).posts] == ["导演", "匿名"]
    discuz7 = html.replace('class="pls favatar"', 'class="pls"')
    discuz7 = discuz7.replace('<div class="authi">', '<div class="postinfo">')
    discuz7 = discuz7.replace("home.php?mod=space&amp;uid=", "space.php?uid=")
    assert [p.author for p in parse_page(discuz7).posts] == ["导演", "匿名"]
