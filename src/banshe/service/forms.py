"""Reading the pages' forms: every field's text, numbers and tables, with Chinese reasons."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from starlette.datastructures import FormData

from ..engine.commands import Command
from ..engine.ruleset import FREE_TEXT, MANY_TARGETS, NO_TARGET, YES_NO, Ruleset
from .edge import MAX_INT, form_int
from .games import ServiceError
from .names import clean_post

MAX_SEED = MAX_INT


def safe_next(nxt: str) -> str:
    """Where to go after login: a path on this site only (no open redirect)."""
    if not nxt.startswith("/") or nxt.startswith("//") or "\\" in nxt or len(nxt) > 500 or not nxt.isprintable():
        return "/d"
    return nxt


def field(value: Any) -> str:
    """A form field's text. A NUL byte never reaches the database (PostgreSQL refuses it)."""
    if not isinstance(value, str):
        return ""
    if "\x00" in value:
        raise ServiceError("内容含有不允许的控制字符（NUL）")
    return value


def valid_id(value: int) -> bool:
    return 0 < value <= MAX_INT


def parse_int(text: str, name: str, low: int, high: int) -> int | None:
    """A whole number from a form field (None when empty); a Chinese ServiceError names the field
    (edge.form_int: the one pydantic check of every integer from outside)."""
    try:
        return form_int(text, name, low, high)
    except ValueError as exc:
        raise ServiceError(str(exc)) from None


def post_id(form: FormData) -> int | None:
    """The replied post (回复 N楼) a thread form names, or None; anything but a post id is refused."""
    try:
        return form_int(field(form.get("reply_to")), "回复的楼层", 1, MAX_INT)
    except ValueError:
        raise ServiceError("回复的楼层不存在") from None


def stage_value(text: str) -> int | str | None:
    """A night stage's deadline: minutes after the previous one (ASCII digits) or an HH:MM time."""
    text = text.strip()
    if not text:
        return None
    # only ASCII digits are minutes ("²".isdigit() is True, int("²") raises); the schedule checks the range
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else text


def parse_seats(text: str, role_names: Collection[str] = ()) -> tuple[list[str], dict[str, str] | None]:
    """One seat a line: `名字` (identities dealt by the seeded RNG) or `名字 身份` (entered by hand).
    `role_names`: the ruleset's identities (and their ids), so that in a table of names alone a
    name written with a space ("雨打 芭蕉") is refused as one, not read as a name and an unknown
    identity (in a hand-entered table an unknown identity stays the engine's refusal)."""
    lines = [
        (number, raw.strip(), raw.replace("：", " ").replace(":", " ").split())
        for number, raw in enumerate(text.splitlines(), 1)
        if raw.replace("：", " ").replace(":", " ").strip()
    ]
    by_hand = any(len(parts) == 2 and parts[1] in role_names for _, _, parts in lines)
    players: list[str] = []
    roles: dict[str, str] = {}
    for number, raw, parts in lines:
        if len(parts) > 2 or (role_names and len(parts) == 2 and not by_hand):
            unknown = f"“{parts[-1]}”不是本规则的身份；" if parts[-1] not in role_names else ""
            raise ValueError(
                f"座位表第{number}行“{raw}”：{unknown}角色名不能含空格（每行“名字”或“名字 身份”，用一个空格分开）"
            )
        players.append(parts[0])
        if len(parts) == 2:
            roles[parts[0]] = parts[1]
    if not players:
        raise ValueError("座位表不能为空")
    if roles and len(roles) != len(players):
        raise ValueError("要么所有座位都写明身份，要么都不写（由种子随机发身份）")
    return players, roles or None


def parse_options(specs: Any, form: FormData) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, spec in specs.items():
        raw = form.get(f"opt_{name}")
        if isinstance(spec.default, bool):
            out[name] = raw == "on"
        elif isinstance(spec.default, int):
            text = field(raw).strip()
            if text:
                try:
                    out[name] = form_int(text, f"选项“{name}”", -MAX_INT, MAX_INT)
                except ValueError:
                    raise ValueError(f"选项“{name}”需要整数（-{MAX_INT}到{MAX_INT}）") from None
        elif raw is not None:
            out[name] = field(raw)
    return out


def command_from_form(rs: Ruleset, actor: str, form: FormData) -> Command:
    """A player's skill from the action form; the actor is always the link's character."""
    skill = field(form.get("skill"))
    spec = rs.skills.get(skill)
    if spec is None:
        raise ServiceError("未知的技能")
    if spec.shape == NO_TARGET:
        return Command(actor, skill)
    if spec.shape == YES_NO:
        answer = field(form.get("answer"))
        if answer not in ("是", "否"):
            raise ServiceError(f"<{spec.name}>需要回答“是”或“否”")
        return Command(actor, skill, answer=answer == "是")
    if spec.shape == FREE_TEXT:
        text = clean_post(field(form.get("text"))).strip()
        if len(text) > 5000:
            raise ServiceError("内容过长")
        return Command(actor, skill, text=text or None)
    if spec.shape == MANY_TARGETS:
        # one picker per place (爱神之箭's pair, 拍刀's knives), or one typed list "甲、乙"
        names: list[str] = []
        for value in form.getlist("targets"):
            raw = field(value).replace(",", "、").replace("，", "、").replace(" ", "、")
            names += [t for t in raw.split("、") if t]
        return Command(actor, skill, tuple(names))
    target = field(form.get("target")).strip()
    return Command(actor, skill, (target,) if target else ())
