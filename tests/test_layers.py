"""The layers point one way (issue 27): engine <- agents <- rulesets/library/boards <- sim <- the
adapters. Checked by static analysis of every `import` in the source files (ast), including
imports inside functions and under `if TYPE_CHECKING:`, so no lazy import hides a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PKG = SRC / "banshe"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> set[str]:
    """Every `banshe…` module `path` imports (relative imports resolved), anywhere in the file."""
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    return imports_in(path.read_text(encoding="utf-8"), package)


def imports_in(text: str, package: str) -> set[str]:
    """Every `banshe…` module `text` imports, read as a module of `package`."""
    tree = ast.parse(text)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.add(mod)
            # `from banshe import sim` / `from . import effects`: the names may be modules
            found.update(f"{mod}.{a.name}" for a in node.names)
    return {m for m in found if m == "banshe" or m.startswith("banshe.")}


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _files(package: str) -> list[Path]:
    return sorted((PKG / package).rglob("*.py"))


# package -> the banshe top-level packages it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "agents": {"engine"},
}
# package -> the banshe top-level packages it must never import
FORBIDDEN: dict[str, set[str]] = {
    "rulesets": {"sim", "service", "forum", "cli"},
    "library": {"sim", "service", "forum", "cli"},
    "boards": {"sim", "service", "forum", "cli"},
}


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_lower_layers_import_only_below(package: str) -> None:
    files = _files(package)
    assert files, package
    wrong = {
        f"{f.relative_to(SRC)}: {m}"
        for f in files
        for m in imported_modules(f)
        if _top(m) not in ALLOWED[package] | {package}
    }
    assert not wrong, sorted(wrong)


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_boards_never_import_the_adapters(package: str) -> None:
    files = _files(package)
    assert files, package
    wrong = {f"{f.relative_to(SRC)}: {m}" for f in files for m in imported_modules(f) if _top(m) in FORBIDDEN[package]}
    assert not wrong, sorted(wrong)


def test_the_check_sees_relative_and_lazy_imports() -> None:
    """The analysis itself: a relative import two levels up, one inside a function and one under
    TYPE_CHECKING are all found (else the layer tests above could not fail)."""
    text = (
        "from typing import TYPE_CHECKING\n"
        "from ...sim.stats import Stats\n"
        "if TYPE_CHECKING:\n    from banshe.service import app\n"
        "def f():\n    from ... import cli\n    import banshe.forum.grammar\n"
    )
    found = imports_in(text, "banshe.rulesets.pinming")
    assert {"banshe.sim.stats", "banshe.service", "banshe.cli", "banshe.forum.grammar"} <= found
    assert {_top(m) for m in found} >= {"sim", "service", "cli", "forum"}
    assert imports_in("from ..engine.model import GameState\n", "banshe.agents") == {
        "banshe.engine.model",
        "banshe.engine.model.GameState",
    }
