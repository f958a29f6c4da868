"""Figures laid out for the width they are printed at.

A layout gets a printed width, builds its figure with type sizes in absolute
points (:func:`rrmap.plot.base._style.typography`), and then adjusts the height so
that panels keep their aspect once titles, legends and colorbars have taken
their room. Figures made here keep text as text when saved, whatever the
user's rcParams say.
"""

from __future__ import annotations

import functools
import math
import os
import weakref
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.layout_engine import ConstrainedLayoutEngine, LayoutEngine
from matplotlib.text import Text
from matplotlib.textpath import text_to_path
from matplotlib.ticker import FixedFormatter, FixedLocator, MaxNLocator

from rrmap._util.escape import without_invisible
from rrmap.plot.base._glyphs import gathered_glyph_warnings
from rrmap.plot.base._subset import lean_font_subsets

__all__: list[str] = []

#: rcParams that keep text as text: TrueType (Type 42) in PDF and PS, ``<text>`` in SVG.
TEXT_AS_TEXT: dict[str, Any] = {"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none"}


@contextmanager
def text_as_text(rc: dict[str, Any] | None = None) -> Iterator[None]:
    """Within the block, figures are saved with text as text (:data:`TEXT_AS_TEXT`, and
    the rcParams *rc*), their fonts embedded without the tables only text shaping reads
    (:func:`~rrmap.plot.base._subset.lean_font_subsets`)."""
    with mpl.rc_context({**TEXT_AS_TEXT, **(rc or {})}), lean_font_subsets():
        yield


#: Font features of the text of a figure made here: no ligatures. Matplotlib shapes text
#: with them since 3.11, never before: the figures look the same whatever matplotlib
#: draws them, and a PDF embeds one subset of its font instead of a second one for the
#: "ff" and "ffi" glyphs ("coefficient", "different"), each a full read of the font file
#: (0.05 s per PDF).
_PLAIN_GLYPHS = ("-liga",)


def plain_glyphs(fig: Figure) -> None:
    """Every text of *fig* without the characters drawn as nothing, and without ligatures
    (:data:`_PLAIN_GLYPHS`) unless features were chosen for it (with a matplotlib that has
    text features: 3.11 on).

    Labels come without them already (:func:`rrmap._util.escape.display_text`); a text set on
    the figure afterwards (a title) may hold one. Matplotlib 3.11 lays a zero-width
    character out as an empty glyph, after which its PDF text draws the next glyph over
    the one before, and a byte-order mark (U+FEFF) as a glyph of no character, which
    stops it writing PDF and PostScript (``IndexError``): its layout's characters come
    back from UTF-32 through a decoder that takes a leading U+FEFF for a byte-order mark.
    """
    features = hasattr(Text, "set_fontfeatures")
    for text in fig.findobj(Text):
        shown = text.get_text()
        kept = without_invisible(shown)
        if kept != shown:
            text.set_text(kept)
        if features and text.get_fontfeatures() is None:
            text.set_fontfeatures(_PLAIN_GLYPHS)


#: The figure :func:`_paper_savefig` is printing with its layout engine held back, and that
#: engine: the draw that prints it runs the engine (:func:`_paper_draw`).
_HELD_LAYOUT: ContextVar[tuple[Figure, LayoutEngine] | None] = ContextVar(
    "rrmap_held_layout", default=None
)


#: Formats whose printing draw can run the layout itself: a layout asks for a renderer
#: and gets one by starting to print again; PostScript's printer then replaces the text it
#: is writing (PS, EPS) and PGF prints through LaTeX.
_ONE_LAYOUT_FORMATS = frozenset(
    {"pdf", "svg", "svgz", "png", "jpg", "jpeg", "tif", "tiff", "webp", "raw", "rgba"}
)


def _printed_format(fname: Any, fmt: str | None) -> str:
    """The format ``savefig`` prints *fname* in, found as matplotlib finds it."""
    if fmt is None and isinstance(fname, (str, os.PathLike)):
        fmt = os.path.splitext(os.fspath(fname))[1][1:]
    return str(fmt or mpl.rcParams["savefig.format"]).lower()


