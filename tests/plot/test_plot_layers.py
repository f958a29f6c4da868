"""The layers of rrmap.plot import only downwards: the builders, export and styles at the
package's root → figures → base (base imports nothing else of rrmap.plot)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PLOT = Path(__file__).resolve().parents[2] / "rrmap" / "plot"
#: Each layer and the layers of rrmap.plot it may import ("root": the package's own modules).
ALLOWED = {
    "base": set(),
    "figures": {"base"},
    "root": {"figures", "base", "root"},
}
LAYERS = ("base", "figures")


def _layer_of(parts: list[str]) -> str:
    return parts[0] if parts and parts[0] in LAYERS else "root"


def _plot_imports(path: Path) -> set[str]:
    """The layers of rrmap.plot that *path* imports, wherever the import stands (module
    names in strings, such as the workers' preload list, count too)."""
    found = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.startswith("rrmap.plot.") and " " not in node.value:
                names = [node.value.split(":")[0]]
        for name in names:
            parts = name.split(".")
            if parts[:2] == ["rrmap", "plot"] and len(parts) > 2:
                found.add(_layer_of(parts[2:]))
    return found


MODULES = sorted(p for p in PLOT.rglob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PLOT)))
def test_imports_go_down_the_layers(path):
    layer = _layer_of(list(path.relative_to(PLOT).parts))
    wrong = _plot_imports(path) - ALLOWED[layer] - {layer}
    assert not wrong, f"{path.relative_to(PLOT)} ({layer}) imports {sorted(wrong)}"


def test_no_folder_holds_more_than_a_dozen_modules():
    for folder in (PLOT, PLOT / "base", PLOT / "figures"):
        modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        assert len(modules) <= 12, f"{folder.name}: {len(modules)} modules"
