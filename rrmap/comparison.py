"""One comparison of a reference and a query Gaussian (paper eqs. 2–3; docs/method.md)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["bhattacharyya", "compare", "compare_bounds", "compare_intervals"]

#: Largest power of ten tried when reading bounds as exact decimals (the scaled
#: integers must also stay below 2⁵², which bounds the digits in practice).
_MAX_DECIMALS = 15


def bhattacharyya(delta: ArrayLike, r: ArrayLike) -> NDArray[np.float64]:
    """Bhattacharyya coefficient in RRMap coordinates.

    ``BC = sqrt(2R / (1 + R²)) · exp(−Δ² / (4 (1 + R²)))``, the overlap of
    N(0, 1) and N(Δ, R).

    Parameters
    ----------
    delta, r : array_like
        Relative shift Δ and relative dispersion R (R > 0).

    Returns
    -------
    ndarray
        BC in [0, 1].

    Examples
    --------
    >>> round(float(bhattacharyya(0.0, 2 / 3)), 4)
    0.9608
    >>> float(bhattacharyya(0.0, 1.0))
    1.0
    """
    d = np.asarray(delta, dtype=float)
    rr = np.asarray(r, dtype=float)
    q = 1.0 + rr * rr
    return np.sqrt(2.0 * rr / q) * np.exp(-(d * d) / (4.0 * q))


def compare(
    m_ref: ArrayLike, s_ref: ArrayLike, m_query: ArrayLike, s_query: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Relative shift, relative dispersion and overlap of query vs reference.

    ``Δ = (m_query − m_ref) / s_ref``, ``R = s_query / s_ref`` and BC from
    paper eq. 3 (vectorised; all arguments broadcast).

    Parameters
    ----------
    m_ref, s_ref : array_like
        Reference mean and standard deviation (``s_ref > 0``).
    m_query, s_query : array_like
        Query mean and standard deviation (``s_query > 0``).

    Returns
    -------
    delta, r, bc : ndarray

    Examples
    --------
    >>> d, r, bc = compare(40.0, 5.0, 45.0, 5.0)
    >>> float(d), float(r), round(float(bc), 4)
    (1.0, 1.0, 0.8825)
    """
    m1 = np.asarray(m_ref, dtype=float)
    s1 = np.asarray(s_ref, dtype=float)
    m2 = np.asarray(m_query, dtype=float)
    s2 = np.asarray(s_query, dtype=float)
    delta = (m2 - m1) / s1
    r = s2 / s1
    return delta, r, bhattacharyya(delta, r)


def _decimal_integers(bounds: list[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    """Each comparison's four bounds as exact integers ``x · 10^d``, d as small as possible,
    and which comparisons were scaled.

    Ratings are written in decimals (``40``, ``40.5``, ``48.5151261``): scaled to
    integers (below 2⁵², so exact in a double), widths and sums are exact, so
    Δ and R, which do not change when all four bounds are scaled alike, are
    computed with one rounding each. Comparisons whose bounds are not such
    decimals keep their values (and are flagged False).
    """
    out = [b.astype(float, copy=True) for b in bounds]
    todo = np.ones(out[0].shape, dtype=bool)
    for d in range(_MAX_DECIMALS + 1):
        if not todo.any():
            break
        power = 10.0**d
        rounded = [np.round(b * power) for b in bounds]
        fits = todo.copy()
        for b, r in zip(bounds, rounded, strict=True):
            # x is the double nearest to the decimal r / 10^d (as parsing "40.5" gives)
            fits &= (r / power == b) & (np.abs(r) < 2.0**52)
        for o, r in zip(out, rounded, strict=True):
            o[fits] = r[fits]
        todo &= ~fits
    return out, ~todo


def compare_bounds(
    low_ref: ArrayLike,
    high_ref: ArrayLike,
    low_query: ArrayLike,
    high_query: ArrayLike,
    z: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(Δ, R, BC) straight from interval bounds, with as few roundings as possible.

    ``R = (b₂ − a₂) / (b₁ − a₁)`` and ``Δ = z · ((a₂ + b₂) − (a₁ + b₁)) / (b₁ − a₁)``,
    the same as :func:`compare` on the Gaussians of the intervals, but
    computed from exact widths and sums: bounds written as decimals (up to 15
    decimals, the scaled integers below 2⁵²) are scaled to integers first. An
    integer or one-decimal R of exactly 3/2 is then exactly ``1.5``, never
    ``1.5000000000000002``.

    Parameters
    ----------
    low_ref, high_ref, low_query, high_query : array_like
        Bounds of the reference and query intervals (broadcast together).
    z : float
        The standard-normal quantile of the intervals' coverage.

    Returns
    -------
    delta, r, bc : ndarray

    Examples
    --------
    >>> d, r, bc = compare_bounds([40.0], [60.0], [35.0], [65.0], z=1.96)
    >>> float(d[0]), float(r[0])
    (0.0, 1.5)
    """
    delta, r, bc, *_ = _compare_scaled(low_ref, high_ref, low_query, high_query, z)
    return delta, r, bc


def _compare_scaled(
    low_ref: ArrayLike, high_ref: ArrayLike, low_query: ArrayLike, high_query: ArrayLike, z: float
) -> tuple[NDArray[np.float64], ...]:
    """:func:`compare_bounds`, which comparisons were computed from exact integers, and
    their widths (the exact integers where scaled)."""
    arrays = np.broadcast_arrays(
        *(np.asarray(v, dtype=float) for v in (low_ref, high_ref, low_query, high_query))
    )
    (a1, b1, a2, b2), scaled = _decimal_integers(list(arrays))
    w1 = b1 - a1
    r = (b2 - a2) / w1
    delta = z * ((a2 + b2) - (a1 + b1)) / w1
    return delta, r, bhattacharyya(delta, r), scaled, w1, b2 - a2


def compare_intervals(
    ref: tuple[float, float] | ArrayLike,
    query: tuple[float, float] | ArrayLike,
    coverage: float = 0.95,
    z: float | None = None,
) -> tuple[float, float, float]:
    """(Δ, R, BC) of two rated intervals ``(low, high)``.

    R does not depend on the coverage; Δ scales with z (Δ = 2z·Δm / w_ref)
    and BC through Δ, so the coverage convention matters, if only slightly
    between the exact z and the paper's 1.96 (a relative 2e-5). Computed by
    :func:`compare_bounds`.

    Parameters
    ----------
    ref, query : (low, high)
        The reference and query intervals.
    coverage : float, default 0.95
        Probability mass each interval is taken to hold.
    z : float, optional
        Override the quantile (``1.96`` reproduces the paper).

    Returns
    -------
    delta, r, bc : float

    Examples
    --------
    >>> d, r, bc = compare_intervals((30, 40), (35, 45), z=1.96)
    >>> round(d, 6), r
    (1.96, 1.0)
    >>> compare_intervals((60, 80), (70, 90), z=1.96)[:2] == (d, r)
    True
    >>> compare_intervals((40, 60), (35, 65))[1]
    1.5
    """
    from rrmap.gaussian import z_value

    (a1, b1), (a2, b2) = np.asarray(ref, dtype=float), np.asarray(query, dtype=float)
    if not (b1 > a1 and b2 > a2):
        raise ValueError(f"intervals must have low < high, got {tuple(ref)} and {tuple(query)}")
    d, r, bc = compare_bounds(a1, b1, a2, b2, z=z_value(coverage, z))
    return float(d), float(r), float(bc)


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
