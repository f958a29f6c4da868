"""A panel's colorbar and legend on an Axes the user made (the notebook path).

:func:`rrmap.plot.plot_rrmap` with ``ax=`` cannot size the figure: it has to
fit the colorbar and the legend into the room the Axes already has. With
constrained layout the layout engine makes the room (the colorbar is one of
the Axes' colorbars, the legend belongs to the Axes or to the colorbar);
without a layout engine the Axes is shrunk inside its cell of the figure
(its grid cell, up to the middle of the gaps to its neighbours and to the
figure's edge), as ``fig.colorbar(ax=...)`` does, so that its tick labels,
axis labels, colorbar and legend all lie inside the figure and overlap
nothing. Either way the legend goes beside the panel when it takes at most
a third of the cell's width, else under the colorbar in as many columns as
fit.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.image import AxesImage
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import Bbox, ScaledTranslation

from rrmap.plot.base._glyphs import outside_frame
from rrmap.plot.base._sizing import measured_layout, save_like_paper_figures
from rrmap.plot.base._style import title
from rrmap.plot.figures._room import (
    MIN_PANEL_HEIGHT,
    fit_axis_label,
    fit_zone_labels,
    plan_room,
)
from rrmap.plot.figures.panel import PanelStyle, axis_label, draw_panel, record_panel

__all__: list[str] = []

#: Gap between the panel, its colorbar and its legend (inches).
_GAP = 0.06
#: Margin kept inside the figure's edges (inches).
_EDGE = 0.03
#: Largest share of the cell's width a legend beside the panel may take.
_BESIDE = 1 / 3


def _root(ax: Axes) -> Any:
    return ax.get_figure(root=True)


def constrained(ax: Axes) -> bool:
    """Whether *ax*'s figure is laid out by constrained layout."""
    return isinstance(_root(ax).get_layout_engine(), ConstrainedLayoutEngine)


def adaptive_ticks(cb: Any) -> None:
    """Colorbar ticks at 0, 0.25, ..., 1 where they fit, else fewer (0, 0.5, 1): the
    locator counts the room the bar has when drawn, so labels never run together."""
    cb.locator = MaxNLocator(nbins="auto", steps=[1, 2.5, 5, 10], min_n_ticks=2)
    cb.update_ticks()


@contextmanager
def drawing_into(fig: Any) -> Iterator[float]:
    """Draw a multi-part figure into a user's *fig* (a Figure or SubFigure): yields its
    width (inches), in whose type sizes (:func:`~rrmap.plot.base._style.typography`) the
    parts are drawn, as a new figure of that width would be. A root Figure without a
    layout engine is given constrained layout, so that the parts keep their labels
    inside it."""
    from matplotlib.figure import Figure, SubFigure

    from rrmap.errors import InputError
    from rrmap.plot.base._sizing import freeze_ticks
    from rrmap.plot.base._style import typography

    if not isinstance(fig, (Figure, SubFigure)):
        raise InputError(f"fig must be a matplotlib Figure or SubFigure, got {type(fig)}")
    root = fig.get_figure(root=True)
    if root.get_layout_engine() is None:
        root.set_layout_engine("constrained")
    width = fig.bbox.width / root.dpi
    typ = typography(width)
    before = set(root.get_axes())
    with mpl.rc_context(typ):
        yield width
        drawn = [ax for ax in root.get_axes() if ax not in before]
        freeze_ticks(_Axes(drawn), typ["xtick.labelsize"])


class _Axes:
    """Some Axes of a figure, as :func:`~rrmap.plot.base._sizing.freeze_ticks` reads one."""

    def __init__(self, axes: list[Axes]) -> None:
        self._axes = axes

    def get_axes(self) -> list[Axes]:
        return self._axes


def cell(ax: Axes) -> Bbox:
    """The room of *ax* in display units: its grid cell, widened to the middle of the gaps
    to its neighbours and, on the sides it has none, to the figure's edge (less a margin)."""
    fig = ax.get_figure(root=False)
    tr = fig.transSubfigure
    ss = ax.get_subplotspec()
    if ss is None:
        if len([a for a in fig.get_axes() if a.get_visible()]) == 1:
            x0, y0, x1, y1 = 0.0, 0.0, 1.0, 1.0
        else:  # an Axes placed by hand among others: its own box is its room
            return ax.get_window_extent()
    else:
        gs = ss.get_gridspec()
        bottoms, tops, lefts, rights = gs.get_grid_positions(fig)
        nrows, ncols = gs.get_geometry()
        r0, r1 = ss.rowspan.start, ss.rowspan.stop
        c0, c1 = ss.colspan.start, ss.colspan.stop
        x0 = 0.0 if c0 == 0 else (rights[c0 - 1] + lefts[c0]) / 2
        x1 = 1.0 if c1 == ncols else (rights[c1 - 1] + lefts[c1]) / 2
        y1 = 1.0 if r0 == 0 else (bottoms[r0 - 1] + tops[r0]) / 2
        y0 = 0.0 if r1 == nrows else (bottoms[r1 - 1] + tops[r1]) / 2
    box = Bbox([[x0, y0], [x1, y1]]).transformed(tr)
    edge = _EDGE * fig.dpi
    return Bbox([[box.x0 + edge, box.y0 + edge], [box.x1 - edge, box.y1 - edge]])


