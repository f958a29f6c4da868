"""Fonts embedded in PDF and PostScript files: subsets that keep only what a viewer reads
to draw the glyphs, and a PostScript font's bounding box measured once.

A PDF with TrueType (Type 42) text embeds a subset of each font: the glyphs its text
uses. Matplotlib's subset keeps the font's OpenType layout tables (``GSUB``, ``GPOS``,
``GDEF``): what a text shaper reads to choose and place glyphs, which no viewer does
with an embedded font (the PDF gives every glyph and its position). Subsetting those
tables was two thirds of the work: 0.09 s of 0.13 s per PDF with DejaVu Sans,
and 0.26 s of CPU for the four figures of ``rrmap analyze``; the subset is 4 kB
smaller, and the pages are drawn the same, pixel for pixel.

Within :func:`lean_font_subsets` (entered by :func:`rrmap.plot.save`, the figures'
``savefig`` and the analysis figures), the subset keeps the outlines, metrics,
hinting, character map and names (:data:`_KEPT`) and nothing else. Elsewhere, and
with a matplotlib whose subsetting differs from 3.11's, matplotlib's own subset is
made.

A PostScript (EPS) file with Type 42 text gives each font its ``FontBBox``: the box of
every glyph of the whole font, which matplotlib measures by drawing each outline in
Python, about 1.5 s for DejaVu Sans's 6,241 glyphs, in every EPS file written (the
four analysis figures as EPS: 6 s of 8). Within :func:`lean_font_subsets` the box is
measured once per font file in a process (:func:`_bounds`), the same numbers, from the
few glyphs that reach its edges (:func:`_outer_glyphs_bounds`: 0.03 s).
"""

from __future__ import annotations

import inspect
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__: list[str] = []

#: Tables a viewer reads to draw an embedded TrueType or CFF font (tags without their
#: padding spaces): outlines, metrics, hinting, character map, names.
_KEPT = frozenset(
    {
        "head", "hhea", "hmtx", "maxp", "loca", "glyf", "cvt", "fpgm", "prep", "gasp",
        "CFF", "CFF2", "VORG", "vhea", "vmtx", "cmap", "post", "name", "OS/2",
    }
)  # fmt: skip

#: Whether a subset made now leaves out the layout tables (in :func:`lean_font_subsets`).
_LEAN: ContextVar[bool] = ContextVar("rrmap_lean_font_subsets", default=False)
_lock = threading.Lock()
#: matplotlib's own subsetting, once :func:`_install` has put :func:`_subset` in its place
#: (None before; False where matplotlib's differs from 3.11's).
_matplotlib_subset: Any = None
#: matplotlib's ``backend_ps._bounds``, once :func:`_install` has put :func:`_bounds` in
#: its place (None before; False where matplotlib has none of that signature).
_matplotlib_bounds: Any = None
#: The box of every glyph of a font, by font file (:func:`_font_key`).
_font_boxes: dict[tuple, tuple] = {}


@contextmanager
def lean_font_subsets() -> Iterator[None]:
    """Within the block, PDF and PostScript files embed their fonts without the layout
    tables (this module's docstring)."""
    _install()
    token = _LEAN.set(True)
    try:
        yield
    finally:
        _LEAN.reset(token)


def _install() -> None:
    """Put :func:`_subset` in the place of matplotlib's ``get_glyphs_subset`` (once; only
    for the signature of matplotlib 3.11, which subsets by glyph index), and
    :func:`_bounds` in the place of its PostScript ``_bounds``."""
    global _matplotlib_subset, _matplotlib_bounds
    if _matplotlib_subset is not None:
        return
    with _lock:
        if _matplotlib_subset is not None:
            return
        from matplotlib.backends import _backend_pdf_ps as pdf_ps
        from matplotlib.backends import backend_ps

        measure = getattr(backend_ps, "_bounds", None)
        if measure is not None and list(inspect.signature(measure).parameters) == ["font"]:
            _matplotlib_bounds = measure
            backend_ps._bounds = _bounds
        else:
            _matplotlib_bounds = False

        found = getattr(pdf_ps, "get_glyphs_subset", None)
        known = (
            found is not None
            and hasattr(pdf_ps, "SubsetResults")
            and list(inspect.signature(found).parameters) == ["fontfile", "glyphs"]
        )
        if not known:
            _matplotlib_subset = False
            return
        _matplotlib_subset = found
        pdf_ps.get_glyphs_subset = _subset


