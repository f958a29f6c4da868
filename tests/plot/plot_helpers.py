"""Small helpers of the figure tests: the paper's BC formula, toy points, PDF streams."""

from __future__ import annotations

import zlib
from typing import NamedTuple

import numpy as np
import pandas as pd


def bc_paper(delta, r):
    """Paper eq. 3 with the reference N(0, 1) and the query N(Δ, R)."""
    s1, s2, dm = 1.0, np.asarray(r, float), np.asarray(delta, float)
    return np.sqrt(2 * s1 * s2 / (s1**2 + s2**2)) * np.exp(-(dm**2) / (4 * (s1**2 + s2**2)))


def inflates(raw: bytes) -> bool:
    try:
        zlib.decompress(raw)
    except zlib.error:
        return False
    return True


def toy_points(delta, r, cat=None):
    df = pd.DataFrame({"delta": delta, "r": r})
    if cat is not None:
        df["movement"] = cat
    return df


# -- what a printed figure shows ------------------------------------------------------


def drawn_texts(fig):
    """(string, bbox in inches, size in points) of every text drawn when *fig* is rendered
    (recorded as drawn, so hidden tick labels and texts of hidden axes are left out).

    The figure is drawn as Agg draws it, with Agg's text metrics, but without rasterizing
    anything (as ``Figure.draw_without_rendering``): every artist, and so every text, is
    laid out and drawn in the same order, onto a renderer that paints nothing.
    """
    from unittest import mock

    from matplotlib.text import Text

    from rrmap.plot.base._sizing import renderer_of

    drawn = []
    original = Text.draw

    def draw(self, renderer):
        original(self, renderer)
        if self.get_visible() and self.get_text().strip():
            drawn.append((self, renderer))

    renderer = renderer_of(fig)
    with mock.patch.object(Text, "draw", draw), renderer._draw_disabled():
        fig.draw(renderer)
    to_in = fig.dpi_scale_trans.inverted()
    out = []
    for t, renderer in drawn:
        box = Text.get_window_extent(t, renderer)  # the text alone, not an annotation's arrow
        if box.width > 0 and box.height > 0:
            out.append((t.get_text(), box.transformed(to_in), t.get_fontsize()))
    return out


def outside_page(fig, tol=0.01, texts=None):
    """Texts, legends and colorbars that reach beyond the figure's edges (inches); *texts*:
    :func:`drawn_texts` of *fig*, if drawn already."""
    from rrmap.plot.base._sizing import renderer_of

    w, h = fig.get_size_inches()
    bad = []
    for text, box, _ in drawn_texts(fig) if texts is None else texts:
        if box.x0 < -tol or box.y0 < -tol or box.x1 > w + tol or box.y1 > h + tol:
            bad.append((text, box.bounds))
    renderer = renderer_of(fig)
    for ax in fig.get_axes():
        if not ax.get_visible():
            continue
        box = ax.get_tightbbox(renderer).transformed(fig.dpi_scale_trans.inverted())
        if box.x0 < -tol or box.y0 < -tol or box.x1 > w + tol or box.y1 > h + tol:
            bad.append((f"axes {ax.get_label() or ax.get_title()!r}", box.bounds))
    for leg in fig.legends:
        box = leg.get_window_extent(renderer).transformed(fig.dpi_scale_trans.inverted())
        if box.x0 < -tol or box.y0 < -tol or box.x1 > w + tol or box.y1 > h + tol:
            bad.append(("legend " + leg.get_title().get_text(), box.bounds))
    return bad


def overlapping_texts(fig, shrink_pt=0.6, texts=None):
    """Pairs of texts whose boxes (shrunk by *shrink_pt* on each side) intersect; *texts*:
    :func:`drawn_texts` of *fig*, if drawn already."""
    texts = drawn_texts(fig) if texts is None else texts
    s = shrink_pt / 72.0
    boxes = [(t, (b.x0 + s, b.y0 + s, b.x1 - s, b.y1 - s)) for t, b, _ in texts]
    out = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            (ta, a), (tb, b) = boxes[i], boxes[j]
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                out.append((ta, tb))
    return out


def smallest_text(fig, texts=None):
    """Size (points) of the smallest text drawn; *texts*: :func:`drawn_texts` of *fig*, if
    drawn already."""
    return min(size for _, _, size in (drawn_texts(fig) if texts is None else texts))


class Printed(NamedTuple):
    """What one drawing of a figure shows: its texts, the smallest, those (and the legends,
    colorbars, panels) past its edges, and the texts over each other."""

    texts: list
    smallest: float
    outside: list
    overlapping: list


def printed(fig) -> Printed:
    """:func:`smallest_text`, :func:`outside_page` and :func:`overlapping_texts` of *fig*,
    from one drawing of it (each drew the whole figure again)."""
    texts = drawn_texts(fig)
    return Printed(
        texts,
        smallest_text(fig, texts),
        outside_page(fig, texts=texts),
        overlapping_texts(fig, texts=texts),
    )


def pdf_report(path):
    """Page size (points), font subtypes and every text run (string, x, y, size) of a PDF."""
    from pypdf import PdfReader

    page = PdfReader(path).pages[0]
    box = page.mediabox
    fonts = set()
    resources = page["/Resources"].get_object()
    for font in resources.get("/Font", {}).values():
        font = font.get_object()
        fonts.add(str(font["/Subtype"]))
        for desc in font.get("/DescendantFonts", []):
            fonts.add(str(desc.get_object()["/Subtype"]))
    runs = []

    def visit(text, cm, tm, font_dict, font_size):
        if not text.strip():
            return
        m = np.array([[tm[0], tm[1], 0], [tm[2], tm[3], 0], [tm[4], tm[5], 1]]) @ np.array(
            [[cm[0], cm[1], 0], [cm[2], cm[3], 0], [cm[4], cm[5], 1]]
        )
        scale = float(np.hypot(m[0, 0], m[0, 1]))
        runs.append((text, float(m[2, 0]), float(m[2, 1]), font_size * scale))

    page.extract_text(visitor_text=visit)
    return {"width": float(box.width), "height": float(box.height), "fonts": fonts, "runs": runs}


# -- analysis figure sets written once --------------------------------------------------


class Saved(NamedTuple):
    """A set of analysis figures written once: the files, and how many times matplotlib's
    constrained layout ran while they were drawn and saved."""

    files: list
    layouts: int


_SAVED: dict[str, Saved] = {}


def saved_analysis_figures(tmp_path_factory, raters=None, **kwargs) -> Saved:
    """``save_analysis_figures(points, folder, **kwargs)`` of the example points (of the
    *raters* only, if given), written once in the session into a folder of its own and
    shared by the tests that ask for the same call: they only read the files.

    The constrained layout runs are counted meanwhile (a figure is laid out once, whatever
    its formats)."""
    from unittest import mock

    from matplotlib import layout_engine  # its engine calls the name it imported

    import rrmap
    from rrmap.plot import save_analysis_figures

    key = repr((raters, sorted(kwargs.items())))
    if key not in _SAVED:
        points = rrmap.points(rrmap.datasets.load_example_ratings())
        if raters is not None:
            points = points[points["expert"].isin(raters)]
        calls = []
        original = layout_engine.do_constrained_layout

        def counted(*args, **kw):
            calls.append(1)
            return original(*args, **kw)

        folder = tmp_path_factory.mktemp("analysis_figures")
        with mock.patch.object(layout_engine, "do_constrained_layout", counted):
            files = save_analysis_figures(points, folder, **kwargs)
        _SAVED[key] = Saved(files, len(calls))
    return _SAVED[key]
