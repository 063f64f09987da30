"""Compile a board file (YAML, docs/boards.md) into the engine's `Ruleset` declaration.

A library board becomes a `Ruleset(...)` on the role library (`banshe.library`); a board whose
rules are code (`code: 模块:对象`, the three seeds) names that code, and the compiler checks what
the file says about it (id, roles and any library parameters written for them, deck) against the
code. Every error is a `BoardError` whose message (Chinese) names the file, the line and the field.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace
from typing import Any

import yaml

from banshe.engine.last_words import last_words_skill
from banshe.engine.model import DAY, NIGHT, START, GameState
from banshe.engine.ruleset import (
    Condition,
    NightStage,
    OptionSpec,
    Role,
    Ruleset,
    Settle,
    SkillSpec,
    Task,
    first_day,
    later_day,
)
from banshe.library import board as lib_board
from banshe.library import flow
from banshe.library.role import LibraryRole, Param
from banshe.library.roles import find_role
from banshe.library.state import BoardState
from banshe.rulesets.thread_policy import ThreadPolicy, declare

TOP_KEYS = (
    "board",
    "id",
    "aliases",
    "description",
    "camps",
    "roles",
    "gods",
    "deck",
    "flow",
    "night",
    "wins",
    "options",
    "thread",
    "code",
)
FLOW_KEYS = ("first", "sheriff", "tie", "last_words")
# `flow.first`: the phase after 开局 — 白天 第1天, 夜晚 第1夜 (`Ruleset.night_first`)
FIRST_PHASES = ("白天", "夜晚")
# `flow.tie`: a tie of the top vote — 无人出局, 警长决定 (`flow.resolve_vote_sheriff_decides`), or
# 替罪羊 (`flow.resolve_vote_scapegoat`: the board must seat the library's 替罪羊)
TIE_RULES = ("无人出局", "警长决定", "替罪羊")
WIN_KINDS = ("屠边", "全部出局", "其余出局")
# a win's further requirement: these camps' characters (by their camp now: 情侣阵营 formed at
# 开局) are all out as well
ALSO_OUT = "另需出局"
_COUNT = re.compile(r"^(.+?)\s*[*×xX]\s*(\d+)$")
# a night stage's deadline as the director service reads it: minutes (60, 60分钟) or a clock time (23:30)
_DEADLINE = re.compile(r"^(?:\+?\d{1,4}(?:分钟|min|m)?|(?:[01]?\d|2[0-3]):[0-5]\d)$")


class BoardError(ValueError):
    """A board that cannot be compiled; the message (Chinese) names the file, line and field."""


class _Doc:
    """The parsed file with the line of every field (`path` -> line, 1-based)."""

    def __init__(self, source: str, text: str) -> None:
        self.source = source
        self.lines: dict[tuple[Any, ...], int] = {}
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        try:
            node = yaml.compose(text, Loader=loader)
            data = yaml.load(text, Loader=loader)  # noqa: S506 — a safe loader (CSafeLoader or SafeLoader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"第{mark.line + 1}行" if mark is not None else ""
            problem = getattr(exc, "problem", exc)
            raise BoardError(f"{source}{'：' + where if where else ''}：不是合法的YAML（{problem}）") from None
        if node is None:
            raise BoardError(f"{source}：文件是空的")
        self.data = data
        self._lines(node, data, ())

    def _lines(self, node: yaml.Node, data: Any, path: tuple[Any, ...]) -> None:
        """The line of every field: the composed nodes walked beside the loaded data."""
        self.lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode) and isinstance(data, dict) and len(node.value) == len(data):
            for (k, v), (key, value) in zip(node.value, data.items(), strict=True):
                self.lines[(*path, key)] = k.start_mark.line + 1
                self._lines(v, value, (*path, key))
        elif isinstance(node, yaml.SequenceNode) and isinstance(data, list):
            for i, (v, value) in enumerate(zip(node.value, data, strict=False)):
                self._lines(v, value, (*path, i))

    def fail(self, path: tuple[Any, ...], message: str) -> BoardError:
        line = self._line(path)
        field_name = ".".join(str(p) for p in path) or "（顶层）"
        return BoardError(f"{self.source}：第{line}行：{field_name}：{message}")

    def _line(self, path: tuple[Any, ...]) -> int:
        while path and path not in self.lines:
            path = path[:-1]
        return self.lines.get(path, 1)


def _mapping(doc: _Doc, value: Any, path: tuple[Any, ...]) -> dict[Any, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise doc.fail(path, "应当是一个映射（键: 值）")
    return value


def _list(doc: _Doc, value: Any, path: tuple[Any, ...]) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise doc.fail(path, "应当是一个列表")
    return value


def compile_board(text: str, source: str = "<板子>") -> Ruleset:
    """A board file's text -> its `Ruleset`. Raises `BoardError` (Chinese, with the line)."""
    doc = _Doc(source, text)
    data = doc.data
    if not isinstance(data, dict):
        raise doc.fail((), "板子文件的顶层必须是一个映射")
    for key in data:
        if key not in TOP_KEYS:
            raise doc.fail((key,), f"未知的字段（可用：{'、'.join(TOP_KEYS)}）")
    name = data.get("board")
    if not isinstance(name, str) or not name.strip():
        raise doc.fail(("board",), "缺少板子的名字（board: 名字）")
    rid = data.get("id", name)
    if not isinstance(rid, str) or not rid.strip():
        raise doc.fail(("id",), "id 必须是非空的字符串")
    aliases = tuple(str(a) for a in _list(doc, data.get("aliases"), ("aliases",)))
    if data.get("code") is not None:
        return _compile_code(doc, data, rid, name)
    return _compile_library(doc, data, text, rid, name, aliases)


