"""The layout keeps its shape (docs/architecture.md): layers, import direction, sizes.

Read from the source with ``ast``: every ``import`` of an rrmap module,
at module level or inside a function, except under ``if TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "rrmap"

#: Which layers each layer may import (besides itself). The RRMap model is the core: the
#: root modules and the plumbing they share (``_util``, ``_io``).
ALLOWED = {
    "core": set(),
    "stats": {"core"},
    "plot": {"core"},
    "report": {"core", "stats", "plot"},
    "analysis": {"core", "stats", "plot", "report"},
    "rank": {"core"},
    "judge": {"core", "rank"},
    "cli": {"core", "stats", "plot", "report", "analysis", "rank", "judge", "api"},
    # the package root is the public surface: it re-exports, it does not run commands
    "api": {"core", "stats", "plot", "report", "analysis", "rank", "judge"},
}

#: Packages of the core that every layer shares (their modules are private to rrmap, not to
#: one package).
SHARED = ("_util", "_io")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def layer(module: str) -> str:
    parts = module.split(".")
    if module == "rrmap":
        return "api"
    if len(parts) > 1 and parts[1] in ("stats", "plot", "cli", "rank", "judge", "report",
                                       "analysis"):  # fmt: skip
        return parts[1]
    if module in ("rrmap.latex", "rrmap.report_html"):  # the reports' former homes
        return "report"
    return "core"


MODULES = {module_name(p): p for p in ROOT.rglob("*.py")}


@functools.cache
def tree_of(path: Path) -> ast.Module:
    """The parsed module (parsed once for all the checks: they only read it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def imports(path: Path, type_checking: bool = False) -> tuple[tuple[int, str, bool], ...]:
    """(line, imported rrmap module, at module level) for every import (those under
    ``if TYPE_CHECKING`` only with *type_checking*)."""
    tree = tree_of(path)
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            if not type_checking:
                skip.update(id(n) for n in ast.walk(node))
    top = {id(n) for n in tree.body}
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rrmap"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                names.append(sub if sub in MODULES else node.module)
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith("rrmap")]
        found += [(node.lineno, name, id(node) in top) for name in names]
    return tuple(found)  # cached: shared by the checks, so not to be changed


