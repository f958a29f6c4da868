"""Every public object documents itself with a runnable example, and the examples run."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import pytest

import rrmap

#: Every module of the package, private ones included.
ALL_MODULES = sorted(m.name for m in pkgutil.walk_packages(rrmap.__path__, "rrmap."))

#: The modules whose public objects must show an example (private modules and private
#: packages' modules may, and their examples run too).
MODULES = [n for n in ALL_MODULES if not any(p.startswith("_") for p in n.split(".")[1:])]


def _public_objects(module):
    for name in getattr(module, "__all__", []):
        obj = getattr(module, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            if getattr(obj, "__module__", "") == module.__name__:
                yield name, obj


@pytest.mark.parametrize("name", MODULES)
def test_public_api_has_numpydoc_examples(name):
    module = importlib.import_module(name)
    missing = [
        n for n, obj in _public_objects(module) if "Examples\n" not in (inspect.getdoc(obj) or "")
    ]
    assert not missing, f"{name}: no Examples section in {missing}"


#: Modules whose examples run whole analyses or draw and save figures (a second and more
#: each): the slow tier runs them, as ``pytest --doctest-modules rrmap`` does.
LONG_EXAMPLES = {
    "rrmap.analysis.result",
    "rrmap.analysis.run",
    "rrmap.plot.analysis_figures",
    "rrmap.plot.figures.intervals",
    "rrmap.plot.figures.layouts",
    "rrmap.plot.figures.map",
    "rrmap.plot.figures.summaries",
    "rrmap.plot.interactive",
    "rrmap.report.designs",
    "rrmap.report.html",
    "rrmap.report.latex",
    "rrmap.report.markdown",
    "rrmap.report.sections",
    "rrmap.stats.designs",
}


def test_the_long_examples_are_modules_of_the_package():
    """A renamed module would otherwise leave the default tier without a word."""
    assert LONG_EXAMPLES <= set(ALL_MODULES)


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.slow) if n in LONG_EXAMPLES else n for n in ALL_MODULES],
)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} failing example(s) in {name}"
