"""The pure rules core: no web, database, clock or global random.

`new_game` seats and deals; `step(state, command)` returns a new state and its events;
`view(state, viewer)` is what one seat may see; `replay(state)` rebuilds from the log.
"""

from .commands import ABSTAIN, DIRECTOR, Command, IllegalCommand
from .core import GameEnded, Step, apply_in_place, new_game, replay, step
from .events import Audience, Event
from .model import Character, GameState, Phase, Prompt
from .view import legal_commands, view

__all__ = [
    "ABSTAIN",
    "DIRECTOR",
    "Command",
    "IllegalCommand",
    "GameEnded",
    "Step",
    "apply_in_place",
    "new_game",
    "replay",
    "step",
    "Audience",
    "Event",
    "Character",
    "GameState",
    "Phase",
    "Prompt",
    "view",
    "legal_commands",
]
