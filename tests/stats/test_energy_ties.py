"""Energy p-values with tied relabellings, against exact enumeration of all relabellings.

With coarse ratings many relabellings give exactly the observed statistic; each
must be counted in ``#{E_b ≥ E_obs}``. The reference enumerates every
relabelling (grouped by how many points of each distinct value each group
gets, weighted by the number of relabellings that give those counts) and
decides ties exactly: on integer points every distance is c·√s with s
square-free, so E is a rational combination of square roots of distinct
square-free integers, and two such combinations are equal exactly when their
coefficients are.
"""

from __future__ import annotations

from itertools import combinations, permutations

import numpy as np
import pytest
from exact_energy import exact_pvalue, reported_design, within_mc_error

from rrmap.stats.energy import energy_test, energy_tests, pairwise_distances


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_150_against_2_points_on_five_values_in_both_orders(seed):
    """The reported case: p was 0.12 in one group order where enumeration gives 0.20."""
    a, b = reported_design(seed)
    p = exact_pvalue([a, b])
    n_perm = 20_000
    for samples in ([a, b], [b, a]):
        res = energy_test(*samples, n_perm=n_perm, rng=seed, stop_hits=None)
        assert within_mc_error(res.pvalue, p, n_perm), (res.pvalue, p)


def test_three_groups_on_three_values_in_every_order():
    values = np.array([[0, 0], [1, 0], [0, 2]])
    g = np.random.default_rng(7)
    samples = [values[g.integers(0, 3, n)] for n in (7, 5, 4)]
    p = exact_pvalue(samples)
    n_perm = 20_000
    for order in permutations(range(3)):
        res = energy_test(*[samples[i] for i in order], n_perm=n_perm, rng=1, stop_hits=None)
        assert within_mc_error(res.pvalue, p, n_perm), (order, res.pvalue, p)


@pytest.mark.parametrize(("sizes", "p"), [((3, 3), 2 / 20), ((3, 4), 1 / 35), ((2, 6), 1 / 28)])
def test_two_clusters_the_observed_split_is_the_most_extreme(sizes, p):
    """Group A all at one point, group B at another: only the observed split (and, with equal
    sizes, its mirror) reaches E_obs, so p is 2/C(n, n_A) or 1/C(n, n_A) exactly."""
    a = np.zeros((sizes[0], 2))
    b = np.tile([3.0, 4.0], (sizes[1], 1))
    assert exact_pvalue([a.astype(int), b.astype(int)]) == pytest.approx(p, abs=1e-15)
    n_perm = 50_000
    for samples in ([a, b], [b, a]):
        res = energy_test(*samples, n_perm=n_perm, rng=3, stop_hits=None)
        assert within_mc_error(res.pvalue, p, n_perm), (res.pvalue, p)


def test_identical_points_every_relabelling_ties():
    x = np.ones((12, 2))
    for sizes in ((2, 10), (10, 2), (4, 4, 4)):
        cut = np.cumsum(sizes)[:-1]
        res = energy_test(*np.split(x, cut), n_perm=999, rng=0, stop_hits=None)
        assert res.pvalue == 1.0
        assert res.statistic == pytest.approx(0.0, abs=1e-12)


def test_pairwise_tests_of_energy_tests_count_ties_too():
    values = np.array([[0, 0], [1, 0], [0, 1], [1, 1]])
    g = np.random.default_rng(11)
    groups = {"a": values[g.integers(0, 4, 40)], "b": values[g.integers(0, 4, 3)]}
    groups["c"] = values[g.integers(0, 2, 6)]
    x = np.vstack(list(groups.values()))
    labels = np.repeat(list(groups), [len(v) for v in groups.values()])
    n_perm = 20_000
    res = energy_tests(x, labels, n_perm=n_perm, rng=5, stop_hits=None).set_index("groups")
    for pair in ("a|b", "a|c", "b|c"):
        left, right = pair.split("|")
        p = exact_pvalue([groups[left], groups[right]])
        assert within_mc_error(res.loc[pair, "pvalue"], p, n_perm), (pair, p)
    p_all = exact_pvalue(list(groups.values()))
    assert within_mc_error(res.loc["a|b|c", "pvalue"], p_all, n_perm)