# -- a board whose rules are code (the seeds) ----------------------------------------------------
def _compile_code(doc: _Doc, data: dict[Any, Any], rid: str, name: str) -> Ruleset:
    code = data["code"]
    if not isinstance(code, str) or ":" not in code:
        raise doc.fail(("code",), "应写成 模块:对象（如 banshe.rulesets.pinming:PINMING）")
    module_name, _, attr = code.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise doc.fail(("code",), f"无法导入模块 {module_name}（{exc}）") from None
    rs = getattr(module, attr, None)
    if not isinstance(rs, Ruleset):
        raise doc.fail(("code",), f"{module_name} 中没有名为 {attr} 的规则（Ruleset）")
    if rs.id != rid:
        raise doc.fail(("id",), f"与代码中的规则 id（{rs.id}）不符")
    if rs.name != name:
        raise doc.fail(("board",), f"与代码中的规则名（{rs.name}）不符")
    for key in ("roles", "deck"):
        if key in data and not rs.role_names:
            raise doc.fail((key,), "代码中的规则没有声明身份")
    roles = _mapping(doc, data.get("roles"), ("roles",))
    for role_name, spec in roles.items():
        role_id = rs.role_id(str(role_name))
        if role_id is None:
            raise doc.fail(("roles", role_name), f"代码中的规则没有身份“{role_name}”")
        _check_code_params(doc, rs, str(role_name), role_id, _mapping(doc, spec, ("roles", role_name)))
    if "deck" in data and rs.deck:
        deck = _deck_list(doc, data["deck"], ("deck",), lambda n: rs.role_id(n))
        if sorted(deck) != sorted(rs.deck):
            raise doc.fail(("deck",), "与代码中的标准配置不符")
    return rs


def _check_code_params(doc: _Doc, rs: Ruleset, role_name: str, role_id: str, spec: Mapping[Any, Any]) -> None:
    """A role of a code board written with its library role's parameters (for readers:
    `猎人: {library: 猎人, 公示开枪: false}`): the code must seat that library role
    (`Ruleset.board`'s params) with each value written."""
    if not spec:
        return
    path = ("roles", role_name)
    lib_name = str(spec.get("library", role_name))
    lib = find_role(lib_name)
    seated = rs.board.params.get(role_id) if isinstance(rs.board, lib_board.Board) else None
    if lib is None or lib.id != role_id or seated is None:
        raise doc.fail(path, f"代码中的{role_name}不是角色库的{lib_name}，不能写参数")
    written = _params(doc, lib, spec, path)
    for key in spec:
        if key == "library":
            continue
        if key == "camp":
            raise doc.fail((*path, key), "规则写在代码里的板子，阵营也在代码里")
        code_value = seated[str(key)]
        if isinstance(code_value, tuple):
            code_value = list(code_value)
        if written[str(key)] != code_value:
            shown = yaml.safe_dump(code_value, allow_unicode=True, default_flow_style=True).strip()
            raise doc.fail((*path, key), f"与代码中的参数（{shown.removesuffix('...').strip()}）不符")


