"""Per-ruleset effect counters (what a skill achieved), keyed by ruleset id.

The generic counters in `stats.Stats.add_game` already count outs by cause and victim camp,
private feedback results by skill, camps judged lost and how games end. An extractor
(`@stats.register_effects("<ruleset id>")`) adds what only the ruleset's own data tells (a
救药 that met the 狼刀, a 拍刀 that won); each reads the finished game's log and final
characters and never changes them. A ruleset package keeps its own in `effects.py` (品茗:
`rulesets/pinming/effects.py`, 沉寂与取酒: `rulesets/chenji/effects.py`, 感染:
`rulesets/ganran/effects.py`), found here with `banshe.rulesets.registry.ruleset_module`.
"""

from __future__ import annotations

from ..rulesets.registry import all_rulesets, ruleset_module

# each ruleset package registers its counters in its own `effects` module
for _rs in all_rulesets():
    ruleset_module(_rs, "effects")
