"""One legend (and one colorbar) for a figure of several panels drawn on the user's Axes.

Panels drawn with ``plot_rrmap(..., ax=ax, legend=False, colorbar=False)`` side by side
keep their room for the maps; :func:`add_legend` then adds the legend of all their
options once, under the panels, and (``colorbar=True``) one colorbar of the
Bhattacharyya coefficient they share.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.axes import Axes
from matplotlib.legend import Legend
from matplotlib.transforms import Bbox

from rrmap.errors import InputError
from rrmap.plot.base._sizing import legend_ncols, measured_layout
from rrmap.plot.base._style import rc_points
from rrmap.plot.figures._room import fit_axis_label
from rrmap.plot.figures._user_axes import adaptive_ticks, constrained
from rrmap.plot.figures.panel import CLIPPED_GID, axis_label, panel_record

__all__ = ["add_legend"]


def _gathered(axes: Sequence[Axes]) -> tuple[list[Any], str | None]:
    """The legend entries of the panels on *axes*, each option once (in the order first
    met), their clipped points counted in one entry; and the first title."""
    from rrmap.plot.figures.panel import legend_handles

    options: dict[str, Any] = {}
    clipped, head, seen_clip = 0, None, None
    for ax in axes:
        record = panel_record(ax)
        if record is None:
            continue
        head = head or record.title
        for h in record.handles:
            if h.get_gid() == CLIPPED_GID:
                clipped += panel_record(ax).n_clipped
                seen_clip = h
            else:
                options.setdefault(h.get_label(), h)
    handles = list(options.values())
    if seen_clip is not None:
        (entry,) = legend_handles({}, 22.0, clipped, seen_clip.get_marker() != "none")
        entry.set_markersize(seen_clip.get_markersize())
        handles.append(entry)
    return handles, head


def add_legend(
    fig: Any,
    axes: Sequence[Axes] | None = None,
    *,
    colorbar: bool = False,
    title: str | None = None,
) -> Legend:
    """Add one legend for the RRMap panels of *fig*, under them, and maybe one colorbar.

    Parameters
    ----------
    fig : Figure or SubFigure
        The figure whose panels share the legend.
    axes : sequence of Axes, optional
        The panels (default every Axes of *fig* that :func:`rrmap.plot.plot_rrmap`
        drew on).
    colorbar : bool, default False
        Add one colorbar of the Bhattacharyya coefficient for the panels, between them
        and the legend.
    title : str, optional
        Title of the legend, default the colour column.

    Returns
    -------
    matplotlib.legend.Legend

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import rrmap
    >>> from rrmap.plot import add_legend, plot_rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> fig, axs = plt.subplots(1, 2, figsize=(7, 3), layout="constrained")
    >>> for ax, rater in zip(axs, ["E1", "E2"]):
    ...     _ = plot_rrmap(
    ...         pts[pts.expert == rater], "movement", ax=ax, legend=False, colorbar=False
    ...     )
    >>> legend = add_legend(fig, colorbar=True)
    >>> [t.get_text() for t in legend.get_texts()][:2], len(fig.legends)
    (['abstract art', 'cubism'], 1)
    >>> plt.close(fig)
    """
    if axes is None:
        axes = [ax for ax in fig.get_axes() if panel_record(ax) is not None]
    if not axes:
        raise InputError("add_legend: no panel of rrmap.plot.plot_rrmap on this figure")
    handles, head = _gathered(axes)
    if not handles:
        raise InputError("add_legend: the panels have no options to show (drawn without color=)")
    root = fig.get_figure(root=True)
    width = fig.bbox.width / root.dpi
    labels = [h.get_label() for h in handles]
    ncols = legend_ncols(labels, rc_points("legend.fontsize"), width - 0.2)
    mappable = next((im for ax in axes for im in ax.get_images()), None)
    if constrained(axes[0]):
        if colorbar and mappable is not None:
            _shared_colorbar(fig, mappable, list(axes))
        legend = fig.legend(
            handles=handles, title=title or head, loc="outside lower center", ncols=ncols
        )
        measured_layout(root)
        for ax in axes:
            fit_axis_label(ax)
        return legend
    legend = fig.legend(handles=handles, title=title or head, loc="lower center", ncols=ncols)
    measured_layout(root)
    height = fig.bbox.height / root.dpi
    below = legend.get_window_extent().height / root.dpi + 0.04  # inches under the panels
    if colorbar and mappable is not None:
        type_h = 1.8 * (rc_points("xtick.labelsize") + rc_points("axes.labelsize")) / 72
        bar = (0.25, (below + type_h) / height, 0.5, 0.07 / height)
        below += type_h + 0.07 + 0.12
        _make_room_below(fig, below / height)
        _shared_colorbar(fig, mappable, list(axes), fig.add_axes(bar))
    else:
        _make_room_below(fig, below / height)
    measured_layout(root)
    for ax in axes:
        fit_axis_label(ax)
    return legend


def _shared_colorbar(fig: Any, mappable: Any, axes: list[Axes], cax: Axes | None = None) -> Any:
    if cax is None:
        cb = fig.colorbar(mappable, ax=axes, location="bottom", fraction=0.04, aspect=50)
    else:
        cb = fig.colorbar(mappable, cax=cax, orientation="horizontal")
    cb.set_label(axis_label("bc"))
    adaptive_ticks(cb)
    return cb


def _make_room_below(fig: Any, share: float) -> None:
    """Without a layout engine: move the Axes of *fig* up, scaled into its top part, so
    that the bottom *share* of it stays free under their tick and axis labels."""
    root = fig.get_figure(root=True)
    measured_layout(root)
    renderer = root._get_renderer()
    to_fig = fig.transSubfigure.inverted()
    axes = fig.get_axes()
    lows = [ax.get_tightbbox(renderer).transformed(to_fig).y0 for ax in axes]
    lowest = min(ax.get_position().y0 for ax in axes)
    deco = max(ax.get_position().y0 - low for ax, low in zip(axes, lows, strict=True))
    target = share + deco + 0.01
    if lowest >= target:
        return
    scale = (1 - target) / (1 - lowest)
    for ax in axes:
        pos = ax.get_position()
        y0, y1 = target + (pos.y0 - lowest) * scale, target + (pos.y1 - lowest) * scale
        ax.set_position(Bbox([[pos.x0, y0], [pos.x1, y1]]))
