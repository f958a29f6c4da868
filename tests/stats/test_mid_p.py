"""Mid-p values (Lancaster, 1961): ``P(T > t) + P(T = t) / 2``, checked against full
enumerations written here from the definition of each test."""

from __future__ import annotations

from itertools import permutations, product
from math import comb

import numpy as np
import pytest
from scipy import stats

from rrmap.stats import energy_test
from rrmap.stats._montecarlo import sequential_pvalue
from rrmap.stats.chi2 import chi2_test
from rrmap.stats.matched import marginal_homogeneity_test, stuart_maxwell_test


def _mid(values: np.ndarray, weights: np.ndarray, observed: float) -> tuple[float, float]:
    """P(T ≥ t) and the mid-p, ties within a relative 1e-9."""
    tie = np.isclose(values, observed, rtol=1e-9, atol=1e-12)
    above = (values > observed) & ~tie
    total = weights.sum()
    return (
        weights[above | tie].sum() / total,
        (weights[above].sum() + weights[tie].sum() / 2) / total,
    )


def _stuart_maxwell(table: np.ndarray) -> float:
    """d' L⁺ d: d the differences of the margins, L the Laplacian of the discordant counts
    (the covariance of d under marginal homogeneity; the pseudo-inverse handles zones that
    no discordant key joins)."""
    d = table.sum(axis=1) - table.sum(axis=0)
    w = table + table.T
    np.fill_diagonal(w, 0)
    lap = np.diag(w.sum(axis=1)) - w
    return float(d @ np.linalg.pinv(lap) @ d)


@pytest.mark.parametrize(
    "table",
    [
        [[10, 6], [1, 10]],
        [[5, 2, 1], [0, 4, 1], [1, 0, 3]],
        [[4, 3, 0, 0], [1, 6, 2, 0], [0, 0, 5, 1], [0, 0, 2, 3]],
    ],
)
def test_exact_stuart_maxwell_mid_p_equals_enumeration_of_the_keys(table):
    table = np.array(table)
    res = stuart_maxwell_test(table, method="exact")
    assert res.p_method == "exact"
    # every discordant key, on its own, keeps its pair of zones or swaps them (prob. 1/2)
    cells = [(i, j) for i in range(len(table)) for j in range(len(table)) if i != j]
    keys = [c for c in cells for _ in range(table[c])]
    values = []
    for flips in product((0, 1), repeat=len(keys)):
        t = np.diag(np.diag(table)).copy()
        for (i, j), f in zip(keys, flips, strict=True):
            t[(j, i) if f else (i, j)] += 1
        values.append(_stuart_maxwell(t))
    p, mid = _mid(np.array(values), np.ones(len(values)), _stuart_maxwell(table))
    assert res.statistic == pytest.approx(_stuart_maxwell(table), rel=1e-9)
    assert res.pvalue == pytest.approx(p, rel=1e-12)
    assert res.pvalue_mid == pytest.approx(mid, rel=1e-12)
    assert res.pvalue_mid < res.pvalue


def test_mcnemar_mid_p_is_the_binomial_one():
    # two zones: McNemar; with b = 6, c = 1 discordant keys, the mid-p of the binomial test
    res = stuart_maxwell_test([[10, 6], [1, 10]])
    law = stats.binom(7, 0.5)
    assert res.pvalue == pytest.approx(2 * law.cdf(1))
    assert res.pvalue_mid == pytest.approx(2 * (law.cdf(0) + law.pmf(1) / 2))


def _pearson(z: np.ndarray, levels: int) -> float:
    """Pearson's X² of the raters × zones table (zones nobody gave left out)."""
    table = np.stack([np.bincount(z[:, g], minlength=levels) for g in range(z.shape[1])])
    table = table[:, table.sum(axis=0) > 0]
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    return float(((table - expected) ** 2 / expected).sum())


def test_exact_three_rater_mid_p_equals_enumeration_of_every_relabelling():
    z = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 1], [2, 2, 1], [2, 1, 0]])
    res = marginal_homogeneity_test(z, n_perm=5000, rng=0)
    assert res.p_method == "exact"
    values = [
        _pearson(np.array([row[list(order)] for row, order in zip(z, orders, strict=True)]), 3)
        for orders in product(permutations(range(3)), repeat=len(z))
    ]
    p, mid = _mid(np.array(values), np.ones(len(values)), _pearson(z, 3))
    assert res.pvalue == pytest.approx(p, rel=1e-12)
    assert res.pvalue_mid == pytest.approx(mid, rel=1e-12)


def test_exact_two_row_chi2_mid_p_equals_the_hypergeometric_enumeration():
    obs = np.array([[3, 1, 0, 2], [0, 2, 3, 1]])
    res = chi2_test(obs, n_perm=999, exact=True, cochran=False)
    assert res.p_method == "exact"
    rows, cols = obs.sum(axis=1), obs.sum(axis=0)
    values, weights = [], []
    for first in product(*[range(c + 1) for c in cols]):
        if sum(first) == rows[0]:  # multivariate hypergeometric: prod C(col_j, x_j)
            values.append(stats.chi2_contingency([first, cols - first], correction=False)[0])
            weights.append(np.prod([comb(int(c), x) for c, x in zip(cols, first, strict=True)]))
    p, mid = _mid(np.array(values), np.array(weights), res.statistic)
    assert res.pvalue == pytest.approx(p, rel=1e-9)
    assert res.pvalue_mid == pytest.approx(mid, rel=1e-9)


def test_monte_carlo_mid_p_counts_ties_half():
    draws = np.array([1.0, 2.0, 2.0, 3.0, 0.5, 2.0, 1.0, 4.0])
    p, drawn, mid = sequential_pvalue(lambda c: draws[:c], 2.0, 8, None)
    # 5 of 8 reach 2 (3 of them tie), the observed statistic counts once more, as a tie
    assert (p, drawn) == (6 / 9, 8)
    assert mid == pytest.approx((0.5 + 5 - 3 / 2) / 9)
    p, drawn, mid = sequential_pvalue(lambda c: draws[:c], 2.0, 8, 3)
    assert (p, drawn, mid) == (3 / 4, 4, (3 - 2 / 2) / 4)  # stopped at the third hit


def test_energy_mid_p_without_ties_is_half_a_draw_below():
    g = np.random.default_rng(3)
    res = energy_test(g.normal(size=(15, 2)), g.normal(0.3, 1, (17, 2)), n_perm=499, rng=1,
                      stop_hits=None)  # fmt: skip
    assert res.n_perm == 499
    assert res.pvalue_mid == pytest.approx(res.pvalue - 0.5 / 500, abs=1e-15)
