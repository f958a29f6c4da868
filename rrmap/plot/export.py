"""Saving figures for a journal: text as text, exact printed size, and the analysis set.

:func:`save` writes a matplotlib Figure or a plotnine ``ggplot`` with TrueType
(Type 42) fonts in PDF/PS and ``<text>`` in SVG, never Type 3 outlines, at
the size the figure was laid out for (no tight bounding box that would change
the printed width). :func:`save_analysis_figures` writes the figures of
``rrmap analyze``.
"""

from __future__ import annotations

import gc
import io
import os
import struct
import warnings
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from rrmap._util.atomic import atomic_path
from rrmap.errors import InputError
from rrmap.plot.base._glyphs import gathered_glyph_warnings
from rrmap.plot.base._sizing import fix_ticks, text_as_text
from rrmap.plot.base._widths import check_figure_size

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
        _render(fig, fmt, dpi, tmp)
    return path


def _render(fig: Figure, fmt: str, dpi: int, target: Path | BinaryIO) -> None:
    """Write *fig* as *fmt* (a format matplotlib knows, or "" for its default) to *target*:
    text as text, at the figure's own size."""
    with text_as_text({"savefig.bbox": "standard"}):
        if fmt == "png" and _opaque(fig):
            _save_png(fig, target, dpi)
        else:
            fig.savefig(target, dpi=dpi, format=fmt or None)


def _opaque(fig: Figure) -> bool:
    """Whether *fig* saves with an opaque background (PNG then needs no alpha channel)."""
    from matplotlib.colors import to_rgba

    face = mpl.rcParams["savefig.facecolor"]
    face = fig.get_facecolor() if face == "auto" else to_rgba(face)
    return not mpl.rcParams["savefig.transparent"] and face[3] == 1.0