def test_the_exact_reference_itself():
    """Small enough to enumerate relabellings one by one in floating point."""
    a = np.array([[0, 0], [0, 0], [1, 0]])
    b = np.array([[1, 0], [0, 3]])
    pooled = np.vstack([a, b])

    def e(idx_a):
        idx_b = [i for i in range(5) if i not in idx_a]
        xa, xb = pooled[list(idx_a)], pooled[idx_b]

        def mean_d(u, v):
            return np.mean(np.linalg.norm(u[:, None] - v[None], axis=2))

        w = len(xa) * len(xb) / 5
        return w * (2 * mean_d(xa, xb) - mean_d(xa, xa) - mean_d(xb, xb))

    obs = e((0, 1, 2))
    stats = np.array([e(c) for c in combinations(range(5), 3)])
    brute = np.mean(stats >= obs - 1e-9)
    assert exact_pvalue([a, b]) == pytest.approx(brute)


class _EveryRelabelling:
    """Every split of m points into the groups of *sizes* (two groups), in a fixed order:
    a relabelling source for ``run_batch`` whose p-value is then exact."""

    def __init__(self, sizes):
        from itertools import combinations

        m = int(sum(sizes))
        self.base = np.repeat([0, 1], sizes)
        rows = []
        for first in combinations(range(m), int(sizes[0])):
            lab = np.ones(m, dtype=np.intp)
            lab[list(first)] = 0
            rows.append(lab)
        self.rows = np.array(rows)
        self.total = len(rows)
        self.done = 0

    def draw(self, c, rng=None):
        out = self.rows[self.done : self.done + c]
        self.done += c
        return out


def _decimal_energy_pvalue(x: np.ndarray, n1: int) -> float:
    """P(E_b ≥ E_obs) over every split, E in 60-digit decimals (ties: within 1e-40)."""
    from decimal import Decimal, localcontext
    from itertools import combinations

    with localcontext() as ctx:
        ctx.prec = 60
        pts = [[Decimal(int(v)) for v in p] for p in x]
        m = len(pts)
        d = [[((pts[i][0] - pts[j][0]) ** 2 + (pts[i][1] - pts[j][1]) ** 2).sqrt()
              for j in range(m)] for i in range(m)]  # fmt: skip

        def energy(a):
            b = [i for i in range(m) if i not in a]
            na, nb = len(a), len(b)
            mab = sum(d[i][j] for i in a for j in b) / (na * nb)
            maa = sum(d[i][j] for i in a for j in a) / (na * na)
            mbb = sum(d[i][j] for i in b for j in b) / (nb * nb)
            return Decimal(na * nb) / (na + nb) * (2 * mab - maa - mbb)

        obs = energy(list(range(n1)))
        tie = Decimal(10) ** -40
        hits = [energy(list(c)) >= obs - tie for c in combinations(range(m), n1)]
    return sum(hits) / len(hits)


def test_multi_scale_near_ties_are_decided_from_the_distances_compared():
    """Six and six lattice points plus an outlier at 10⁹: τ (2.1e-4, set by the outlier's
    distances) would count two relabellings 8.6e-5 below E_obs as ties; they are not."""
    from rrmap.stats._permutation import _Stacked, order_groups, run_batch

    lattice = [[2, 0], [1, 3], [0, 3], [2, 1], [3, 3], [1, 2], [3, 2], [1, 3], [3, 0], [2, 3],
               [0, 1], [2, 1]]  # fmt: skip
    x = np.vstack([lattice, [[10**9, 0]]]).astype(float)  # groups: 6 | 6 + the outlier
    codes = np.repeat([0, 1], [6, 7])
    order, sizes = order_groups(codes, 2)
    d = pairwise_distances(x[order])[None]
    exact = _decimal_energy_pvalue(x[order], int(sizes[0]))
    for screen in (False, True):
        src = _EveryRelabelling(sizes)
        res = run_batch(_Stacked(d, screen=screen), sizes, 0, None, source=src)[0]
        assert res.n_perm == 1716
        assert res.pvalue == exact  # 0.8788…: 1508 of 1716
    assert exact == 1508 / 1716
