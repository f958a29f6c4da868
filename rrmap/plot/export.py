"""Saving figures for a journal: text as text, exact printed size, and the analysis set.

:func:`save` writes a matplotlib Figure or a plotnine ``ggplot`` with TrueType
(Type 42) fonts in PDF/PS and ``<text>`` in SVG, never Type 3 outlines, at
the size the figure was laid out for (no tight bounding box that would change
the printed width). :func:`save_analysis_figures` writes the figures of
``rrmap analyze``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib as mpl
import pandas as pd
from matplotlib.figure import Figure

from rrmap._atomic import atomic_path
from rrmap.errors import InputError
from rrmap.plot._sizing import TEXT_AS_TEXT
from rrmap.plot._style import check_figure_size

__all__ = ["save", "save_analysis_figures"]


def _has_raster(fig: Figure) -> bool:
    """Whether *fig* holds a large raster (the BC background; small matrices are fine)."""
    return any(
        im.get_array() is not None and im.get_array().size > 10_000
        for ax in fig.get_axes()
        for im in ax.get_images()
    )


def save(
    fig: Any,
    path: str | os.PathLike[str],
    *,
    dpi: int = 300,
    width: float | str | None = None,
    height: float | str | None = None,
) -> Path:
    """Save a figure for a paper: fonts embedded as TrueType, at its laid-out size.

    Parameters
    ----------
    fig : matplotlib Figure, Axes or plotnine ggplot
        What to save (an Axes saves its figure).
    path : path
        File; the format follows the extension (pdf, svg, eps, png, tiff...).
    dpi : int, default 300
        Resolution of raster formats and of the BC background in vector files.
    width, height : float or str, optional
        Only for a ``ggplot``: printed size (``"3.5in"``, ``"85mm"``;
        default the theme's). Matplotlib figures from :mod:`rrmap.plot` are
        laid out for their width when drawn (``width=`` of the drawing
        function), so they are saved as they are.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    InputError
        For EPS with a raster background: PostScript stores images
        uncompressed (about 1.3 MB per panel); draw with
        ``background="contour"`` for a small, vector-only EPS, or save PDF.

    Examples
    --------
    >>> import rrmap, rrmap.plot, tempfile, pathlib
    >>> ax = rrmap.plot.plot_rrmap(width="3.5in")
    >>> out = rrmap.plot.save(ax, pathlib.Path(tempfile.mkdtemp()) / "map.pdf")
    >>> b"/Subtype /Type3" in out.read_bytes(), b"/FontFile2" in out.read_bytes()
    (False, True)
    """
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    if hasattr(fig, "draw") and hasattr(fig, "save") and not isinstance(fig, Figure):
        return _save_ggplot(fig, path, dpi, width, height)
    if width is not None or height is not None:
        raise InputError(
            "width/height apply to a ggplot; draw matplotlib figures at their width "
            "(e.g. plot_rrmap_by_rater(..., width='3.5in'))"
        )
    if hasattr(fig, "figure") and not isinstance(fig, Figure):
        fig = fig.figure
    if fmt in ("eps", "ps") and _has_raster(fig):
        raise InputError(
            f"{path}: EPS/PS stores the BC background as an uncompressed image (about 1.3 MB "
            "per panel); draw with background='contour' for a small vector EPS, or save as PDF"
        )
    # the figure is laid out for its size: a tight bounding box would change the width
    check_figure_size(fig.get_figwidth(), dpi)
    with mpl.rc_context({**TEXT_AS_TEXT, "savefig.bbox": "standard"}), atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=dpi, format=fmt or None)
    return path


def _save_ggplot(p: Any, path: Path, dpi: int, width: Any, height: Any) -> Path:
    from rrmap.plot._style import parse_width

    size: dict[str, Any] = {}
    if width is not None or height is not None:
        if width is None or height is None:
            raise InputError("give both width and height to save a ggplot at a new size")
        size = {"width": parse_width(width, 7.0), "height": parse_width(height, 5.0), "units": "in"}
    check_figure_size(size.get("width", 7.0), dpi)
    with mpl.rc_context(TEXT_AS_TEXT), atomic_path(path) as tmp:
        p.save(tmp, format=path.suffix.lstrip(".").lower() or None, dpi=dpi, verbose=False, **size)
    return path


def save_analysis_figures(
    points: pd.DataFrame,
    folder: str | Path,
    *,
    color: str | None = None,
    rater: str = "expert",
    categories: Sequence[str] | None = None,
    formats: Sequence[str] = ("pdf", "png"),
    dpi: int = 300,
    width: float | str | None = None,
) -> list[Path]:
    """Write the figures of an analysis: per rater, the grid, the quality proportions and
    the agreement across raters.

    Files ``rrmap_by_rater``, ``rrmap_grid``, ``proportions`` and (with two or
    more raters) ``agreement``, each in every format, laid out for *width*
    with text kept as text. The grid needs panels at least 1.35 in wide
    (:func:`rrmap.plot.layouts.grid_min_width`): narrower than that (one
    journal column) it is laid out to span two columns, 7 in (or the width
    its raters need; past 20 in it is left out). Existing files are replaced; figures are closed
    after saving.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    folder : str or Path
        Created if missing.
    color : str, optional
        Colour of the per-rater figure; default the first category column.
    rater : str, default "expert"
        Rater column.
    categories : sequence of str, optional
        Rows of the grid figure (see :func:`plot_rrmap_grid`) and of the
        proportions figure.
    formats : sequence of str, default ("pdf", "png")
        File formats (``pdf``, ``svg``, ``png``...).
    dpi : int, default 300
        Resolution of raster formats.
    width : float or str, optional
        Printed width, default 7 in.

    Returns
    -------
    list of Path
        The files written.

    Examples
    --------
    >>> import rrmap, tempfile
    >>> from rrmap.plot import save_analysis_figures
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> files = save_analysis_figures(pts, tempfile.mkdtemp(), formats=["pdf"])  # doctest: +SKIP
    >>> [f.name for f in files]  # doctest: +SKIP
    ['rrmap_by_rater.pdf', 'rrmap_grid.pdf', 'proportions.pdf', 'agreement.pdf']
    """
    import matplotlib.pyplot as plt

    from rrmap.plot._style import parse_width
    from rrmap.plot.layouts import grid_min_width, plot_rrmap_by_rater, plot_rrmap_grid
    from rrmap.plot.summaries import plot_agreement, plot_proportions

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if color is None:
        cats = points.attrs.get("rrmap", {}).get("categories") or []
        color = cats[0] if cats else None
    # the grid needs room for its panels: narrower, it spans two columns (or more)
    need = grid_min_width(max(points[rater].nunique(), 1))
    grid_width = parse_width(width, 7.0)
    if grid_width < need:
        grid_width = min(max(need, 7.0), 20.0)
    ps = any(f.lower() in ("eps", "ps") for f in formats)
    # no compressed images and no transparency in PostScript
    kw: dict[str, Any] = {"background": "contour", "alpha": 1.0} if ps else {}
    makers = {
        "rrmap_by_rater": lambda: plot_rrmap_by_rater(
            points, color, rater=rater, width=width, **kw
        ),
        "rrmap_grid": lambda: plot_rrmap_grid(
            points, categories, rater=rater, width=grid_width, **kw
        ),
        "proportions": lambda: plot_proportions(points, width=width),
    }
    if need > 20.0:  # more raters than columns of panels fit on any page
        del makers["rrmap_grid"]
    if points[rater].nunique() >= 2:
        makers["agreement"] = lambda: plot_agreement(points, width=width)
    written: list[Path] = []
    for stem, make in makers.items():
        fig = make()
        try:
            for fmt in formats:
                written.append(save(fig, folder / f"{stem}.{fmt}", dpi=dpi))
        finally:
            plt.close(fig)
    return written
