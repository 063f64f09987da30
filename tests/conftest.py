from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
GOLDEN = ROOT / "tests" / "scenarios"


@pytest.fixture
def shared_dir() -> Path:
    return SHARED