def imported_names(path: Path) -> list[tuple[int, str, str]]:
    """(line, module, name) of every ``from rrmap… import name``, TYPE_CHECKING included."""
    tree = tree_of(path)
    return [
        (node.lineno, node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rrmap")
        for alias in node.names
    ]


def package_of(module: str) -> str:
    """The top-level package of *module*: ``stats``, ``plot``, …, or ``core`` (the root
    modules and the shared ``_util`` and ``_io``)."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in ("stats", "plot", "cli", "rank", "judge", "report",
                                       "analysis"):  # fmt: skip
        return parts[1]
    return "core"


def test_imports_go_down_the_layers():
    wrong = []
    for mod, path in MODULES.items():
        src = layer(mod)
        for line, target, _ in imports(path):
            dst = layer(target)
            if target == "rrmap" and src not in ("cli", "api"):
                wrong.append(f"{mod}:{line} imports the package root")
            if dst != src and dst not in ALLOWED[src] and target != "rrmap.cli.common":
                wrong.append(f"{mod}:{line} ({src}) imports {target} ({dst})")
    assert not wrong, "\n".join(wrong)


def test_only_the_shared_module_of_the_cli_is_used_outside_it():
    wrong = [
        f"{mod}:{line} imports {target}"
        for mod, path in MODULES.items()
        if layer(mod) != "cli"
        for line, target, _ in imports(path)
        if layer(target) == "cli" and target != "rrmap.cli.common"
    ]
    assert not wrong, "\n".join(wrong)


def test_no_private_name_is_imported_across_top_level_packages():
    """A name spelled private is private to its top-level package: what another package
    uses is named public (the core — root modules, ``_util``, ``_io`` — is one package)."""
    wrong = [
        f"{mod}:{line} imports {name} from {source}"
        for mod, path in MODULES.items()
        for line, source, name in imported_names(path)
        if name.startswith("_") and name != "__version__" and package_of(source) != package_of(mod)
    ]
    assert not wrong, "\n".join(wrong)


def test_no_locals_passed_on():
    """Options travel as named values or typed objects, never as a function's ``locals()``."""
    wrong = []
    for mod, path in MODULES.items():
        for node in ast.walk(tree_of(path)):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("locals", "vars"):
                wrong.append(f"{mod}:{node.lineno}")
    assert not wrong, "\n".join(wrong)


def test_no_private_module_of_another_package_is_imported():
    wrong = []
    for mod, path in MODULES.items():
        package = mod.rsplit(".", 1)[0] if path.name != "__init__.py" else mod
        for line, target, _ in imports(path):
            private = [p for p in target.split(".")[1:] if p.startswith("_")]
            owner = target.rsplit(".", 1)[0]
            if private and target != "rrmap._version" and not package.startswith(owner):
                if private[0] in SHARED:  # the core's shared plumbing
                    continue
                if judge_layer(mod) and judge_layer(target):  # private to the judge, not its layer
                    continue
                if mod.startswith("rrmap.plot.") and target.startswith("rrmap.plot."):
                    continue  # private to rrmap.plot, not to its layer (base, figures)
                wrong.append(f"{mod}:{line} imports {target}")
    assert not wrong, "\n".join(wrong)


#: The judge's layers, top to bottom: each imports only those below it (docs/architecture.md).
JUDGE_LAYERS = ("cli", "tasks", "prompting", "transport")


def judge_layer(module: str) -> str | None:
    """The judge layer of *module* (``rrmap.judge.tasks.mcq`` → ``tasks``), if it has one."""
    parts = module.split(".")
    if len(parts) > 2 and parts[:2] == ["rrmap", "judge"] and parts[2] in JUDGE_LAYERS:
        return parts[2]
    return None


def judge_imports_up(found: dict[str, list[tuple[int, str, bool]]]) -> list[str]:
    """The imports in *found* (module → its imports) that go up the judge's layers."""
    wrong = []
    for mod, targets in found.items():
        src = judge_layer(mod)
        for line, target, _ in targets:
            dst = judge_layer(target)
            if src and dst and JUDGE_LAYERS.index(dst) < JUDGE_LAYERS.index(src):
                wrong.append(f"{mod}:{line} ({src}) imports {target} ({dst})")
    return wrong


def test_the_judge_imports_down_its_layers():
    judge = {m: imports(p) for m, p in MODULES.items() if m.startswith("rrmap.judge.")}
    assert not judge_imports_up(judge), "\n".join(judge_imports_up(judge))


def test_the_judge_layer_check_catches_an_import_that_goes_up():
    up = {
        "rrmap.judge.transport.client": [(3, "rrmap.judge.prompting.prompts", True)],
        "rrmap.judge.prompting.images": [(5, "rrmap.judge.tasks.mcq", False)],
        "rrmap.judge.tasks.mcq": [(7, "rrmap.judge.cli._common", False)],
    }
    down = {"rrmap.judge.cli._common": [(1, "rrmap.judge.transport.client", True)]}
    assert len(judge_imports_up(up)) == 3 and not judge_imports_up(down)


def test_every_judge_module_is_in_a_layer():
    loose = [m for m in MODULES if m.startswith("rrmap.judge.") and not judge_layer(m)]
    assert not loose, f"judge modules outside cli/, tasks/, prompting/, transport/: {loose}"


def test_no_import_cycle_of_any_kind():
    """No circle of imports, counting those inside functions and under TYPE_CHECKING (a
    package's ``__init__`` importing its own modules is not one)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for mod, path in MODULES.items():
        for _, target, _top in imports(path, type_checking=True):
            own_sub = path.name == "__init__.py" and target.startswith(mod + ".")
            if target != mod and not own_sub:
                graph[mod].add(target)
    seen: dict[str, int] = {}
    cycle: list[str] = []

    def visit(node: str, trail: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph[node]):
            if seen.get(nxt) == 1:
                cycle.extend([*trail[trail.index(nxt) :], nxt])
                return
            if nxt not in seen:
                visit(nxt, [*trail, nxt])
            if cycle:
                return
        seen[node] = 2

    for mod in sorted(MODULES):
        if mod not in seen and not cycle:
            visit(mod, [mod])
    assert not cycle, " → ".join(cycle)


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_files_and_functions_stay_readable(path):
    text = path.read_text(encoding="utf-8")
    assert text.count("\n") <= 800, f"{path.name}: {text.count(chr(10))} lines"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            first = body[0]
            doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            start = body[1].lineno if doc and len(body) > 1 else first.lineno
            assert node.end_lineno - start + 1 <= 120, f"{node.name}: body over 120 lines"


def test_no_grab_bag_modules():
    assert not [
        p for p in ROOT.rglob("*.py") if p.stem in ("utils", "helpers", "misc", "common_utils")
    ]


@pytest.mark.parametrize(
    "package", ["rrmap", "rrmap.judge", "rrmap.rank", "rrmap.stats", "rrmap.plot"]
)
def test_a_function_named_like_its_module_stays_the_function(package):
    """Packages load their names lazily; a submodule import must not replace a function."""
    import importlib
    import pkgutil

    pkg = importlib.import_module(package)
    subs = {m.name for m in pkgutil.iter_modules(pkg.__path__)}
    for name in sorted(set(pkg.__all__) & subs - {"datasets"}):
        importlib.import_module(f"{package}.{name}")
        assert callable(getattr(pkg, name)) and not hasattr(getattr(pkg, name), "__path__")
        assert getattr(pkg, name).__name__ == name
    for name in pkg.__all__:
        assert getattr(pkg, name) is not None, name


def test_public_modules_show_only_their_public_names():
    import importlib

    for name in (
        "datasets",
        "limits",
        "errors",
        "ratings",
        "points",
        "zones",
        "tables",
        "interrater",
        "analysis",
        "report",
        "report_html",
        "latex",
    ):
        mod = importlib.import_module(f"rrmap.{name}")
        assert dir(mod) == sorted(mod.__all__), name


def test_a_missing_optional_dependency_says_how_to_install_it(monkeypatch):
    import sys

    import pytest

    import rrmap.plot

    monkeypatch.setitem(sys.modules, "plotly", None)
    for mod in [m for m in sys.modules if m.startswith(("plotly.", "rrmap.plot.interactive"))]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.delitem(rrmap.plot.__dict__, "interactive_rrmap", raising=False)
    with pytest.raises(
        ImportError,
        match=r"needs plotly, which is not installed: pip install "
        r"'rrmap\[interactive\]'",
    ):
        rrmap.plot.interactive_rrmap  # noqa: B018
