"""Export and import: a game as one JSON file (commands, posts, 公示, seats, settings) and back."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..engine.commands import Command, IllegalCommand
from ..engine.core import apply_in_place, new_game
from ..engine.model import Phase
from ..library.board import board_file_text
from . import import_schema
from . import schedule as sched
from .board import check_fixed_deck
from .errors import NotFound, ServiceError
from .models import (
    Announcement,
    CommandRow,
    Deadline,
    Game,
    GroupMessage,
    HeldCommand,
    PlayerNotice,
    Post,
    RefusedPost,
    Seat,
)
from .names import check_names
from .store import MAX_NOTE, MAX_TEXT, Cached, Store, insert_game, public_announcements
from .uploaded_boards import find_offered, is_uploaded

EXPORT_FORMAT = "banshe-game"
CLOCK_FIELDS = ("public_label", "public_settling", "public_since", "held_log", "closed_at", "start_at", "dawn_at")


class Transfer(Store):
    """A game to one JSON file and back; an import replays the commands and must reach the same result."""

    def export(self, game_id: int) -> dict[str, Any]:
        with self.lock(game_id), self.sessions() as s:
            game = s.get(Game, game_id)
            if game is None:
                raise NotFound("没有这局游戏")
            state = self.state_of(s, game)
            rs = self.ruleset(game)
            commands = s.scalars(select(CommandRow).where(CommandRow.game_id == game.id).order_by(CommandRow.seq))
            posts = list(s.scalars(select(Post).where(Post.game_id == game.id).order_by(Post.id)))
            post_index = {p.id: i for i, p in enumerate(posts)}
            groups = s.scalars(select(GroupMessage).where(GroupMessage.game_id == game.id).order_by(GroupMessage.id))
            refused = s.scalars(select(RefusedPost).where(RefusedPost.game_id == game.id).order_by(RefusedPost.id))
            held = s.scalars(select(HeldCommand).where(HeldCommand.game_id == game.id).order_by(HeldCommand.id))
            notices = s.scalars(select(PlayerNotice).where(PlayerNotice.game_id == game.id).order_by(PlayerNotice.id))
            anns = s.scalars(select(Announcement).where(Announcement.game_id == game.id).order_by(Announcement.idx))
            seats = s.scalars(select(Seat).where(Seat.game_id == game.id).order_by(Seat.id))
            engine_anns = public_announcements(state)
            return {
                "format": EXPORT_FORMAT,
                "version": 1,
                "title": game.title,
                "ruleset": rs.name,
                **({"board": board_file_text(rs)} if is_uploaded(rs.id) else {}),
                "seed": game.seed,
                "options": game.options,
                "players": game.players,
                "roles": game.roles,
                "schedule": game.schedule,
                "timezone": game.timezone,
                "status": game.status,
                "settings": dict(game.settings or {}),
                # who played each character, in order (a 替补 adds a second entry for its character)
                "seats": [{"name": x.name, "person": x.person, "active": x.active, "at": x.created_at} for x in seats],
                # the 公示 as the thread showed them: their times keep them in place among the posts
                "announcements": [
                    {
                        "idx": a.idx,
                        "phase": a.phase,
                        "created_at": a.created_at,
                        "published_at": a.published_at,
                        "withheld": a.withheld,
                        "text": a.text,
                        "original": engine_anns[a.idx].text if a.idx < len(engine_anns) else None,
                    }
                    for a in anns
                ],
                "commands": [
                    {
                        "seq": c.seq,
                        "command": c.payload,
                        "phase": c.phase,
                        "stage": c.stage,
                        "source": c.source,
                        "superseded": c.superseded,
                        "at": c.created_at,
                        "note": c.note,
                    }
                    for c in commands
                ],
                "posts": [
                    {
                        "author": p.author,
                        "phase": p.phase,
                        "text": p.text,
                        "vote_kind": p.vote_kind,
                        "vote_target": p.vote_target,
                        "by_director": p.by_director,
                        "at": p.created_at,
                        "reply_to": post_index.get(p.reply_to) if p.reply_to is not None else None,
                        "void": p.void,
                    }
                    for p in posts
                ],
                "group_messages": [
                    {"group": g.group_name, "author": g.author, "phase": g.phase, "text": g.text, "at": g.created_at}
                    for g in groups
                ],
                # posts the rules refused as speech (癫狂), kept for the director
                "refused_posts": [
                    {"author": r.author, "phase": r.phase, "text": r.text, "reason": r.reason, "at": r.created_at}
                    for r in refused
                ],
                # night skills the engine has not taken (held, void, refused when their stage opened)
                "held_commands": [
                    {
                        "command": h.payload,
                        "phase": h.phase,
                        "stage": h.stage,
                        "status": h.status,
                        "reason": h.reason,
                        "at": h.created_at,
                        "settled_at": h.settled_at,
                    }
                    for h in held
                ],
                "player_notices": [
                    {"player": n.player, "phase": n.phase, "text": n.text, "at": n.created_at} for n in notices
                ],
                # what the players saw of the clock (issue 22)
                "clock": {name: getattr(game, name) for name in CLOCK_FIELDS},
                "result": {
                    "winner": rs.camp_name(state.winner) if state.winner else None,
                    "ended_in": state.ended_in.label if state.ended_in else None,
                    "outs": [{"player": o.player, "phase": o.phase.label, "cause": o.cause} for o in state.outs],
                },
                "log": [
                    {
                        "kind": e.kind,
                        "phase": e.phase,
                        "audience": {
                            "kind": e.audience.kind,
                            "members": list(e.audience.members),
                            "group": e.audience.group,
                        },
                        "text": e.text,
                        "data": _jsonable(dict(e.data)),
                    }
                    for e in state.log
                ],
            }

    def import_game(self, director_id: int, data: Any) -> Game:
        """Create a game from an export: its commands are replayed and must reproduce its result."""
        try:
            data = import_schema.parse(data)  # the file's structure, before anything is replayed
        except ValueError as exc:
            raise ServiceError(str(exc)) from None
        try:
            board = data.get("board")
            rs = self.uploads.upload(director_id, board, "导入") if board else find_offered(str(data["ruleset"]))
            players = check_names([str(p) for p in data["players"]])
            roles = data.get("roles")
            seed = int(data["seed"])
            commands = list(data["commands"])
            if rs.deck_is_fixed:  # 品茗: another deck is another board (rulings 2026-12-04)
                check_fixed_deck(rs, players, roles)
            state = new_game(rs, players, roles, dict(data.get("options") or {}), seed)
            for i, entry in enumerate(commands):
                if entry.get("superseded"):
                    continue
                try:
                    apply_in_place(state, Command.from_json(entry["command"]))
                except IllegalCommand as exc:
                    raise ServiceError(f"导入失败：第{i + 1}条指令被拒绝：{exc.reason}") from None
            schedule = sched.validate_schedule(rs, dict(data.get("schedule") or {}))
            timezone = str(data.get("timezone") or sched.DEFAULT_TIMEZONE)
            sched.zone(timezone)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ServiceError):
                raise
            if isinstance(exc, KeyError) and exc.args:
                what = f"缺少字段“{exc.args[0]}”"
            elif isinstance(exc, ValueError) and _chinese(str(exc)):
                what = str(exc)  # the names', the engine's and the schedule's own reasons
            else:
                what = "某个字段的类型或取值不对"  # Python's own text (int() of a word …) never reaches the page
            raise ServiceError(f"导入失败：文件内容不完整或有误（{what}）") from None
        result = data.get("result") or {}
        winner = rs.camp_name(state.winner) if state.winner else None
        if result.get("winner", winner) != winner:
            raise ServiceError(f"导入失败：重放结果（{winner}）与文件记录（{result.get('winner')}）不一致")
        now = self.clock()
        with self.sessions() as s:
            game = insert_game(
                s, f"{data.get('title') or rs.name}（导入）", director_id, state, roles, schedule, timezone, True, now
            )
            for i, entry in enumerate(commands, start=1):
                cmd = Command.from_json(entry["command"])
                s.add(
                    CommandRow(
                        game_id=game.id,
                        seq=i,
                        actor=cmd.actor,
                        skill=cmd.skill,
                        payload=cmd.to_json(),
                        phase=str(entry.get("phase", "")),
                        stage=int(entry.get("stage", 0)),
                        source=str(entry.get("source", "import")),
                        superseded=bool(entry.get("superseded")),
                        created_at=float(entry.get("at") or now),
                        note=None if entry.get("note") is None else str(entry["note"])[:MAX_NOTE],
                    )
                )
            imported: list[Post] = []
            for p in data.get("posts") or []:
                ref = p.get("reply_to")  # the replied post's index in the export
                replied = imported[ref] if isinstance(ref, int) and 0 <= ref < len(imported) else None
                if replied is not None and replied.id is None:
                    s.flush()
                row = Post(
                    game_id=game.id,
                    author=str(p["author"]),
                    phase=str(p["phase"]),
                    text=str(p["text"]),
                    vote_kind=p.get("vote_kind"),
                    vote_target=p.get("vote_target"),
                    by_director=bool(p.get("by_director")),
                    created_at=float(p.get("at") or now),
                    reply_to=replied.id if replied is not None else None,
                    void=None if p.get("void") is None else str(p["void"]),
                )
                s.add(row)
                imported.append(row)
            for g in data.get("group_messages") or []:
                s.add(
                    GroupMessage(
                        game_id=game.id,
                        group_name=str(g["group"]),
                        author=str(g["author"]),
                        phase=str(g["phase"]),
                        text=str(g["text"]),
                        created_at=float(g.get("at") or now),
                    )
                )
            for r in data.get("refused_posts") or []:
                s.add(
                    RefusedPost(
                        game_id=game.id,
                        author=str(r["author"]),
                        phase=str(r["phase"]),
                        text=str(r["text"]),
                        reason=str(r["reason"]),
                        created_at=float(r.get("at") or now),
                    )
                )
            for h in data.get("held_commands") or []:
                cmd = Command.from_json(h["command"])
                s.add(
                    HeldCommand(
                        game_id=game.id,
                        actor=cmd.actor,
                        skill=cmd.skill,
                        payload=cmd.to_json(),
                        phase=str(h["phase"]),
                        stage=int(h.get("stage") or 0),
                        status=str(h["status"]),
                        reason=None if h.get("reason") is None else str(h["reason"]),
                        created_at=float(h.get("at") or now),
                        settled_at=None if h.get("settled_at") is None else float(h["settled_at"]),
                    )
                )
            for n in data.get("player_notices") or []:
                s.add(
                    PlayerNotice(
                        game_id=game.id,
                        player=str(n["player"]),
                        phase=str(n["phase"]),
                        text=str(n["text"]),
                        created_at=float(n.get("at") or now),
                    )
                )
            clock = data.get("clock")
            if isinstance(clock, dict):  # the players' clock as exported (else it starts from the state)
                for name in CLOCK_FIELDS:
                    if clock.get(name) is not None or name not in ("public_label", "public_since"):
                        setattr(game, name, clock.get(name) if name != "public_settling" else bool(clock.get(name)))
                if game.held_log is not None:  # exported in a settling window: it ends as it would have
                    kind = Phase.parse(game.public_label).kind
                    due = (game.closed_at or now) + sched.window_minutes(schedule, kind) * 60
                    s.add(
                        Deadline(
                            game_id=game.id,
                            key=f"{game.public_label}|window",
                            skill="window",
                            label=f"{game.public_label}结算",
                            due_at=due,
                        )
                    )
            settings = data.get("settings")
            game.settings = dict(settings) if isinstance(settings, dict) else {}
            _import_announcements(s, game.id, data.get("announcements"), len(public_announcements(state)))
            _import_seats(s, game.id, data.get("seats"), now)
            s.flush()
            self._after_change(s, game, state, now)
            s.commit()
            self._remember(game.id, Cached(len(commands), state))
            return game


def _chinese(text: str) -> bool:
    """Whether a message was written for people (ours are Chinese; Python's own are English)."""
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _import_announcements(s: Session, game_id: int, entries: Any, total: int) -> None:
    """The exported 公示 rows with their times (so they keep their places among the posts)."""
    if not isinstance(entries, list):
        return
    for n, a in enumerate(entries):
        if not isinstance(a, dict) or n >= total:
            break
        published = a.get("published_at")
        text = a.get("text")
        s.add(
            Announcement(
                game_id=game_id,
                idx=n,
                phase=str(a.get("phase", "")),
                created_at=float(a.get("created_at") or 0.0),
                published_at=None if published is None else float(published),
                withheld=bool(a.get("withheld")),
                text=None if text is None else str(text)[:MAX_TEXT],
            )
        )


def _import_seats(s: Session, game_id: int, entries: Any, now: float) -> None:
    """Who played each character: `insert_game` made one link per character; a 替补 in the file
    makes the first inactive and adds the substitute's (new links, the old ones stay void)."""
    if not isinstance(entries, list):
        return
    first = {x.name: x for x in s.scalars(select(Seat).where(Seat.game_id == game_id))}
    seen: dict[str, int] = {}
    for e in entries:
        if not isinstance(e, dict) or str(e.get("name")) not in first:
            continue
        name = str(e["name"])
        person = None if e.get("person") is None else str(e["person"])[:64]
        seen[name] = seen.get(name, 0) + 1
        if seen[name] == 1:
            first[name].person = person
            first[name].active = bool(e.get("active", True))
        elif seen[name] == 2:  # 每名角色仅限更换一次替补
            at = float(e.get("at") or now)
            s.add(
                Seat(
                    game_id=game_id,
                    name=name,
                    token=secrets.token_urlsafe(24),
                    active=True,
                    created_at=at,
                    person=person,
                )
            )
    for name, row in first.items():
        if seen.get(name, 0) < 2:
            row.active = True  # every character keeps one working link


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