def _subset(fontfile: Any, glyphs: Any) -> Any:
    """The subset of *fontfile* holding *glyphs* (glyph indices), as matplotlib's
    ``get_glyphs_subset`` gives it; without the layout tables within
    :func:`lean_font_subsets`."""
    if not _LEAN.get():
        return _matplotlib_subset(fontfile, glyphs)
    from fontTools import subset

    options = subset.Options(glyph_names=True, recommended_glyphs=True)
    options.font_number = getattr(fontfile, "face_index", 0)
    font = subset.load_font(fontfile, options)
    present = {str(tag).strip() for tag in font.keys()} - {"GlyphOrder"}
    options.drop_tables = sorted(present - _KEPT)
    subsetter = subset.Subsetter(options=options)
    subsetter.populate(gids=glyphs)
    subsetter.subset(font)
    return _opened(font, subsetter.glyph_index_map)


@contextmanager
def _opened(font: Any, glyph_map: dict[int, int]) -> Iterator[Any]:
    """The subset as matplotlib's results, the font closed after the block."""
    from matplotlib.backends._backend_pdf_ps import SubsetResults

    with font:
        yield SubsetResults(font, glyph_map)


def _bounds(font: Any) -> Any:
    """The box of every glyph of *font* (a ``TTFont``), as matplotlib's PostScript
    ``_bounds`` measures it; within :func:`lean_font_subsets` from the glyphs at its
    edges, once per font file (a font not read from a file: each time)."""
    if not _LEAN.get():
        return _matplotlib_bounds(font)
    key = _font_key(font)
    box = None if key is None else _font_boxes.get(key)
    if box is None:
        box = tuple(_outer_glyphs_bounds(font) or _matplotlib_bounds(font))
        if key is not None:
            _font_boxes[key] = box
    return box


def _outer_glyphs_bounds(font: Any) -> Any:
    """The box of every glyph of *font* as matplotlib's ``_bounds`` gives it (one
    ``BoundsPen`` drawing glyphs), drawing only the glyphs that can reach its edges; None
    for a font without TrueType outlines read from its file as they are.

    A TrueType glyph's record starts with the box of its points, in whole units: no
    outline leaves it (quadratic curves stay within their points), but for a unit of
    rounding of a scaled component. The glyphs at the extremes of those boxes are drawn
    first; then every glyph whose box, a unit wider each way, reaches past what they
    drew (a few, of DejaVu Sans's 6,241: 0.03 s instead of 1.5 s). A glyph left out
    lies inside the box drawn, so the box is the same, number for number.
    """
    import numpy as np

    reader = getattr(font, "reader", None)
    if reader is None or "glyf" not in reader or font.isLoaded("glyf") or "loca" not in font:
        return None
    order = font.getGlyphOrder()
    loca = np.asarray(font["loca"].locations, dtype=np.int64)
    data = np.frombuffer(reader["glyf"], dtype=np.uint8)
    if len(loca) != len(order) + 1 or len(loca) < 2 or loca[-1] > len(data):
        return None
    full = np.flatnonzero(loca[1:] - loca[:-1] >= 10)  # an empty glyph draws nothing
    if not len(full):
        return None
    # xMin, yMin, xMax, yMax: big-endian int16 after the number of contours
    boxes = data[loca[full, None] + np.arange(2, 10)].view(">i2").astype(np.float64)
    lo, hi = boxes[:, :2] - 1.0, boxes[:, 2:] + 1.0
    glyphs = font.getGlyphSet(False)
    pen = _bounds_pen(glyphs)
    drawn: set[int] = set()

    def draw(indices: Any) -> None:
        for i in indices:
            if i not in drawn:
                drawn.add(i)
                glyphs[order[full[i]]].draw(pen)

    extremes = (lo[:, 0].argmin(), lo[:, 1].argmin(), hi[:, 0].argmax(), hi[:, 1].argmax())
    draw(int(i) for i in extremes)
    if pen.bounds is None:
        return None
    x0, y0, x1, y1 = pen.bounds
    past = (lo[:, 0] < x0) | (lo[:, 1] < y0) | (hi[:, 0] > x1) | (hi[:, 1] > y1)
    draw(int(i) for i in np.flatnonzero(past))
    return pen.bounds


def _bounds_pen(glyphs: Any) -> Any:
    """The pen matplotlib's ``_bounds`` measures with."""
    import fontTools.pens.boundsPen

    return fontTools.pens.boundsPen.BoundsPen(glyphs)


def _font_key(font: Any) -> tuple | None:
    """The font file of *font* as it is now (path, size, time of change) and its face
    (where its tables lie in the file); None for a font not read from a file."""
    reader = getattr(font, "reader", None)
    name = getattr(getattr(reader, "file", None), "name", None)
    if not isinstance(name, str):
        return None
    try:
        stat = os.stat(name)
    except OSError:
        return None
    tables = tuple(sorted((str(tag), entry.offset) for tag, entry in reader.tables.items()))
    return (os.path.realpath(name), stat.st_size, stat.st_mtime_ns, tables)
