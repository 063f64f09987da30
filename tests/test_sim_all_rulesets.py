"""Every registered ruleset plays with both built-in policies (a conformance check for the simulator).

Parametrized over `all_rulesets()`, so a ruleset added on another branch is covered once merged.
"""

from __future__ import annotations

import pytest

from banshe.rulesets.registry import all_rulesets
from banshe.sim.runner import SimConfig, default_player_count, simulate

RULESETS = [rs.id for rs in all_rulesets()]


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_ruleset_plays_with_builtin_policy(ruleset: str, policy: str) -> None:
    count = default_player_count(ruleset)
    result = simulate(SimConfig(ruleset, 4, (count,), policy=policy, seed=2, max_phases=80), jobs=1)
    stats = result.by_players[count]
    assert stats.errors == 0, stats.error_samples
    assert stats.games == 4
    assert stats.refused == 0  # built-in agents only post what the engine accepts
    assert sum(stats.seats.values()) == 4 * count
    assert sum(stats.wins.values()) + stats.unfinished == 4
    summary = result.to_json()["overall"]
    assert summary["win_rates"] and summary["survival"]
