"""The two tiers: a test marked ``first_case_by_default`` keeps one case in the README's
command, and the slow tier (``pytest -m slow``, which ``.ci/run`` runs) gets the others;
property tests are marked ``property`` and draw a quarter of their examples unless
``RRMAP_PROPERTY_EXAMPLES=all``."""

from __future__ import annotations

import inspect
from pathlib import Path

import properties
import pytest
import tiers

TESTS = """
import pytest
from hypothesis import given, strategies as st

@pytest.mark.first_case_by_default
@pytest.mark.parametrize("n", [pytest.param(0, marks=pytest.mark.slow), 1, 2, 3])
def test_sizes(n):
    pass

@pytest.mark.first_case_by_default
@pytest.mark.parametrize("n", [4, 5])
def test_other(n):
    pass

@pytest.mark.parametrize("n", [6, 7])
def test_every_case(n):
    pass

@given(st.integers())
def test_property(n):
    pass
"""


def _ran(pytester: pytest.Pytester, tier: str) -> list[str]:
    """The tests of :data:`TESTS` that *tier* (a ``-m`` expression) runs, under the hook."""
    pytester.makeconftest(inspect.getsource(tiers))
    pytester.makeini("[pytest]\nmarkers =\n    slow\n    first_case_by_default\n    property\n")
    pytester.makepyfile(test_cases=TESTS)
    reports = pytester.inline_run("-m", tier, "-p", "no:xdist").getreports()
    return sorted(r.nodeid.split("::")[1] for r in reports if r.when == "call" and r.passed)


def test_the_first_case_not_already_slow_runs_by_default(pytester):
    assert _ran(pytester, "not slow") == [
        "test_every_case[6]", "test_every_case[7]", "test_other[4]", "test_property",
        "test_sizes[1]",
    ]  # fmt: skip


def test_the_slow_tier_runs_every_other_case(pytester):
    assert _ran(pytester, "slow") == [
        "test_other[5]", "test_sizes[0]", "test_sizes[2]", "test_sizes[3]",
    ]  # fmt: skip


def test_property_tests_are_marked_for_the_run_of_every_example(pytester):
    assert _ran(pytester, "property") == ["test_property"]


@pytest.mark.parametrize(("value", "drawn"), [(None, [5, 10, 25, 50]), ("all", [5, 30, 100, 200])])
def test_the_readme_command_draws_a_quarter_of_each_count(monkeypatch, value, drawn):
    if value is None:
        monkeypatch.delenv(properties.VARIABLE, raising=False)
    else:
        monkeypatch.setenv(properties.VARIABLE, value)
    assert [properties.examples(n) for n in (5, 30, 100, 200)] == drawn


def test_another_value_of_the_variable_is_refused(monkeypatch):
    monkeypatch.setenv(properties.VARIABLE, "ALL")
    with pytest.raises(
        ValueError, match="RRMAP_PROPERTY_EXAMPLES must be 'all' or unset, got 'ALL'"
    ):
        properties.examples(100)


@pytest.mark.parametrize(
    ("dist", "args", "whole_modules"),
    [("load", ["-n", "2"], True), ("load", ["-n", "2", "--dist", "load"], False),
     ("load", ["--dist=load"], False), ("worksteal", ["-n", "2"], False)],
)  # fmt: skip
def test_pytest_n_hands_whole_modules_to_each_worker(
    request, monkeypatch, dist, args, whole_modules
):
    """The suite's conftest makes xdist's loadscope the default of ``-n``; a ``--dist``
    given on the command line is left to xdist."""
    from types import SimpleNamespace

    import xdist.scheduler

    suite = request.config.pluginmanager.get_plugin(str(Path(__file__).with_name("conftest.py")))
    monkeypatch.setattr(xdist.scheduler, "LoadScopeScheduling", lambda config, log: "loadscope")
    config = SimpleNamespace(
        getvalue={"dist": dist}.__getitem__, invocation_params=SimpleNamespace(args=args)
    )
    made = suite.pytest_xdist_make_scheduler(config, log=None)
    assert made == ("loadscope" if whole_modules else None)
