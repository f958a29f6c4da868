"""The layers of rrmap.rank import only downwards: cli → agreement → models → data → limits."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RANK = Path(__file__).resolve().parents[2] / "rrmap" / "rank"
#: Each layer and the layers of rrmap.rank it may import.
ALLOWED = {
    "limits": set(),
    "data": {"limits"},
    "models": {"data", "limits"},
    "agreement": {"models", "data", "limits"},
    "cli": {"agreement", "models", "data", "limits"},
}


def _layer(path: Path) -> str:
    part = path.relative_to(RANK).parts[0]
    return part.removesuffix(".py")


def _rank_imports(path: Path) -> set[str]:
    """The layers of rrmap.rank that *path* imports, wherever the import stands."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] if node.level == 0 else []
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[:2] == ["rrmap", "rank"] and len(parts) > 2:
                found.add(parts[2])
    return found


MODULES = sorted(p for p in RANK.rglob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(RANK)))
def test_imports_go_down_the_layers(path):
    layer = _layer(path)
    wrong = _rank_imports(path) - ALLOWED[layer] - {layer}
    assert not wrong, f"{path.relative_to(RANK)} ({layer}) imports {sorted(wrong)}"


def test_no_layer_holds_more_than_a_dozen_modules():
    for folder in [RANK, *(p for p in RANK.iterdir() if p.is_dir() and p.name != "__pycache__")]:
        modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        assert len(modules) <= 12, f"{folder.name}: {len(modules)} modules"