def _legend_size(handles: Sequence[Any], title: str | None, ncols: int, ax: Axes) -> Bbox:
    """Width and height (display units) of the legend of *handles* in *ncols* columns."""
    leg = ax.legend(handles=handles, title=title, ncols=ncols)
    try:
        return leg.get_window_extent(_root(ax)._get_renderer())
    finally:
        leg.remove()


def plot_on_user(
    ax: Axes,
    points: Any,
    color: str | None,
    st: PanelStyle,
    colorbar: bool,
    legend: bool,
) -> Axes:
    """Draw the panel (:func:`rrmap.plot.plot_rrmap` style *st*) on a user's *ax*, with its
    colorbar and legend fitted into the room *ax* has; the figure then saves its text as
    text (:func:`~rrmap.plot.base._sizing.save_like_paper_figures`)."""
    save_like_paper_figures(_root(ax))
    drawn = draw_panel(ax, points, color, st)
    for text in ax.texts:  # fitted inside the panel once it is laid out (fit_zone_labels)
        if (text.get_gid() or "").startswith("rrmap.label."):
            text.set_in_layout(False)
    mappable = drawn.mappable if colorbar else None
    head = title(color, points, st.labels)
    handles = list(drawn.handles) if legend else []
    cb, leg = attach(ax, mappable, handles, head, axis_label("bc", st.labels))
    if cb is not None and cb.solids is not None and isinstance(mappable, AxesImage):
        cb.solids.set_rasterized(True)
    record_panel(ax, drawn, cb, leg)  # read back by panel_artists
    return ax


def attach(
    ax: Axes,
    mappable: Any,
    handles: Sequence[Any],
    legend_title: str | None,
    bc_label: str,
    min_height: float = MIN_PANEL_HEIGHT,
) -> tuple[Any, Any]:
    """Colorbar (of *mappable*, if any) and legend (of *handles*, if any) of a panel on a
    user's *ax*, fitted into the room *ax* has, the panel at least *min_height* inches
    tall where it can be; returns (colorbar, legend)."""
    fig = ax.get_figure(root=False)
    root = _root(ax)
    room = cell(ax)
    if handles:
        _short_clipped_label(handles)
        sizes = [_legend_size(handles, legend_title, n, ax) for n in range(1, len(handles) + 1)]
    else:
        sizes = []
    plan = plan_room(ax, room, sizes, mappable is not None, min_height)
    beside, ncols = plan.beside, plan.ncols
    handles = handles if plan.legend else []
    mappable = mappable if plan.colorbar else None
    cb = cax = None
    if mappable is not None:
        if constrained(ax):
            cb = fig.colorbar(mappable, ax=ax, location="bottom", fraction=0.04, aspect=40)
        else:
            cax = fig.add_axes((0.0, 0.0, 0.1, 0.01))
            cb = fig.colorbar(mappable, cax=cax, orientation="horizontal")
        cb.set_label(bc_label)
        adaptive_ticks(cb)
    legend = None
    if handles:
        legend = ax.legend(handles=handles, title=legend_title, ncols=ncols, borderaxespad=0.0)
        if beside:
            legend.set_loc("upper left")
            legend.set_bbox_to_anchor((1.02, 1.0), transform=ax.transAxes)
    if constrained(ax):
        if legend is not None and not beside:
            legend = _legend_under_colorbar(ax, legend, cb, handles, legend_title, ncols)
    else:
        _fit_by_hand(ax, room, cb, legend, beside)
    measured_layout(root)
    _keep_side_labels_inside(ax)
    fit_axis_label(ax)
    fit_zone_labels(ax)
    return cb, legend


def _short_clipped_label(handles: Sequence[Any]) -> None:
    """The entry counting clipped points, shortened for a legend under a narrow panel
    (its arrowhead says the rest): "clipped (2)", "not shown (2)"."""
    for h in handles:
        if h.get_gid() == "rrmap.legend.clipped":
            label = h.get_label().replace("clipped to the edge", "clipped")
            h.set_label(label.replace("outside the view (not shown)", "not shown"))


