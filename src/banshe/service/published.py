"""What the players have been shown: one published view for every page, fragment, state.json,
SSE message, deadline label and refusal (issue 22).

The engine runs ahead of what players may see in two ways, and this module holds both back:

- **Time.** A phase that closes settles at once in the engine (outs, prompts, the next phase),
  but its results are released only when the settling window after the close ends (deadlines.py):
  while it runs, players see the game as it was just before the close (`shown`, the state
  replayed up to the closing command), the phase marked 结算中 — the same whether a 猎人 is
  deciding his shot or nothing is pending. Only the prompted player sees his prompt (and his own
  answers) meanwhile.
- **Publication.** With review on, a 公示 reaches players when the director publishes it. An out
  (and a change of sheriff) is public once the first 公示 after it is published: until then
  every page shows the character alive, lists him as a target, and takes votes and skills aimed
  at him (they are void, and the reason is told once the out is published).

Nothing here reads the clock or the database: `publication` is computed from the game row, the
engine states and the announcement rows the caller read.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..engine.commands import CHANGE_VOTE, VOTE
from ..engine.events import ACCEPTED, ANNOUNCE, NOTICE, OUT, PLAYER, PUBLIC, SHERIFF
from ..engine.model import GameState
from ..engine.ruleset import Ruleset
from ..engine.view import known_camp
from .models import Game

# per (phase, voter): the written target of each of his vote posts that phase, in order (None:
# the engine holds the real target; a name: a void vote, which the engine holds as 弃权)
VoidVotes = dict[tuple[str, str], list[str | None]]
# the engine refusals a secret out causes (an aimed-at character or the actor himself is out)
OUT_CODES = frozenset({"target_out", "actor_out"})


@dataclass
class Publication:
    """A game as its players may see it now."""

    label: str  # the phase players see
    settling: bool  # closed: its results are not released yet (a settling window, or the dawn 公示)
    since: float  # when that phase (or its settling) began for the players
    begun: bool  # the 开局 clock runs (a scheduled start has come)
    state: GameState  # the engine's state now
    shown: GameState  # what players may see of it: the state before the close while a window runs
    held: bool  # a settling window runs (`shown` is the state before the close)
    published: frozenset[int]  # the 公示 (announcement idx) players have
    hidden_outs: frozenset[str]  # out in `shown`, the out not yet published
    sheriff: str | None  # the sheriff as published
    over: bool
    notice_index: dict[int, int] = field(default_factory=dict)  # log index -> announcement idx
    held_events: frozenset[int] = frozenset()  # public events (a 行刺) waiting for their 公示
    # probes made from it, kept for every page and live digest of this snapshot (never applied to)
    probes: dict[tuple[str | None, int], GameState] = field(default_factory=dict)

    @property
    def open(self) -> bool:
        """Players may act: the phase is open to them (not settling, the game begun and going on)."""
        return self.begun and not self.settling and not self.over

    def out_known(self, name: str, viewer: str | None) -> bool:
        """Whether `viewer` may know that `name` is out (his own out he is told himself)."""
        c = self.shown.chars.get(name)
        if c is None or c.alive:
            return False
        return name not in self.hidden_outs or name == viewer

    def out_known_any(self, names: Iterable[str], viewer: str | None) -> bool:
        return any(self.out_known(n, viewer) for n in names)

    def alive_to(self, name: str, viewer: str | None) -> bool:
        c = self.shown.chars.get(name)
        return c is not None and (c.alive or not self.out_known(name, viewer))


def announce_indices(state: GameState) -> list[int]:
    """The log index of each public 公示, in order (its announcement idx)."""
    return [i for i, e in enumerate(state.log) if e.kind == ANNOUNCE and e.audience.kind == PUBLIC]


def publication(
    game: Game, state: GameState, before_close: GameState | None, published_idx: Iterable[int]
) -> Publication:
    """The game as its players may see it. `before_close`: the state just before the closing
    command while a settling window runs (`game.held_log` set), else None."""
    over = bool(state.over) or game.status == "ended"
    held = before_close is not None and game.held_log is not None and not over
    shown = before_close if held and before_close is not None else state
    published = frozenset(published_idx) if not over else frozenset(range(len(announce_indices(state))))
    marks = announce_indices(shown)
    notice_index = {pos: idx for idx, pos in enumerate(marks)}

    starts = [i for i, e in enumerate(shown.log) if e.kind == ACCEPTED]  # each command's events begin

    def public_from(pos: int) -> bool:
        """An out (or a change of sheriff) at log index `pos` is public once the 公示 that tells it
        is published: the last 公示 of the same command before it (第2天投票结束…当选警长, then the
        change), else the first one after it (昨夜出局：… at the next day's opening)."""
        if over:
            return True
        k = bisect_right(starts, pos) - 1
        start = starts[k] if k >= 0 else 0
        idx = bisect_right(marks, pos)
        if idx > 0 and marks[idx - 1] >= start:
            return (idx - 1) in published
        return idx < len(marks) and idx in published

    hidden: set[str] = set()
    held_events: set[int] = set()
    sheriff: str | None = None
    for pos, e in enumerate(shown.log):
        if e.kind == OUT and not public_from(pos):
            hidden.add(str(e.data.get("player")))
        elif e.kind == SHERIFF and public_from(pos):
            who = e.data.get("player")
            sheriff = str(who) if who else None
        elif e.kind == ACCEPTED and e.audience.kind == PUBLIC and not _vote_event(e.data) and not public_from(pos):
            held_events.add(pos)  # a public skill (行刺) is told with its 公示
    hidden = {n for n in hidden if not shown.chars[n].alive}
    return Publication(
        label=shown.phase.label if over else (game.public_label or shown.phase.label),
        settling=bool(game.public_settling) and not over,
        since=game.public_since,
        begun=game.start_at is None,
        state=state,
        shown=shown,
        held=held,
        published=published,
        hidden_outs=frozenset(hidden),
        sheriff=sheriff,
        over=over,
        notice_index=notice_index,
        held_events=frozenset(held_events),
    )


def revived(pub: Publication, viewer: str | None, state: GameState | None = None) -> GameState:
    """`pub.shown` (or `state`) with every out `viewer` may not know of undone (a probe: the
    players' legal targets and checks; never applied to)."""
    base = pub.shown if state is None else state
    hidden = [n for n in pub.hidden_outs if n != viewer and n in base.chars and not base.chars[n].alive]
    if not hidden:
        return base
    key = (viewer if viewer in pub.hidden_outs else None, -1)
    if state is None and key in pub.probes:
        return pub.probes[key]
    probe = base.clone()
    for name in hidden:
        probe.chars[name].alive = True
    probe.outs = [o for o in probe.outs if o.player not in hidden]
    probe.living_memo = (-1, ())
    if state is None:
        pub.probes[key] = probe
    return probe


def visible_events(pub: Publication, viewer: str, void_votes: VoidVotes | None = None) -> list[dict[str, Any]]:
    """The events `viewer` has been shown, as `view` lists them: the shown state's events he may
    see, less the unpublished 公示; while a settling window runs, also his raised prompt and his
    own answers. `void_votes`: per voter, the written target of each of his vote posts today, in
    order (None: the engine has the real target), so a void vote shows as posted."""
    out: list[dict[str, Any]] = []
    for pos, e in enumerate(pub.shown.log):
        if not e.visible_to(viewer):
            continue
        if e.kind == ANNOUNCE and e.audience.kind == PUBLIC and pub.notice_index.get(pos) not in pub.published:
            continue
        if pos in pub.held_events and not (e.kind == ACCEPTED and e.data["command"].get("actor") == viewer):
            continue
        out.append({"kind": e.kind, "phase": e.phase, "text": e.text, "data": dict(e.data)})
    if pub.held:
        for e in pub.state.log[len(pub.shown.log) :]:
            mine = e.audience.kind == PLAYER and e.audience.members == (viewer,)
            if (
                mine
                and e.kind == NOTICE
                and "prompt" in e.data
                or e.kind == ACCEPTED
                and e.data["command"].get("actor") == viewer
                and e.visible_to(viewer)
            ):
                out.append({"kind": e.kind, "phase": e.phase, "text": e.text, "data": dict(e.data)})
    if void_votes:
        _show_void_votes(out, void_votes)
    return out


def _vote_event(data: Mapping[str, Any]) -> bool:
    command = data.get("command") or {}
    return command.get("skill") in (VOTE, CHANGE_VOTE)


def _show_void_votes(events: list[dict[str, Any]], written: VoidVotes) -> None:
    """A void vote went to the engine as 弃权: show each vote event with its post's target."""
    seen: dict[tuple[str, str], int] = {}
    for e in events:
        if e["kind"] != ACCEPTED:
            continue
        cmd = e["data"]["command"]
        if cmd.get("skill") not in (VOTE, CHANGE_VOTE):
            continue
        key = (e["phase"], str(cmd["actor"]))
        k = seen.get(key, 0)
        seen[key] = k + 1
        posts = written.get(key) or []
        if k < len(posts) and posts[k] is not None:
            e["data"] = {"command": {**cmd, "targets": [posts[k]]}}


def player_view(pub: Publication, rs: Ruleset, viewer: str, void_votes: VoidVotes | None = None) -> dict[str, Any]:
    """`engine.view(state, viewer)` as published: the same keys, from what `viewer` was shown."""
    shown = pub.shown
    events = visible_events(pub, viewer, void_votes)
    seats = []
    for name in shown.order:
        c = shown.chars[name]
        seat: dict[str, Any] = {"name": name, "alive": pub.alive_to(name, viewer), "sheriff": pub.sheriff == name}
        if name == viewer or pub.over:
            seat["role"] = rs.role_name(c.role)
        if pub.over:
            seat["camp"] = rs.camp_name(c.camp)
            seat["statuses"] = sorted(c.statuses)
            seat["lives"] = c.lives
        seats.append(seat)
    me = shown.chars[viewer]
    head = pub.state.prompts[0] if pub.state.prompts and pub.state.prompt_raised else None
    out: dict[str, Any] = {
        "ruleset": rs.name,
        "viewer": viewer,
        "phase": pub.label,
        "settling": pub.settling,
        "sheriff": pub.sheriff,
        "seats": seats,
        "events": events,
        "winner": rs.camp_name(shown.winner) if pub.over and shown.winner else None,
        "ended_in": shown.ended_in.label if pub.over and shown.ended_in else None,
        "me": {
            "name": viewer,
            "role": rs.role_name(me.role),
            "alive": pub.alive_to(viewer, viewer),
            "charges": dict(me.charges),
            "camp": known_camp(shown, rs, viewer),
        },
        "groups": {g: list(m) for g, m in shown.groups.items() if viewer in m},
        "prompt": rs.skill_name(head.skill) if head is not None and head.actor == viewer else None,
    }
    if pub.open and shown.phase.label == pub.label and viewer in shown.votes:
        out["my_vote"] = _my_vote(events, pub.label, viewer)
    return out


def _my_vote(events: Sequence[dict[str, Any]], label: str, viewer: str) -> str:
    vote = ""
    for e in events:
        if e["kind"] == ACCEPTED and e["phase"] == label:
            cmd = e["data"]["command"]
            if cmd.get("actor") == viewer and cmd.get("skill") in (VOTE, CHANGE_VOTE):
                vote = (cmd.get("targets") or [""])[0]
    return vote


__all__ = [
    "OUT_CODES",
    "announce_indices",
    "Publication",
    "known_camp",
    "player_view",
    "publication",
    "revived",
    "visible_events",
]
