"""Saving figures for a journal: text as text, exact printed size, and the analysis set.

:func:`save` writes a matplotlib Figure or a plotnine ``ggplot`` with TrueType
(Type 42) fonts in PDF/PS and ``<text>`` in SVG, never Type 3 outlines, at
the size the figure was laid out for (no tight bounding box that would change
the printed width). :func:`save_analysis_figures` writes the figures of
``rrmap analyze``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib as mpl
import pandas as pd
from matplotlib.figure import Figure

from rrmap._atomic import atomic_path
from rrmap.errors import InputError
from rrmap.plot._glyphs import gathered_glyph_warnings
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
    with mpl.rc_context({**TEXT_AS_TEXT, "savefig.bbox": "standard"}), atomic_path(path) as tmp:
        if fmt == "png" and _opaque(fig):
            _save_png(fig, tmp, dpi)
        else:
            fig.savefig(tmp, dpi=dpi, format=fmt or None)
    return path


def _opaque(fig: Figure) -> bool:
    """Whether *fig* saves with an opaque background (PNG then needs no alpha channel)."""
    from matplotlib.colors import to_rgba

    face = mpl.rcParams["savefig.facecolor"]
    face = fig.get_facecolor() if face == "auto" else to_rgba(face)
    return not mpl.rcParams["savefig.transparent"] and face[3] == 1.0


def _save_png(fig: Figure, path: Path, dpi: int) -> None:
    """PNG of *fig* at *dpi*: RGB (no alpha channel: the figure is opaque) at a lighter
    compression than matplotlib's RGBA, half the time for a file about as small."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    old_dpi, old_canvas = fig.dpi, fig.canvas
    canvas = FigureCanvasAgg(fig)
    try:
        fig.dpi = dpi
        with gathered_glyph_warnings():
            canvas.draw()
        rgba = canvas.buffer_rgba()
        image = Image.frombuffer("RGBA", (rgba.shape[1], rgba.shape[0]), rgba, "raw", "RGBA", 0, 1)
        image.convert("RGB").save(path, format="png", dpi=(dpi, dpi), compress_level=3)
    finally:
        fig.dpi = old_dpi
        fig.set_canvas(old_canvas)


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
    jobs: int | None = None,
    progress: bool = False,
) -> list[Path]:
    """Write the figures of an analysis: per rater, the grid, the quality proportions and
    the agreement across raters.

    Files ``rrmap_by_rater``, ``rrmap_grid``, ``proportions`` and (with two or
    more raters) ``agreement``, each in every format, laid out for *width*
    with text kept as text. The grid needs panels at least 1.35 in wide
    (:func:`rrmap.plot.layouts.grid_min_width`): narrower than that (one
    journal column) it is laid out to span two columns, 7 in (or the width
    its raters need; past 20 in it is left out). Existing files are replaced.

    Each figure is laid out once: its formats are all written from that
    layout (the layout engine is switched off before saving). With ``jobs``
    of 2 or more the figures are drawn in parallel processes (joblib).

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
        Figures drawn at once, in separate processes (at most one per figure);
        -1: one per core. Default 1: one after the other in this process. Each
        worker process imports matplotlib and rrmap first (about 1.5 s of CPU), so
        on two cores, or a loaded machine, parallel drawing saved nothing in
        ``benchmarks/bench_figures.py``; it pays off with more cores.
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
    from rrmap.plot._style import parse_width
    from rrmap.plot.layouts import grid_min_width

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
    jobs_list: list[tuple[str, str, dict[str, Any]]] = [
        ("rrmap_by_rater", "by_rater", {"color": color, "rater": rater, "width": width, **kw}),
        (
            "rrmap_grid",
            "grid",
            {"categories": categories, "rater": rater, "width": grid_width, **kw},
        ),
        ("proportions", "proportions", {"width": width}),
    ]
    if need > 20.0:  # more raters than columns of panels fit on any page
        del jobs_list[1]
    if points[rater].nunique() >= 2:
        jobs_list.append(("agreement", "agreement", {"width": width}))
    check_figure_size(grid_width, dpi)  # refused before anything is drawn
    args = [
        (points, stem, kind, opts, tuple(formats), folder, dpi) for stem, kind, opts in jobs_list
    ]
    n_jobs = _n_jobs(jobs, len(args))
    if n_jobs == 1:
        drawn = (_write_figure(*a) for a in args)
    else:
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator")
        drawn = parallel(delayed(_write_figure)(*a) for a in args)
    results = list(_with_bar(drawn, len(args), progress))
    written: list[Path] = []
    for paths, caught in results:
        written += paths
        for message, category in caught:  # the workers' warnings, told once here
            warnings.warn(message, category, stacklevel=2)
    return written


def _with_bar(items: Any, total: int, show: bool) -> Any:
    """*items* as they come, advancing a "figures" bar on stderr (off when stderr is not a
    terminal, except in Jupyter)."""
    if not show:
        yield from items
        return
    from rrmap._progress import progress_bar

    with progress_bar(total, "figures", "figure") as bar:
        for item in items:
            bar.update(1)
            yield item


def _n_jobs(jobs: int | None, n_figures: int) -> int:
    if jobs is None or jobs == 0:
        return 1
    if jobs < 0:
        return max(1, min(os.cpu_count() or 1, n_figures))
    return min(jobs, n_figures)


_DRAW = {
    "by_rater": ("rrmap.plot.layouts", "plot_rrmap_by_rater"),
    "grid": ("rrmap.plot.layouts", "plot_rrmap_grid"),
    "proportions": ("rrmap.plot.summaries", "plot_proportions"),
    "agreement": ("rrmap.plot.summaries", "plot_agreement"),
}


def _write_figure(
    points: pd.DataFrame,
    stem: str,
    kind: str,
    options: dict[str, Any],
    formats: tuple[str, ...],
    folder: Path,
    dpi: int,
) -> tuple[list[Path], list[tuple[str, type[Warning]]]]:
    """Draw one analysis figure, freeze its layout and write it in every format (in a
    worker process or here); returns the files and the warnings given meanwhile."""
    import importlib

    mpl.use("Agg")
    import matplotlib.pyplot as plt

    module, name = _DRAW[kind]
    draw = getattr(importlib.import_module(module), name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if kind == "by_rater":
            fig = draw(points, options.pop("color"), **options)
        elif kind == "grid":
            fig = draw(points, options.pop("categories"), **options)
        else:
            fig = draw(points, **options)
        try:
            fig.set_layout_engine("none")  # laid out once: every format reuses the layout
            paths = [save(fig, folder / f"{stem}.{fmt}", dpi=dpi) for fmt in formats]
        finally:
            plt.close(fig)
    seen = dict.fromkeys((str(w.message), w.category) for w in caught)
    return paths, list(seen)
