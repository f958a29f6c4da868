"""Monte Carlo p-values of the zone tests: random tables with fixed margins, and the
sequential stopping rule they share with the energy tests (docs/tests.md).

:func:`random_tables` draws contingency tables with both margins fixed,
cell by cell from hypergeometric distributions: the distribution of the
table when the quality labels are shuffled over the pooled points, at a
cost of ``(r − 1)(c − 1)`` vectorised draws instead of one shuffle of all
points per table. :func:`sequential_pvalue` turns a source of simulated
statistics into a p-value: ``(1 + hits) / (B + 1)``, or Besag and
Clifford's ``h / L`` once ``h`` simulated statistics reached the observed
one. Its chunks follow a fixed schedule, so the result depends only on the
data, the stream, ``B`` and ``h``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["REL_TOL", "exact_pvalues", "random_tables", "sequential_pvalue"]

#: Relative tolerance of ``X²_b ≥ X²_obs``: statistics equal in exact arithmetic
#: (common with integer tables) always count.
REL_TOL = 1e-12

#: Simulated statistics evaluated at most at once (bounds the memory of a chunk).
_CAP = 8192


def random_tables(
    rows: np.ndarray, cols: np.ndarray, size: int, rng: np.random.Generator
) -> np.ndarray:
    """*size* random tables with row totals *rows* and column totals *cols*, shape
    (size, r, c): uniform over the shuffles of the column labels of the pooled points.

    Row i, column j is drawn given the cells before it: the number of row i's
    remaining points that take column j's remaining labels,
    ``Hypergeometric(good = left_j, bad = Σ_{l>j} left_l, draws = row i's rest)``.
    """
    r, c = len(rows), len(cols)
    out = np.empty((size, r, c), dtype=np.int64)
    left = np.broadcast_to(np.asarray(cols, dtype=np.int64), (size, c)).copy()
    for i in range(r - 1):
        rest = np.full(size, int(rows[i]), dtype=np.int64)
        for j in range(c - 1):
            bad = left[:, j + 1 :].sum(axis=1)
            x = rng.hypergeometric(left[:, j], bad, rest)
            out[:, i, j] = x
            rest -= x
            left[:, j] -= x
        out[:, i, c - 1] = rest
        left[:, c - 1] -= rest
    out[:, r - 1, :] = left
    return out


def sequential_pvalue(
    simulate: Callable[[int], np.ndarray],
    observed: float,
    n_perm: int,
    stop_hits: int | None,
) -> tuple[float, int, float]:
    """Monte Carlo p-value of *observed* from ``simulate(c)`` (c simulated statistics).

    Returns ``(p, drawn, mid)``: ``p = (1 + hits) / (B + 1)`` after ``B = n_perm``
    draws, or ``h / L`` as soon as ``h = stop_hits`` of the first ``L`` reached
    the observed statistic. Draws ``max(2h, 32)`` first, then doubles. ``mid`` is the
    mid-p, the ties with the observed statistic (within the tolerance of it, the
    observed one included) counted half: ``(1/2 + hits − ties/2) / (B + 1)``, or
    ``(h − ties/2) / L``.
    """
    tol = REL_TOL * abs(observed)
    hits, ties, done = 0, 0, 0
    c = min(_CAP, max(2 * stop_hits, 32)) if stop_hits else _CAP
    while done < n_perm:
        c = min(c, n_perm - done)
        sims = simulate(c)
        reach = sims >= observed - tol
        tie = reach & (sims <= observed + tol)
        if stop_hits:
            cum = hits + np.cumsum(reach)
            if cum[-1] >= stop_hits:
                at = int(np.argmax(cum >= stop_hits)) + 1
                tied = ties + int(tie[:at].sum())
                return stop_hits / (at + done), at + done, (stop_hits - 0.5 * tied) / (at + done)
        hits += int(reach.sum())
        ties += int(tie.sum())
        done += c
        c = min(2 * c, _CAP)
    return (1.0 + hits) / (n_perm + 1.0), n_perm, (0.5 + hits - 0.5 * ties) / (n_perm + 1.0)


def exact_pvalues(
    stats: np.ndarray, weights: np.ndarray, observed: float, tol: float, total: float
) -> tuple[float, float]:
    """The exact p-value and mid-p of *observed* from every value *stats* of the statistic
    with its probability ``weights / total``: ``P(T ≥ t)`` and ``P(T > t) + P(T = t) / 2``,
    values within *tol* of *observed* counted as equal to it.

    Examples
    --------
    >>> exact_pvalues(np.array([0.0, 1.0, 1.0, 2.0]), np.ones(4), 1.0, 1e-12, 4.0)
    (0.75, 0.5)
    """
    reach = stats >= observed - tol
    tie = reach & (stats <= observed + tol)
    upper = float(weights[reach].sum())
    mid = (upper - 0.5 * float(weights[tie].sum())) / total
    return min(1.0, upper / total), min(1.0, mid)
