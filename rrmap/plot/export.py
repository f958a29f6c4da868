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

import pandas as pd
from matplotlib.figure import Figure

from rrmap._util.atomic import atomic_path
from rrmap.errors import InputError
from rrmap.plot._render import render
from rrmap.plot.analysis_figures import AnalysisFigures
from rrmap.plot.base._sizing import text_as_text
from rrmap.plot.base._widths import check_figure_size, parse_width

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
        Resolution of raster formats. Vector files embed the BC background
        as its own grid of cells (``resolution=``), whatever the dpi.
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
    with atomic_path(path) as tmp:
        render(fig, fmt, dpi, tmp)
        _title_as(tmp, path, fmt)
    return path


def _title_as(written: Path, path: Path, fmt: str) -> None:
    """An EPS/PS file written under a temporary name says the name it is saved as in its
    ``%%Title`` comment (matplotlib writes the name of the file it was given)."""
    if fmt not in ("eps", "ps"):
        return
    data = written.read_bytes()
    head = data[:4096]
    start = head.find(b"\n%%Title: ")
    if start < 0:
        return
    start += len(b"\n%%Title: ")
    end = head.find(b"\n", start)
    if end < 0:  # a title line longer than the head: left as matplotlib wrote it
        return
    title = path.name.encode("ascii", "replace")
    written.write_bytes(data[:start] + title + data[end:])


def _save_ggplot(p: Any, path: Path, dpi: int, width: Any, height: Any) -> Path:
    size: dict[str, Any] = {}
    if width is not None or height is not None:
        if width is None or height is None:
            raise InputError("give both width and height to save a ggplot at a new size")
        size = {"width": parse_width(width, 7.0), "height": parse_width(height, 5.0), "units": "in"}
    check_figure_size(size.get("width", 7.0), dpi)
    fmt = path.suffix.lstrip(".").lower()
    with text_as_text(), atomic_path(path) as tmp:
        p.save(tmp, format=fmt or None, dpi=dpi, verbose=False, **size)
        _title_as(tmp, path, fmt)
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
    jobs: int | None = None,
    progress: bool = False,
) -> list[Path]:
    """Write the figures of an analysis: per rater, the grid, the quality proportions and
    the agreement across raters.

    Files ``rrmap_by_rater``, ``rrmap_grid``, ``proportions`` and (with two or
    more raters) ``agreement``, each in every format, laid out for *width*
    with text kept as text; none is wider than *width*. The grid's panels are at
    least 1.35 in wide: where its raters' panels do not fit side by side, the raters
    wrap to more rows (:func:`rrmap.plot.plot_rrmap_grid`); narrower than one column
    of panels (2.05 in) the grid is left out. Existing files are replaced.

    Each figure is laid out once: its formats are all written from that
    layout, and with PDF and PNG it is drawn once (the PNG is the PDF's page,
    rasterized by PDFium; matplotlib draws it without a PDF, for a transparent
    figure, or without pypdfium2). With ``jobs`` other than 1 the figures are
    drawn in worker processes
    (:class:`rrmap.plot.analysis_figures.AnalysisFigures`, which ``rrmap
    analyze`` starts before its tests so that the figures are drawn
    while the tests run).

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
    jobs : int, optional
        Worker processes drawing the figures (at most one per figure); -1: one
        per core. Default 1: one after the other in this process, which here,
        with matplotlib already imported, is as fast on two cores (the workers'
        server imports matplotlib first, about 1 s of CPU).
    progress : bool, default False
        A "figures" progress bar on stderr, one step per figure (shown on a
        terminal and in Jupyter).

    Returns
    -------
    list of Path
        The files written, figure by figure in the order above.

    Examples
    --------
    >>> import rrmap, tempfile
    >>> from rrmap.plot import save_analysis_figures
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> files = save_analysis_figures(pts, tempfile.mkdtemp(), formats=["pdf"])  # doctest: +SKIP
    >>> [f.name for f in files]  # doctest: +SKIP
    ['rrmap_by_rater.pdf', 'rrmap_grid.pdf', 'proportions.pdf', 'agreement.pdf']
    """
    with AnalysisFigures(formats=formats, dpi=dpi, width=width, jobs=jobs) as figures:
        figures.draw(points, color=color, rater=rater, categories=categories)
        return figures.save(folder, progress=progress)
