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

from collections import Counter
from decimal import Decimal, localcontext
from fractions import Fraction as F
from itertools import combinations, permutations
from math import factorial, prod

import numpy as np
import pytest

from rrmap.stats.energy import energy_test, energy_tests


def _root(n: int) -> tuple[int, int]:
    """√n = c·√s with s square-free."""
    c, s, p = 1, n, 2
    while p * p <= s:
        while s % (p * p) == 0:
            s //= p * p
            c *= p
        p += 1
    return c, s


def _exact_energy(counts: list[list[int]], values: list[tuple[int, ...]]) -> dict[int, F]:
    """E of groups given by their counts of each distinct value, as {s: coefficient of √s}."""
    k, m = len(counts), len(values)
    sizes = [sum(c) for c in counts]
    roots = [
        [_root(sum((a - b) ** 2 for a, b in zip(u, v, strict=True))) for v in values]
        for u in values
    ]

    def mean(i: int, j: int) -> Counter:
        acc: Counter = Counter()
        for a in range(m):
            for b in range(m):
                c, s = roots[a][b]
                if counts[i][a] and counts[j][b] and c:
                    acc[s] += F(counts[i][a] * counts[j][b] * c, sizes[i] * sizes[j])
        return acc

    means = {(i, j): mean(i, j) for i in range(k) for j in range(i, k)}
    e: Counter = Counter()
    for i, j in combinations(range(k), 2):
        w = F(sizes[i] * sizes[j], sizes[i] + sizes[j])
        for s, v in means[i, j].items():
            e[s] += 2 * w * v
        for s, v in means[i, i].items():
            e[s] -= w * v
        for s, v in means[j, j].items():
            e[s] -= w * v
    return {s: v for s, v in e.items() if v}


def _value(e: dict[int, F]) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 50
        return sum(
            (
                Decimal(v.numerator) / Decimal(v.denominator) * Decimal(s).sqrt()
                for s, v in e.items()
            ),
            Decimal(0),
        )


def exact_pvalue(samples: list[np.ndarray]) -> float:
    """P(E_π ≥ E_obs) over all relabellings π (ties counted exactly)."""
    values = sorted({tuple(int(v) for v in p) for s in samples for p in s})
    index = {v: i for i, v in enumerate(values)}
    k, m = len(samples), len(values)
    observed = [[0] * m for _ in range(k)]
    for g, s in enumerate(samples):
        for p in s:
            observed[g][index[tuple(int(v) for v in p)]] += 1
    sizes = [len(s) for s in samples]
    mult = [sum(observed[g][a] for g in range(k)) for a in range(m)]
    e_obs = _exact_energy(observed, values)
    v_obs = _value(e_obs)

    def splits(n: int, parts: int):
        if parts == 1:
            yield (n,)
            return
        for c in range(n + 1):
            for rest in splits(n - c, parts - 1):
                yield (c, *rest)

    hit = total = 0

    def walk(a: int, chosen: list[tuple[int, ...]], room: list[int]) -> None:
        nonlocal hit, total
        if a == m:
            counts = [[chosen[x][g] for x in range(m)] for g in range(k)]
            ways = prod(
                factorial(mult[x]) // prod(factorial(c) for c in chosen[x]) for x in range(m)
            )
            e = _exact_energy(counts, values)
            total += ways
            if e == e_obs or _value(e) > v_obs:
                hit += ways
            return
        for sp in splits(mult[a], k):
            if all(sp[g] <= room[g] for g in range(k)):
                walk(a + 1, [*chosen, sp], [room[g] - sp[g] for g in range(k)])

    walk(0, [], sizes)
    assert total == factorial(sum(sizes)) // prod(factorial(s) for s in sizes)
    return hit / total


def within_mc_error(p_hat: float, p: float, b: int, z: float = 4.5) -> bool:
    return abs(p_hat - p) <= z * np.sqrt(p * (1 - p) / b) + 1 / (b + 1)


FIVE_VALUES = np.array([[0, 1], [1, 1], [0, 2], [2, 1], [1, 2]])


def reported_design(seed: int) -> list[np.ndarray]:
    g = np.random.default_rng(seed)
    return [FIVE_VALUES[g.integers(0, 5, 150)], FIVE_VALUES[g.integers(0, 5, 2)]]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_150_against_2_points_on_five_values_in_both_orders(seed):
    """The reported case: p was 0.12 in one group order where enumeration gives 0.20."""
    a, b = reported_design(seed)
    p = exact_pvalue([a, b])
    n_perm = 20_000
    for samples in ([a, b], [b, a]):
        res = energy_test(*samples, n_perm=n_perm, rng=seed)
        assert within_mc_error(res.pvalue, p, n_perm), (res.pvalue, p)


def test_three_groups_on_three_values_in_every_order():
    values = np.array([[0, 0], [1, 0], [0, 2]])
    g = np.random.default_rng(7)
    samples = [values[g.integers(0, 3, n)] for n in (7, 5, 4)]
    p = exact_pvalue(samples)
    n_perm = 20_000
    for order in permutations(range(3)):
        res = energy_test(*[samples[i] for i in order], n_perm=n_perm, rng=1)
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
        res = energy_test(*samples, n_perm=n_perm, rng=3)
        assert within_mc_error(res.pvalue, p, n_perm), (res.pvalue, p)


def test_identical_points_every_relabelling_ties():
    x = np.ones((12, 2))
    for sizes in ((2, 10), (10, 2), (4, 4, 4)):
        cut = np.cumsum(sizes)[:-1]
        res = energy_test(*np.split(x, cut), n_perm=999, rng=0)
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
    res = energy_tests(x, labels, n_perm=n_perm, rng=5).set_index("groups")
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