# -- a board on the role library --------------------------------------------------------------------
def _compile_library(
    doc: _Doc, data: dict[Any, Any], text: str, rid: str, name: str, aliases: tuple[str, ...]
) -> Ruleset:
    camps = {str(k): str(v) for k, v in _mapping(doc, data.get("camps"), ("camps",)).items()}
    if not camps:
        raise doc.fail(("camps",), "至少要有一个阵营（阵营id: 中文名）")

    def camp_id(value: Any, path: tuple[Any, ...]) -> str:
        for cid, zh in camps.items():
            if value in (cid, zh):
                return cid
        raise doc.fail(path, f"未知的阵营“{value}”（本板子的阵营：{'、'.join(camps.values())}）")

    # roles: the board's name -> a library role with parameters
    roles_raw = _mapping(doc, data.get("roles"), ("roles",))
    if not roles_raw:
        raise doc.fail(("roles",), "至少要有一个身份")
    library: dict[str, LibraryRole] = {}  # role id -> library role
    names: dict[str, str] = {}  # board name -> role id
    role_camp: dict[str, str] = {}
    role_params: dict[str, dict[str, Any]] = {}
    for role_key, spec_raw in roles_raw.items():
        path = ("roles", role_key)
        spec = _mapping(doc, spec_raw, path)
        lib_name = str(spec.get("library", role_key))
        lib = find_role(lib_name) if ":" not in lib_name else _code_role(doc, lib_name, (*path, "library"))
        if lib is None:
            from banshe.library.roles import LIBRARY

            known = "、".join(r.name for r in LIBRARY.values())
            raise doc.fail(
                (*path, "library") if "library" in spec else path, f"角色库中没有身份“{lib_name}”（可用：{known}）"
            )
        if lib.id in library:
            raise doc.fail(path, f"角色库的{lib.name}在本板子中出现了两次")
        if (lib.can_be_voted is None) != (lib.unvotable is None):
            raise doc.fail(path, f"角色{lib.name}的代码有误：can_be_voted 与 unvotable 须一同声明")
        library[lib.id] = lib
        names[str(role_key)] = lib.id
        role_camp[lib.id] = camp_id(spec["camp"], (*path, "camp")) if "camp" in spec else lib.camp
        if role_camp[lib.id] not in camps:
            raise doc.fail(path, f"{lib.name}默认属于阵营 {lib.camp}，本板子没有这个阵营：请写 camp")
        role_params[lib.id] = _params(doc, lib, spec, path)
        for key in lib.camp_params:
            # a parameter naming a camp (丘比特's 情侣阵营): one of this board's, stored by id
            where = (*path, key) if key in spec else path
            value = role_params[lib.id][key]
            if not any(value in (cid, zh) for cid, zh in camps.items()):
                raise doc.fail(where, f"{lib.name}的参数 {key} 是“{value}”，本板子没有这个阵营：请在 camps 中声明它")
            role_params[lib.id][key] = camp_id(value, where)

    def role_of(value: Any, path: tuple[Any, ...]) -> str:
        rid_ = names.get(str(value))
        if rid_ is None:
            raise doc.fail(path, f"本板子没有身份“{value}”（身份：{'、'.join(names)}）")
        return rid_

    gods_raw = data.get("gods")
    if gods_raw is None:
        gods = tuple(r for r, lib in library.items() if lib.god)
    else:
        gods = tuple(role_of(g, ("gods", i)) for i, g in enumerate(_list(doc, gods_raw, ("gods",))))

    # the deck: one list, or by player count
    deck_raw = data.get("deck")
    decks: dict[int, tuple[str, ...]] = {}
    if isinstance(deck_raw, dict):
        for count, entries in deck_raw.items():
            if not isinstance(count, int):
                raise doc.fail(("deck", count), "按人数写的配置，键必须是人数")
            d = _deck_list(doc, entries, ("deck", count), lambda n: names.get(n))
            if len(d) != count:
                raise doc.fail(("deck", count), f"{count}人的配置有{len(d)}个身份")
            decks[count] = tuple(d)
    elif deck_raw is not None:
        d = _deck_list(doc, deck_raw, ("deck",), lambda n: names.get(n))
        decks[len(d)] = tuple(d)
    else:
        raise doc.fail(("deck",), "缺少配置（deck: 身份列表，或 人数: 身份列表）")
    standard = next(iter(decks.values()))

    # options: name -> default, description, deck changes
    options: dict[str, OptionSpec] = {}
    swaps: dict[str, dict[str, str]] = {}
    adds: dict[str, tuple[str, ...]] = {}
    for opt, raw in _mapping(doc, data.get("options"), ("options",)).items():
        path = ("options", opt)
        o = _mapping(doc, raw, path)
        for key in o:
            if key not in ("default", "description", "swap", "add"):
                raise doc.fail((*path, key), "未知的选项字段（可用：default、description、swap、add）")
        swap = {
            role_of(k, (*path, "swap", k)): role_of(v, (*path, "swap", k))
            for k, v in _mapping(doc, o.get("swap"), (*path, "swap")).items()
        }
        add = tuple(_deck_list(doc, o.get("add") or [], (*path, "add"), lambda n: names.get(n)))
        options[str(opt)] = OptionSpec(str(opt), o.get("default", False), str(o.get("description", "")))
        swaps[str(opt)] = swap
        adds[str(opt)] = add

    # flow
    flow_raw = _mapping(doc, data.get("flow"), ("flow",))
    for key in flow_raw:
        if key not in FLOW_KEYS:
            raise doc.fail(("flow", key), f"未知的流程字段（可用：{'、'.join(FLOW_KEYS)}）")
    first = flow_raw.get("first", "白天")
    if first not in FIRST_PHASES:
        raise doc.fail(("flow", "first"), f"看不懂的开局阶段“{first}”（可用：{'、'.join(FIRST_PHASES)}）")
    night_first = first == "夜晚"
    tie = flow_raw.get("tie", "无人出局")
    if tie not in TIE_RULES:
        raise doc.fail(("flow", "tie"), f"看不懂的平票规则“{tie}”（可用：{'、'.join(TIE_RULES)}）")
    sheriff_raw = flow_raw.get("sheriff", {"weight": 1.5})
    if sheriff_raw is False or sheriff_raw is None:
        weight = 0.0
    else:
        sh = _mapping(doc, sheriff_raw, ("flow", "sheriff"))
        for key in sh:
            if key != "weight":
                raise doc.fail(("flow", "sheriff", key), "警长只有 weight（票数）一项")
        weight = sh.get("weight", 1.5)
        if not isinstance(weight, (int, float)) or isinstance(weight, bool) or weight <= 0:
            raise doc.fail(("flow", "sheriff", "weight"), "警长票数必须是正数")
    if tie == "警长决定" and not weight:
        raise doc.fail(("flow", "tie"), "没有警长的板子不能用 警长决定（平票规则只能是 无人出局）")
    if tie == "替罪羊" or flow.SCAPEGOAT in library:
        _check_scapegoat(doc, tie, names, decks, swaps, adds)
    last_words = flow_raw.get("last_words", 0)
    if not isinstance(last_words, int) or isinstance(last_words, bool) or last_words < 0:
        raise doc.fail(("flow", "last_words"), "遗言数量必须是非负整数")

    # skills: every library role's, by id (a skill shared by two roles is one declaration)
    skills: dict[str, SkillSpec] = {}
    for lib in library.values():
        for spec_ in lib.skills:
            declared = skills.setdefault(spec_.id, spec_)
            if declared is not spec_:
                raise doc.fail(("roles",), f"两个身份声明了不同的技能 {spec_.id}")
    by_name = {s.name: s.id for s in skills.values()}

    # the night: stages in order, with their skills and deadlines
    stages: list[NightStage] = []
    staged: dict[str, str] = {}
    for i, raw in enumerate(_list(doc, data.get("night"), ("night",))):
        path = ("night", i)
        st = _mapping(doc, raw, path)
        for key in st:
            if key not in ("id", "name", "skills", "deadline", "waits"):
                raise doc.fail((*path, key), "未知的夜晚阶段字段（可用：id、name、skills、deadline、waits）")
        sid = str(st.get("id", f"stage{i + 1}"))
        stage_skills: list[str] = []
        for j, sk in enumerate(_list(doc, st.get("skills"), (*path, "skills"))):
            skill_id = by_name.get(str(sk), str(sk) if str(sk) in skills else "")
            if not skill_id:
                raise doc.fail((*path, "skills", j), f"本板子的身份没有技能“{sk}”（技能：{'、'.join(by_name)}）")
            if skill_id in staged:
                raise doc.fail((*path, "skills", j), f"技能“{sk}”已经排在阶段 {staged[skill_id]}")
            staged[skill_id] = sid
            stage_skills.append(skill_id)
        deadline = str(st.get("deadline", "")).strip()
        if deadline and not _DEADLINE.match(deadline):
            raise doc.fail((*path, "deadline"), f"看不懂的时限“{deadline}”（写分钟数如 60 或 60分钟，或时刻如 23:30）")
        after = [lib.after_stage[s] for lib in library.values() for s in stage_skills if s in lib.after_stage]
        stages.append(
            NightStage(
                sid,
                str(st.get("name", sid)),
                opens_with_night=not st.get("waits", False),
                deadline=deadline,
                on_close=_chain(after),
            )
        )
    for spec_ in skills.values():
        if NIGHT in spec_.phases and not spec_.prompt and spec_.id not in staged:
            raise doc.fail(("night",), f"夜晚技能“{spec_.name}”没有排进任何夜晚阶段")
    skills = {sid: replace(s, stage=staged.get(sid, "")) for sid, s in skills.items()}
    if weight:
        skills[flow.SUCCEED] = flow.succeed_skill(frozenset({START, DAY, NIGHT}))
    if tie == "警长决定":
        skills[flow.TIE_BREAK] = flow.tie_break_skill()
    if last_words:
        lw = last_words_skill()
        skills[lw.id] = lw

    # wins, in order
    conditions: list[Condition] = []
    for i, raw in enumerate(_list(doc, data.get("wins"), ("wins",))):
        path = ("wins", i)
        w = _mapping(doc, raw, path)
        kinds = [k for k in WIN_KINDS if k in w]
        for key in w:
            if key not in ("camp", "name", *WIN_KINDS, ALSO_OUT):
                raise doc.fail((*path, key), f"未知的胜负字段（可用：camp、name、{'、'.join(WIN_KINDS)}、{ALSO_OUT}）")
        if len(kinds) != 1:
            raise doc.fail(path, f"每条胜利条件写且只写一种：{'、'.join(WIN_KINDS)}")
        camp = camp_id(w.get("camp"), (*path, "camp"))
        cond_name = str(w.get("name", f"{camps[camp]}胜利条件"))
        also_out = tuple(
            camp_id(entry, (*path, ALSO_OUT, j))
            for j, entry in enumerate(_list(doc, w.get(ALSO_OUT), (*path, ALSO_OUT)))
        )
        if kinds[0] == "其余出局":
            if w["其余出局"] is not True:
                raise doc.fail((*path, "其余出局"), "写 其余出局: true（本阵营以外的角色全部出局时获胜）")
            conditions.append(Condition(cond_name, _requiring_out(_sole_camp(camp), also_out)))
            continue
        sets: list[tuple[str, ...]] = []
        for j, entry in enumerate(_list(doc, w[kinds[0]], (*path, kinds[0]))):
            if entry == "神":
                sets.append(gods)
            elif str(entry) in camps.values() or str(entry) in camps:
                cid = camp_id(entry, (*path, kinds[0], j))
                sets.append(tuple(r for r, c in role_camp.items() if c == cid))
            else:
                sets.append((role_of(entry, (*path, kinds[0], j)),))
        if kinds[0] == "全部出局":
            sets = [tuple(r for s in sets for r in s)]
        conditions.append(Condition(cond_name, _requiring_out(_win_test(camp, tuple(sets)), also_out)))
    if not conditions:
        raise doc.fail(("wins",), "至少要有一条胜利条件")

    groups: dict[str, tuple[str, ...]] = {}
    for r, lib in library.items():
        if lib.group:
            groups[lib.group] = (*groups.get(lib.group, ()), r)

    resolve_vote = {"警长决定": flow.resolve_vote_sheriff_decides, "替罪羊": flow.resolve_vote_scapegoat}.get(
        tie, flow.resolve_vote
    )
    settle: dict[str, tuple[Task, ...]] = {
        START: (Task("start", flow.start),),
        NIGHT: (Task("night", flow.settle_night),),
        DAY: (
            (Task("election", flow.elect, when=first_day), Task("vote", resolve_vote, when=later_day))
            if weight
            else (Task("vote", resolve_vote),)
        )
        + (Task("red_cards", flow.red_cards),),
    }
    role_decls = tuple(
        Role(r, _display(names, r), role_camp[r], skills=tuple(s.id for s in lib.skills), charges=lib.charges)
        for r, lib in library.items()
    )
    sizes = sorted(decks)
    board = lib_board.Board(
        params=role_params,
        out_hooks={r: lib.on_out for r, lib in library.items() if lib.on_out is not None},
        voted_out_hooks={r: lib.on_voted_out for r, lib in library.items() if lib.on_voted_out is not None},
        start_hooks=tuple(lib.at_start for lib in library.values() if lib.at_start is not None),
        out_watchers=tuple(lib.watches_outs for lib in library.values() if lib.watches_outs is not None),
        group_roles=groups,
        sheriff_weight=float(weight),
        decks=decks,
        option_swaps=swaps,
        option_adds=adds,
        source=doc.source,
        text=text,
    )
    # the roles' `can_be_voted` and `unvotable`: together, exactly whom the vote refuses
    vote_blocks = tuple(lib.can_vote for lib in library.values() if lib.can_vote is not None)
    voted_blocks = tuple(lib.can_be_voted for lib in library.values() if lib.can_be_voted is not None)
    unvotable = tuple(lib.unvotable for lib in library.values() if lib.unvotable is not None)
    rs = Ruleset(
        id=rid,
        name=name,
        aliases=aliases,
        roles=role_decls,
        camp_names=camps,
        skill_aliases={"解药": "救药"} if "antidote" in skills else {},
        night_stages=tuple(stages),
        settle=settle,
        deck=standard,
        deck_is_fixed=len(decks) == 1 and not any(swaps.values()) and not any(adds.values()),
        options=options,
        skills=skills,
        min_players=2,
        max_players=max(30, sizes[-1]),
        last_words=last_words,
        night_first=night_first,
        win_conditions=tuple(conditions),
        state_type=BoardState,
        board=board,
        dealer=lib_board.deal_by_count(board, name, standard),
        setup=lib_board.tell_identities,
        on_phase_start=lib_board.open_phase,
        on_out=flow.on_out,
        can_vote=lib_board.first_refusal(vote_blocks),
        can_be_voted=lib_board.first_refusal(voted_blocks),
        votable=lib_board.living_less(unvotable),
        vote_weight=lib_board.sheriff_counts(float(weight)),
        red_card=flow.red_card,
        legal_targets=lib_board.alive_or_badge,
    )
    declare(rid, _thread_policy(doc, data.get("thread")))
    return rs