def _legend_under_colorbar(
    ax: Axes, legend: Any, cb: Any, handles: Sequence[Any], head: str | None, ncols: int
) -> Any:
    """Under constrained layout: the legend under the colorbar (a legend of the colorbar's
    Axes, so that the layout makes room for it), else under the panel's x label."""
    root = _root(ax)
    legend.remove()
    owner = cb.ax if cb is not None else ax
    measured_layout(root)
    renderer = root._get_renderer()
    box = owner.get_window_extent(renderer)
    tight = owner.get_tightbbox(renderer)
    drop = (box.y0 - tight.y0) / root.dpi + _GAP
    shift = ScaledTranslation(0.0, -drop, root.dpi_scale_trans)
    leg = owner.legend(
        handles=handles,
        title=head,
        ncols=ncols,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        bbox_transform=owner.transAxes + shift,
        borderaxespad=0.0,
    )
    return leg


def _fit_by_hand(ax: Axes, room: Bbox, cb: Any, legend: Any, beside: bool) -> None:
    """Without a layout engine: shrink *ax* inside *room* so that its labels, the colorbar
    under it and the legend (beside or under the colorbar) all fit, and place them."""
    fig = ax.get_figure(root=False)
    root = _root(ax)
    dpi = root.dpi
    gap = _GAP * dpi
    to_fig = fig.transSubfigure.inverted()
    bar_h = 0.07 * dpi
    for _ in range(3):
        measured_layout(root)
        renderer = root._get_renderer()
        box = ax.get_window_extent(renderer)
        if legend is not None:
            legend.set_in_layout(False)
        tight = ax.get_tightbbox(renderer)
        if legend is not None:
            legend.set_in_layout(True)
        left, right = box.x0 - tight.x0, tight.x1 - box.x1
        top, bottom = tight.y1 - box.y1, box.y0 - tight.y0
        below = 0.0
        cb_box = cb_tight = None
        if cb is not None:
            cb_box = cb.ax.get_window_extent(renderer)
            cb_tight = cb.ax.get_tightbbox(renderer)
            below += gap + (cb_tight.height - cb_box.height) + bar_h
        leg = legend.get_window_extent(renderer) if legend is not None else None
        if leg is not None and beside:
            right = max(right, 0.02 * box.width) + gap + leg.width
        elif leg is not None:
            below += gap + leg.height
        x0, x1 = room.x0 + left, room.x1 - right
        y0, y1 = room.y0 + below + bottom, room.y1 - top
        if x1 - x0 < 0.3 * dpi or y1 - y0 < 0.3 * dpi:
            warnings.warn(
                f"the figure is too small for the map with its colorbar and legend at "
                f"{mpl.rcParams['font.size']:g} pt type: make it taller, or draw inside "
                "rrmap.plot.paper_style() (journal type sizes)",
                UserWarning,
                stacklevel=outside_frame(),
            )
            return
        ax.set_position(Bbox([[x0, y0], [x1, y1]]).transformed(to_fig))
        y = y0 - bottom - gap
        if cb is not None:
            bar_w = min(0.8 * (x1 - x0), 3.0 * dpi)
            top_pad = cb_tight.y1 - cb_box.y1 if cb_tight is not None else 0.0
            bar = Bbox(
                [[(x0 + x1 - bar_w) / 2, y - top_pad - bar_h], [(x0 + x1 + bar_w) / 2, y - top_pad]]
            )
            cb.ax.set_position(bar.transformed(to_fig))
            y -= (cb_tight.height - cb_box.height) + bar_h + gap
        if legend is not None and not beside:
            legend.set_loc("upper center")
            legend.set_bbox_to_anchor(
                ((room.x0 + room.x1) / 2 / dpi, y / dpi), transform=root.dpi_scale_trans
            )


def _keep_side_labels_inside(ax: Axes) -> None:
    """Labels written right of the Δ band that would run past the panel's right edge (a
    narrow panel, large type) are moved left, right-aligned at the edge."""
    renderer = _root(ax)._get_renderer()
    right = ax.get_window_extent(renderer).x1
    x_edge = ax.get_xlim()[1] - 0.015 * (ax.get_xlim()[1] - ax.get_xlim()[0])
    for text in ax.texts:
        gid = text.get_gid() or ""
        if not gid.startswith("rrmap.label.") or text.get_ha() != "left":
            continue
        if text.get_window_extent(renderer).x1 > right:
            text.set_horizontalalignment("right")
            text.set_x(x_edge)  # an annotation's text position, in data units
