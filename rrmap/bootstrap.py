"""Bootstrap confidence intervals over units: BCa by default, percentile on request
(docs/tests.md, "Intervals").

A statistic computed on units (comparison keys, or points) is given as its estimate,
its values on ``B`` resamples of the units and, for BCa, its values with each unit
left out in turn (the jackknife). Resamples are vectors of how often each unit was
drawn (:func:`resample_weights`), so a statistic written as weighted sums over units
evaluates every resample at once.

- ``"bca"`` (Efron, 1987, "Better bootstrap confidence intervals", JASA 82: 171–185;
  Efron & Tibshirani, 1993, §14.3): the quantiles of the resamples at the levels
  ``Φ(z0 + (z0 + z_α) / (1 − a (z0 + z_α)))``, with the bias correction
  ``z0 = Φ⁻¹(share of resamples below the estimate, ties counted half)`` and the
  acceleration ``a`` from the jackknife. The formulas of :func:`scipy.stats.bootstrap`
  (``method="BCa"``), stratified samples included (tested against it).
- ``"percentile"``: the ``(1 ∓ level) / 2`` quantiles of the resamples.
- ``"studentized"`` (the bootstrap-t; Efron & Tibshirani, 1993, §12.5; Davison &
  Hinkley, 1997, §5.2.1), symmetric (Hall, 1988, "On symmetric bootstrap confidence
  intervals", JRSS B 50: 35–45): ``θ̂ ± t · se`` with ``t`` the ``level`` quantile of
  ``|θ*_b − θ̂| / se*_b``, each standard error a jackknife one (of the data, and of each
  resample with one draw left out in turn); its two-sided coverage error is of a smaller
  order than the equal-tailed ``[θ̂ − t_hi · se, θ̂ − t_lo · se]`` (``t_lo, t_hi`` the
  quantiles of ``(θ*_b − θ̂) / se*_b``), which is kept on request:
  :func:`studentized_interval`.

A resample on which the statistic is undefined (NaN: a group left out, no variation
left) is not used, and counted (``undefined``); BCa is undefined when every defined
resample lies on one side of the estimate (``z0`` infinite) or a jackknife value is
undefined, and the percentile interval is given instead, with the reason in ``note``.
Quantiles are linear interpolations (``numpy.quantile``'s default, as scipy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from rrmap._util.interval_methods import CI_METHODS, check_ci
from rrmap.errors import InputError

__all__ = [
    "CI_METHODS",
    "Interval",
    "acceleration",
    "bootstrap_interval",
    "check_ci",
    "jackknife_weights",
    "resample_weights",
    "studentized_interval",
]

#: Interval methods: BCa (the default), percentile.

_NORMAL = NormalDist()


@dataclass(frozen=True)
class Interval:
    """A bootstrap interval.

    Attributes
    ----------
    low, high : float
        The bounds (NaN when no resample is defined).
    method : str
        ``"bca"``, ``"percentile"`` or ``"studentized"`` (the one used: BCa falls back to
        percentile where it is undefined); empty when there is no interval.
    undefined : int
        Resamples on which the statistic was undefined (left out of the interval).
    note : str
        Why BCa fell back to the percentile interval, or why there is no interval.

    Examples
    --------
    >>> iv = bootstrap_interval(0.5, np.array([0.2, 0.4, np.nan, 0.6, 0.8]),
    ...                         method="percentile")
    >>> round(iv.low, 3), round(iv.high, 3), iv.method, iv.undefined
    (0.215, 0.785, 'percentile', 1)
    """

    low: float
    high: float
    method: str
    undefined: int
    note: str = ""


#: Resampled statistics within this distance of the estimate (relative to
#: ``max(1, |estimate|)``) tie with it in the BCa bias correction.
TIE_TOL = 1e-12


def resample_weights(
    n_units: int,
    n_boot: int,
    rng: np.random.Generator,
    strata: np.ndarray | None = None,
) -> np.ndarray:
    """How often each unit is drawn in each of *n_boot* resamples, shape (n_boot, n_units).

    Without *strata*, *n_units* units drawn with replacement from all; with *strata*
    (the stratum of each unit), each stratum's units drawn from that stratum only, so
    every stratum keeps its size (independent samples, each resampled on its own). The
    draws are uniform integers, counted per resample.

    Examples
    --------
    >>> w = resample_weights(4, 3, np.random.default_rng(0), strata=np.array([0, 0, 1, 1]))
    >>> w.shape, w[:, :2].sum(axis=1).tolist(), w[:, 2:].sum(axis=1).tolist()
    ((3, 4), [2, 2, 2], [2, 2, 2])
    """
    out = np.zeros((n_boot, n_units), dtype=np.int64)
    rows = np.arange(n_boot)[:, None]
    for cols in _stratum_indices(n_units, strata):
        m = len(cols)
        drawn = rng.integers(0, m, size=(n_boot, m)) + rows * m  # unit drawn, per resample
        out[:, cols] = np.bincount(drawn.ravel(), minlength=n_boot * m).reshape(n_boot, m)
    return out


def _stratum_indices(n_units: int, strata: np.ndarray | None) -> list[np.ndarray]:
    """The units of each stratum, strata in sorted order (all *n_units* units without
    *strata*). The few distinct strata are found without ``np.unique``, whose overhead was
    most of this once per interval."""
    if strata is None:
        return [np.arange(n_units)]
    strata = np.asarray(strata)
    return [np.flatnonzero(strata == s) for s in sorted(set(strata.tolist()))]


def jackknife_weights(n_units: int) -> np.ndarray:
    """Each unit left out in turn: row u is 1 everywhere but 0 at u, shape (n_units, n_units).

    Examples
    --------
    >>> jackknife_weights(3).tolist()
    [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    """
    return 1.0 - np.eye(n_units)


def acceleration(jackknife: np.ndarray, strata: np.ndarray | None = None) -> float:
    """BCa acceleration from the leave-one-unit-out values (Efron & Tibshirani, 1993, eq.
    14.15; for several strata, the sum over strata of scipy's ``_bca_interval``).

    With ``U_i = (n_s − 1)(θ̄_s − θ_(i))`` within each stratum s of ``n_s`` units,
    ``a = Σ_s Σ U³ / n_s³ / (6 (Σ_s Σ U² / n_s²)^{3/2})``; 0 when every leave-one-out value
    is the same (nothing to accelerate).

    Examples
    --------
    >>> round(acceleration(np.array([0.0, 0.0, 3.0])), 4)
    -0.068
    """
    jack = np.asarray(jackknife, dtype=float)
    if not len(jack):
        return 0.0
    num = den = 0.0
    for units in _stratum_indices(len(jack), strata):
        values = jack[units]
        n = float(len(values))
        u = (n - 1.0) * (values.mean() - values)
        num += float((u**3).sum()) / n**3
        den += float((u**2).sum()) / n**2
    return num / (6.0 * den**1.5) if den > 0 else 0.0


def bootstrap_interval(
    estimate: float,
    draws: np.ndarray,
    jackknife: np.ndarray | None = None,
    *,
    level: float = 0.95,
    method: str = "bca",
    strata: np.ndarray | None = None,
) -> Interval:
    """The bootstrap interval of *estimate* from its resampled values *draws*.

    Parameters
    ----------
    estimate : float
        The statistic on the data.
    draws : array (B,)
        The statistic on each resample (NaN: undefined, left out and counted).
    jackknife : array (n_units,), optional
        The statistic with each unit left out (needed by ``method="bca"``).
    level : float, default 0.95
    method : {"bca", "percentile"}
    strata : array (n_units,), optional
        The stratum of each jackknife unit (independent samples resampled each on its own).

    Returns
    -------
    Interval

    Notes
    -----
    The BCa bias correction counts the resamples below the estimate, ties half. A resample
    that holds the data themselves (each unit drawn once) gives the estimate in exact
    arithmetic and differs from it only by rounding, so resampled values within
    :data:`TIE_TOL` ``· max(1, |estimate|)`` of the estimate count as ties.

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> x = g.exponential(size=30)
    >>> w = resample_weights(30, 2000, g)
    >>> draws = (w @ x) / 30
    >>> jack = (x.sum() - x) / 29
    >>> iv = bootstrap_interval(x.mean(), draws, jack)
    >>> iv.method, iv.undefined, bool(iv.low < x.mean() < iv.high)
    ('bca', 0, True)
    """
    check_ci(method)
    draws = np.asarray(draws, dtype=float)
    ok = draws[~np.isnan(draws)]
    undefined = len(draws) - len(ok)
    if not len(ok) or not math.isfinite(estimate):
        why = "no resample defined" if len(draws) else "no resamples"
        return Interval(math.nan, math.nan, "", undefined, "" if not len(draws) else why)
    tail = (1.0 - level) / 2.0
    levels, note = [tail, 1.0 - tail], ""
    if method == "bca":
        bca, note = _bca_levels(estimate, ok, jackknife, level, strata)
        if bca is not None:
            levels = bca
    low, high = np.quantile(ok, levels)
    used = "bca" if method == "bca" and not note else "percentile"
    return Interval(float(low), float(high), used, undefined, note)


def _bca_levels(
    estimate: float,
    draws: np.ndarray,
    jackknife: np.ndarray | None,
    level: float,
    strata: np.ndarray | None,
) -> tuple[list[float] | None, str]:
    """The two quantile levels of the BCa interval, or None and why BCa is undefined."""
    if jackknife is None:
        raise InputError("a BCa interval needs the jackknife values of the statistic")
    jack = np.asarray(jackknife, dtype=float)
    if np.isnan(jack).any():
        return None, "BCa undefined (a leave-one-out value is undefined): percentile interval"
    # a resample equal to the data (each unit drawn once) gives the estimate up to rounding,
    # which the order of the sums decides: within TIE_TOL it counts as a tie (half)
    tol = TIE_TOL * max(1.0, abs(estimate))
    below = np.count_nonzero(draws < estimate - tol)
    share = (below + np.count_nonzero(draws <= estimate + tol)) / (2.0 * len(draws))
    if share <= 0.0 or share >= 1.0:
        return None, (
            "BCa undefined (every resample on one side of the estimate): percentile interval"
        )
    z0 = _NORMAL.inv_cdf(share)
    a = acceleration(jack, strata)
    out = []
    for q in ((1.0 - level) / 2.0, (1.0 + level) / 2.0):
        z = z0 + _NORMAL.inv_cdf(q)
        out.append(_NORMAL.cdf(z0 + z / (1.0 - a * z)))
    return out, ""


def studentized_interval(
    estimate: float,
    se: float,
    draws: np.ndarray,
    draw_se: np.ndarray,
    *,
    level: float = 0.95,
    symmetric: bool = True,
) -> Interval:
    """The studentized (bootstrap-t) interval of *estimate*.

    Parameters
    ----------
    estimate, se : float
        The statistic on the data and its (jackknife) standard error.
    draws, draw_se : array (B,)
        The statistic on each resample and its standard error there (NaN or a zero
        standard error: undefined, left out and counted).
    level : float, default 0.95
    symmetric : bool, default True
        ``estimate ± t · se``, *t* the *level* quantile of ``|draw − estimate| / draw_se``
        (Hall, 1988: two-sided coverage error of order n⁻², and in rrmap's coverage
        benchmark closer to the level, docs/tests.md); False: the equal-tailed
        ``[estimate − t_hi · se, estimate − t_lo · se]`` from the two tail quantiles.

    Returns
    -------
    Interval

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> x = g.exponential(size=40)
    >>> w = resample_weights(40, 2000, g)
    >>> means = (w @ x) / 40
    >>> sds = np.sqrt((w @ x**2) / 40 - means**2) / np.sqrt(39)
    >>> iv = studentized_interval(x.mean(), x.std(ddof=1) / np.sqrt(40), means, sds)
    >>> iv.method, bool(iv.low < x.mean() < iv.high)
    ('studentized', True)
    >>> bool(np.isclose(iv.high - x.mean(), x.mean() - iv.low))  # symmetric by default
    True
    >>> tails = studentized_interval(x.mean(), x.std(ddof=1) / np.sqrt(40), means, sds,
    ...                              symmetric=False)
    >>> bool(np.isclose(tails.high - x.mean(), x.mean() - tails.low))  # skewed data: no
    False
    """
    draws, draw_se = np.asarray(draws, dtype=float), np.asarray(draw_se, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (draws - estimate) / draw_se
    ok = np.isfinite(t)
    undefined = int(len(t) - ok.sum())
    if not ok.any() or not (math.isfinite(estimate) and math.isfinite(se)):
        why = "no resample defined" if len(draws) else "no resamples"
        return Interval(math.nan, math.nan, "", undefined, "" if not len(draws) else why)
    if symmetric:
        t_hi = float(np.quantile(np.abs(t[ok]), level))
        t_lo = -t_hi
    else:
        tail = (1.0 - level) / 2.0
        t_lo, t_hi = np.quantile(t[ok], [tail, 1.0 - tail])
    return Interval(float(estimate - t_hi * se), float(estimate - t_lo * se), "studentized",
                    undefined, "")  # fmt: skip


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