def _save_png(fig: Figure, path: Path | BinaryIO, dpi: int) -> None:
    """PNG of *fig* at *dpi*: RGB (no alpha channel: the figure is opaque), written by
    :func:`_png`."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    old_dpi, old_canvas = fig.dpi, fig.canvas
    canvas = FigureCanvasAgg(fig)
    try:
        fig.dpi = dpi
        with gathered_glyph_warnings():
            canvas.draw()
        data = _png(np.asarray(canvas.buffer_rgba())[:, :, :3], dpi)
    finally:
        fig.dpi = old_dpi
        fig.set_canvas(old_canvas)
    if isinstance(path, Path):
        path.write_bytes(data)
    else:
        path.write(data)


def _png(rgb: np.ndarray, dpi: int) -> bytes:
    """An 8-bit RGB PNG of *rgb* (rows × columns × 3) at *dpi*, its rows unfiltered.

    A figure is mostly flat colour, which deflate packs as well without PNG's row
    filters: Pillow tries every filter on every row, and took twice as long for a file
    as large (the example's four figures at 300 dpi: 0.30 s against 0.15 s, 2.3 MB).
    """
    h, w, _ = rgb.shape
    rows = np.empty((h, 1 + 3 * w), dtype=np.uint8)
    rows[:, 0] = 0  # filter type None
    # copied once, straight into the rows (a reshape of the RGBA buffer's RGB view copies
    # it first)
    rows[:, 1:].reshape(h, w, 3)[...] = rgb
    per_metre = int(dpi / 0.0254 + 0.5)

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data)
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)),
            chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)),
            chunk(b"IDAT", zlib.compress(rows, 3)),
            chunk(b"IEND", b""),
        )
    )


def _save_ggplot(p: Any, path: Path, dpi: int, width: Any, height: Any) -> Path:
    from rrmap.plot.base._widths import parse_width

    size: dict[str, Any] = {}
    if width is not None or height is not None:
        if width is None or height is None:
            raise InputError("give both width and height to save a ggplot at a new size")
        size = {"width": parse_width(width, 7.0), "height": parse_width(height, 5.0), "units": "in"}
    check_figure_size(size.get("width", 7.0), dpi)
    with text_as_text(), atomic_path(path) as tmp:
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
    (:func:`rrmap.plot.figures.layouts.grid_min_width`): narrower than that (one
    journal column) it is laid out to span two columns, 7 in (or the width
    its raters need; past 20 in it is left out). Existing files are replaced.

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
    from rrmap.plot.analysis_figures import AnalysisFigures

    with AnalysisFigures(formats=formats, dpi=dpi, width=width, jobs=jobs) as figures:
        figures.draw(points, color=color, rater=rater, categories=categories)
        return figures.save(folder, progress=progress)


#: One figure of an analysis: (file stem, kind, keywords of its drawing function), as
#: planned by :func:`rrmap.plot.analysis_figures.figure_plan`.
FigureJob = tuple[str, str, dict[str, Any]]


_DRAW = {
    "by_rater": ("rrmap.plot.figures.layouts", "plot_rrmap_by_rater"),
    "grid": ("rrmap.plot.figures.layouts", "plot_rrmap_grid"),
    "proportions": ("rrmap.plot.figures.summaries", "plot_proportions"),
    "agreement": ("rrmap.plot.figures.summaries", "plot_agreement"),
}


def figure_files(
    points: pd.DataFrame, job: FigureJob, formats: Sequence[str], dpi: int
) -> tuple[list[tuple[str, bytes]], list[tuple[str, type[Warning]]]]:
    """Draw one analysis figure and render it in every format from its one layout (in a
    worker process or here): the files' names and contents, and the warnings given."""
    import importlib

    from rrmap.plot.base._sizing import off_screen

    stem, kind, options = job
    module, name = _DRAW[kind]
    draw = getattr(importlib.import_module(module), name)
    options = dict(options)
    with warnings.catch_warnings(record=True) as caught, _without_cyclic_gc():
        warnings.simplefilter("always")
        with off_screen():  # only saved: never a pyplot figure
            if kind == "by_rater":
                fig = draw(points, options.pop("color"), **options)
            elif kind == "grid":
                fig = draw(points, options.pop("categories"), **options)
            else:
                fig = draw(points, **options)
        _freeze_layout(fig)
        written: dict[str, bytes] = {}
        # the PDF first: the PNG is its page, rasterized (rrmap.plot._pdf_pixels)
        for fmt in sorted(formats, key=lambda f: f.lower() != "pdf"):
            data = _png_of_pdf(fig, written.get("pdf"), dpi) if fmt.lower() == "png" else None
            if data is None:
                buffer = io.BytesIO()
                _render(fig, fmt.lower(), dpi, buffer)
                data = buffer.getvalue()
            written[fmt.lower()] = data
        files = [(f"{stem}.{fmt}", written[fmt.lower()]) for fmt in formats]
    seen = dict.fromkeys((str(w.message), w.category) for w in caught)
    return files, list(seen)


def _png_of_pdf(fig: Figure, pdf: bytes | None, dpi: int) -> bytes | None:
    """The PNG of *fig* at *dpi*, from its *pdf* (written already); None without one, for a
    figure with transparency (matplotlib's PNG keeps it), or where PDFium cannot draw it."""
    if pdf is None or not _opaque(fig):
        return None
    from rrmap.plot._pdf_pixels import page_pixels

    width, height = fig.get_size_inches() * dpi
    rgb = page_pixels(pdf, int(width), int(height), dpi)  # matplotlib's size: rounded down
    return None if rgb is None else _png(rgb, dpi)


@contextmanager
def _without_cyclic_gc() -> Iterator[None]:
    """No cyclic garbage collection within the block (reference counting goes on).

    A figure makes hundreds of thousands of container objects: the collector ran
    some 400 times per analysis figure set and each full pass walked every live
    object, numpy's, pandas' and matplotlib's included, about a tenth of the time
    spent drawing. The figure's own cycles (a few tens of MB) are collected after the
    block, in one pass.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _freeze_layout(fig: Figure) -> None:
    """Keep *fig*'s layout as it is for every format: no layout engine at all (with
    matplotlib's placeholder engine, ``savefig`` still walks the whole figure once before
    drawing it), and its ticks where the layout put them."""
    with mpl.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
        fig.set_layout_engine(None)
    fix_ticks(fig.get_axes())
