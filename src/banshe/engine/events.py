"""Events: everything the engine tells anyone, each with its audience."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PUBLIC = "public"
PLAYER = "player"
GROUP = "group"
DIRECTOR = "director"


@dataclass(frozen=True, slots=True)
class Audience:
    """Who may see an event. Group audiences list their members as they were when it was sent."""

    kind: str
    members: tuple[str, ...] = ()
    group: str = ""

    @staticmethod
    def public() -> Audience:
        return _PUBLIC

    @staticmethod
    def director() -> Audience:
        return _DIRECTOR

    @staticmethod
    def player(name: str) -> Audience:
        audience = _PLAYERS.get(name)
        if audience is None:
            if len(_PLAYERS) >= 10_000:
                _PLAYERS.clear()
            audience = _PLAYERS[name] = Audience(PLAYER, (name,))
        return audience

    @staticmethod
    def of_group(group: str, members: tuple[str, ...]) -> Audience:
        # one shared (immutable) audience per group and membership
        key = (group, members)
        audience = _GROUPS.get(key)
        if audience is None:
            if len(_GROUPS) >= 10_000:
                _GROUPS.clear()
            audience = _GROUPS[key] = Audience(GROUP, members, group)
        return audience

    def includes(self, viewer: str | None) -> bool:
        """`viewer` None is the director, who sees everything."""
        if viewer is None or self.kind == PUBLIC:
            return True
        if self.kind == DIRECTOR:
            return False
        return viewer in self.members


_PUBLIC = Audience(PUBLIC)
# one shared (immutable) audience per player name
_PLAYERS: dict[str, Audience] = {}
_GROUPS: dict[tuple[str, tuple[str, ...]], Audience] = {}
_DIRECTOR = Audience(DIRECTOR)


# Event kinds.
ANNOUNCE = "announce"  # a public post (公示); text is the post
FEEDBACK = "feedback"  # a skill's private result: data skill/target/result
NOTICE = "notice"  # a private or group message that is not a skill result (identity, prompt, 遗言 right)
OUT = "out"  # a character left the game: data player/cause (director; the public learns from ANNOUNCE)
SHERIFF = "sheriff"  # the badge changed hands: data player (None = torn)
CHANCE = "chance"  # a random draw the rules leave to the director: data purpose/choice
CAMP = "camp"  # a character's camp was set or changed: data player/camp
LOST = "lost"  # a camp was judged lost: data camp/reason
WIN = "win"  # the game ended: data camp/reason
ACCEPTED = "accepted"  # a command was accepted: data is the command (director's log)


class Event:
    """One thing the engine told someone. Never changed once logged. A plain class with its own
    `__init__` rather than a dataclass: the compiled build runs a dataclass's generated
    `__init__` as interpreted code, and a game makes ~150 events."""

    __slots__ = ("kind", "phase", "audience", "data", "text")

    def __init__(
        self, kind: str, phase: str, audience: Audience, data: Mapping[str, Any] | None = None, text: str = ""
    ) -> None:
        self.kind = kind
        self.phase = phase
        self.audience = audience
        self.data: Mapping[str, Any] = {} if data is None else data
        self.text = text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (self.kind, self.phase, self.audience, self.data, self.text) == (
            other.kind,
            other.phase,
            other.audience,
            other.data,
            other.text,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it was

    def __repr__(self) -> str:
        return (
            f"Event(kind={self.kind!r}, phase={self.phase!r}, audience={self.audience!r}, "
            f"data={self.data!r}, text={self.text!r})"
        )

    def visible_to(self, viewer: str | None) -> bool:
        return self.audience.includes(viewer)
