"""The simulator: agents that see only their own view, an AEC-style environment, mass runs.

- `agents`: the `Agent` protocol, `Observation`, the `random` policy, `load_policy`;
- `heuristic`: the `heuristic` policy (generic, plus per-ruleset rules keyed by ruleset id);
- `env`: `GameEnv` (agent_iter / last / step), `play_game` and `play_random_game` (the random
  policy's game: `banshe demo`, `benchmarks/bench_games.py` and the property tests);
- `runner`: `simulate` (seeded slices, local processes or Ray), `stats`, `report`;
"""

from . import effects  # noqa: F401  (registers the per-ruleset effect counters)
from .agents import Agent, AgentFactory, Observation, RandomAgent, load_policy
from .env import GameEnv, play_game, play_random_game

__all__ = [
    "Agent",
    "AgentFactory",
    "GameEnv",
    "Observation",
    "RandomAgent",
    "load_policy",
    "play_game",
    "play_random_game",
]
