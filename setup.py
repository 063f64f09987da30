"""Optional compiled build: `BANSHE_COMPILE=1 pip install --no-build-isolation .` compiles the
rules core and the simulator with mypyc (needs mypy and a C compiler; see scripts/setup-fast.sh).
Without BANSHE_COMPILE the package is pure Python, as declared in pyproject.toml."""

from __future__ import annotations

import os

from setuptools import setup

# the modules the simulator spends its time in; everything else stays interpreted
COMPILED = [
    "src/banshe/engine/actions.py",
    "src/banshe/engine/commands.py",
    "src/banshe/engine/core.py",
    "src/banshe/engine/events.py",
    "src/banshe/engine/last_words.py",
    "src/banshe/engine/model.py",
    "src/banshe/engine/publish.py",
    "src/banshe/rulesets/registry.py",
    "src/banshe/engine/ruleset.py",
    "src/banshe/engine/view.py",
    "src/banshe/rulesets/pinming/rules.py",
    "src/banshe/rulesets/pinming/state.py",
    "src/banshe/rulesets/pinming/bots.py",
    "src/banshe/rulesets/pinming/effects.py",
    "src/banshe/rulesets/chenji/roles.py",
    "src/banshe/rulesets/chenji/common.py",
    "src/banshe/rulesets/chenji/slanderer.py",
    "src/banshe/rulesets/chenji/nun.py",
    "src/banshe/rulesets/chenji/rules.py",
    "src/banshe/rulesets/chenji/achievements.py",
    "src/banshe/rulesets/chenji/state.py",
    "src/banshe/rulesets/chenji/bots.py",
    "src/banshe/rulesets/chenji/effects.py",
    "src/banshe/rulesets/ganran/rules.py",
    "src/banshe/rulesets/ganran/state.py",
    "src/banshe/rulesets/ganran/bots.py",
    "src/banshe/rulesets/ganran/effects.py",
    "src/banshe/library/board.py",
    "src/banshe/library/state.py",
    "src/banshe/agents/observation.py",
    "src/banshe/agents/heuristic.py",
    "src/banshe/agents/effects.py",
    "src/banshe/sim/seat.py",
    "src/banshe/sim/env.py",
    "src/banshe/sim/stats.py",
    "src/banshe/sim/effects.py",
]

ext_modules = []
if os.environ.get("BANSHE_COMPILE"):
    from mypyc.build import mypycify

    ext_modules = mypycify(COMPILED, opt_level="3")

setup(ext_modules=ext_modules)
