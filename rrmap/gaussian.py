"""From a rated interval to a Gaussian (paper eq. 1; docs/method.md)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["Z_95", "interval_to_gaussian", "z_value"]

#: Exact two-sided 95 % quantile of the standard normal, Φ⁻¹(0.975), to the last bit
#: (``scipy.stats.norm.ppf(0.975)``; written out so that importing rrmap does not
#: import scipy.stats, and checked against it by the tests).
Z_95: float = 1.959963984540054


def z_value(coverage: float = 0.95, z: float | None = None) -> float:
    """Return the standard-normal quantile that an interval of *coverage* spans.

    Parameters
    ----------
    coverage : float, default 0.95
        Probability mass inside the rated interval, in (0, 1).
    z : float, optional
        Use this value instead (e.g. the paper's rounded ``1.96``).

    Returns
    -------
    float
        ``z`` if given, else Φ⁻¹(1 − (1 − coverage)/2).

    Examples
    --------
    >>> round(z_value(0.95), 6)
    1.959964
    >>> z_value(z=1.96)
    1.96
    """
    if z is not None:
        if not np.isfinite(z) or z <= 0:
            raise ValueError(f"z must be a positive finite number, got {z!r}")
        return float(z)
    if not 0 < coverage < 1:
        raise ValueError(f"coverage must lie strictly between 0 and 1, got {coverage!r}")
    if coverage == 0.95:
        return Z_95
    from scipy.stats import norm

    return float(norm.ppf(1 - (1 - coverage) / 2))


def interval_to_gaussian(
    low: ArrayLike, high: ArrayLike, coverage: float = 0.95, z: float | None = None
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Map rated intervals ``[low, high]`` to Gaussian means and standard deviations.

    ``m = (low + high) / 2`` and ``s = (high - low) / (2 z)``: the interval is
    read as the central *coverage* range of N(m, s).

    Parameters
    ----------
    low, high : array_like
        Interval bounds (broadcast together).
    coverage : float, default 0.95
        Probability mass the interval is taken to hold.
    z : float, optional
        Override the quantile (``1.96`` reproduces the paper's rounding).

    Returns
    -------
    m, s : ndarray
        Means and standard deviations.

    Examples
    --------
    >>> m, s = interval_to_gaussian([30.0], [50.0], z=1.96)
    >>> float(m[0]), round(float(s[0]), 4)
    (40.0, 5.102)
    """
    lo = np.asarray(low, dtype=float)
    hi = np.asarray(high, dtype=float)
    zz = z_value(coverage, z)
    return (lo + hi) / 2.0, (hi - lo) / (2.0 * zz)


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
