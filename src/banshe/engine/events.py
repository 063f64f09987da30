"""Events: everything the engine tells anyone, each with its audience."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
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
        return Audience(GROUP, members, group)

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


@dataclass(slots=True)
class Event:
    """One thing the engine told someone. Never changed once logged (not `frozen`: a frozen
    dataclass's `__init__` costs three times as much, and a game makes ~150 events)."""

    kind: str
    phase: str
    audience: Audience
    data: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""

    def visible_to(self, viewer: str | None) -> bool:
        return self.audience.includes(viewer)
