"""Sizes past rrmap.limits fail at once, with the size, the limit and what to do."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rrmap
from rrmap.errors import InputError
from rrmap.limits import (
    MAX_BOOTSTRAP,
    MAX_MONTE_CARLO,
    MAX_PERMUTATIONS,
    MAX_TESTS,
    check_count,
    planned_tests,
)
from rrmap.stats import chi2_test, energy_test


@pytest.mark.parametrize("by", [[], ["modality"], ["movement", "modality"]])
def test_planned_tests_counts_the_rows_an_analysis_writes(example_ratings, by):
    res = rrmap.analyze(example_ratings, by=by, n_perm=0, chi2_n_perm=0, n_boot=0, rng=0)
    pts = res.points
    options = [pts[c].nunique() for c in by]
    assert planned_tests(pts["expert"].nunique(), options) == len(res.tests)


def test_the_limits_themselves_are_accepted_and_one_more_is_not():
    assert check_count("n_perm", MAX_PERMUTATIONS, MAX_PERMUTATIONS) == MAX_PERMUTATIONS
    with pytest.raises(InputError, match=r"n_perm 10000001 is above the limit of 10000000"):
        check_count("n_perm", MAX_PERMUTATIONS + 1, MAX_PERMUTATIONS)
    for bad in (-1, 2.5, True, "x", float("nan"), float("inf")):
        with pytest.raises(InputError, match="must be a non-negative integer"):
            check_count("n_perm", bad, MAX_PERMUTATIONS)


def test_huge_counts_fail_before_any_work():
    a, b = np.zeros((3, 2)), np.ones((4, 2))
    with pytest.raises(InputError, match="above the limit of 10000000"):
        energy_test(a, b, n_perm=10**30, rng=0)
    with pytest.raises(InputError, match=f"above the limit of {MAX_MONTE_CARLO}"):
        chi2_test([[3, 1], [1, 3]], n_perm=10**12, rng=0)
    with pytest.raises(
        InputError, match=f"n_boot 1000000000 is above the limit of {MAX_BOOTSTRAP}"
    ):
        rrmap.reliability(rrmap.points(rrmap.datasets.load_example_ratings()), n_boot=10**9)


def test_an_analysis_of_too_many_raters_is_refused_before_any_test():
    n = 700  # 1 + 700·699/2 = 244,651 comparisons of raters: 489,302 tests
    rows = []
    for i in range(n):
        for origin, (lo, hi) in (("real", (40.0, 60.0)), ("generated", (45.0, 55.0))):
            rows.append(
                {
                    "movement": "m",
                    "expert": f"R{i}",
                    "criterion": "c",
                    "origin": origin,
                    "modality": "x",
                    "low rating": lo,
                    "high rating": hi,
                }
            )
    df = pd.DataFrame(rows)
    with pytest.raises(InputError) as err:
        rrmap.analyze(df, by=[], n_perm=0, rng=0)
    assert f"700 raters (no categories) make 489302 tests, above the limit of {MAX_TESTS}" in (
        str(err.value)
    )
