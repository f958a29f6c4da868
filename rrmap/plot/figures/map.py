"""One RRMap panel with matplotlib (docs/figures.md).

:func:`plot_rrmap` draws one RRMap panel on an Axes: the Bhattacharyya
coefficient as background (with a colorbar), the stereotype and fair
rectangles, the BC = 0.98 curve of the excellent zone, zone labels, the
reference points (0, 1) "perfect alignment" and (0, 0) "perfect stereotype",
and the points coloured (and shaped) by a category. Points beyond the view
are moved onto its edge and drawn as arrowheads pointing outwards; their
number is in the legend. Every element carries a ``gid`` (also the element
id in SVG files) and :func:`panel_artists` returns them, with what the panel's
record keeps beside its Axes (:class:`~rrmap.plot.figures.panel.PanelRecord`). Whole
figures of panels are in :mod:`rrmap.plot.figures.layouts` and
:mod:`rrmap.plot.figures.intervals`; the drawing of one panel they share is
:mod:`rrmap.plot.figures.panel`, and a panel on a user's own Axes is fitted by
:mod:`rrmap.plot.figures._user_axes`. Nothing here calls ``show()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import matplotlib as mpl
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.colorbar import Colorbar
from matplotlib.font_manager import FontProperties
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon
from matplotlib.text import Text

from rrmap.errors import InputError
from rrmap.plot.base._glyphs import gathers_glyph_warnings
from rrmap.plot.base._keywords import lists_keywords
from rrmap.plot.base._style import MARKERS, OKABE_ITO, QUALITY_COLORS, QUALITY_MARKERS, title
from rrmap.plot.base.geometry import DEFAULT_XLIM, DEFAULT_YLIM
from rrmap.plot.figures._user_axes import plot_on_user
from rrmap.plot.figures.panel import (
    GID,
    PANEL_KEYWORDS,
    PanelStyle,
    axis_label,
    axis_name,
    background_cmap,
    check_points,
    draw_panel,
    panel_record,
    panel_style,
    record_panel,
)

__all__ = [
    "DEFAULT_XLIM",
    "DEFAULT_YLIM",
    "MARKERS",
    "OKABE_ITO",
    "QUALITY_COLORS",
    "QUALITY_MARKERS",
    "PanelArtists",
    "axis_label",
    "axis_name",
    "background_cmap",
    "panel_artists",
    "plot_rrmap",
]


@dataclass
class PanelArtists:
    """What :func:`plot_rrmap` drew on one Axes (see :func:`panel_artists`).

    Attributes
    ----------
    ax : Axes
        The panel.
    background : AxesImage or None
        The BC raster (``get_array()`` holds BC at the cell centres).
    colorbar : Colorbar or None
        The colorbar added by :func:`plot_rrmap` (``None`` in multi-panel figures).
    zones : dict of str to Polygon
        Outlines of the ``stereotype`` and ``fair`` rectangles.
    excellent : Line2D or None
        The closed curve BC = ``excellent_bc``.
    labels : dict of str to Text
        Zone and reference-point labels.
    references : dict of str to PathCollection
        The markers at (0, 1) ``alignment`` and (0, 0) ``stereotype``.
    points : dict of str to PathCollection
        The points inside the view, one collection per option of the colour column.
    clipped : list of PathCollection
        Points moved onto the edge, one collection per direction (> < ^ v).
    legend : Legend or None
    n_clipped, n_points : int

    Examples
    --------
    >>> from rrmap.plot import plot_rrmap, panel_artists
    >>> drawn = panel_artists(plot_rrmap())
    >>> drawn.zones["fair"].get_xy()[:3].tolist()
    [[-2.0, 0.6666666666666666], [2.0, 0.6666666666666666], [2.0, 1.5]]
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """

    ax: Axes
    background: AxesImage | None = None
    colorbar: Colorbar | None = None
    zones: dict[str, Polygon] = field(default_factory=dict)
    excellent: Line2D | None = None
    labels: dict[str, Text] = field(default_factory=dict)
    references: dict[str, PathCollection] = field(default_factory=dict)
    points: dict[str, PathCollection] = field(default_factory=dict)
    clipped: list[PathCollection] = field(default_factory=list)
    legend: Legend | None = None
    #: Points moved onto the edge of the view (or, with ``clip=False``, left out of it).
    n_clipped: int = 0
    #: Points drawn (inside the view plus clipped).
    n_points: int = 0


def panel_artists(ax: Axes) -> PanelArtists:
    """Collect the artists :func:`plot_rrmap` drew on *ax*, by their ``gid``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        An Axes :func:`plot_rrmap` drew on.

    Returns
    -------
    PanelArtists

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.plot import plot_rrmap, panel_artists
    >>> ax = plot_rrmap(rrmap.points(rrmap.datasets.load_example_ratings()), color="movement")
    >>> drawn = panel_artists(ax)
    >>> sorted(drawn.zones), drawn.n_points
    (['fair', 'stereotype'], 405)
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    out = PanelArtists(ax=ax)
    record = panel_record(ax)
    if record is not None:
        out.colorbar, out.legend = record.colorbar, record.legend
        out.n_clipped, out.n_points = record.n_clipped, record.n_points
    for art in ax.get_children():
        gid = art.get_gid() or ""
        if not gid.startswith(GID + "."):
            continue
        kind, _, name = gid[len(GID) + 1 :].partition(".")
        if kind == "background":
            out.background = art
        elif kind == "zone":
            out.zones[name] = art
        elif kind == "excellent":
            out.excellent = art
        elif kind == "label":
            out.labels[name] = art
        elif kind == "reference":
            out.references[name] = art
        elif kind == "points":
            out.points[name] = art
        elif kind == "clipped":
            out.clipped.append(art)
    return out


