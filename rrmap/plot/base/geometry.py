"""Geometry of the RRMap, shared by its matplotlib, plotnine and plotly figures.

Everything here is plain numpy: the view checked (:func:`check_limits`), the BC
background grid (:func:`bc_grid`), the outlines of the stereotype and fair rectangles
(:func:`zone_rectangles`), the closed BC = threshold curve (:func:`bc_contour`,
computed in closed form, not traced from a raster) and the points moved onto the edge
of a view (:func:`clip_to_view`).

Examples
--------
>>> from rrmap.zones import Thresholds
>>> zone_rectangles(Thresholds())["stereotype"][:2].tolist()
[[-2.0, 0.0], [2.0, 0.0]]
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rrmap.comparison import bhattacharyya
from rrmap.zones import Thresholds

__all__ = [
    "DEFAULT_XLIM",
    "DEFAULT_YLIM",
    "Clipped",
    "bc_contour",
    "bc_grid",
    "check_limits",
    "clip_to_view",
    "zone_rectangles",
]

#: Default view of the RRMap: Δ ∈ [−4, 4], R ∈ [0, 2.5] (covers the zones with margin).
DEFAULT_XLIM: tuple[float, float] = (-4.0, 4.0)
DEFAULT_YLIM: tuple[float, float] = (0.0, 2.5)


def check_limits(xlim: ArrayLike, ylim: ArrayLike) -> tuple[tuple[float, float], ...]:
    """The view (*xlim*, *ylim*) as two pairs of floats; ``InputError`` naming what is
    wrong with either.

    Examples
    --------
    >>> check_limits([-3, 3], (0, 2))
    ((-3.0, 3.0), (0.0, 2.0))
    >>> check_limits((1, -1), (0, 2))
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: xlim must be two finite increasing numbers, got (1, -1)
    """
    x0, x1 = (float(v) for v in xlim)
    y0, y1 = (float(v) for v in ylim)
    problems = []
    if not (np.isfinite([x0, x1]).all() and x0 < x1):
        problems.append(f"xlim must be two finite increasing numbers, got {tuple(xlim)!r}")
    if not (np.isfinite([y0, y1]).all() and 0 <= y0 < y1):
        problems.append(f"ylim must be two finite increasing numbers >= 0, got {tuple(ylim)!r}")
    if problems:
        from rrmap.errors import InputError

        raise InputError("; ".join(problems))
    return (x0, x1), (y0, y1)


@functools.lru_cache(maxsize=8)
def bc_grid(
    xlim: tuple[float, float], ylim: tuple[float, float], resolution: int = 400
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """BC on a regular grid of cell centres covering the view.

    Returns ``x`` (nx,), ``y`` (ny,) and ``bc`` (ny, nx), ``bc[i, j] = BC(x[j], y[i])``.
    The number of cells along the longer side is *resolution*; cells are square
    in data units only if the view is. Cached: the panels of a layout share
    one view, so the grid is computed once per figure, and the arrays are
    read-only.

    Examples
    --------
    >>> x, y, bc = bc_grid((-4.0, 4.0), (0.0, 2.5), 4)
    >>> x.tolist(), bc.shape, bool(bc.flags.writeable)
    ([-3.0, -1.0, 1.0, 3.0], (4, 4), False)
    """
    (x0, x1), (y0, y1) = xlim, ylim
    nx = ny = int(resolution)
    x = x0 + (np.arange(nx) + 0.5) * (x1 - x0) / nx
    y = y0 + (np.arange(ny) + 0.5) * (y1 - y0) / ny
    bc = bhattacharyya(x[None, :], y[:, None])
    for arr in (x, y, bc):
        arr.setflags(write=False)
    return x, y, bc


def zone_rectangles(th: Thresholds) -> dict[str, NDArray[np.float64]]:
    """Closed outlines (5 × 2 vertices, Δ then R) of the stereotype and fair zones.

    Examples
    --------
    >>> from rrmap.zones import Thresholds
    >>> zone_rectangles(Thresholds())["fair"][[0, 2]].round(3).tolist()
    [[-2.0, 0.667], [2.0, 1.5]]
    """
    d, s, f = th.delta_bound, th.stereotype_r, th.fair_r

    def rect(y0: float, y1: float) -> NDArray[np.float64]:
        return np.array([[-d, y0], [d, y0], [d, y1], [-d, y1], [-d, y0]], dtype=float)

    return {"stereotype": rect(0.0, s), "fair": rect(s, f)}


def _excellent_r_range(level: float) -> tuple[float, float]:
    """R range of the BC ≥ level region on Δ = 0 (roots of 2R/(1+R²) = level²)."""
    t2 = level * level
    root = np.sqrt(1.0 - t2 * t2)
    return (1.0 - root) / t2, (1.0 + root) / t2


def bc_contour(level: float, n: int = 361) -> NDArray[np.float64]:
    """Closed curve BC(Δ, R) = level, as an (m, 2) array of (Δ, R) vertices.

    In map coordinates ``Δ² = 4 (1 + R²) ln(g(R) / level)`` with
    ``g(R) = sqrt(2R / (1 + R²))``, for R between the two roots of
    ``g(R) = level``; R is spaced like a cosine so the ends are smooth.

    Examples
    --------
    >>> curve = bc_contour(0.98, n=5)
    >>> curve.shape, bool((curve[0] == curve[-1]).all())
    ((9, 2), True)
    """
    r_lo, r_hi = _excellent_r_range(level)
    theta = np.linspace(0.0, np.pi, n)
    r = r_lo + (r_hi - r_lo) * (1.0 - np.cos(theta)) / 2.0
    g = np.sqrt(2.0 * r / (1.0 + r * r))
    d = np.sqrt(np.clip(4.0 * (1.0 + r * r) * np.log(g / level), 0.0, None))
    right = np.column_stack([d, r])
    left = np.column_stack([-d[::-1], r[::-1]])
    return np.vstack([right, left[1:]])


@dataclass(frozen=True)
class Clipped:
    """Points moved onto the edge of the view."""

    x: NDArray[np.float64]
    y: NDArray[np.float64]
    #: True where the point was outside the view and moved.
    clipped: NDArray[np.bool_]
    #: Marker pointing out of the view: ">", "<", "^", "v" ("" if not clipped).
    direction: NDArray[np.str_]


def clip_to_view(
    x: ArrayLike, y: ArrayLike, xlim: tuple[float, float], ylim: tuple[float, float]
) -> Clipped:
    """Move points outside the view onto its edge and say which way they point.

    Beyond a corner the horizontal direction wins (Δ is the axis whose
    extremes are usually clipped).

    Examples
    --------
    >>> placed = clip_to_view([0.5, 9.0, 9.0], [1.0, 1.0, -1.0], (-4.0, 4.0), (0.0, 2.5))
    >>> placed.x.tolist(), placed.direction.tolist()
    ([0.5, 4.0, 4.0], ['', '>', '>'])
    """
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    cx = np.clip(xa, *xlim)
    cy = np.clip(ya, *ylim)
    direction = np.full(xa.shape, "", dtype="<U1")
    direction[ya > ylim[1]] = "^"
    direction[ya < ylim[0]] = "v"
    direction[xa > xlim[1]] = ">"
    direction[xa < xlim[0]] = "<"
    return Clipped(cx, cy, direction != "", direction)