def _check_scapegoat(
    doc: _Doc,
    tie: str,
    names: Mapping[str, str],
    decks: Mapping[int, Sequence[str]],
    swaps: Mapping[str, Mapping[str, str]],
    adds: Mapping[str, Sequence[str]],
) -> None:
    """`flow.tie: 替罪羊` and the 替罪羊 come together: the tie rule needs a 替罪羊 the deck (or an
    option) seats; a 替罪羊 under another tie rule would have nothing to do (docs/rulings.md)."""
    goat = next((n for n, r in names.items() if r == flow.SCAPEGOAT), None)
    if tie != "替罪羊":
        if goat is not None:
            raise doc.fail(("roles", goat), f"{goat}只在平票规则是 替罪羊 的板子里有用（flow.tie: 替罪羊）")
        return
    seated = any(flow.SCAPEGOAT in deck for deck in decks.values()) or any(
        flow.SCAPEGOAT in (*swap.values(), *adds.get(opt, ())) for opt, swap in swaps.items()
    )
    if goat is None or not seated:
        raise doc.fail(
            ("flow", "tie"), "平票规则 替罪羊 要求本板子配置中有替罪羊（roles 中声明 {library: 替罪羊} 并写进 deck）"
        )


def _code_role(doc: _Doc, name: str, path: tuple[Any, ...]) -> LibraryRole:
    """A role written as code outside the library, named by the board: `模块:对象` (a `LibraryRole`)."""
    module_name, _, attr = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise doc.fail(path, f"无法导入模块 {module_name}（{exc}）") from None
    role = getattr(module, attr, None)
    if not isinstance(role, LibraryRole):
        raise doc.fail(path, f"{module_name} 中没有名为 {attr} 的角色（LibraryRole）")
    return role