@contextmanager
def _laid_out_once(fig: Figure, fname: Any, kwargs: dict[str, Any]) -> Iterator[None]:
    """While *fig* is printed: its constrained layout run once, by the draw that prints.

    Matplotlib prints a figure that has a layout engine in two draws: a first one that
    runs the engine and walks every artist without rendering it, then the one that
    prints, with the engine turned off. That first walk was 10–36 % of the time of saving
    a PDF (``benchmarks/bench_save.py``). Here the engine is held back while the figure
    prints, and :func:`_paper_draw` runs it at the start of the printing draw, before the
    figure gathers its artists: the layout runs once either way, with the printer's own
    renderer, and the files are the same. Not for a tight bounding box (measured from a
    first draw), another engine than the constrained layout, or a format outside
    :data:`_ONE_LAYOUT_FORMATS`.
    """
    engine = fig.get_layout_engine()
    bbox_inches = kwargs.get("bbox_inches")
    if (
        not isinstance(engine, ConstrainedLayoutEngine)
        or (mpl.rcParams["savefig.bbox"] if bbox_inches is None else bbox_inches) == "tight"
        or _printed_format(fname, kwargs.get("format")) not in _ONE_LAYOUT_FORMATS
        or fig.__dict__.get("_layout_engine") is not engine  # how matplotlib holds it
    ):
        yield
        return
    token = _HELD_LAYOUT.set((fig, engine))
    fig._layout_engine = None  # type: ignore[attr-defined]
    try:
        yield
    finally:
        fig._layout_engine = engine  # type: ignore[attr-defined]
        _HELD_LAYOUT.reset(token)


def _paper_savefig(fig: Figure, fname: Any, *args: Any, **kwargs: Any) -> None:
    """``Figure.savefig`` keeping text as text (never Type 3 fonts), its layout run once
    (:func:`_laid_out_once`), warning once of characters the fonts lack."""
    with text_as_text(), gathered_glyph_warnings():
        with _laid_out_once(fig, fname, kwargs):
            Figure.savefig(fig, fname, *args, **kwargs)


def _paper_draw(fig: Figure, renderer: Any) -> None:
    """``Figure.draw`` of text without ligatures (:func:`plain_glyphs`), warning once of
    characters the fonts lack; the layout engine :func:`_laid_out_once` held back run
    first."""
    plain_glyphs(fig)
    held = _HELD_LAYOUT.get()
    with gathered_glyph_warnings():
        if held is not None and held[0] is fig and fig.axes:
            # as Figure.draw runs it: a layout that cannot be done leaves the figure as is
            with suppress(ValueError):
                held[1].execute(fig)
        Figure.draw(fig, renderer)


class _PaperFigure(Figure):
    """The Figure rrmap makes (:func:`new_figure`): its ``savefig`` keeps text as text
    (never Type 3 fonts), its text has no ligatures (:func:`plain_glyphs`) and its
    drawing warns once of characters its font lacks."""

    def savefig(self, fname: Any, *args: Any, **kwargs: Any) -> None:
        _paper_savefig(self, fname, *args, **kwargs)

    def draw(self, renderer: Any) -> None:
        _paper_draw(self, renderer)


