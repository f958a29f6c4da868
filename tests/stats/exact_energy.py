"""Exact energy p-values by enumeration of all relabellings (the reference of the tie tests).

The reference enumerates every relabelling (grouped by how many points of
each distinct value each group gets, weighted by the number of
relabellings that give those counts) and decides ties exactly: on integer
points every distance is c·√s with s square-free, so E is a rational
combination of square roots of distinct square-free integers, and two such
combinations are equal exactly when their coefficients are.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal, localcontext
from fractions import Fraction as F
from itertools import combinations
from math import factorial, prod

import numpy as np


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
