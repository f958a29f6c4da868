"""Relabellings that come close to the observed energy statistic, decided exactly.

The engine counts a relabelling when ``Ê_b ≥ Ê_obs − τ``, with τ a bound of the
rounding errors of the two statistics (docs/tests.md). That bound scales with
the largest distances of the test: with one point far from the others (a
shared outlier at 10⁹ among lattice points), τ grows to 10⁻⁴ while the
relabellings that matter differ by less. So a relabelling whose ``Ê_b`` falls
in the band ``[Ê_obs − τ, Ê_obs − τ_tie)``, ``τ_tie = m·ε·S`` (relabellings that
tie in exact arithmetic come out within 0.13·m·ε·S of each other, measured), is
decided again from the distances themselves:

    E_b − E_obs = Σ_{p<q} (K[g_b(p), g_b(q)] − K[g_o(p), g_o(q)]) · d_pq

with K the exact rational coefficient of a pair of groups (``2/(n_i + n_j)``
between groups i and j, ``−2 a_i / n_i²`` within group i). Only the pairs of
points whose groups changed enter; their distances are summed per coefficient
with :func:`math.fsum` (correctly rounded) and combined in exact rationals. The
result is off from the exact difference only through the rounding of the
distances themselves (at most about 3 ulps each) and of the class sums, a bound
``τ_b`` scaled to the distances actually compared; the relabelling counts when
``E_b − E_obs ≥ −τ_b``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

__all__ = ["TIE_ULPS", "settle", "tie_tolerance"]

#: Ties in exact arithmetic come out within this many ``m·ε·S`` of each other.
TIE_ULPS = 1.0

#: Relative error of a computed distance (differences, squares, sum, square root), and of
#: a correctly rounded class sum, in units of ε.
_DISTANCE_ULPS = 5.0

_EPS = float(np.finfo(float).eps)


def tie_tolerance(scale: np.ndarray, m: int) -> np.ndarray:
    """``τ_tie = m·ε·S``: closer to ``Ê_obs`` than this, a relabelling ties with it."""
    return TIE_ULPS * m * _EPS * scale


@lru_cache(maxsize=256)
def _pair_coefficients(sizes: tuple[int, ...]) -> tuple[Fraction, ...]:
    """E = Σ_{p<q} K[code(g_p, g_q)] d_pq, code(i, j) = i·k + j for i ≤ j."""
    k = len(sizes)
    out = [Fraction(0)] * (k * k)
    for i in range(k):
        a = sum(
            (Fraction(sizes[i] * sizes[j], sizes[i] + sizes[j]) for j in range(k) if j != i),
            Fraction(0),
        )
        out[i * k + i] = -2 * a / (sizes[i] * sizes[i])
        for j in range(i + 1, k):
            out[i * k + j] = Fraction(2, sizes[i] + sizes[j])
    return tuple(out)


def _codes(labels: np.ndarray, iu: np.ndarray, ju: np.ndarray, k: int) -> np.ndarray:
    a, b = labels[iu].astype(np.intp), labels[ju].astype(np.intp)
    return np.minimum(a, b) * k + np.maximum(a, b)


def settle(d: np.ndarray, base: np.ndarray, labels: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Whether each relabelling (rows of *labels*) reaches the observed one (*base*).

    Parameters
    ----------
    d : ndarray, shape (m, m)
        Distances of the test's points (ordered as *base*).
    base : ndarray, shape (m,)
        The observed labels.
    labels : ndarray, shape (c, m)
        The relabellings to decide.
    sizes : ndarray, shape (k,)
        Group sizes.

    Returns
    -------
    ndarray of bool, shape (c,)
    """
    k = len(sizes)
    coef = _pair_coefficients(tuple(int(n) for n in sizes))
    iu, ju = np.triu_indices(len(base), 1)
    dist = d[iu, ju]
    before = _codes(base, iu, ju, k)
    out = np.empty(len(labels), dtype=bool)
    for r, lab in enumerate(labels):
        after = _codes(lab, iu, ju, k)
        changed = after != before
        cls = after[changed] * (k * k) + before[changed]
        order = np.argsort(cls, kind="stable")
        cls, moved = cls[order], dist[changed][order]
        starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]]) if len(cls) else []
        ends = [*starts[1:], len(cls)]
        diff, scale = Fraction(0), 0.0
        for s0, s1 in zip(starts, ends, strict=True):
            a, b = divmod(int(cls[s0]), k * k)
            dk = coef[a] - coef[b]
            total = math.fsum(moved[s0:s1].tolist())
            diff += dk * Fraction(total)
            scale += abs(float(dk)) * total
        out[r] = diff >= -(_DISTANCE_ULPS + 1.0) * _EPS * scale
    return out
