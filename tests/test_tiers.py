"""The two tiers: a test marked ``first_case_by_default`` keeps one case in the README's
command, and the slow tier (``pytest -m slow``, which ``.ci/run`` runs) gets the others."""

from __future__ import annotations

import inspect

import pytest
import tiers

TESTS = """
import pytest

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
"""


def _ran(pytester: pytest.Pytester, tier: str) -> list[str]:
    """The tests of :data:`TESTS` that *tier* (a ``-m`` expression) runs, under the hook."""
    pytester.makeconftest(inspect.getsource(tiers))
    pytester.makeini("[pytest]\nmarkers =\n    slow\n    first_case_by_default\n")
    pytester.makepyfile(test_cases=TESTS)
    reports = pytester.inline_run("-m", tier, "-p", "no:xdist").getreports()
    return sorted(r.nodeid.split("::")[1] for r in reports if r.when == "call" and r.passed)


def test_the_first_case_not_already_slow_runs_by_default(pytester):
    assert _ran(pytester, "not slow") == [
        "test_every_case[6]", "test_every_case[7]", "test_other[4]", "test_sizes[1]",
    ]  # fmt: skip


def test_the_slow_tier_runs_every_other_case(pytester):
    assert _ran(pytester, "slow") == [
        "test_other[5]", "test_sizes[0]", "test_sizes[2]", "test_sizes[3]",
    ]  # fmt: skip
