"""Quality zones of the RRMap (paper §2.2.6; docs/method.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from decimal import Context, Decimal, localcontext
from fractions import Fraction

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from rrmap.comparison import bhattacharyya
from rrmap.errors import InputError

__all__ = [
    "BOUNDARY_TOLERANCE",
    "QUALITY_DTYPE",
    "QUALITY_LEVELS",
    "Thresholds",
    "classify",
    "classify_bounds",
]

#: The four quality levels, in the order of the paper's tables.
QUALITY_LEVELS: tuple[str, ...] = ("excellent", "fair", "stereotype", "bad")

#: Ordered categorical dtype of the ``quality`` column.
QUALITY_DTYPE = pd.CategoricalDtype(list(QUALITY_LEVELS), ordered=True)

#: For :func:`classify` (Δ, R and BC given as doubles): values within this relative
#: distance of a threshold count as on it (4 ulps). :func:`classify_bounds` needs no
#: tolerance: it decides points near a threshold in exact arithmetic.
BOUNDARY_TOLERANCE: float = 4 * float(np.finfo(float).eps)

#: :func:`classify_bounds` re-decides exactly every point whose double Δ, R or BC lies
#: within this relative distance of a threshold (far above their rounding errors).
NEAR: float = 1e-9


@dataclass(frozen=True)
class Thresholds:
    """Zone thresholds, with the paper's defaults.

    Zones are checked in this order: **excellent** if ``BC > excellent_bc``;
    **stereotype** if ``|Δ| < delta_bound`` and ``R < stereotype_r``;
    **fair** if ``|Δ| < delta_bound`` and ``stereotype_r ≤ R ≤ fair_r``;
    **bad** otherwise.

    Parameters
    ----------
    excellent_bc : float, default 0.98
        BC above which a point is an excellent match.
    delta_bound : float, default 2.0
        Half-width of the Δ band of the stereotype and fair zones (the paper
        rounds Φ⁻¹(0.975) ≈ 1.96 to 2; pass ``1.96`` for the unrounded band).
    stereotype_r : float, default 2/3
        R below which a centred point is a stereotype.
    fair_r : float, default 3/2
        Upper R bound of the fair zone.

    Examples
    --------
    >>> Thresholds()
    Thresholds(excellent_bc=0.98, delta_bound=2.0, stereotype_r=0.6666666666666666, fair_r=1.5)
    >>> Thresholds(delta_bound=1.96).delta_bound
    1.96
    """

    excellent_bc: float = 0.98
    delta_bound: float = 2.0
    stereotype_r: float = 2.0 / 3.0
    fair_r: float = 1.5

    def __post_init__(self) -> None:
        problems = []
        if not 0 < self.excellent_bc < 1:
            problems.append(f"excellent_bc must lie in (0, 1), got {self.excellent_bc!r}")
        if not self.delta_bound > 0:
            problems.append(f"delta_bound must be positive, got {self.delta_bound!r}")
        if not 0 < self.stereotype_r <= self.fair_r:
            problems.append(
                f"need 0 < stereotype_r <= fair_r, got {self.stereotype_r!r} and {self.fair_r!r}"
            )
        if problems:
            raise ValueError("; ".join(problems))

    def to_dict(self) -> dict[str, float]:
        """Return the thresholds as a plain dict (for result files)."""
        return asdict(self)


def _check_points(d: np.ndarray, rr: np.ndarray, b: np.ndarray | None) -> None:
    problems = []
    for name, arr in (("delta", d), ("r", rr), ("bc", b)):
        bad = ~np.isfinite(arr) if arr is not None else None
        if bad is not None and bad.any():
            problems.append(f"{name} is NaN or infinite at {_positions(bad)}")
    nonpos = np.isfinite(rr) & (rr <= 0)
    if nonpos.any():
        got = float(rr[nonpos].flat[0])
        problems.append(f"r must be positive, got {got!r} at {_positions(nonpos)}")
    if b is not None:
        outside = np.isfinite(b) & ((b < 0) | (b > 1))
        if outside.any():
            got = float(b[outside].flat[0])
            problems.append(f"bc must lie in [0, 1], got {got!r} at {_positions(outside)}")
    if problems:
        raise InputError("classify: " + "; ".join(problems))


def _positions(mask: np.ndarray) -> str:
    idx = np.flatnonzero(mask.ravel())
    shown = ", ".join(str(i) for i in idx[:20])
    return f"position{'s' if len(idx) != 1 else ''} {shown}{' …' if len(idx) > 20 else ''}"


def classify(
    delta: ArrayLike,
    r: ArrayLike,
    bc: ArrayLike | None = None,
    thresholds: Thresholds | None = None,
) -> pd.Categorical:
    """Classify RRMap points into excellent / fair / stereotype / bad.

    From doubles alone a point on a boundary cannot be told from one a hair
    off it, so a value within :data:`BOUNDARY_TOLERANCE` (4 ulps, relative) of
    a threshold counts as equal to it: R = 3/2 is fair and |Δ| = 2 is not in
    the Δ band even where rounding puts the computed value a hair off. From
    interval bounds, :func:`classify_bounds` (what :func:`rrmap.points` uses)
    decides exactly instead (docs/method.md).

    Parameters
    ----------
    delta, r : array_like
        Relative shift and relative dispersion (finite; R > 0).
    bc : array_like, optional
        Bhattacharyya coefficients; computed from (Δ, R) if omitted.
    thresholds : Thresholds, optional
        Zone thresholds (paper defaults).

    Returns
    -------
    pandas.Categorical
        Ordered categorical with levels ``excellent < fair < stereotype < bad``.

    Raises
    ------
    rrmap.errors.InputError
        If Δ, R or BC is NaN or infinite, R ≤ 0 or BC outside [0, 1] (the
        positions are listed).

    Examples
    --------
    >>> list(classify([0.0, 0.0, 0.0, 3.0], [1.0, 0.5, 1.4, 1.0]))
    ['excellent', 'stereotype', 'fair', 'bad']
    >>> list(classify([0.0, 1.9999999999999996], [1.5000000000000002, 1.0]))
    ['fair', 'bad']
    """
    th = thresholds or Thresholds()
    d, rr = np.broadcast_arrays(np.asarray(delta, dtype=float), np.asarray(r, dtype=float))
    given = None if bc is None else np.broadcast_to(np.asarray(bc, dtype=float), d.shape)
    _check_points(d, rr, given)
    b = bhattacharyya(d, rr) if given is None else given
    tol = BOUNDARY_TOLERANCE
    band = np.abs(d) < th.delta_bound * (1 - tol)
    below = rr < th.stereotype_r * (1 - tol)
    within = ~below & (rr <= th.fair_r * (1 + tol))
    codes = np.full(d.shape, 3, dtype=np.int8)  # bad
    codes[band & within] = 1  # fair
    codes[band & below] = 2  # stereotype
    codes[b > th.excellent_bc * (1 + tol)] = 0  # excellent wins over everything
    return pd.Categorical.from_codes(codes.ravel(), dtype=QUALITY_DTYPE)


def _intended(x: float) -> Fraction:
    """The value a number given as a double stands for: the simplest fraction with a
    denominator up to 10⁶ that rounds to it (2/3 for 0.666…, 49/25 for 1.96), else the
    double's own exact value (an irrational quantile's closest double)."""
    f = Fraction(x).limit_denominator(10**6)
    return f if float(f) == x else Fraction(x)


def _decimal(x: float) -> Fraction:
    """The decimal a rating was written as: the shortest one that reads back as *x*."""
    return Fraction(repr(float(x)))


def _exact_zone(bounds: tuple[float, ...], z: Fraction, th: dict[str, Fraction]) -> int:
    """The zone code of one comparison, Δ and R in exact rationals, BC to 60 digits."""
    a1, b1, a2, b2 = (_decimal(v) for v in bounds)
    w1, w2 = b1 - a1, b2 - a2
    delta = z * ((a2 + b2) - (a1 + b1)) / w1
    r = w2 / w1
    with localcontext(Context(prec=60)):
        dd = Decimal(delta.numerator) / Decimal(delta.denominator)
        rr = Decimal(r.numerator) / Decimal(r.denominator)
        q = 1 + rr * rr
        bc = (2 * rr / q).sqrt() * (-(dd * dd) / (4 * q)).exp()
        eb = th["excellent_bc"]
        # BC never equals a rational threshold for rational Δ ≠ 0 (exp of a nonzero
        # rational is transcendental) nor at Δ = 0 for the default 0.98; 60 digits decide
        if bc > Decimal(eb.numerator) / Decimal(eb.denominator):
            return 0
    if abs(delta) < th["delta_bound"]:
        if r < th["stereotype_r"]:
            return 2
        if r <= th["fair_r"]:
            return 1
    return 3


def classify_bounds(
    low_ref: ArrayLike,
    high_ref: ArrayLike,
    low_query: ArrayLike,
    high_query: ArrayLike,
    z: float,
    thresholds: Thresholds | None = None,
) -> pd.Categorical:
    """Quality zones straight from the interval bounds, decided exactly on the boundaries.

    Δ, R and BC are computed in doubles (:func:`rrmap.compare_bounds`) and
    compared with the thresholds without tolerance. A point whose Δ, R or BC
    lies within a relative 10⁻⁹ of a threshold — or, for bounds that are not
    decimals of up to 15 places (computed intervals), within what their
    rounding can move it (a bound from the magnitudes and the widths) — is
    decided again in exact arithmetic: each
    bound is the decimal it was written as (the shortest one that reads back
    as the same double), Δ and R exact rationals, BC to 60 digits, z and the
    thresholds the values they stand for (1.96 is 49/25, 2/3 is 2/3: the
    simplest fraction that rounds to the double, else the double itself). So
    ``48.5151261, 48.5152927`` against ``48.5152111, 48.5153777`` has Δ = 2
    exactly with z = 1.96 and is not in the Δ band, and
    ``0, 19.641293`` against ``10.021252, 29.662545`` (Δ = 2 − 1.5·10⁻¹⁵ with the
    exact z) is.

    Parameters
    ----------
    low_ref, high_ref, low_query, high_query : array_like
        Interval bounds (broadcast together).
    z : float
        The standard-normal quantile of the coverage.
    thresholds : Thresholds, optional
        Zone thresholds (paper defaults).

    Returns
    -------
    pandas.Categorical

    Examples
    --------
    >>> list(classify_bounds([48.5151261], [48.5152927], [48.5152111], [48.5153777], z=1.96))
    ['bad']
    >>> list(classify_bounds([0.0], [19.641293], [10.021252], [29.662545], z=1.959963984540054))
    ['fair']
    """
    from rrmap.comparison import _compare_scaled

    bounds = np.broadcast_arrays(
        *(np.asarray(v, dtype=float) for v in (low_ref, high_ref, low_query, high_query))
    )
    return _classify_compared(bounds, z, thresholds, _compare_scaled(*bounds, z))


#: Margin over the first-order rounding bounds of :func:`_rounding_bounds`.
_SAFETY = 16.0


def _rounding_bounds(
    bounds: list[np.ndarray],
    d: np.ndarray,
    rr: np.ndarray,
    b: np.ndarray,
    scaled: np.ndarray,
    z: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How far the doubles Δ, R and BC of comparisons whose bounds are not decimals
    (``scaled`` False) can lie from the values of the decimals the bounds were written as
    (the shortest that read back as the same doubles): each bound within u·M of its
    decimal (u = 2⁻⁵³, M the largest magnitude of the four), so each width within 3u·M and
    the difference of the sums within 16u·M; with e = u·M / min(w₁, w₂),
    |δΔ| ≤ (16z + 3|Δ|)·e + 3u|Δ|, |δR| ≤ R·(6e + u) and, through ln BC,
    |δBC| ≤ BC·((1 + Δ²)·|δR|/R + |Δ|·|δΔ| + 16u); each times a margin of 16. A
    comparison farther than that (and than :data:`NEAR`) from every threshold is decided
    in doubles as in exact arithmetic; zero for scaled comparisons, whose own checks
    follow in :func:`_classify_compared`."""
    zero = np.zeros(d.shape)
    if scaled.all():
        return zero, zero, zero
    a1, b1, a2, b2 = (np.ravel(x) for x in bounds)
    u = 2.0**-53
    m = np.maximum.reduce([np.abs(a1), np.abs(b1), np.abs(a2), np.abs(b2)])
    with np.errstate(divide="ignore", invalid="ignore"):
        e = u * m / np.minimum(b1 - a1, b2 - a2)
        err_d = (16 * abs(z) + 3 * np.abs(d)) * e + 3 * u * np.abs(d)
        err_r = rr * (6 * e + u)
        err_b = b * ((1 + d * d) * (6 * e + u) + np.abs(d) * err_d + 16 * u)
    out = []
    for err in (err_d, err_r, err_b):
        err = np.where(np.isfinite(err), _SAFETY * err, np.inf)
        out.append(np.where(scaled, 0.0, err))
    return out[0], out[1], out[2]


