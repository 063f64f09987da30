"""The agent layer: what the rulesets' bots implement, below the rulesets and boards.

It imports only `banshe.engine` (and itself); the rulesets import it, and the simulator
(`banshe.sim`) imports both, so the layers point one way: engine <- agents <- rulesets/boards
<- sim <- service/cli.

- `observation`: `Observation`, the question one seat is asked;
- `protocol`: the `Agent` protocol and the `AgentFactory` (policy) signature;
- `heuristic`: the heuristic agent, its generic policy and the per-ruleset `register`;
- `effects`: the per-ruleset effect counters' `register_effects`.

Nothing here looks a ruleset up by id: the heuristic agent is handed its `Ruleset`
(`banshe.sim.heuristic` looks it up).
"""

from .effects import EFFECTS, EffectExtractor, register_effects
from .heuristic import DEFER, REGISTRY, HeuristicAgent, Knowledge, classify, findall, generic_decide, register
from .observation import Asker, Observation
from .protocol import Agent, AgentFactory

__all__ = [
    "DEFER",
    "EFFECTS",
    "REGISTRY",
    "Agent",
    "AgentFactory",
    "Asker",
    "EffectExtractor",
    "HeuristicAgent",
    "Knowledge",
    "Observation",
    "classify",
    "findall",
    "generic_decide",
    "register",
    "register_effects",
]