def save_like_paper_figures(fig: Figure) -> None:
    """Have a user's plain *fig* (one rrmap drew on) save and draw as the figures rrmap
    makes do (text as text whatever ``pdf.fonttype`` says, no ligatures, one warning of
    missing glyphs), its class left as it is.

    Its own ``savefig`` and ``draw`` become those of :class:`_PaperFigure`: attributes of
    this one figure (``functools.partial`` of :func:`_paper_savefig` and
    :func:`_paper_draw`, which pickle with it), never of its class. A figure of another
    class (rrmap's own, a user's subclass with its own methods) is left alone.

    Examples
    --------
    >>> import io
    >>> fig = Figure()
    >>> _ = fig.text(0.5, 0.5, "text")
    >>> save_like_paper_figures(fig)
    >>> type(fig) is Figure
    True
    >>> with mpl.rc_context({"pdf.fonttype": 3}):
    ...     fig.savefig(buffer := io.BytesIO(), format="pdf")
    >>> b"/FontFile2" in buffer.getvalue(), b"/Type3" in buffer.getvalue()
    (True, False)
    """
    if type(fig) is not Figure or "savefig" in fig.__dict__:
        return
    fig.savefig = functools.partial(_paper_savefig, fig)  # type: ignore[method-assign]
    fig.draw = functools.partial(_paper_draw, fig)  # type: ignore[method-assign]


#: Inside :func:`off_screen`: figures are made without pyplot.
_OFF_SCREEN: ContextVar[bool] = ContextVar("rrmap_off_screen", default=False)


@contextmanager
def off_screen() -> Iterator[None]:
    """Within the block, :func:`new_figure` makes figures that pyplot does not manage: for
    figures that are only saved (the analysis figures), whatever pyplot's backend is (no
    window, no switch of a notebook's backend, no GUI toolkit imported). Their panels'
    ticks are fixed as soon as they are set (:func:`thin_ticks`): nobody changes
    such a figure's limits afterwards."""
    token = _OFF_SCREEN.set(True)
    try:
        yield
    finally:
        _OFF_SCREEN.reset(token)


def new_figure(width: float, height: float) -> Figure:
    """An empty constrained-layout figure that keeps text as text when saved (a pyplot
    figure, except within :func:`off_screen`)."""
    if _OFF_SCREEN.get():
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        fig = _PaperFigure(figsize=(width, height), layout="constrained")
        FigureCanvasAgg(fig)
        return fig
    import matplotlib.pyplot as plt

    return plt.figure(figsize=(width, height), layout="constrained", FigureClass=_PaperFigure)


def lay_out(fig: Figure) -> None:
    """Place *fig*'s Axes, colorbars and legends with its layout engine, drawing nothing.

    The constrained layout measures the text it needs itself: a draw that renders
    nothing (``draw_without_rendering``) runs the same layout and then walks every
    artist once more, which doubled the cost of each pass of a fit.
    """
    engine = fig.get_layout_engine()
    if engine is None:
        return
    if isinstance(fig, _PaperFigure):  # measured as drawn
        plain_glyphs(fig)
    with gathered_glyph_warnings():
        engine.execute(fig)


def measured_layout(fig: Figure) -> None:
    """Lay *fig* out to measure its artists, as a draw does before drawing them: its
    layout engine run (if it has one), each Axes placed at its aspect; nothing drawn.

    ``draw_without_rendering`` does the same and then walks every artist once more,
    about as long again; the measures read afterwards (window extents, tight boxes) are
    computed from the positions, ticks and texts, not from that walk.
    """
    lay_out(fig)
    for ax in fig.get_axes():
        locator = ax.get_axes_locator()  # an inset's: placed from the renderer's sizes
        ax.apply_aspect(locator(ax, fig._get_renderer()) if locator else None)


