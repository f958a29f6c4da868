"""A figure into the bytes of its files: text as text at the size it was laid out for.

:func:`render` writes a matplotlib Figure in any format matplotlib knows (PNGs of an
opaque figure without an alpha channel, their rows unfiltered: :func:`rgb_png`);
:func:`figure_files` draws one figure of an analysis and renders it in every format
from its one layout, the PNG rasterized from the PDF's page (:mod:`rrmap.plot._pdf_pixels`).
:func:`rrmap.plot.save` writes through :func:`render`; the analysis figures are made
by :func:`figure_files`, in a worker process (:mod:`rrmap.plot._workers`) or in the
caller's.

Examples
--------
>>> import io, rrmap
>>> from rrmap.plot import plot_rrmap
>>> buffer = io.BytesIO()
>>> render(plot_rrmap(width="3.5in").figure, "svg", 72, buffer)
>>> b"<svg" in buffer.getvalue()
True
>>> import matplotlib.pyplot as plt
>>> plt.close("all")
"""

from __future__ import annotations

import gc
import io
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

from rrmap.plot.base._glyphs import gathered_glyph_warnings
from rrmap.plot.base._sizing import fix_ticks, text_as_text

__all__: list[str] = []


def render(fig: Figure, fmt: str, dpi: int, target: Path | BinaryIO) -> None:
    """Write *fig* as *fmt* (a format matplotlib knows, or "" for its default) to *target*:
    text as text, at the figure's own size."""
    with text_as_text({"savefig.bbox": "standard"}):
        if fmt == "png" and opaque(fig):
            _save_png(fig, target, dpi)
        else:
            fig.savefig(target, dpi=dpi, format=fmt or None)


def opaque(fig: Figure) -> bool:
    """Whether *fig* saves with an opaque background (PNG then needs no alpha channel)."""
    from matplotlib.colors import to_rgba

    face = mpl.rcParams["savefig.facecolor"]
    face = fig.get_facecolor() if face == "auto" else to_rgba(face)
    return not mpl.rcParams["savefig.transparent"] and face[3] == 1.0


def _save_png(fig: Figure, path: Path | BinaryIO, dpi: int) -> None:
    """PNG of *fig* at *dpi*: RGB (no alpha channel: the figure is opaque), written by
    :func:`rgb_png`."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    old_dpi, old_canvas = fig.dpi, fig.canvas
    canvas = FigureCanvasAgg(fig)
    try:
        fig.dpi = dpi
        with gathered_glyph_warnings():
            canvas.draw()
        data = rgb_png(np.asarray(canvas.buffer_rgba())[:, :, :3], dpi)
    finally:
        fig.dpi = old_dpi
        fig.set_canvas(old_canvas)
    if isinstance(path, Path):
        path.write_bytes(data)
    else:
        path.write(data)


def rgb_png(rgb: np.ndarray, dpi: int) -> bytes:
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
        freeze_layout(fig)
        written: dict[str, bytes] = {}
        # the PDF first: the PNG is its page, rasterized (rrmap.plot._pdf_pixels)
        for fmt in sorted(formats, key=lambda f: f.lower() != "pdf"):
            data = _png_of_pdf(fig, written.get("pdf"), dpi) if fmt.lower() == "png" else None
            if data is None:
                buffer = io.BytesIO()
                render(fig, fmt.lower(), dpi, buffer)
                data = buffer.getvalue()
            written[fmt.lower()] = data
        files = [(f"{stem}.{fmt}", written[fmt.lower()]) for fmt in formats]
    seen = dict.fromkeys((str(w.message), w.category) for w in caught)
    return files, list(seen)


def _png_of_pdf(fig: Figure, pdf: bytes | None, dpi: int) -> bytes | None:
    """The PNG of *fig* at *dpi*, from its *pdf* (written already); None without one, for a
    figure with transparency (matplotlib's PNG keeps it), or where PDFium cannot draw it."""
    if pdf is None or not opaque(fig):
        return None
    from rrmap.plot._pdf_pixels import page_pixels

    width, height = fig.get_size_inches() * dpi
    rgb = page_pixels(pdf, int(width), int(height), dpi)  # matplotlib's size: rounded down
    return None if rgb is None else rgb_png(rgb, dpi)


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


def freeze_layout(fig: Figure) -> None:
    """Keep *fig*'s layout as it is for every format: no layout engine at all (with
    matplotlib's placeholder engine, ``savefig`` still walks the whole figure once before
    drawing it), and its ticks where the layout put them."""
    with mpl.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
        fig.set_layout_engine(None)
    fix_ticks(fig.get_axes())