def _classify_compared(
    bounds: list[np.ndarray], z: float, thresholds: Thresholds | None, compared: tuple
) -> pd.Categorical:
    """:func:`classify_bounds` from the output of ``comparison._compare_scaled`` on
    *bounds* (Δ, R, BC, which were scaled exactly, widths), computed once by the caller."""
    th = thresholds or Thresholds()
    d, rr, b, scaled, w1, w2 = (np.ravel(a) for a in compared)
    _check_points(d, rr, b)
    band = np.abs(d) < th.delta_bound
    below = rr < th.stereotype_r
    within = ~below & (rr <= th.fair_r)
    excellent = b > th.excellent_bc
    err_d, err_r, err_b = _rounding_bounds(bounds, d, rr, b, scaled, z)
    slow = np.abs(np.abs(d) - th.delta_bound) <= np.maximum(NEAR * th.delta_bound, err_d)
    slow |= np.abs(b - th.excellent_bc) <= np.maximum(NEAR * th.excellent_bc, err_b)
    for t in (th.stereotype_r, th.fair_r):  # bounds that are not decimals: no exact R below
        slow |= ~scaled & (np.abs(rr - t) <= np.maximum(NEAR * t, err_r))
    exact = {k: _intended(v) for k, v in th.to_dict().items()}
    for name in ("stereotype_r", "fair_r"):  # R on its own threshold: common, so vectorised
        t, f = getattr(th, name), exact[name]
        near = (np.abs(rr - t) <= NEAR * t) & ~slow
        # W₂·q against p·W₁ with integer widths: exact in doubles below 2⁵³
        ok = near & (np.maximum(w1, w2) * max(f.numerator, f.denominator) < 2.0**53)
        slow |= near & ~ok
        left, right = w2[ok] * f.denominator, f.numerator * w1[ok]
        if name == "stereotype_r":
            below[ok] = left < right
            within[ok] = ~below[ok] & (rr[ok] <= th.fair_r)
        else:
            within[ok] = ~below[ok] & (left <= right)
    codes = np.full(d.shape, 3, dtype=np.int8)
    codes[band & within] = 1
    codes[band & below] = 2
    codes[excellent] = 0
    if slow.any():
        zz = _intended(z)
        flat = [np.ravel(a) for a in bounds]
        for i in np.flatnonzero(slow):
            codes[i] = _exact_zone(tuple(a[i] for a in flat), zz, exact)
    return pd.Categorical.from_codes(codes, dtype=QUALITY_DTYPE)


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