def renderer_of(fig: Figure) -> Any:
    """A renderer to measure *fig*'s artists with, whatever canvas the figure has."""
    canvas = fig.canvas
    if not hasattr(canvas, "get_renderer"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        canvas = FigureCanvasAgg(fig)
    return canvas.get_renderer()


def text_width_pt(text: str, size: float) -> float:
    """Printed width of the widest line of *text* at *size* points (current font): the
    glyphs' advances, measured with the font itself (no outline is built: 40 times faster
    than a ``TextPath``, and never narrower than the ink)."""
    if not text:
        return 0.0
    prop = FontProperties(size=size)
    # an escaped dollar (plain text, never mathtext) is drawn as a dollar
    shown = str(text).replace("\\$", "$")
    widths = [
        text_to_path.get_text_width_height_descent(line, prop, ismath=False)[0]
        for line in shown.split("\n")
        if line
    ]
    return max(widths, default=0.0)


def legend_ncols(labels: Sequence[str], size: float, avail_in: float) -> int:
    """Columns of a legend of *labels* at *size* points that fit *avail_in* inches.

    Rows are balanced (7 entries in 3 columns, not 3 + 3 + 1 spread over 4).
    """
    n = len(labels)
    if n == 0:
        return 1
    rc = mpl.rcParams
    extra_em = rc["legend.handlelength"] + rc["legend.handletextpad"] + rc["legend.columnspacing"]
    entry = max(text_width_pt(s, size) for s in labels) + extra_em * size
    ncols = int((avail_in * 72.0 + rc["legend.columnspacing"] * size) // max(entry, 1.0))
    ncols = max(1, min(n, ncols))
    nrows = math.ceil(n / ncols)
    return math.ceil(n / nrows)


def legend_height_in(n_rows: int, size: float, title: bool) -> float:
    """Approximate printed height of a legend of *n_rows* rows at *size* points."""
    rc = mpl.rcParams
    lines = n_rows + (1 if title else 0)
    return (lines * size * (1.0 + rc["legend.labelspacing"]) + 2 * size * 0.4) / 72.0


def freeze_ticks(fig: Figure, label_size: float) -> None:
    """Fix tick label sizes on every Axes (ticks are created when drawn, after the
    rc context of the layout is gone)."""
    rc = mpl.rcParams
    for ax in fig.get_axes():
        ax.tick_params(
            labelsize=label_size,
            width=rc["xtick.major.width"],
            length=rc["xtick.major.size"],
            pad=rc["xtick.major.pad"],
        )


#: The tickers (locator, formatter) of each panel, x then y, as set before
#: :func:`thin_ticks` fixed them for the layout: given back by :func:`link_panels`.
LiveTicks = dict[Axes, list[tuple[Any, Any]]]


def thin_ticks(axes: Iterable[Axes]) -> LiveTicks:
    """Ticks of panels set side by side: no label at the panels' shared edges, so the
    last label of one panel never runs into the first of the next ("4-4", "2.5" over "0.0").

    Call it once the panels' limits are set. The ticks are then fixed (:func:`fix_ticks`):
    with a fixed number of bins a locator looks at the limits alone, so the ticks are
    those it would find at every layout pass and draw, without the work (12 % of the
    raters × categories grid). A figure made :func:`off_screen` keeps them fixed; the
    panels of another get their locators back from :func:`link_panels` at their first
    zoom or pan (their ticks follow it): returned here for it (empty when off screen).
    """
    axes = list(axes)
    live: LiveTicks = {}
    for ax in axes:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4, prune="both"))
        ax.yaxis.set_major_locator(MaxNLocator(nbins=5, prune="upper"))
        if not _OFF_SCREEN.get():
            live[ax] = [
                (axis.get_major_locator(), axis.get_major_formatter())
                for axis in (ax.xaxis, ax.yaxis)
            ]
    fix_ticks(axes)
    return live


def link_panels(axes: Sequence[Axes], live: LiveTicks) -> None:
    """The limits of the panels *axes* linked, once their figure is laid out: a zoom or pan
    of one sets the same limits on the others, and gives the panels whose ticks
    :func:`thin_ticks` fixed for the layout their locators back (*live*, what it
    returned), so that their ticks follow.

    The panels are linked through their ``xlim_changed`` and ``ylim_changed`` callbacks,
    not matplotlib's shared axes: a shared panel looks its limits up through all its
    siblings (checking each for a pending autoscale) at every one of the thousands of times
    a drawing reads them. Until a panel moves, the fixed ticks are those the locators would
    find, without the work. The panels of a figure made :func:`off_screen`, only saved,
    are left apart: nobody zooms them.
    """
    if _OFF_SCREEN.get():
        return
    links = _Links(
        panels=tuple(weakref.ref(ax) for ax in axes),  # the figure holds them, not the links
        live={
            weakref.ref(ax): (tickers, (ax.xaxis.get_major_locator(), ax.yaxis.get_major_locator()))
            for ax, tickers in live.items()
        },
    )
    for ax in axes:
        for name in ("x", "y"):
            ax.callbacks.connect(f"{name}lim_changed", functools.partial(links.follow, name))


