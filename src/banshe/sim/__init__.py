"""The simulator: agents that see only their own view, an AEC-style environment, mass runs.

- `agents`: the `Agent` protocol, `Observation`, the `random` policy, `load_policy`;
- `heuristic`: the `heuristic` policy (generic, plus per-ruleset rules keyed by ruleset id);
- `env`: `GameEnv` (agent_iter / last / step) and `play_game`;
- `runner`: `simulate` (seeded slices, local processes or Ray), `stats`, `report`;
- `bots`: the older random-legal driver used by `banshe demo` and `benchmarks/bench_games.py`.
"""

from . import effects  # noqa: F401  (registers the per-ruleset effect counters)
from .agents import Agent, AgentFactory, Observation, RandomAgent, load_policy
from .bots import RandomBot, play_random_game
from .env import GameEnv, play_game

__all__ = [
    "Agent",
    "AgentFactory",
    "GameEnv",
    "Observation",
    "RandomAgent",
    "RandomBot",
    "load_policy",
    "play_game",
    "play_random_game",
]
