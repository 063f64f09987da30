"""The simulator: bots that see only their own view and play random legal moves."""

from .bots import RandomBot, play_random_game

__all__ = ["RandomBot", "play_random_game"]