@dataclass
class _Links:
    """Panels whose limits follow each other's (weakly held), and the locators and
    formatters each gets back at the first move, with the fixed locators they replace."""

    panels: tuple[weakref.ref[Axes], ...]
    live: dict[weakref.ref[Axes], tuple[list[tuple[Any, Any]], tuple[Any, Any]]]
    following: bool = False

    def follow(self, name: str, moved: Axes) -> None:
        """The *name* ("x" or "y") limits of *moved* set on the other panels, then their
        ``{name}lim_changed`` callbacks called, as matplotlib calls those of shared axes
        (a user's own callbacks hear of the move; this link, called back, does nothing)."""
        if self.following:
            return
        self.following = True
        try:
            self.live_ticks()
            limits = getattr(moved, f"get_{name}lim")()
            others = [ax for ref in self.panels if (ax := ref()) is not None and ax is not moved]
            for ax in others:
                getattr(ax, f"set_{name}lim")(limits, emit=False)
            for ax in others:
                ax.callbacks.process(f"{name}lim_changed", ax)
        finally:
            self.following = False

    def live_ticks(self) -> None:
        """Each panel's locator and formatter back where its fixed locator still is (a
        user's own locator is kept), once."""
        for ref, (tickers, fixed) in self.live.items():
            ax = ref()
            if ax is None:
                continue
            axes = (ax.xaxis, ax.yaxis)
            for axis, (locator, formatter), was in zip(axes, tickers, fixed, strict=True):
                if axis.get_major_locator() is was:
                    axis.set_major_locator(locator)
                    axis.set_major_formatter(formatter)
        self.live.clear()


def fix_ticks(axes: Iterable[Axes]) -> None:
    """Major ticks of *axes* fixed at their places and labels.

    Matplotlib locates and formats every axis's ticks again at each layout pass and
    draw; once what a locator looks at no longer changes (the limits, and for some
    locators the axis's length: after the layout), the fixed ticks are the same,
    without the work. An axis whose labels share an offset text is left as it is.
    """
    for ax in axes:
        for axis in (ax.xaxis, ax.yaxis):
            formatter = axis.get_major_formatter()
            locs = axis.get_majorticklocs()
            labels = formatter.format_ticks(locs)
            if formatter.get_offset():
                continue
            axis.set_major_locator(FixedLocator(locs))
            axis.set_major_formatter(FixedFormatter(labels))


