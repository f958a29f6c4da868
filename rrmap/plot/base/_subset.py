"""Font subsets that keep only what a PDF or PostScript viewer reads to draw the glyphs.

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
"""

from __future__ import annotations

import inspect
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
    for the signature of matplotlib 3.11, which subsets by glyph index)."""
    global _matplotlib_subset
    if _matplotlib_subset is not None:
        return
    with _lock:
        if _matplotlib_subset is not None:
            return
        from matplotlib.backends import _backend_pdf_ps as pdf_ps

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
