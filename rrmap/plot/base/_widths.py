"""Printed widths and resolutions: parsed, and refused before anything is drawn.

Light on purpose (no pandas, no matplotlib): ``rrmap analyze`` checks its ``--width``
and ``--dpi`` here and starts its figure workers before it imports anything heavy.
"""

from __future__ import annotations

import re

from rrmap.errors import InputError

_UNITS = {"in": 1.0, "inch": 1.0, "mm": 1 / 25.4, "cm": 1 / 2.54, "pt": 1 / 72.0}


def parse_width(width: float | str | None, default: float) -> float:
    """A printed width in inches, from ``3.5``, ``"3.5in"``, ``"180mm"``, ``"8.9cm"``, ``"504pt"``.

    Examples
    --------
    >>> parse_width("180mm", 7.0), parse_width("3.5in", 7.0), parse_width(None, 7.0)
    (7.086614173228346, 3.5, 7.0)
    """
    if width is None:
        return default
    if isinstance(width, int | float) and not isinstance(width, bool):
        value = float(width)
    else:
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(in|inch|mm|cm|pt)?\s*", str(width))
        if not m:
            raise InputError(
                f"width {width!r}: give a number with a unit, e.g. 3.5in, 7in, 180mm, 8.9cm"
            )
        value = float(m.group(1)) * _UNITS[m.group(2) or "in"]
    if not 1.0 <= value <= 20.0:
        raise InputError(f"width {width!r}: {value:.2f} in is not a figure width (1 to 20 in)")
    return value


#: Largest raster a figure is drawn at, in pixels across (16,384: 7 in at 2,340 dpi).
MAX_PIXELS_WIDE = 16_384


#: Narrowest panel the layouts draw (inches): below it, panels wrap to a new row (per
#: rater), or the grid is refused.
MIN_PANEL = 1.35
#: Width the grid takes besides its panels, legends under or right of the rows (inches).
GRID_MARGIN = {"below": 0.7, "right": 2.2}


def min_grid_width(n_raters: int, legends: str = "below") -> float:
    """Narrowest printed width (inches) of a grid of *n_raters* columns of panels
    :data:`MIN_PANEL` wide (:func:`rrmap.plot.figures.layouts.grid_min_width`); here, with no
    matplotlib, for a process that only plans the figures."""
    return n_raters * MIN_PANEL + GRID_MARGIN[legends]


def grid_columns(n_raters: int, width: float, legends: str = "below") -> int:
    """Raters per row of panels of a grid *width* inches wide: all of them where their
    panels are :data:`MIN_PANEL` wide, else as many as are (the grid wraps to more rows),
    at least one.

    Examples
    --------
    >>> grid_columns(3, 7.0), grid_columns(10, 180 / 25.4), grid_columns(10, 2.0)
    (3, 4, 1)
    """
    fit = int((width - GRID_MARGIN[legends]) / MIN_PANEL + 1e-9)
    return max(1, min(n_raters, fit))


def check_figure_size(width: float, dpi: int) -> None:
    """Refuse a resolution whose raster would not fit in memory, before anything is drawn.

    Parameters
    ----------
    width : float
        Printed width in inches.
    dpi : int
        Resolution of raster outputs.

    Examples
    --------
    >>> check_figure_size(7.0, 600)
    >>> check_figure_size(7.0, 20000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: dpi 20000 at 7 in is 140000 pixels across; at most 16384 ...
    """
    if dpi < 1:
        raise InputError(f"dpi {dpi}: give a positive resolution")
    if width * dpi > MAX_PIXELS_WIDE:
        raise InputError(
            f"dpi {dpi} at {width:g} in is {width * dpi:.0f} pixels across; at most "
            f"{MAX_PIXELS_WIDE} (dpi up to {int(MAX_PIXELS_WIDE // width)} at this width)"
        )