class Footer:
    """Colorbar and legends under a figure's panels, in rows that fit the figure's width.

    Items are measured once drawn, flowed left to right into rows no wider
    than the figure, and the panels are laid out above them (constrained
    layout in the rest of the figure). Call :meth:`height` before fitting the
    figure's height and :meth:`place` after it.
    """

    def __init__(self, fig: Figure, gap: float = 0.16, pad: float = 0.03) -> None:
        self.fig = fig
        self.gap = gap
        self.pad = pad
        self.items: list[Any] = []  # Legend, or (colorbar Axes, bar width, bar height)
        self._rows: list[list[tuple[Any, float, float, float, float]]] = []

    def legend(self, **kw: Any) -> Any:
        leg = self.fig.legend(
            loc="lower left",
            bbox_to_anchor=(0.0, 0.0),
            bbox_transform=self.fig.transFigure,
            borderaxespad=0.0,
            **kw,
        )
        leg.set_in_layout(False)
        self.items.append(leg)
        return leg

    def colorbar(self, mappable: Any, label: str, bar_width: float) -> Any:
        cax = self.fig.add_axes((0.0, 0.0, 0.1, 0.01))
        cax.set_in_layout(False)
        cb = self.fig.colorbar(mappable, cax=cax, orientation="horizontal", label=label)
        self.items.append((cax, bar_width, 0.07))
        return cb

    def _measure(self) -> list[tuple[Any, float, float, float, float]]:
        """(item, width, height, x offset, y offset of its anchor) in inches."""
        fig = self.fig
        w, h = fig.get_size_inches()
        renderer = renderer_of(fig)
        out = []
        for item in self.items:
            if isinstance(item, tuple):
                cax, bw, bh = item
                cax.set_position((0.0, 0.5, bw / w, bh / h))
                tight = cax.get_tightbbox(renderer)
                box = cax.get_window_extent(renderer)
                dpi = fig.dpi
                out.append(
                    (
                        item,
                        tight.width / dpi,
                        tight.height / dpi,
                        (box.x0 - tight.x0) / dpi,
                        (box.y0 - tight.y0) / dpi,
                    )
                )
            else:
                ext = item.get_window_extent(renderer)
                out.append((item, ext.width / fig.dpi, ext.height / fig.dpi, 0.0, 0.0))
        return out

    def height(self) -> float:
        """Height the footer needs (inches), and the rows it will use."""
        if not self.items:
            return 0.0
        width = self.fig.get_figwidth() - 2 * self.pad
        rows: list[list[tuple[Any, float, float, float, float]]] = [[]]
        used = 0.0
        for block in self._measure():
            need = block[1] + (self.gap if rows[-1] else 0.0)
            if rows[-1] and used + need > width:
                rows.append([])
                used, need = 0.0, block[1]
            rows[-1].append(block)
            used += need
        self._rows = rows
        return sum(max(b[2] for b in row) for row in rows) + self.gap * (len(rows) - 1) + self.pad

    def place(self) -> None:
        """Put the items in their rows at the figure's current size."""
        w, h = self.fig.get_size_inches()
        y = self.pad
        for row in reversed(self._rows):
            row_h = max(b[2] for b in row)
            total = sum(b[1] for b in row) + self.gap * (len(row) - 1)
            x = (w - total) / 2.0
            for item, bw, bh, dx, dy in row:
                y0 = y + (row_h - bh) / 2.0
                if isinstance(item, tuple):
                    cax, bar_w, bar_h = item
                    cax.set_position(((x + dx) / w, (y0 + dy) / h, bar_w / w, bar_h / h))
                else:
                    item.set_bbox_to_anchor((x / w, y0 / h), transform=self.fig.transFigure)
                x += bw + self.gap
            y += row_h + self.gap


def fit_with_footer(
    fig: Figure,
    axes: Sequence[Axes],
    aspect: float | None,
    rows: int,
    footer: Footer | None,
    panel_height: float | None = None,
) -> None:
    """Set the height so that panels are *aspect* × their width tall (or *panel_height*
    inches), with the panels laid out above *footer*; then place the footer."""
    foot = footer.height() if footer is not None else 0.0
    engine = fig.get_layout_engine()
    width = fig.get_figwidth()
    # a first height with room for the panels: a tall footer would otherwise squeeze them
    # to nothing in the first layout (which matplotlib then refuses with a warning)
    guess = panel_height or axes[0].get_position().width * width * (aspect or 1.0)
    if fig.get_figheight() < foot + rows * (guess + 0.4):
        fig.set_size_inches(width, foot + rows * (guess + 0.4) + 0.3, forward=False)
    for _ in range(6):
        height = fig.get_figheight()
        engine.set(rect=(0.0, foot / height, 1.0, 1.0 - foot / height))
        lay_out(fig)
        box = axes[0].get_position()
        target = panel_height if panel_height is not None else box.width * width * aspect
        panel_h = box.height * height
        if abs(panel_h - target) < 0.01:
            break
        fig.set_size_inches(width, max(height + rows * (target - panel_h), 0.5), forward=False)
    if footer is not None:
        footer.place()
