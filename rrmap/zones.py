"""Quality zones of the RRMap (paper §2.2.6; docs/method.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from rrmap.comparison import bhattacharyya
from rrmap.errors import InputError

__all__ = ["BOUNDARY_TOLERANCE", "QUALITY_DTYPE", "QUALITY_LEVELS", "Thresholds", "classify"]

#: The four quality levels, in the order of the paper's tables.
QUALITY_LEVELS: tuple[str, ...] = ("excellent", "fair", "stereotype", "bad")

#: Ordered categorical dtype of the ``quality`` column.
QUALITY_DTYPE = pd.CategoricalDtype(list(QUALITY_LEVELS), ordered=True)

#: Values within this relative distance of a threshold count as on it (4 ulps):
#: rounding in Δ, R or the threshold itself never moves a point across a boundary.
BOUNDARY_TOLERANCE: float = 4 * float(np.finfo(float).eps)


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

    Boundaries are met exactly: a value within :data:`BOUNDARY_TOLERANCE`
    (4 ulps, relative) of a threshold counts as equal to it, so R = 3/2 is
    fair and |Δ| = 2 is not in the Δ band even where floating-point rounding
    puts the computed value a hair off (docs/method.md).

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
