"""Bootstrap confidence intervals: percentile, basic and BCa, from draws and a jackknife.

Given an estimate ``θ̂`` (one value per column), ``B`` bootstrap draws of it and,
for BCa, its leave-one-unit-out (jackknife) values, :func:`bootstrap_interval`
returns the interval at ``level`` by one of the methods of Efron & Tibshirani
(1993, ch. 13–14) and Davison & Hinkley (1997, §5.2–5.3):

* ``"percentile"``: the ``(1 ∓ level)/2`` quantiles of the draws;
* ``"basic"``: ``2θ̂ −`` those quantiles (swapped), the percentile interval
  reflected about the estimate: it corrects a bias of the draws around ``θ̂``
  instead of repeating it;
* ``"bca"``: quantiles at levels moved by the bias correction
  ``z0 = Φ⁻¹(share of draws below θ̂, ties counted half)`` (draws within
  ``1e-9·max(1, |θ̂|)`` of ``θ̂`` are ties: a statistic such as a score with few
  possible values is refitted equal to the estimate but for rounding) and the
  acceleration ``a = Σ m d³ / (6 (Σ m d²)^{3/2})``, ``d`` the jackknife
  values' deviations from their mean, ``m`` each unit's multiplicity.

These are the formulas of :func:`scipy.stats.bootstrap` (whose BCa counts ties
in ``z0`` the same way); quantiles are linear interpolations (``numpy.quantile``'s
default), or ``"inverted_cdf"`` for a discrete statistic such as a rank.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr, ndtri

from rrmap.errors import InputError

#: The interval methods of ``ci=`` (``"wald"``: estimate ± z·se, no resampling).
CI_METHODS = ("percentile", "basic", "bca", "wald")

__all__ = ["CI_METHODS", "acceleration", "bca_levels", "bootstrap_interval", "check_ci"]


def check_ci(ci: str) -> list[str]:
    """What is wrong with a ``ci=`` value (an empty list when nothing).

    Examples
    --------
    >>> check_ci("bca")
    []
    >>> check_ci("student")
    ["ci must be one of 'percentile', 'basic', 'bca', 'wald', got 'student'"]
    """
    if ci in CI_METHODS:
        return []
    return [f"ci must be one of {', '.join(map(repr, CI_METHODS))}, got {ci!r}"]


def acceleration(jackknife: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """BCa acceleration of each column from its jackknife values.

    Parameters
    ----------
    jackknife : array (n_units, p)
        The statistic with each unit left out in turn (one row per distinct
        unit when ``weights`` gives how many units share it).
    weights : array (n_units,), optional
        Multiplicity of each row (default 1 each).

    Returns
    -------
    ndarray (p,)
        ``Σ m d³ / (6 (Σ m d²)^{3/2})`` with ``d = mean − value``; 0 for a
        column whose jackknife values are all equal.

    Examples
    --------
    >>> round(float(acceleration(np.array([[0.0], [0.0], [3.0]]))[0]), 4)
    -0.068
    """
    jack = np.asarray(jackknife, dtype=float)
    m = np.ones(len(jack)) if weights is None else np.asarray(weights, dtype=float)
    mean = (m @ jack) / m.sum()
    d = mean - jack
    num = m @ d**3
    den = (m @ d**2) ** 1.5
    with np.errstate(divide="ignore", invalid="ignore"):
        a = num / (6.0 * den)
    return np.where(den > 1e-300, a, 0.0)


def bca_levels(estimate: np.ndarray, draws: np.ndarray, level: float,
               accel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The two quantile levels of the BCa interval of each column.

    Examples
    --------
    >>> draws = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> low, high = bca_levels(np.array([1.5]), draws, 0.9, np.array([0.0]))
    >>> round(float(low[0]), 12), round(float(high[0]), 12)  # the percentile levels
    (0.05, 0.95)
    """
    est = np.asarray(estimate, dtype=float)
    b = len(draws)
    tol = 1e-9 * np.maximum(1.0, np.abs(est))  # a refit equal to the estimate but for rounding
    below, tied = (draws < est - tol).sum(axis=0), (np.abs(draws - est) <= tol).sum(axis=0)
    share = (2 * below + tied) / (2.0 * b)
    # every draw on one side: z0 would be infinite; take it as half a draw beyond
    z0 = ndtri(np.clip(share, 0.5 / b, 1 - 0.5 / b))
    z = float(ndtri((1 - level) / 2))
    out = []
    for zq, plain in ((z, (1 - level) / 2), (-z, (1 + level) / 2)):
        num = z0 + zq
        with np.errstate(divide="ignore", invalid="ignore"):
            q = ndtr(z0 + num / (1 - accel * num))
        out.append(np.where(np.isfinite(q), q, plain))
    return out[0], out[1]


def bootstrap_interval(
    estimate: np.ndarray,
    draws: np.ndarray,
    level: float = 0.95,
    method: str = "percentile",
    *,
    jackknife: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    discrete: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bootstrap interval limits of each column of ``draws``.

    Parameters
    ----------
    estimate : array (p,)
        The statistic on the data (``θ̂``).
    draws : array (B, p)
        The statistic on each bootstrap resample.
    level : float, default 0.95
        Nominal coverage.
    method : {"percentile", "basic", "bca"}, default "percentile"
        See the module notes.
    jackknife : array (n_units, p), optional
        Leave-one-unit-out values of the statistic (``method="bca"`` only).
    weights : array (n_units,), optional
        Multiplicity of each jackknife row.
    discrete : bool, default False
        Quantiles as observed values (``"inverted_cdf"``), e.g. for ranks.

    Returns
    -------
    low, high : ndarray (p,)

    Examples
    --------
    >>> draws = np.array([[1.0], [2.0], [3.0], [4.0], [10.0]])
    >>> [float(v[0]) for v in bootstrap_interval(np.array([3.0]), draws, 0.5)]
    [2.0, 4.0]
    >>> [float(v[0]) for v in bootstrap_interval(np.array([3.0]), draws, 0.5, "basic")]
    [2.0, 4.0]
    """
    draws = np.asarray(draws, dtype=float)
    est = np.asarray(estimate, dtype=float)
    qmethod = "inverted_cdf" if discrete else "linear"
    lo, hi = (1 - level) / 2, (1 + level) / 2
    if method in ("percentile", "basic"):
        low = np.quantile(draws, lo, axis=0, method=qmethod)
        high = np.quantile(draws, hi, axis=0, method=qmethod)
        if method == "basic":
            low, high = 2 * est - high, 2 * est - low
        return low, high
    if method != "bca":
        raise InputError(f"bootstrap interval method must be percentile, basic or bca, "
                         f"got {method!r}")  # fmt: skip
    if jackknife is None:
        raise InputError("a BCa interval needs the jackknife values of the statistic")
    q_lo, q_hi = bca_levels(est, draws, level, acceleration(jackknife, weights))
    low = np.empty(draws.shape[1])
    high = np.empty(draws.shape[1])
    for j in range(draws.shape[1]):  # each column has its own levels
        low[j] = np.quantile(draws[:, j], q_lo[j], method=qmethod)
        high[j] = np.quantile(draws[:, j], q_hi[j], method=qmethod)
    return low, high
