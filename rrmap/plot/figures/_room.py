"""What fits beside a panel on a user's own Axes, and which zone names fit on it.

:func:`plan_room` chooses where the legend and the colorbar of a panel go on an Axes the
user sized: beside or under the panel, and which of them is left out, so that the panel
keeps at least :data:`MIN_PANEL_WIDTH` × :data:`MIN_PANEL_HEIGHT` (or a share of a
smaller cell). :func:`fit_zone_labels` then abbreviates or removes the zone names that
would run over each other, over a point or past the panel's edge.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from rrmap.plot.base._glyphs import outside_frame
from rrmap.plot.base._sizing import measured_layout
from rrmap.plot.base._style import rc_points

__all__: list[str] = []

#: Smallest panel a legend or a colorbar may leave (inches), or a share of a smaller room.
MIN_PANEL_WIDTH, MIN_PANEL_HEIGHT = 1.4, 1.2
_MIN_SHARE_W, _MIN_SHARE_H = 0.6, 0.45
#: Widest share of the room a legend beside the panel may take; up to the narrower one it
#: goes beside rather than under the panel.
_BESIDE, _NARROW = 0.45, 1 / 3
_GAP = 0.06


@dataclass(frozen=True)
class Room:
    """Where the legend and the colorbar of a panel go: legend beside (or under) the
    panel in *ncols* columns, or left out; colorbar under the panel, or left out."""

    legend: bool
    beside: bool
    ncols: int
    colorbar: bool


def plan_room(
    ax: Axes,
    room: Bbox,
    sizes: Sequence[Bbox],
    colorbar: bool,
    min_height: float = MIN_PANEL_HEIGHT,
) -> Room:
    """The first of: legend beside and colorbar under, legend under and colorbar under,
    then without the colorbar, then without the legend, that leaves the panel big enough.

    *room* is the cell of *ax* (display units); *sizes* the legend's size in 1, 2, ...
    columns (empty: no legend); *colorbar* whether there is one to place; *min_height*
    the panel's least height (inches; a chart of a few bars needs less than a map).
    """
    root = ax.get_figure(root=True)
    dpi = root.dpi
    measured_layout(root)
    renderer = root._get_renderer()
    box, tight = ax.get_window_extent(renderer), ax.get_tightbbox(renderer)
    deco_w = (box.x0 - tight.x0) + (tight.x1 - box.x1)
    deco_h = (tight.y1 - box.y1) + (box.y0 - tight.y0)
    bar_h = (2 * _GAP + 0.07) * dpi + 1.5 * (
        rc_points("xtick.labelsize") + rc_points("axes.labelsize")
    ) / 72 * dpi
    min_w = min(MIN_PANEL_WIDTH * dpi, _MIN_SHARE_W * room.width)
    min_h = min(min_height * dpi, _MIN_SHARE_H * room.height)
    under = [n for n, s in enumerate(sizes, 1) if s.width <= room.width]
    ncols = under[-1] if under else 1
    gap = _GAP * dpi
    plans = []
    for bar in [True, False] if colorbar else [False]:
        if not sizes:
            break
        beside = (Room(True, True, 1, bar), sizes[0].width + gap, 0.0)
        under = (Room(True, False, ncols, bar), 0.0, sizes[ncols - 1].height + gap)
        if sizes[0].width <= _NARROW * room.width:  # a narrow legend: beside first
            plans += [beside, under]
        elif sizes[0].width <= _BESIDE * room.width:
            plans += [under, beside]
        else:
            plans.append(under)
    plans += [
        (Room(False, True, 1, bar), 0.0, 0.0) for bar in ([True, False] if colorbar else [False])
    ]
    for plan, side, below in plans:
        w = room.width - deco_w - side
        h = room.height - deco_h - below - (bar_h if plan.colorbar else 0.0)
        if w >= min_w and h >= min_h:
            break
    left_out = [
        what
        for what, had, kept in (
            ("legend", bool(sizes), plan.legend),
            ("colorbar", colorbar, plan.colorbar),
        )
        if had and not kept
    ]
    if left_out:
        inches = f"{room.width / dpi:.2f} × {room.height / dpi:.2f} in"
        warnings.warn(
            f"the figure is too small for the {' and the '.join(left_out)} ({inches} "
            "Axes): left out. For panels side by side, pass legend=False, colorbar=False "
            "and add one for the figure with rrmap.plot.add_legend(fig); or make the "
            "figure larger, or draw inside rrmap.plot.paper_style() (journal type sizes)",
            UserWarning,
            stacklevel=outside_frame(),
        )
    return plan


#: Shorter names of the zone labels, tried before a label is left out.
_SHORT = {
    "excellent": "exc.",
    "stereotype": "ster.",
    "alignment": "align.",
    "stereotype_point": "ster.",
}
#: How far a point's marker reaches from its centre (points): a label keeps that far off.
_MARKER_PT = 2.5
#: The order labels claim their place: the excellent zone and the references first.
_ORDER = ("excellent", "alignment", "stereotype_point", "fair", "stereotype", "bad")


def fit_zone_labels(ax: Axes) -> list[str]:
    """Abbreviate, or else remove, each zone label of the panel on *ax* that runs past
    the panel, over a label kept before it, or over a point; returns the names of those
    removed."""
    from rrmap.plot.figures.panel import GID

    root = ax.get_figure(root=True)
    renderer = root._get_renderer()
    panel = ax.get_window_extent(renderer).padded(1.0)
    labels = {
        t.get_gid()[len(GID) + 7 :]: t
        for t in ax.texts
        if (t.get_gid() or "").startswith(f"{GID}.label.")
    }
    points = _point_centres(ax)
    kept: list[Bbox] = []
    removed = []
    for name in sorted(labels, key=lambda n: _ORDER.index(n) if n in _ORDER else len(_ORDER)):
        text = labels[name]
        for candidate in (text.get_text(), _SHORT.get(name)):
            if candidate is None:
                continue
            text.set_text(candidate)
            box = Text.get_window_extent(text, renderer)
            if _fits(box, panel, kept, points, _MARKER_PT * root.dpi / 72):
                kept.append(box)
                break
        else:
            text.remove()
            removed.append(name)
    return removed


def _point_centres(ax: Axes) -> np.ndarray:
    """Display positions of the points of the panel (inside the view and clipped)."""
    out = [np.empty((0, 2))]
    for coll in ax.collections:
        gid = coll.get_gid() or ""
        if gid.startswith(("rrmap.points.", "rrmap.clipped.")) and len(coll.get_offsets()):
            out.append(coll.get_offset_transform().transform(coll.get_offsets()))
    return np.vstack(out)


def _fits(box: Bbox, panel: Bbox, kept: list[Bbox], points: np.ndarray, pad: float) -> bool:
    """Whether *box* lies inside *panel*, off the boxes *kept* and off every point (a
    marker reaching *pad* from its centre)."""
    inside = panel.x0 <= box.x0 and box.x1 <= panel.x1 and panel.y0 <= box.y0 and box.y1 <= panel.y1
    if not inside or any(box.overlaps(other) for other in kept):
        return False
    x, y = points[:, 0], points[:, 1]
    over = (x > box.x0 - pad) & (x < box.x1 + pad) & (y > box.y0 - pad) & (y < box.y1 + pad)
    return not over.any()


def fit_axis_label(ax: Axes) -> None:
    """A y label taller than the panel (a short panel on a small figure) is cut to its last
    word, the symbol ("relative dispersion R" → "R"), which the x label's "Δ" matches."""
    root = ax.get_figure(root=True)
    renderer = root._get_renderer()
    label = ax.yaxis.get_label()
    words = label.get_text().split()
    if len(words) > 1 and label.get_window_extent(renderer).height > ax.bbox.height:
        label.set_text(words[-1])