def _display(names: Mapping[str, str], rid: str) -> str:
    return next(n for n, r in names.items() if r == rid)


def _params(doc: _Doc, lib: LibraryRole, spec: Mapping[Any, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {
        k: (list(p.default) if isinstance(p.default, tuple) else p.default) for k, p in lib.params.items()
    }
    for key, value in spec.items():
        if key in ("library", "camp"):
            continue
        p: Param | None = lib.params.get(str(key))
        if p is None:
            known = "、".join(lib.params) or "无"
            raise doc.fail((*path, key), f"{lib.name}没有参数“{key}”（它的参数：{known}）")
        if isinstance(p.default, tuple):
            if not isinstance(value, list):
                raise doc.fail((*path, key), "应当是一个列表")
            bad = [v for v in value if p.choices and v not in p.choices]
            if bad:
                raise doc.fail((*path, key), f"不认识的值 {bad}（可用：{'、'.join(map(str, p.choices))}）")
        elif isinstance(p.default, bool):
            if not isinstance(value, bool):
                raise doc.fail((*path, key), "应当是 true 或 false")
        elif p.choices and value not in p.choices:
            raise doc.fail((*path, key), f"不认识的值“{value}”（可用：{'、'.join(map(str, p.choices))}）")
        elif not isinstance(value, type(p.default)):
            raise doc.fail((*path, key), f"应当是{type(p.default).__name__}")
        out[str(key)] = list(value) if isinstance(value, list) else value
    return out


def _deck_list(doc: _Doc, raw: Any, path: tuple[Any, ...], role_of: Callable[[str], str | None]) -> list[str]:
    deck: list[str] = []
    for i, entry in enumerate(_list(doc, raw, path)):
        text = str(entry).strip()
        m = _COUNT.match(text)
        role_name, count = (m.group(1), int(m.group(2))) if m else (text, 1)
        rid = role_of(role_name)
        if rid is None:
            raise doc.fail((*path, i), f"没有身份“{role_name}”（先在 roles 中声明）")
        deck.extend([rid] * count)
    return deck


def _chain(steps: Sequence[Settle]) -> Settle | None:
    if not steps:
        return None
    if len(steps) == 1:
        return steps[0]
    run = tuple(steps)

    def chained(state: GameState) -> None:
        for step in run:
            step(state)

    return chained


def _win_test(camp: str, sets: tuple[tuple[str, ...], ...]) -> Callable[[GameState], str | None]:
    """The camp wins once every role of one of the sets is out (屠边: any set; 全部出局: one set)."""

    def test(state: GameState) -> str | None:
        for roles in sets:
            if not flow.living(state, roles):
                return camp
        return None

    return test


def _sole_camp(camp: str) -> Callable[[GameState], str | None]:
    """其余出局: the camp wins once every character still in the game is in it (by his camp now:
    情侣阵营, formed at 开局, and its 丘比特), and one is."""

    def test(state: GameState) -> str | None:
        alive = [c for c in state.chars.values() if c.alive]
        return camp if alive and all(c.camp == camp for c in alive) else None

    return test


def _requiring_out(
    test: Callable[[GameState], str | None], camps: tuple[str, ...]
) -> Callable[[GameState], str | None]:
    """另需出局: the win holds only once no character of these camps (by his camp now) is in the
    game (a board without it: the test itself)."""
    if not camps:
        return test

    def requiring(state: GameState) -> str | None:
        if any(c.alive and c.camp in camps for c in state.chars.values()):
            return None
        return test(state)

    return requiring


def _thread_policy(doc: _Doc, raw: Any) -> ThreadPolicy:
    t = _mapping(doc, raw, ("thread",))
    known = {f.name for f in fields(ThreadPolicy)}
    for key in t:
        if key not in known:
            raise doc.fail(("thread", key), f"未知的发帖规则字段（可用：{'、'.join(sorted(known))}）")
    values = dict(t)
    if "night_windows" in values:
        values["night_windows"] = tuple(values["night_windows"])
    return ThreadPolicy(**values)
