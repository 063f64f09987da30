"""`banshe forum count`: the contract's JSON, --table, exit 2, URL mode, the shared fixtures."""

from __future__ import annotations

import importlib.util
import json
import shlex
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import pytest

from banshe.cli import main

from .discuz_pages import TID, P, encode, page, quote, vote
from .test_forum_count import DIRECTOR, GAME

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
EXAMPLES = SHARED / "forum" / "examples"
CHECKER = SHARED / "tools" / "forum_conformance.py"
FIXTURES = sorted(p for p in EXAMPLES.iterdir() if (p / "expect.json").is_file()) if EXAMPLES.is_dir() else []


def _posts() -> list[P]:
    return [
        P(DIRECTOR, "2026-12-2 09:00", "【第2天】公示"),
        P("春", "2026-12-2 09:10", vote("夏")),
        P("秋", "2026-12-2 09:20", vote("夏")),
        P("冬", "2026-12-2 09:30", vote("烧卖")),
        P("春", "2026-12-2 09:40", quote("春", "2026-12-2 09:10", 2, vote("夏")) + vote("东", change=True)),
    ]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    game = tmp_path / "game.yaml"
    game.write_text(GAME, encoding="utf-8")
    html = tmp_path / "page1.html"
    html.write_bytes(encode(page(_posts(), "gbk"), "gbk"))
    return game, html


def test_json_output_follows_the_contract(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    game, html = files
    assert main(["forum", "count", str(game), str(html), "--close", "2026-12-02 21:00"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"day", "posts", "inputs", "post_counts", "flags", "transcript"}
    assert out["day"] == "第2天"
    assert out["inputs"] == [["春", "投票", "夏"], ["秋", "投票", "夏"], ["春", "改票", "东"]]
    post = out["posts"][3]
    assert {k: post[k] for k in ("floor", "author", "time", "edited", "kind", "target", "refused", "flags")} == {
        "floor": 4,
        "author": "冬",
        "time": "2026-12-02 09:30",
        "edited": False,
        "kind": "vote",
        "target": "烧卖",
        "refused": "投票对象有误：没有“烧卖”这名角色",
        "flags": [],
    }
    assert out["transcript"]["ruleset"] == "品茗" and out["transcript"]["phases"][-1]["phase"] == "第2天"


def test_table_mode(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    game, html = files
    assert main(["forum", "count", str(game), str(html), "--table"]) == 0
    text = capsys.readouterr().out
    assert "楼层" in text and "判定" in text and "有效 → 夏" in text and "没有“烧卖”这名角色" in text
    assert "【潜水】" in text and "结果：东出局（投票）" in text


@pytest.mark.parametrize(
    ("setup", "fragment"),
    [
        ("notdiscuz", "不是 Discuz! 帖子页面"),
        ("badgame", "未知的规则"),
        ("yaml", "YAML"),
        ("close", "--close 的格式"),
        ("missing", "找不到这个文件"),
        ("day", "已经包含"),
        ("tz", "未知的时区"),
        ("day0", "正整数"),
    ],
)
def test_bad_input_exits_2_with_one_chinese_line(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], setup: str, fragment: str
) -> None:
    game, html = files
    args = [str(game), str(html)]
    if setup == "notdiscuz":
        other = tmp_path / "baidu.html"
        other.write_text("<html><head><meta charset='utf-8'><title>百度</title></head><body>投票对象：春</body></html>")
        args = [str(game), str(other)]
    elif setup == "badgame":
        game.write_text("ruleset: 不存在\nplayers: [甲]\n", encoding="utf-8")
    elif setup == "yaml":
        game.write_text("ruleset: [\n", encoding="utf-8")
    elif setup == "close":
        args += ["--close", "明天九点"]
    elif setup == "missing":
        args = [str(game), str(tmp_path / "none.html")]
    elif setup == "day":
        args += ["--day", "1"]
    elif setup == "day0":
        args += ["--day", "0"]
    elif setup == "tz":
        args += ["--tz", "Mars/Olympus"]
    assert main(["forum", "count", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0]


class _Pages(BaseHTTPRequestHandler):
    pages: dict[int, bytes] = {}

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        number = int(self.path.rsplit("page=", 1)[-1]) if "page=" in self.path else 1
        data = self.pages.get(number)
        if data is None:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=gbk")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    worker = threading.Thread(target=httpd.serve_forever, daemon=True)
    worker.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        worker.join()


def test_url_mode_follows_the_pages(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    posts = _posts()
    first = page(posts[:3], "gbk", pages=2, number=1).replace("http://bbs.example.com/", f"{server}/")
    second = page(posts[3:], "gbk", pages=2, number=2, first_floor=4).replace("http://bbs.example.com/", f"{server}/")
    _Pages.pages = {1: encode(first, "gbk"), 2: encode(second, "gbk")}
    game = tmp_path / "game.yaml"
    game.write_text(GAME, encoding="utf-8")
    url = f"{server}/forum.php?mod=viewthread&tid={TID}"
    assert main(["forum", "count", str(game), url, "--compact"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [p["floor"] for p in out["posts"]] == [1, 2, 3, 4, 5]
    assert out["inputs"] == [["春", "投票", "夏"], ["秋", "投票", "夏"], ["春", "改票", "东"]]
    assert main(["forum", "count", str(game), f"{server}/forum.php?mod=viewthread&tid={TID}&page=9"]) == 2
    assert "404" in capsys.readouterr().err


def _checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("forum_conformance", CHECKER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not FIXTURES or not CHECKER.is_file(), reason="../shared/forum is not present on this machine")
@pytest.mark.parametrize("folder", FIXTURES, ids=lambda p: p.name)
def test_shared_forum_fixture(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    checker = _checker()
    args = [checker.game_of(str(folder)), *checker.pages_of(str(folder)), *checker.read_args(str(folder))]
    assert main(["forum", "count", *args]) == 0, shlex.join(args)
    got = json.loads(capsys.readouterr().out)
    expect = json.loads((folder / "expect.json").read_text(encoding="utf-8"))
    assert checker.compare(expect, got) == []
