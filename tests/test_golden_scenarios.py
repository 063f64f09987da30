"""The project's own golden scenarios (tests/scenarios/<ruleset>/*.yaml), one per skill and edge.

Each file is a scenario in the shared format with an `expect` block; some also carry
`expect_transcript_contains` checks through `announce`/`private`."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from banshe.scenario import run_file

from .scenario_check import differences

GOLDEN = Path(__file__).resolve().parent / "scenarios"
FILES = sorted(GOLDEN.rglob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(GOLDEN)))
def test_golden_scenario(path: Path) -> None:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert "expect" in doc, "a golden scenario must say what it expects"
    got = run_file(path)
    assert differences(doc["expect"], got) == []