def _add_colorbar(fig: Any, mappable: Any, axes: Any, labels: Mapping[str, str] | None, **kw: Any):
    cb = fig.colorbar(mappable, ax=axes, location="bottom", label=axis_label("bc", labels), **kw)
    cb.set_ticks([0.0, 0.25, 0.5, 0.75, 1.0])
    if cb.solids is not None and isinstance(mappable, AxesImage):
        cb.solids.set_rasterized(True)
    return cb


@lists_keywords(PANEL_KEYWORDS)
@gathers_glyph_warnings
def plot_rrmap(
    points: pd.DataFrame | None = None,
    color: str | None = None,
    *,
    ax: Axes | None = None,
    width: float | str | None = None,
    colorbar: bool = True,
    legend: bool = True,
    **style: Any,
) -> Axes:
    """Draw an RRMap panel: BC background, zones, reference points and points.

    Parameters
    ----------
    points : DataFrame, optional
        Output of :func:`rrmap.points` (needs ``delta`` and ``r``); ``None``
        draws the empty map (background, zones, references).
    color : str, optional
        Column whose options colour and shape the points (e.g. ``"movement"``,
        ``"expert"``, ``"quality"``); one colour if omitted.
    ax : Axes, optional
        Where to draw; a new figure *width* wide if omitted.
    width : float or str, optional
        Printed width of the new figure (``3.5``, ``"3.5in"``, ``"85mm"``;
        default 5 in); the height follows. Type is 6–8 pt whatever the width;
        below 4.5 in the legend goes under the panel. Not with *ax*.
    colorbar : bool, default True
        Add a colorbar for BC under *ax*.
    legend : bool, default True
        Draw the legend (beside *ax*, or under it in a narrow new figure). On your own
        *ax*, the legend and the colorbar go beside or under the panel only where it
        keeps at least 1.4 × 1.2 in (else they are left out, with a warning), and zone
        names that would cover points or each other are shortened or left out. Panels
        side by side share one: ``legend=False, colorbar=False`` on each, then
        :func:`rrmap.plot.add_legend`.
    **style
        How the panel is drawn:

        thresholds : Thresholds, optional
            Zone thresholds; default those recorded in ``points.attrs`` (else the paper's).
        xlim, ylim : (float, float)
            The view, default Δ ∈ [−4, 4], R ∈ [0, 2.5].
        order : sequence, optional
            Options of *color* in legend order (pass the same order to every
            panel of a figure so colours agree); default the categorical order,
            else sorted.
        palette, markers : sequence or mapping, optional
            Colours and markers of the options: a sequence (cycled), a mapping
            option → value, or per category (``{"movement": {"cubism": "k", ...}}``).
            Defaults: Okabe–Ito colours combined with :data:`MARKERS`, so that
            any number of options stays distinct; :data:`QUALITY_COLORS` and
            :data:`QUALITY_MARKERS` for ``quality``.
        labels : mapping, optional
            Display names of columns and options (``{"criterion_group":
            "Criterion group", "E1": "Expert 1", "bc": "BC"}``); by default
            columns are named as the ratings file spelt them.
        size : float, default 22
            Marker area in points².
        alpha : float, optional
            Point opacity; default 0.85 up to 100 points in the panel, less
            for more (0.73 for 135, 0.5 from 290), so that dense regions read
            as dense.
        background : bool or {"raster", "contour"}, default True
            The BC background: a raster (``True``), filled contours (vector
            only, for EPS) or none.
        cmap : str or Colormap, optional
            Background colormap, default :func:`background_cmap`.
        zones, zone_labels, references : bool, default True
            Draw the zone outlines, their names (under the points), and the
            reference points (0, 1) and (0, 0) (above the points).
        clip : bool, default True
            Move points beyond the view onto its edge, drawn as arrowheads
            pointing outwards and counted in the legend; ``False`` leaves them
            out and counts them.
        resolution : int, default 400
            Cells of the background grid along each side.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on; :func:`panel_artists` lists what was drawn.

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.plot import plot_rrmap, panel_artists
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> ax = plot_rrmap(pts[pts.expert == "E1"], color="movement", width="3.5in")
    >>> panel_artists(ax).n_clipped, float(ax.figure.get_figwidth())
    (5, 3.5)
    >>> rrmap.plot.save(ax.figure, "/tmp/rrmap_E1.pdf")  # doctest: +SKIP
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    st = panel_style(style)
    if points is not None:
        check_points(points, [color])
    if ax is not None:
        if width is not None:
            raise InputError("width sizes a new figure; with ax=, size your own figure")
        return plot_on_user(ax, points, color, st, colorbar, legend)
    from rrmap.plot.base._sizing import fit_with_footer, freeze_ticks, new_figure
    from rrmap.plot.base._style import typography
    from rrmap.plot.base._widths import parse_width

    w = parse_width(width, 5.0)
    typ = typography(w)
    with mpl.rc_context(typ):
        fig = new_figure(w, 0.8 * w)
        ax = fig.add_subplot()
        _plot_on(ax, points, color, st, colorbar, legend, w if w < 4.5 else None)
        freeze_ticks(fig, typ["xtick.labelsize"])
        fit_with_footer(fig, [ax], 0.78, 1, None)
    return ax


def _plot_on(
    ax: Axes,
    points: pd.DataFrame | None,
    color: str | None,
    st: PanelStyle,
    colorbar: bool,
    legend: bool,
    below: float | None,
) -> Axes:
    """Draw the panel on *ax*, its colorbar and its legend (beside *ax*, or under the
    figure when *below* gives the figure width)."""
    drawn = draw_panel(ax, points, color, st)
    cb = leg = None
    if colorbar and drawn.mappable is not None:
        cb = _add_colorbar(
            ax.figure, drawn.mappable, ax, st.labels, fraction=0.04, pad=0.03, aspect=40
        )
    handles = list(drawn.handles)
    if legend and handles:
        head = title(color, points, st.labels)
        if below is None:
            leg = ax.legend(
                handles=handles,
                title=head,
                loc="upper left",
                bbox_to_anchor=(1.02, 1.0),
                borderaxespad=0.0,
            )
        else:
            from rrmap.plot.base._sizing import legend_ncols

            size = FontProperties(size=mpl.rcParams["legend.fontsize"]).get_size_in_points()
            ncols = legend_ncols([h.get_label() for h in handles], size, below - 0.2)
            leg = ax.figure.legend(
                handles=handles, title=head, loc="outside lower center", ncols=ncols
            )
    record_panel(ax, drawn, cb, leg)  # read back by panel_artists
    return ax
