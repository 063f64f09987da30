"""Every public conformance scenario in ../shared/scenarios (present in CI) must reproduce its expect block."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from banshe.rulesets.registry import find_ruleset
from banshe.scenario import run_file

from .scenario_check import differences

SHARED_SCENARIOS = Path(__file__).resolve().parent.parent.parent / "shared" / "scenarios"
FILES = sorted(SHARED_SCENARIOS.rglob("*.yaml")) if SHARED_SCENARIOS.is_dir() else []


def _registered(path: Path) -> bool:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    try:
        find_ruleset(str(doc.get("ruleset")))
    except KeyError:
        return False
    return True


@pytest.mark.skipif(not FILES, reason="../shared/scenarios is not present on this machine")
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SHARED_SCENARIOS)))
def test_shared_scenario(path: Path) -> None:
    if not _registered(path):
        pytest.skip("ruleset not implemented yet")
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    got = run_file(path)
    assert differences(doc.get("expect") or {}, got) == []
