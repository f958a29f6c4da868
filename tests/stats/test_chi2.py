"""Tests of rrmap.stats.chi2 against scipy.stats.chi2_contingency."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from properties import examples
from scipy import stats

from rrmap.errors import InputError
from rrmap.stats.chi2 import Chi2TestResult, chi2_test, contingency_table

TABLES = [
    [[20, 10, 5, 1], [5, 10, 15, 12]],
    [[35, 47, 45, 8], [28, 82, 12, 13], [3, 5, 43, 84]],
    [[3, 1, 2, 9], [1, 4, 1, 1]],
    [[10, 12], [9, 30], [4, 4]],
]


@pytest.mark.parametrize("table", TABLES)
def test_matches_scipy(table):
    ref = stats.chi2_contingency(np.array(table), correction=False)
    res = chi2_test(table)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.pvalue_asymptotic == res.pvalue
    assert res.dof == ref.dof
    assert res.min_expected == pytest.approx(ref.expected_freq.min())
    assert res.share_expected_below_5 == pytest.approx(np.mean(ref.expected_freq < 5))
    assert res.n == int(np.sum(table))
    assert res.n_perm == 0


def test_no_continuity_correction_on_2x2():
    table = [[10, 3], [4, 12]]
    corrected = stats.chi2_contingency(np.array(table), correction=True)
    plain = stats.chi2_contingency(np.array(table), correction=False)
    res = chi2_test(table)
    assert res.statistic == pytest.approx(plain.statistic)
    assert res.statistic != pytest.approx(corrected.statistic)


@pytest.mark.parametrize(
    ("table", "kept", "dropped_rows", "dropped_cols", "dof"),
    [
        ([[10, 0, 5, 3], [4, 0, 12, 1]], [[10, 5, 3], [4, 12, 1]], [], [1], 2),
        ([[10, 0, 5, 0], [4, 0, 12, 0]], [[10, 5], [4, 12]], [], [1, 3], 1),
        ([[10, 2, 5, 3], [0, 0, 0, 0], [4, 6, 12, 1]], [[10, 2, 5, 3], [4, 6, 12, 1]], [1], [], 3),
    ],
)
def test_empty_rows_and_columns_dropped(table, kept, dropped_rows, dropped_cols, dof):
    res = chi2_test(table)
    ref = stats.chi2_contingency(np.array(kept), correction=False)
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.pvalue == pytest.approx(ref.pvalue)
    assert res.dof == dof == ref.dof
    assert res.dropped_rows == dropped_rows
    assert res.dropped_columns == dropped_cols


def test_dataframe_labels_reported():
    tab = pd.DataFrame(
        [[3, 0, 4, 2], [5, 0, 1, 6]],
        index=["E1", "E2"],
        columns=["excellent", "fair", "stereotype", "bad"],
    )
    res = chi2_test(tab)
    assert res.dropped_columns == ["fair"]
    assert res.dof == 2


def test_monte_carlo_pvalue_matches_scipy_permutation_test():
    table = np.array([[6, 2, 1, 0], [1, 3, 2, 4]])
    res = chi2_test(table, n_perm=4000, rng=0, exact=False)
    # reference: scipy's permutation test on the same statistic (quality labels permuted)
    rows = np.repeat([0, 1], table.sum(axis=1))
    cols = np.concatenate([np.repeat(np.arange(4), table[i]) for i in range(2)])

    def stat(c, axis=-1):  # Pearson's X² of each relabelling (scipy hands them in batches)
        c = np.moveaxis(np.atleast_2d(c), axis, -1)
        t = np.stack([(c[:, rows == i, None] == np.arange(4)).sum(axis=1) for i in (0, 1)], 1)
        expected = t.sum(axis=2, keepdims=True) * t.sum(axis=1, keepdims=True) / len(rows)
        with np.errstate(invalid="ignore", divide="ignore"):  # zones no point is in
            cells = np.where(expected > 0, (t - expected) ** 2 / expected, 0.0)
        return cells.sum(axis=(1, 2))

    observed = stats.chi2_contingency(table, correction=False).statistic
    assert stat(cols)[0] == pytest.approx(observed, rel=1e-12)
    ref = stats.permutation_test(
        (cols,),
        stat,
        permutation_type="pairings",
        n_resamples=4000,
        alternative="greater",
        random_state=1,
        vectorized=True,
    )
    p = 0.5 * (res.pvalue + ref.pvalue)
    assert abs(res.pvalue - ref.pvalue) < 5 * np.sqrt(2 * p * (1 - p) / 4000) + 1e-3
    assert res.n_perm == 4000
    assert res.pvalue_asymptotic == pytest.approx(
        stats.chi2_contingency(table[:, :], correction=False).pvalue
    )


@pytest.mark.parametrize(
    "table", [[[3, 1, 0, 2], [1, 2, 2, 0]], [[4, 0, 1], [0, 3, 2]], [[2, 2, 2, 1], [2, 2, 2, 1]]]
)
def test_exact_two_row_pvalue_is_the_enumeration_of_every_relabelling(table):
    """Every assignment of the pooled points to the two rows, counted one by one."""
    from itertools import combinations

    t = np.array(table)
    res = chi2_test(t, n_perm=999, rng=0)
    assert res.p_method == "exact"
    cols = np.concatenate([np.repeat(j, t[:, j].sum()) for j in range(t.shape[1])])
    n, n1 = len(cols), int(t[0].sum())
    keep = t.sum(axis=0) > 0
    expected = stats.contingency.expected_freq(t[:, keep])
    obs = stats.chi2_contingency(t[:, keep], correction=False).statistic
    hits = total = 0
    for first in combinations(range(n), n1):
        row = np.ones(n, dtype=int)
        row[list(first)] = 0
        tab = np.zeros(t.shape)
        np.add.at(tab, (row, cols), 1)
        x2 = (((tab[:, keep] - expected) ** 2) / expected).sum()
        hits += x2 >= obs - 1e-9
        total += 1
    assert res.pvalue == pytest.approx(hits / total, rel=1e-12)
    # the Monte Carlo p-value of the same table agrees within its error
    mc = chi2_test(t, n_perm=20_000, rng=1, exact=False)
    assert mc.p_method == "monte_carlo"
    assert abs(mc.pvalue - res.pvalue) < 5 * np.sqrt(res.pvalue * (1 - res.pvalue) / 20_000) + 1e-4


def test_monte_carlo_is_seeded_and_fixed_margin():
    table = [[5, 1, 2], [1, 6, 2]]
    a = chi2_test(table, n_perm=500, rng=3, exact=False)
    b = chi2_test(table, n_perm=500, rng=3, exact=False)
    assert a == b
    from rrmap.stats._montecarlo import random_tables

    obs = np.array(table, dtype=float)
    exp = stats.contingency.expected_freq(obs)
    tabs = random_tables(obs.sum(axis=1), obs.sum(axis=0), 4000, np.random.default_rng(0))
    assert (tabs.sum(axis=2) == obs.sum(axis=1)).all() and (
        tabs.sum(axis=1) == obs.sum(axis=0)
    ).all()
    assert (tabs >= 0).all()
    sims = (((tabs - exp) ** 2) / exp).sum(axis=(1, 2))
    # under fixed margins E[X²] = (r - 1)(c - 1) N / (N - 1) exactly
    n = obs.sum()
    mean_exact = 2 * n / (n - 1)
    assert abs(sims.mean() - mean_exact) < 5 * sims.std() / np.sqrt(len(sims))


def test_random_tables_follow_the_exact_fixed_margin_distribution():
    """Every 2 × 3 and 3 × 3 table with the margins, counted over 40,000 draws, against its
    exact probability (multiple hypergeometric: ∏ row! ∏ col! / (N! ∏ cell!))."""
    from itertools import product
    from math import factorial, prod

    from rrmap.stats._montecarlo import random_tables

    for rows, cols in [((4, 5), (3, 2, 4)), ((3, 3, 2), (2, 4, 2))]:
        tabs = random_tables(np.array(rows), np.array(cols), 40_000, np.random.default_rng(7))
        r, c = len(rows), len(cols)
        n = sum(rows)
        seen, counts = np.unique(tabs.reshape(len(tabs), -1), axis=0, return_counts=True)
        observed = {tuple(t): k for t, k in zip(seen.tolist(), counts.tolist(), strict=True)}
        expected = {}
        # the (r − 1)(c − 1) free cells fix the rest
        for free in product(range(n + 1), repeat=(r - 1) * (c - 1)):
            t = np.zeros((r, c), dtype=int)
            t[: r - 1, : c - 1] = np.array(free).reshape(r - 1, c - 1)
            t[: r - 1, c - 1] = np.array(rows[: r - 1]) - t[: r - 1, : c - 1].sum(axis=1)
            t[r - 1] = np.array(cols) - t[: r - 1].sum(axis=0)
            if (t < 0).any():
                continue
            cells = tuple(int(x) for x in t.ravel())
            num = prod(factorial(x) for x in (*rows, *cols))
            den = factorial(n) * prod(factorial(x) for x in cells)
            expected[cells] = num / den
        assert set(observed) <= set(expected)
        assert sum(expected.values()) == pytest.approx(1.0)
        keys = sorted(expected)
        f_obs = np.array([observed.get(k, 0) for k in keys], dtype=float)
        f_exp = np.array([expected[k] * len(tabs) for k in keys])
        assert stats.chisquare(f_obs, f_exp).pvalue > 1e-3


@pytest.mark.slow  # a statistical simulation: run by .ci/run (pytest -m slow)
def test_monte_carlo_null_calibration():
    g = np.random.default_rng(5)
    ps = []
    for _ in range(150):
        rows = g.integers(0, 2, size=40)
        cols = g.integers(0, 4, size=40)
        tab = np.zeros((2, 4), dtype=int)
        np.add.at(tab, (rows, cols), 1)
        ps.append(chi2_test(tab, n_perm=99, rng=g).pvalue)
    ps = np.array(ps)
    assert abs(np.mean(ps < 0.1) - 0.1) < 3 * np.sqrt(0.09 / 150) + 0.01


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ([[1, 2], [-1, 3]], "finite non-negative integers"),
        ([[1, 2.5], [1, 3]], "finite non-negative integers"),
        ([[1, 2, 3]], "at least 2 non-empty rows and 2 non-empty columns, got 1 × 3"),
        ([[4, 0], [3, 0]], "got 2 × 1 after dropping"),
        ([1, 2, 3], "must be 2-D"),
    ],
)
def test_bad_tables(table, message):
    with pytest.raises(InputError) as err:
        chi2_test(table)
    assert message in str(err.value)


def test_bad_n_perm():
    with pytest.raises(InputError, match="n_perm must be a non-negative integer"):
        chi2_test([[1, 2], [3, 4]], n_perm=-3)


def test_contingency_table():
    tab = contingency_table(["b", "a", "a", "b", "b"], ["bad", "fair", "bad", "bad", "excellent"])
    assert list(tab.index) == ["a", "b"]
    assert list(tab.columns) == ["excellent", "fair", "stereotype", "bad"]
    np.testing.assert_array_equal(tab.to_numpy(), [[0, 1, 0, 1], [1, 0, 0, 2]])


def test_contingency_table_bad_labels():
    with pytest.raises(InputError, match=r"found \['great'\]"):
        contingency_table(["a", "b"], ["great", "bad"])
    with pytest.raises(InputError, match="2 groups for 1 quality"):
        contingency_table(["a", "b"], ["bad"])


def test_result_type():
    assert isinstance(chi2_test([[1, 2], [3, 4]]), Chi2TestResult)


@settings(max_examples=examples(300), deadline=None)
@example(dof=1, x=5e-324)  # halves to zero
@given(
    dof=st.integers(1, 120),
    x=st.one_of(st.floats(0, 2000, allow_nan=False), st.integers(0, 60).map(float)),
)
def test_chi2_survival_closed_form_equals_scipy(dof, x):
    """The closed-form χ² survival function against scipy's, including whole-number statistics."""
    from rrmap.stats.chi2 import chi2_sf

    ref = stats.chi2.sf(x, dof)
    got = chi2_sf(x, dof)
    if ref > 1e-300:
        assert got == pytest.approx(ref, rel=1e-11)
    else:
        assert got < 1e-290


def test_chi2_survival_edges():
    from rrmap.stats.chi2 import chi2_sf

    assert chi2_sf(0.0, 1) == 1.0 and chi2_sf(-1.0, 3) == 1.0
    assert chi2_sf(float("inf"), 2) == 0.0
    assert chi2_sf(2.0, 2) == pytest.approx(np.exp(-1.0), rel=1e-15)  # e^{-x/2} for two dof
    with pytest.raises(ValueError, match="dof must be a whole number >= 1"):
        chi2_sf(1.0, 0)


def test_cochran_option_replaces_only_unreliable_asymptotic_pvalues():
    large = [[8, 6, 5, 6], [7, 6, 6, 6]]  # every expected count at least 5
    small = [[3, 1, 0, 2], [1, 2, 2, 0]]
    assert chi2_test(large, n_perm=99, rng=0, cochran=True).p_method == "asymptotic"
    assert chi2_test(large, n_perm=99, rng=0).p_method == "exact"
    res = chi2_test(small, n_perm=99, rng=0, cochran=True)
    assert res.p_method == "exact" and res.pvalue == chi2_test(small, n_perm=99, rng=0).pvalue
