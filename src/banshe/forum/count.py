"""Count one day of a Discuz! thread by the rules (../shared/spec/forum-count.md).

Seed 002 投票规则: one vote per living character a day (`投票对象：X` / `投票理由：…`), one 改票
replying to the original vote floor (改票需回复原投票楼层), none in the hour before the close
(关门前一小时不允许改票) or under 加速; invalid votes are corrected by posting again. Whether a
vote may be cast by or for a character is the engine's question: every vote is tried on the
engine's state of the day, in floor order, and the day's result is the scenario runner's
transcript of GAME with the accepted votes appended.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from .. import scenario as sc
from ..boards import BoardError, compile_board
from ..engine.commands import ABSTAIN, ACCELERATE, CHANGE_VOTE, DELAY, DIRECTOR, VOTE, Command, IllegalCommand
from ..engine.core import apply_in_place, new_game
from ..engine.events import ACCEPTED
from ..engine.model import DAY, NIGHT, START, GameState, Phase
from ..engine.ruleset import Ruleset
from ..rulesets.registry import find_ruleset
from .discuz import ForumError, Post, Thread
from .grammar import VoteFormatError, normalize, parse_post_vote, vote_kind_mentioned

EXPORT_FORMAT = "banshe-game"  # the director service's game export (service/games.py)
LAST_HOUR = timedelta(minutes=60)
_LABEL = re.compile(r"第\s*([0-9]+|[零〇一二两三四五六七八九十百]+)\s*([天日夜晚])")
_ZH_DIGITS = dict(zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))

# 潜水 (seed 002 违规判定 5): fewer than 5 posts, no vote, three days in a row under 10 posts
LURK_RULESETS = {"pinming"}
LURK_MIN_POSTS = 5
LURK_THREE_DAY_POSTS = 10
# reserved fonts: 品茗 违规判定 6(1) (red #FF0000 and enlarged fonts); 沉寂与取酒 FAQ A (red allowed,
# sizes up to 5). The ruleset ids whose players may not use red, and those that flag sizes 6-7.
RED_RESERVED = {"pinming"}
SIZE_RESERVED = {"pinming", "chenji"}
_RED = {"#ff0000", "#f00", "red", "rgb(255,0,0)", "rgba(255,0,0,1)"}
# HTML <font size> 5 is x-large (24px); anything larger reads as size 6 or 7
_SIZE_PX = {"xx-large": 32.0, "xxx-large": 48.0, "-webkit-xxx-large": 48.0}


class CountError(Exception):
    """Bad input for `banshe forum count` (a one-line Chinese message)."""


# -- numbers and phase labels ---------------------------------------------------------------------
def _zh_number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    total, current = 0, 0
    for ch in text:
        if ch == "百":
            total += (current or 1) * 100
            current = 0
        elif ch == "十":
            total += (current or 1) * 10
            current = 0
        elif ch in _ZH_DIGITS:
            current = _ZH_DIGITS[ch]
        else:
            return None
    return total + current


def _phase_labels(text: str, night_first: bool = False) -> list[Phase]:
    out = []
    for m in _LABEL.finditer(normalize(text)):
        n = _zh_number(m.group(1))
        if n is not None and n >= 1:
            out.append(Phase(DAY if m.group(2) in "天日" else NIGHT, n, night_first))
    return out


def _ordinal_of(entry: dict[str, Any], rs: Ruleset) -> int:
    """The ordinal of an exported command's phase, in the board's order."""
    return Phase.parse(str(entry.get("phase", "")), rs.night_first).ordinal


def first_phase_label(text: str, night_first: bool = False) -> Phase | None:
    """The first 第N天 / 第N夜 a text names (a director's 公示 names its own phase first), in the
    order of a board whose first phase is the night or not (`Ruleset.night_first`)."""
    labels = _phase_labels(text, night_first)
    return labels[0] if labels else None


# -- GAME ---------------------------------------------------------------------------------------
@dataclass
class Game:
    """The game so far: how to rebuild the state at the start of a day and play that day."""

    ruleset: Ruleset
    scenario: sc.Scenario | None = None
    export: dict[str, Any] | None = None
    source: str = ""

    def default_day(self) -> Phase:
        if self.scenario is not None:
            last = max((p for p, _ in self.scenario.phases), key=lambda p: p.ordinal, default=None)
            phase = last.next() if last is not None else Phase(DAY, 1, self.ruleset.night_first)
        else:
            state = self._replay_export(None)
            phase = state.phase
        while phase.kind != DAY:
            phase = phase.next()
        return phase

    def _replay_export(self, before: Phase | None) -> GameState:
        data = self.export or {}
        try:
            state = new_game(
                self.ruleset,
                [str(p) for p in data["players"]],
                data.get("roles"),
                dict(data.get("options") or {}),
                int(data.get("seed", 0)),
            )
            for i, entry in enumerate(data.get("commands") or []):
                if entry.get("superseded"):
                    continue
                if before is not None and _ordinal_of(entry, self.ruleset) >= before.ordinal:
                    break
                try:
                    apply_in_place(state, Command.from_json(entry["command"]))
                except IllegalCommand as exc:
                    raise CountError(f"{self.source}：导出文件的第{i + 1}条指令被拒绝：{exc.reason}") from None
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, CountError):
                raise
            raise CountError(f"{self.source}：导出文件内容不完整或有误（{exc}）") from None
        return state

    def check_day(self, day: Phase) -> None:
        if self.scenario is not None:
            for phase, _ in self.scenario.phases:
                if phase.ordinal >= day.ordinal:
                    raise CountError(f"{self.source}：GAME 已经包含{phase.label}，不能再统计{day.label}")

    def state_at(self, day: Phase) -> tuple[GameState, list[sc.PhaseRecord]]:
        """The state when `day` opens (earlier phases missing from GAME are closed with no inputs)."""
        if self.scenario is not None:
            state, records = sc.play(self.scenario)
        else:
            state = self._replay_export(day)
            records = []
            phase = Phase(START, 0, self.ruleset.night_first)
            while phase.ordinal < state.phase.ordinal:
                records.append(sc.PhaseRecord(phase))
                phase = phase.next()
        while not state.over and state.phase.ordinal < day.ordinal:
            run = sc._PhaseRun(state, self.ruleset, state.phase, [])
            run.play()
            records.append(run.record)
        if state.over:
            winner = self.ruleset.camp_name(state.winner) if state.winner else "?"
            raise CountError(f"{self.source}：对局已经结束（{winner}获胜），没有{day.label}")
        if state.phase != day:
            raise CountError(f"{self.source}：对局进行到{state.phase.label}，不是{day.label}")
        return state, records

    def transcript(self, day: Phase, inputs: list[list[str]]) -> dict[str, Any]:
        """run-scenario's transcript of GAME with the day's inputs appended and the day closed."""
        state, records = self.state_at(day)
        run = sc._PhaseRun(state, self.ruleset, day, inputs)
        run.play()
        records.append(run.record)
        return sc.transcript(state, records)


def load_game(path: str) -> Game:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CountError(f"{p}：无法读取 GAME 文件（{exc}）") from None
    try:
        doc = json.loads(text) if p.suffix == ".json" else yaml.safe_load(text)
    except (yaml.YAMLError, ValueError) as exc:
        raise CountError(f"{p}：GAME 不是合法的 YAML/JSON：{str(exc).splitlines()[0]}") from None
    if isinstance(doc, dict) and doc.get("format") == EXPORT_FORMAT:
        board = doc.get("board")  # a game of an uploaded board: its file travels in the export
        try:
            rs = compile_board(board, f"{p}（board）") if isinstance(board, str) else find_ruleset(str(doc["ruleset"]))
        except KeyError:
            raise CountError(f"{p}：未知的规则：{doc.get('ruleset')}") from None
        except BoardError as exc:
            raise CountError(f"板子文件有误：{exc}") from None
        if not isinstance(doc.get("players"), list) or not isinstance(doc.get("commands"), list):
            raise CountError(f"{p}：导出文件缺少 players 或 commands")
        return Game(rs, export=doc, source=str(p))
    try:
        scenario = sc.parse(doc, str(p))
    except sc.ScenarioError as exc:
        raise CountError(str(exc)) from None
    return Game(scenario.ruleset, scenario=scenario, source=str(p))


# -- fonts --------------------------------------------------------------------------------------
def _is_red(color: str) -> bool:
    return color.strip().lower().replace(" ", "") in _RED


def _size_over_five(size: str) -> bool:
    """<font size=6|7>, a size beyond x-large, or a px/pt/em size beyond size 5's 24px."""
    text = size.strip().lower().replace(" ", "")
    if text in _SIZE_PX:
        return True
    m = re.fullmatch(r"\+?(\d+(?:\.\d+)?)(px|pt|em|rem)?", text)
    if not m:
        return False
    value = float(m.group(1))
    unit = m.group(2)
    if unit is None:
        return value >= 6 if not text.startswith("+") else value + 3 >= 6
    px = {"px": value, "pt": value * 4 / 3, "em": value * 16, "rem": value * 16}[unit]
    return px > 24


# -- the count ----------------------------------------------------------------------------------
@dataclass
class Verdict:
    post: Post
    kind: str
    target: str | None = None
    refused: str | None = None
    flags: list[dict[str, str]] = field(default_factory=list)
    counted: bool = True  # posted by the close (counts in post_counts)

    def to_json(self, floors: dict[int, int]) -> dict[str, Any]:
        return {
            "floor": self.post.floor,
            "pid": self.post.pid,
            "author": self.post.author,
            "time": self.post.time_text,
            "edited": self.post.edited,
            "kind": self.kind,
            "target": self.target,
            "refused": self.refused,
            "flags": self.flags,
            "quotes": [
                {"kind": q.kind, "pid": q.pid, "floor": floors.get(q.pid or 0, q.floor), "author": q.author}
                for q in self.post.quotes
            ],
            "body": self.post.body,
            "banned": self.post.banned,
        }


@dataclass
class Options:
    day: int | None = None
    close: datetime | None = None
    director: str | None = None
    accelerated: bool = False


def _day_spans(posts: list[Post], director: str, night_first: bool = False) -> list[tuple[Phase, int]]:
    """Each phase a director's post opens (the first one naming it), with its index."""
    spans: list[tuple[Phase, int]] = []
    seen: set[int] = set()
    for i, post in enumerate(posts):
        if not same_name(post.author, director):
            continue
        phase = first_phase_label(post.body, night_first)
        if phase is not None and phase.ordinal not in seen and (not spans or phase.ordinal > spans[-1][0].ordinal):
            seen.add(phase.ordinal)
            spans.append((phase, i))
    return spans


def _range_of(spans: list[tuple[Phase, int]], day: Phase, total: int, stop_at_night: bool) -> tuple[int, int] | None:
    for j, (phase, start) in enumerate(spans):
        if phase == day:
            end = total
            for later, idx in spans[j + 1 :]:
                if later.kind == DAY or stop_at_night:
                    end = idx
                    break
            return start, end
    return None


def same_name(a: str, b: str) -> bool:
    """Forum account names compared as the votes' targets are (NFKC, trimmed)."""
    return normalize(a).strip() == normalize(b).strip()


def _resolve_target(state: GameState, written: str) -> str | None:
    wanted = normalize(written).strip()
    if wanted == ABSTAIN:
        return ABSTAIN
    for name in state.order:
        if normalize(name).strip() == wanted:
            return name
    return None


def _accelerated_days(state: GameState) -> set[str]:
    """The day phases GAME played under 加速 (the last 加速/延时 of the day decides)."""
    status: dict[str, bool] = {}
    for e in state.log:
        if e.kind != ACCEPTED:
            continue
        skill = e.data.get("command", {}).get("skill")
        if skill in (ACCELERATE, DELAY):
            status[e.phase] = skill == ACCELERATE
    return {phase for phase, on in status.items() if on}


def count(game: Game, thread: Thread, options: Options) -> dict[str, Any]:
    rs = game.ruleset
    if options.day is not None and options.day < 1:
        raise CountError("--day 必须是正整数")
    day = Phase(DAY, options.day, rs.night_first) if options.day is not None else game.default_day()
    game.check_day(day)
    state, _records = game.state_at(day)
    if options.accelerated:
        apply_in_place(state, Command(DIRECTOR, ACCELERATE))
    posts = thread.posts
    _check_hidden(posts)
    director = options.director or posts[0].author
    spans = _day_spans(posts, director, rs.night_first)
    span = _range_of(spans, day, len(posts), stop_at_night=False)
    if span is None:  # a director's post that names the day later in its text (第1夜公示…第2天开始)
        for i, post in enumerate(posts):
            if same_name(post.author, director) and day in _phase_labels(post.body, rs.night_first):
                later = [idx for phase, idx in spans if idx > i and phase.kind == DAY and phase.ordinal > day.ordinal]
                span = (i, later[0] if later else len(posts))
                break
    if span is None:
        if first_phase_label(thread.subject, rs.night_first) == day:
            starts = [i for i, p in enumerate(posts) if same_name(p.author, director)]
            if starts:
                span = (starts[0], len(posts))
        if span is None:
            raise CountError(f"帖子中找不到导演（{director}）开启{day.label}的公示帖")
    start, end = span
    _check_readable(posts, start, end)
    close = options.close
    seats = set(state.order)
    alive = [n for n in state.order if state.is_alive(n)]
    accepted_vote: dict[str, Post] = {}
    changed: set[str] = set()
    verdicts: list[Verdict] = []
    inputs: list[list[str]] = []
    counts = {n: 0 for n in alive}
    floors = {p.pid: p.floor for p in posts}
    seat_of = {normalize(n).strip(): n for n in state.order}
    director_key = normalize(director).strip()
    for post in posts[start:end]:
        key = normalize(post.author).strip()
        if key != director_key and key in seat_of:
            post.author = seat_of[key]  # the seat's name as GAME writes it (full-width letters and all)
        author = post.author
        assert post.time is not None  # _check_readable
        late = close is not None and post.time > close
        if key == director_key:
            verdicts.append(Verdict(post, "director", counted=not late))
            continue
        if author not in seats:
            verdicts.append(Verdict(post, "other", counted=not late))
            continue
        v = Verdict(post, "post", counted=not late)
        verdicts.append(v)
        if not state.is_alive(author):
            v.flags.append({"rule": "诈尸", "detail": f"{author}已出局，仍在讨论帖发言"})
        v.flags.extend(_font_flags(rs, post))
        if not late and author in counts:
            counts[author] += 1
        if post.banned is not None:
            continue  # 屏蔽: still a post of the day (floor, author, time, counts, 诈尸), never a vote
        _judge_vote(v, state, rs, day, close, accepted_vote, changed, inputs, options.accelerated, floors)
    flags = _player_flags(verdicts)
    if rs.id in LURK_RULESETS and not options.accelerated:
        flags.extend(_lurk_flags(game, state, rs, day, posts, director, spans, counts, accepted_vote))
    return {
        "day": day.label,
        "ruleset": rs.name,
        "director": director,
        "close": close.strftime("%Y-%m-%d %H:%M") if close else None,
        "accelerated": options.accelerated,
        "posts": [v.to_json(floors) for v in verdicts],
        "inputs": inputs,
        "post_counts": counts,
        "flags": flags,
        "transcript": game.transcript(day, ([[DIRECTOR, "加速"]] if options.accelerated else []) + inputs),
    }


def _check_hidden(posts: list[Post]) -> None:
    """Refuse a thread whose replies are hidden from the reader (回帖仅作者可见: the half-public
    vote thread), anywhere in it: the director, who sees every reply, reads it."""
    hidden = [p for p in posts if p.hidden is not None]
    if hidden:
        floors = "、".join(f"{p.floor}楼" for p in hidden[:5]) + ("等" if len(hidden) > 5 else "")
        raise CountError(
            f"帖子的回复对读者隐藏（论坛的提示：“{hidden[0].hidden}”，{floors}）："
            "请以导演的论坛账号登录后读取（--login），或保存导演看到的页面"
        )


def _check_readable(posts: list[Post], start: int, end: int) -> None:
    """Refuse a count the pages cannot support: a counted post with no absolute time (the phone
    version shows only relative times for a week)."""
    for post in posts[start:end]:
        if post.time is None:
            raise CountError(
                f"{post.floor}楼（{post.author}）只显示相对时间“{post.shown_time}”，没有完整的发表时间"
                "（手机版一周内的帖子）：请改用电脑版页面"
            )


def _judge_vote(
    v: Verdict,
    state: GameState,
    rs: Ruleset,
    day: Phase,
    close: datetime | None,
    accepted_vote: dict[str, Post],
    changed: set[str],
    inputs: list[list[str]],
    accelerated: bool,
    floors: dict[int, int],
) -> None:
    post, author = v.post, v.post.author
    assert post.time is not None
    try:
        vote = parse_post_vote(post.body)
    except VoteFormatError as exc:
        v.kind = CHANGE_VOTE if vote_kind_mentioned(post.body) == CHANGE_VOTE else VOTE
        v.refused = f"投票格式有误：{exc.reason.removeprefix('格式有误：')}（请重新发帖）"
        return
    if vote is None:
        return
    v.kind = vote.kind
    word = "改票" if vote.kind == CHANGE_VOTE else "投票"
    if close is not None and post.time > close:
        v.refused = f"关门（{close:%H:%M}）后发帖，{word}无效"
        return
    if post.edited:
        v.refused = f"帖子经过编辑（{post.edit_note or '本帖最后由…编辑'}），{word}无效，请重新发帖"
        return
    target = _resolve_target(state, vote.target)
    v.target = target or vote.target
    if target is None:
        v.refused = f"{word}对象有误：没有“{vote.target}”这名角色"
        return
    if vote.kind == VOTE:
        if author in accepted_vote:
            v.refused = f"{author}今天已经投票（{accepted_vote[author].floor}楼），改票请回复原投票楼层并使用改票格式"
            return
    else:
        own = accepted_vote.get(author)
        if own is None:
            v.refused = f"{author}今天还没有有效投票，不能改票"
            return
        if author in changed:
            v.refused = "改票只允许进行一次"
            return
        if accelerated:
            v.refused = "执行加速时不允许改票"
            return
        if close is not None and close - LAST_HOUR < post.time:
            v.refused = f"关门前一小时（{close - LAST_HOUR:%H:%M} 之后）不允许改票"
            return
        if not any(q.pid == own.pid or (q.pid is None and q.floor == own.floor) for q in post.quotes):
            pointed = [f"{floors.get(q.pid or 0) or q.floor or '?'}楼" for q in post.quotes if q.pid or q.floor]
            what = f"回复的是{'、'.join(pointed)}，" if pointed else "没有回复任何楼层，"
            v.refused = f"改票需回复自己的原投票楼层（{what}{author}的有效投票在{own.floor}楼）"
            return
    try:
        apply_in_place(state, Command(author, vote.kind, (target,)))
    except IllegalCommand as exc:
        v.refused = exc.reason
        return
    if vote.kind == VOTE:
        accepted_vote[author] = post
    else:
        changed.add(author)
    inputs.append([author, word, target])


def _font_flags(rs: Ruleset, post: Post) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    if rs.id in RED_RESERVED:
        reds = sorted({c for c in post.colors if _is_red(c)})
        if reds:
            out.append({"rule": "红色字体", "detail": f"使用导演专用的红色字体（{'、'.join(reds)}）"})
    if rs.id in SIZE_RESERVED:
        big = sorted({s for s in post.sizes if _size_over_five(s)})
        if big:
            out.append({"rule": "放大字体", "detail": f"使用放大字体（字号 {'、'.join(big)}）"})
    return out


def _player_flags(verdicts: list[Verdict]) -> list[dict[str, str]]:
    floors: dict[tuple[str, str], list[int]] = {}
    for v in verdicts:
        for f in v.flags:
            floors.setdefault((v.post.author, f["rule"]), []).append(v.post.floor)
    out = []
    for (player, rule), where in floors.items():
        at = "、".join(f"{n}楼" for n in where)
        detail = {"诈尸": "已出局角色在讨论帖发言（诈尸）", "红色字体": "使用红色字体", "放大字体": "使用放大字体"}
        out.append({"player": player, "rule": rule, "detail": f"{detail.get(rule, rule)}：{at}"})
    return out


def _lurk_flags(
    game: Game,
    state: GameState,
    rs: Ruleset,
    day: Phase,
    posts: list[Post],
    director: str,
    spans: list[tuple[Phase, int]],
    counts: dict[str, int],
    accepted_vote: dict[str, Post],
) -> list[dict[str, str]]:
    """Seed 002 潜水 (1)-(3); never on a day under 加速 (执行加速时…不被判罚)."""
    out: list[dict[str, str]] = []
    accelerated = _accelerated_days(state)
    earlier: dict[int, dict[str, int]] = {}
    for k in (day.number - 1, day.number - 2):
        if k < 1:
            break
        earlier_day = Phase(DAY, k, day.night_first)
        span = _range_of(spans, earlier_day, len(posts), stop_at_night=True)
        if span is None or earlier_day.label in accelerated:
            break
        tally: dict[str, int] = {}
        for post in posts[span[0] : span[1]]:
            if not same_name(post.author, director):
                key = normalize(post.author).strip()
                tally[key] = tally.get(key, 0) + 1
        earlier[k] = tally
    three = len(earlier) == 2
    for name in counts:
        n = counts[name]
        if n < LURK_MIN_POSTS:
            out.append({"player": name, "rule": "潜水", "detail": f"{day.label}发帖不足{LURK_MIN_POSTS}帖（{n}帖）"})
        if name not in accepted_vote and rs.can_vote(state, name) is None:
            out.append({"player": name, "rule": "潜水", "detail": f"{day.label}未投票"})
        if three:
            key = normalize(name).strip()
            days = [(k, earlier[k].get(key, 0)) for k in (day.number - 2, day.number - 1)] + [(day.number, n)]
            if all(c < LURK_THREE_DAY_POSTS for _, c in days):
                listed = "、".join(f"第{k}天{c}帖" for k, c in days)
                detail = f"连续三个未加速的讨论日均不足{LURK_THREE_DAY_POSTS}帖（{listed}）"
                out.append({"player": name, "rule": "潜水", "detail": detail})
    return out


def parse_close(text: str) -> datetime:
    for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y/%m/%d %H:%M"):
        try:
            return datetime.strptime(text.strip(), fmt)
        except ValueError:
            continue
    raise CountError(f"--close 的格式应为 \"YYYY-MM-DD HH:MM\"：{text}")


__all__ = ["CountError", "ForumError", "Game", "Options", "count", "load_game", "parse_close", "first_phase_label"]
