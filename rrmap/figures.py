"""RRMap figures with matplotlib (paper Figs. 2, 4 and 5; docs/figures.md).

:func:`plot_rrmap` draws one RRMap panel on an Axes: the Bhattacharyya
coefficient as background (with a colorbar), the stereotype and fair
rectangles, the BC = 0.98 curve of the excellent zone, zone labels, the
reference points (0, 1) "perfect alignment" and (0, 0) "perfect stereotype",
and the points coloured (and shaped) by a category. Points beyond the view
are moved onto its edge and drawn as arrowheads pointing outwards; their
number is in the legend. Every element carries a ``gid`` (also the element
id in SVG files) and :func:`panel_artists` returns them.

Layouts build a whole Figure: :func:`plot_rrmap_by_rater` (one panel per
rater, paper Fig. 4), :func:`plot_rrmap_grid` (raters as columns, categories
as rows, paper Fig. 5) and :func:`plot_interval_examples` (example intervals
beside their points, paper Fig. 2). :func:`save_analysis_figures` writes the
per-rater and grid figures as PDF and PNG. Nothing here calls ``show()``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.colorbar import Colorbar
from matplotlib.colors import Colormap, LinearSegmentedColormap
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon
from matplotlib.text import Text
from numpy.typing import NDArray

from rrmap._map_geometry import (
    DEFAULT_XLIM,
    DEFAULT_YLIM,
    _bc_contour,
    _bc_grid,
    _check_limits,
    _clip_to_view,
    _zone_rectangles,
)
from rrmap.comparison import compare
from rrmap.errors import InputError
from rrmap.gaussian import interval_to_gaussian
from rrmap.zones import QUALITY_LEVELS, Thresholds, classify

__all__ = [
    "DEFAULT_XLIM",
    "DEFAULT_YLIM",
    "MARKERS",
    "OKABE_ITO",
    "QUALITY_COLORS",
    "PanelArtists",
    "background_cmap",
    "example_interval_pairs",
    "panel_artists",
    "plot_interval_examples",
    "plot_rrmap",
    "plot_rrmap_by_rater",
    "plot_rrmap_grid",
    "save_analysis_figures",
]

#: Okabe–Ito colours (colour-blind safe), in the order points are coloured.
OKABE_ITO: tuple[str, ...] = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#000000",
    "#F0E442",
)
#: Point markers, one per category option (cycled), so maps survive greyscale printing.
#: Triangles are left out: they mark clipped points.
MARKERS: tuple[str, ...] = ("o", "s", "D", "P", "X", "h", "*", "p", "d", "8")
#: Colours of the quality levels when points are coloured by ``quality``.
QUALITY_COLORS: dict[str, str] = {
    "excellent": "#009E73",
    "fair": "#56B4E9",
    "stereotype": "#E69F00",
    "bad": "#D55E00",
}

_GID = "rrmap"
_LABELS = {"x": "relative shift Δ", "y": "relative dispersion R", "bc": "Bhattacharyya coefficient"}


def background_cmap(lighten: float = 0.45, base: str = "cividis") -> Colormap:
    """The background colormap: *base* blended towards white by *lighten*.

    Blending with white keeps the lightness monotonic (so the map stays
    perceptually ordered and readable in greyscale) while leaving room for
    the points' colours to stand out. ``lighten=0`` gives *base* itself.

    Parameters
    ----------
    lighten : float, default 0.45
        Share of white in the blend, in [0, 1).
    base : str, default "cividis"
        A matplotlib colormap name (cividis and viridis are colour-blind safe).

    Returns
    -------
    matplotlib.colors.Colormap

    Examples
    --------
    >>> cm = background_cmap()
    >>> cm.name
    'cividis_light'
    >>> background_cmap(0.0)(1.0) == mpl.colormaps["cividis"](1.0)
    True
    """
    if not 0 <= lighten < 1:
        raise InputError(f"lighten must lie in [0, 1), got {lighten!r}")
    cm = mpl.colormaps[base]
    if lighten == 0:
        return cm
    rgba = cm(np.linspace(0.0, 1.0, 256))
    rgba[:, :3] = (1.0 - lighten) * rgba[:, :3] + lighten
    return LinearSegmentedColormap.from_list(f"{base}_light", rgba)


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
    >>> from rrmap.figures import plot_rrmap, panel_artists
    >>> drawn = panel_artists(plot_rrmap())
    >>> drawn.zones["fair"].get_xy()[:3].tolist()
    [[-2.0, 0.6666666666666666], [2.0, 0.6666666666666666], [2.0, 1.5]]
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
    >>> from rrmap.figures import plot_rrmap, panel_artists
    >>> ax = plot_rrmap(rrmap.points(rrmap.datasets.load_example_ratings()), color="movement")
    >>> drawn = panel_artists(ax)
    >>> sorted(drawn.zones), drawn.n_points
    (['fair', 'stereotype'], 405)
    >>> plt.close("all")
    """
    out = PanelArtists(ax=ax)
    meta = getattr(ax, "_rrmap_panel", {})
    out.colorbar = meta.get("colorbar")
    out.legend = meta.get("legend")
    out.n_clipped = meta.get("n_clipped", 0)
    out.n_points = meta.get("n_points", 0)
    for art in ax.get_children():
        gid = art.get_gid() or ""
        if not gid.startswith(_GID + "."):
            continue
        kind, _, name = gid[len(_GID) + 1 :].partition(".")
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


def _thresholds_of(points: pd.DataFrame | None, thresholds: Thresholds | None) -> Thresholds:
    if thresholds is not None:
        return thresholds
    if points is not None:
        recorded = points.attrs.get("rrmap", {}).get("thresholds")
        if recorded:
            return Thresholds(**recorded)
    return Thresholds()


def _check_points(points: pd.DataFrame, columns: Sequence[str | None]) -> None:
    if not isinstance(points, pd.DataFrame):
        raise InputError(f"points must be a DataFrame (from rrmap.points), got {type(points)}")
    missing = [c for c in ("delta", "r", *columns) if c is not None and c not in points.columns]
    if missing:
        raise InputError(
            f"points have no column {', '.join(map(repr, missing))}; "
            f"available: {', '.join(map(str, points.columns))}"
        )
    bad = ~np.isfinite(points[["delta", "r"]].to_numpy(dtype=float)).all(axis=1)
    if bad.any():
        rows = points.index[bad].tolist()
        raise InputError(
            f"{int(bad.sum())} points have a non-finite delta or r (rows {rows[:20]}"
            f"{' ...' if len(rows) > 20 else ''}); they cannot be placed on the map"
        )


def _levels(values: pd.Series, order: Sequence[Any] | None) -> list[Any]:
    if order is not None:
        missing = sorted(set(values.dropna().unique()) - set(order), key=str)
        if missing:
            raise InputError(f"order leaves out the values {missing} of column {values.name!r}")
        return list(order)
    if isinstance(values.dtype, pd.CategoricalDtype):
        present = set(values.dropna().unique())
        return [c for c in values.cat.categories if c in present]
    return sorted(values.dropna().unique(), key=str)


def _style_map(
    levels: Sequence[Any],
    palette: Sequence[str] | Mapping[Any, str] | None,
    markers: Sequence[str] | Mapping[Any, str] | None,
    column: str | None,
) -> dict[Any, tuple[str, str]]:
    if palette is None:
        if column == "quality" and set(levels) <= set(QUALITY_LEVELS):
            palette = QUALITY_COLORS
        elif len(levels) <= len(OKABE_ITO):
            palette = OKABE_ITO
        else:
            palette = [mpl.colors.to_hex(c) for c in mpl.colormaps["tab20"].colors]
    if markers is None:
        markers = MARKERS
    out = {}
    for i, level in enumerate(levels):
        col = palette[level] if isinstance(palette, Mapping) else palette[i % len(palette)]
        mk = markers[level] if isinstance(markers, Mapping) else markers[i % len(markers)]
        out[level] = (col, mk)
    return out


def _legend_handles(
    styles: Mapping[Any, tuple[str, str]], size: float, n_clipped: int | None, clip: bool
) -> list[Line2D]:
    ms = math.sqrt(size)
    handles = [
        Line2D(
            [],
            [],
            linestyle="none",
            marker=mk,
            markerfacecolor=col,
            markeredgecolor="black",
            markeredgewidth=0.4,
            markersize=ms,
            label=str(level),
        )
        for level, (col, mk) in styles.items()
    ]
    if n_clipped is None or n_clipped > 0:
        what = "clipped to the edge" if clip else "outside the view (not shown)"
        count = "" if n_clipped is None else f" ({n_clipped})"
        handles.append(
            Line2D(
                [],
                [],
                linestyle="none",
                marker=">" if clip else "none",
                markerfacecolor="0.6",
                markeredgecolor="black",
                markeredgewidth=0.4,
                markersize=ms * 1.15,
                label=what + count,
            )
        )
    return handles


def _draw_background(
    ax: Axes,
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    cmap: str | Colormap | None,
    resolution: int,
) -> AxesImage:
    _, _, bc = _bc_grid(xlim, ylim, resolution)
    im = ax.imshow(
        bc,
        origin="lower",
        extent=(*xlim, *ylim),
        aspect="auto",
        cmap=background_cmap() if cmap is None else cmap,
        vmin=0.0,
        vmax=1.0,
        interpolation="none",
        zorder=0,
        gid=f"{_GID}.background",
    )
    im.set_rasterized(True)
    return im


def _draw_zones(ax: Axes, th: Thresholds) -> NDArray[np.float64]:
    line_kw = {"fill": False, "linewidth": 1.0, "zorder": 2, "joinstyle": "miter"}
    rects = _zone_rectangles(th)
    for name, style in (("stereotype", "--"), ("fair", "-")):
        ax.add_patch(
            Polygon(
                rects[name],
                closed=True,
                edgecolor="black",
                linestyle=style,
                gid=f"{_GID}.zone.{name}",
                **line_kw,
            )
        )
    curve = _bc_contour(th.excellent_bc)
    ax.plot(
        curve[:, 0],
        curve[:, 1],
        color="black",
        linewidth=1.0,
        zorder=2,
        gid=f"{_GID}.excellent",
    )
    return curve


_BOX = {"boxstyle": "round,pad=0.12", "facecolor": "white", "edgecolor": "none", "alpha": 0.75}


def _draw_labels(
    ax: Axes,
    th: Thresholds,
    curve: NDArray[np.float64] | None,
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    references: bool,
) -> None:
    """Zone names inside their zones; the excellent zone and reference points labelled
    from the right of the Δ band, with thin leader lines, away from the crowded centre."""
    d, s, f = th.delta_bound, th.stereotype_r, th.fair_r
    text_kw = {"fontsize": "x-small", "zorder": 3.6, "bbox": _BOX}
    pad_x = 0.015 * (xlim[1] - xlim[0])
    pad_y = 0.012 * (ylim[1] - ylim[0])
    if curve is not None:
        for name, top in (("stereotype", s), ("fair", f)):
            if ylim[0] < top <= ylim[1] and xlim[0] < -d:
                ax.text(
                    -d + pad_x,
                    top - pad_y,
                    name,
                    ha="left",
                    va="top",
                    gid=f"{_GID}.label.{name}",
                    **text_kw,
                )
        ax.text(
            0.015,
            0.985,
            "bad",
            transform=ax.transAxes,
            ha="left",
            va="top",
            gid=f"{_GID}.label.bad",
            **text_kw,
        )
    side_x = min(d, xlim[1]) + 0.06 * (xlim[1] - xlim[0])
    arrow = {"arrowstyle": "-", "linewidth": 0.5, "color": "black", "shrinkA": 0, "shrinkB": 2}
    notes = []
    if curve is not None:
        k = int(np.argmin(np.abs(curve[:, 1] - 1.2) + (curve[:, 0] < 0)))
        notes.append(("excellent", (curve[k, 0], curve[k, 1]), f + 0.12, "excellent"))
    if references:
        notes.append(("alignment", (0.0, 1.0), 1.0, "perfect\nalignment"))
        notes.append(("stereotype_point", (0.0, 0.0), 0.12, "perfect\nstereotype"))
    for name, xy, y_text, text in notes:
        if not (ylim[0] <= xy[1] <= ylim[1] and ylim[0] <= y_text <= ylim[1]):
            continue
        ax.annotate(
            text,
            xy,
            xytext=(side_x, y_text),
            ha="left",
            va="center",
            arrowprops=arrow,
            annotation_clip=False,
            gid=f"{_GID}.label.{name}",
            **text_kw,
        )


def _draw_references(ax: Axes, ylim: tuple[float, float], xlim: tuple[float, float]) -> None:
    refs = {"alignment": (0.0, 1.0), "stereotype": (0.0, 0.0)}
    for name, (x, y) in refs.items():
        if not (xlim[0] <= x <= xlim[1] and ylim[0] <= y <= ylim[1]):
            continue
        ax.scatter(
            [x],
            [y],
            marker="*",
            s=120,
            facecolor="white",
            edgecolor="black",
            linewidth=0.7,
            zorder=2.8,
            clip_on=False,
            gid=f"{_GID}.reference.{name}",
        )


def plot_rrmap(
    points: pd.DataFrame | None = None,
    color: str | None = None,
    *,
    ax: Axes | None = None,
    thresholds: Thresholds | None = None,
    xlim: tuple[float, float] = DEFAULT_XLIM,
    ylim: tuple[float, float] = DEFAULT_YLIM,
    order: Sequence[Any] | None = None,
    palette: Sequence[str] | Mapping[Any, str] | None = None,
    markers: Sequence[str] | Mapping[Any, str] | None = None,
    size: float = 22.0,
    alpha: float = 0.85,
    background: bool = True,
    cmap: str | Colormap | None = None,
    colorbar: bool = True,
    zones: bool = True,
    labels: bool = True,
    references: bool = True,
    clip: bool = True,
    legend: bool = True,
    resolution: int = 400,
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
        Where to draw; a new figure if omitted.
    thresholds : Thresholds, optional
        Zone thresholds; default those recorded in ``points.attrs`` (else the paper's).
    xlim, ylim : (float, float)
        The view, default Δ ∈ [−4, 4], R ∈ [0, 2.5].
    order : sequence, optional
        Options of *color* in legend order (pass the same order to every panel
        of a figure so colours agree); default the categorical order, else sorted.
    palette : sequence or mapping of colours, optional
        Default Okabe–Ito (colour-blind safe); :data:`QUALITY_COLORS` for ``quality``.
    markers : sequence or mapping of marker codes, optional
        Default :data:`MARKERS`.
    size : float, default 22
        Marker area in points².
    alpha : float, default 0.85
        Point opacity.
    background, zones, labels, references, legend : bool, default True
        Draw the BC raster, the zone outlines, the labels of zones and
        reference points, the reference points (0, 1) and (0, 0), the legend.
    cmap : str or Colormap, optional
        Background colormap, default :func:`background_cmap` (a lightened cividis).
    colorbar : bool, default True
        Add a colorbar for BC beside *ax*.
    clip : bool, default True
        Move points beyond the view onto its edge, drawn as arrowheads pointing
        outwards and counted in the legend. With ``False`` they are left out
        of the view and the legend says how many.
    resolution : int, default 400
        Cells of the background grid along each side.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on; :func:`panel_artists` lists what was drawn.

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.figures import plot_rrmap, panel_artists
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> ax = plot_rrmap(pts[pts.expert == "E1"], color="movement")
    >>> panel_artists(ax).n_clipped
    2
    >>> ax.figure.savefig("/tmp/rrmap_E1.pdf")  # doctest: +SKIP
    >>> plt.close("all")
    """
    xlim, ylim = _check_limits(xlim, ylim)
    if points is not None:
        _check_points(points, [color])
    th = _thresholds_of(points, thresholds)
    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 4.4), layout="constrained")
    meta: dict[str, Any] = {}
    if background:
        im = _draw_background(ax, xlim, ylim, cmap, resolution)
        if colorbar:
            cb = ax.figure.colorbar(
                im,
                ax=ax,
                location="bottom",
                label=_LABELS["bc"],
                fraction=0.04,
                pad=0.03,
                aspect=40,
            )
            cb.solids.set_rasterized(True)
            meta["colorbar"] = cb
    curve = _draw_zones(ax, th) if zones else None
    if references:
        _draw_references(ax, ylim, xlim)
    if labels:
        _draw_labels(ax, th, curve, xlim, ylim, references)

    handles: list[Line2D] = []
    if points is not None:
        if color is None:
            levels: list[Any] = ["points"]
            keys = np.zeros(len(points), dtype=int)
            styles = _style_map(levels, palette or ["#0072B2"], markers, None)
        else:
            levels = _levels(points[color], order)
            styles = _style_map(levels, palette, markers, color)
            keys = pd.Index(levels).get_indexer(points[color].to_numpy(dtype=object))
        placed = _clip_to_view(points["delta"], points["r"], xlim, ylim)
        inside = ~placed.clipped
        for i, level in enumerate(levels):
            col, mk = styles[level]
            sel = inside & (keys == i)
            ax.scatter(
                placed.x[sel],
                placed.y[sel],
                s=size,
                marker=mk,
                color=col,
                edgecolors="black",
                linewidths=0.4,
                alpha=alpha,
                zorder=3,
                gid=f"{_GID}.points.{level}",
                label=str(level),
            )
        n_clipped = int(placed.clipped.sum())
        if clip:
            colors = np.array([styles[lv][0] for lv in levels], dtype=object)
            for direction in (">", "<", "^", "v"):
                sel = placed.direction == direction
                if not sel.any():
                    continue
                ax.scatter(
                    placed.x[sel],
                    placed.y[sel],
                    s=size * 1.6,
                    marker=direction,
                    color=list(colors[keys[sel]]),
                    edgecolors="black",
                    linewidths=0.5,
                    zorder=3.5,
                    clip_on=False,
                    gid=f"{_GID}.clipped.{direction}",
                )
        meta["n_clipped"] = n_clipped
        meta["n_points"] = len(points) if clip else int(inside.sum())
        show_levels = styles if color is not None else {}
        handles = _legend_handles(show_levels, size, n_clipped, clip)
    if legend and handles:
        meta["legend"] = ax.legend(
            handles=handles,
            title=color,
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            borderaxespad=0.0,
        )
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_xlabel(_LABELS["x"])
    ax.set_ylabel(_LABELS["y"])
    ax._rrmap_panel = meta  # read back by panel_artists
    return ax


def _rater_levels(points: pd.DataFrame, rater: str) -> list[Any]:
    return _levels(points[rater], None)


def _panel_title(name: Any, n: int, n_clipped: int, clip: bool) -> str:
    out = f"{name} (n = {n}"
    if n_clipped:
        out += f", {n_clipped} {'clipped' if clip else 'outside'}"
    return out + ")"


def plot_rrmap_by_rater(
    points: pd.DataFrame,
    color: str | None = None,
    *,
    rater: str = "expert",
    ncols: int | None = None,
    panel_size: tuple[float, float] = (2.6, 2.4),
    order: Sequence[Any] | None = None,
    clip: bool = True,
    **panel_kw: Any,
) -> Figure:
    """One RRMap panel per rater, sharing axes, colours, colorbar and legend (paper Fig. 4).

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    color : str, optional
        Column colouring the points (same colours in every panel).
    rater : str, default "expert"
        Column naming the raters, one panel each.
    ncols : int, optional
        Panels per row (default all in one row, up to 4).
    panel_size : (float, float)
        Width and height of one panel in inches.
    order : sequence, optional
        Option order of *color*.
    clip : bool, default True
        See :func:`plot_rrmap`; each panel title says how many were clipped.
    **panel_kw
        Passed to :func:`plot_rrmap` (``xlim``, ``ylim``, ``thresholds``, ``palette``...).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.figures import plot_rrmap_by_rater
    >>> fig = plot_rrmap_by_rater(rrmap.points(rrmap.datasets.load_example_ratings()), "movement")
    >>> [ax.get_title() for ax in fig.axes[:3]]
    ['E1 (n = 135, 2 clipped)', 'E2 (n = 135, 12 clipped)', 'E3 (n = 135, 28 clipped)']
    >>> plt.close(fig)
    """
    _check_points(points, [color, rater])
    raters = _rater_levels(points, rater)
    n = len(raters)
    ncols = ncols or min(n, 4)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(panel_size[0] * ncols + 1.0, panel_size[1] * nrows + 0.7),
        layout="constrained",
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    levels = _levels(points[color], order) if color is not None else None
    total_clipped = 0
    labels = panel_kw.pop("labels", True)
    for k, (ax, name) in enumerate(zip(axes.flat, raters, strict=False)):
        sub = points[points[rater] == name]
        plot_rrmap(
            sub,
            color,
            ax=ax,
            order=levels,
            colorbar=False,
            legend=False,
            clip=clip,
            labels=labels and k == 0,
            **panel_kw,
        )
        drawn = panel_artists(ax)
        total_clipped += drawn.n_clipped
        ax.set_title(_panel_title(name, len(sub), drawn.n_clipped, clip))
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    fig.get_layout_engine().set(wspace=0.07)
    for ax in axes.flat:
        ax.label_outer()
    _finish_figure(fig, axes, points, color, levels, total_clipped, clip, panel_kw)
    return fig


def _finish_figure(
    fig: Figure,
    axes: np.ndarray,
    points: pd.DataFrame,
    color: str | None,
    levels: list[Any] | None,
    total_clipped: int,
    clip: bool,
    panel_kw: Mapping[str, Any],
) -> None:
    first = panel_artists(axes.flat[0])
    if first.background is not None:
        cb = fig.colorbar(
            first.background, ax=axes, label=_LABELS["bc"], shrink=0.9, fraction=0.04, pad=0.01
        )
        cb.solids.set_rasterized(True)
    styles = (
        _style_map(levels, panel_kw.get("palette"), panel_kw.get("markers"), color)
        if levels is not None
        else {}
    )
    handles = _legend_handles(
        styles, panel_kw.get("size", 22.0), None if total_clipped else 0, clip
    )
    if handles:
        fig.legend(
            handles=handles,
            title=color,
            loc="outside lower center",
            ncols=min(len(handles), 6),
        )


def plot_rrmap_grid(
    points: pd.DataFrame,
    categories: Sequence[str] | None = None,
    *,
    rater: str = "expert",
    max_options: int = 12,
    panel_size: tuple[float, float] = (2.3, 2.0),
    clip: bool = True,
    **panel_kw: Any,
) -> Figure:
    """Raters as columns × categories as rows, points coloured by option (paper Fig. 5).

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    categories : sequence of str, optional
        One row per category column. Default: the categories recorded in
        ``points.attrs`` with at most *max_options* options (the study:
        movement, criterion, criterion_group, modality; ``modality_name``
        with its 15 options is left out — pass it explicitly to draw it).
    rater : str, default "expert"
        Column naming the raters, one column of panels each.
    max_options : int, default 12
        Largest number of options of a default row category.
    panel_size : (float, float)
        Width and height of one panel in inches.
    clip : bool, default True
        See :func:`plot_rrmap`; panel titles count clipped points.
    **panel_kw
        Passed to :func:`plot_rrmap`.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.figures import plot_rrmap_grid
    >>> fig = plot_rrmap_grid(rrmap.points(rrmap.datasets.load_example_ratings()))
    >>> [ax.get_legend().get_title().get_text() for ax in fig.axes if ax.get_legend()]
    ['movement', 'criterion', 'criterion_group', 'modality']
    >>> plt.close(fig)
    """
    _check_points(points, [rater, *(categories or [])])
    if categories is None:
        recorded = points.attrs.get("rrmap", {}).get("categories")
        candidates = recorded or [
            c
            for c in points.columns
            if points[c].dtype == object or pd.api.types.is_string_dtype(points[c])
        ]
        categories = [
            c
            for c in candidates
            if c != rater and c in points and points[c].nunique() <= max_options
        ]
    if not categories:
        raise InputError("no category column to draw rows for; pass categories=[...]")
    raters = _rater_levels(points, rater)
    nrows, ncols = len(categories), len(raters)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(panel_size[0] * ncols + 2.6, panel_size[1] * nrows + 0.9),
        layout="constrained",
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    fig.get_layout_engine().set(wspace=0.07, hspace=0.05)
    clipped_any = False
    for i, cat in enumerate(categories):
        levels = _levels(points[cat], None)
        for j, name in enumerate(raters):
            ax = axes[i, j]
            sub = points[points[rater] == name]
            plot_rrmap(
                sub,
                cat,
                ax=ax,
                order=levels,
                colorbar=False,
                legend=False,
                labels=False,
                references=True,
                clip=clip,
                **panel_kw,
            )
            drawn = panel_artists(ax)
            clipped_any |= drawn.n_clipped > 0
            if i == 0:
                ax.set_title(_panel_title(name, len(sub), drawn.n_clipped, clip))
            elif drawn.n_clipped:
                ax.text(
                    0.98,
                    0.97,
                    f"{drawn.n_clipped} {'clipped' if clip else 'outside'}",
                    transform=ax.transAxes,
                    ha="right",
                    va="top",
                    fontsize="x-small",
                )
        styles = _style_map(levels, panel_kw.get("palette"), panel_kw.get("markers"), cat)
        handles = _legend_handles(styles, panel_kw.get("size", 22.0), 0, clip)
        axes[i, -1].legend(
            handles=handles,
            title=cat,
            loc="center left",
            bbox_to_anchor=(1.05, 0.5),
            ncols=1 if len(handles) <= 10 else 2,
            borderaxespad=0.0,
        )
    for ax in axes.flat:
        ax.label_outer()
    first = panel_artists(axes.flat[0])
    if first.background is not None:
        cb = fig.colorbar(
            first.background,
            ax=axes,
            location="bottom",
            label=_LABELS["bc"],
            shrink=0.5,
            fraction=0.03,
            pad=0.02,
        )
        cb.solids.set_rasterized(True)
    if clipped_any and clip:
        fig.text(
            0.01,
            0.005,
            "▶ points beyond the view, clipped to its edge",
            fontsize="small",
            ha="left",
            va="bottom",
        )
    return fig


def example_interval_pairs() -> pd.DataFrame:
    """The nine interval pairs of paper Fig. 2: reference [30, 50], query shifted/scaled.

    Rows: query dilated (width 40), same width, compressed (width 10);
    columns: shifted by −5, not shifted, shifted by +5 rating points. On the
    RRMap they give 1 excellent, 2 fair, 3 stereotype and 3 bad points, the
    paper's "1/9 Excel., 2/9 Fair, 3/9 Stereo., 3/9 Bad".

    Returns
    -------
    DataFrame
        Columns ``label``, ``low_ref``, ``high_ref``, ``low_query``, ``high_query``.

    Examples
    --------
    >>> pairs = example_interval_pairs()
    >>> pairs.loc[4, "label"], pairs.loc[4, ["low_query", "high_query"]].tolist()
    ('same width, centred', [30.0, 50.0])
    """
    rows = []
    for width, wname in ((40.0, "dilated"), (20.0, "same width"), (10.0, "compressed")):
        for shift, sname in ((-5.0, "shifted down"), (0.0, "centred"), (5.0, "shifted up")):
            centre = 40.0 + shift
            rows.append(
                {
                    "label": f"{wname}, {sname}",
                    "low_ref": 30.0,
                    "high_ref": 50.0,
                    "low_query": centre - width / 2,
                    "high_query": centre + width / 2,
                }
            )
    return pd.DataFrame(rows)


def _pairs_frame(pairs: pd.DataFrame | Sequence[Any] | None) -> pd.DataFrame:
    if pairs is None:
        return example_interval_pairs()
    if isinstance(pairs, pd.DataFrame):
        need = ["low_ref", "high_ref", "low_query", "high_query"]
        missing = [c for c in need if c not in pairs.columns]
        if missing:
            raise InputError(f"interval pairs have no column {', '.join(map(repr, missing))}")
        out = pairs.reset_index(drop=True).copy()
    else:
        rows = []
        problems = []
        for i, pair in enumerate(pairs):
            try:
                (a1, b1), (a2, b2) = pair
                rows.append({"low_ref": a1, "high_ref": b1, "low_query": a2, "high_query": b2})
            except (TypeError, ValueError):
                problems.append(f"pair {i + 1}: {pair!r} is not ((low, high), (low, high))")
        if problems:
            raise InputError("; ".join(problems))
        out = pd.DataFrame(rows, columns=["low_ref", "high_ref", "low_query", "high_query"])
    if out.empty:
        raise InputError("no interval pairs given")
    if "label" not in out:
        out["label"] = [f"pair {i + 1}" for i in range(len(out))]
    cols = ["low_ref", "high_ref", "low_query", "high_query"]
    for col in cols:
        out[col] = pd.to_numeric(out[col], errors="coerce")
    vals = out[cols].to_numpy(dtype=float)
    bad = ~((vals[:, 1] > vals[:, 0]) & (vals[:, 3] > vals[:, 2]) & np.isfinite(vals).all(axis=1))
    if bad.any():
        raise InputError(
            "intervals need finite numbers with low < high; not so in pair(s) "
            + ", ".join(str(i + 1) for i in np.flatnonzero(bad))
        )
    return out


def plot_interval_examples(
    pairs: pd.DataFrame | Sequence[Any] | None = None,
    *,
    gaussians: bool = False,
    ncols: int | None = None,
    coverage: float = 0.95,
    z: float | None = None,
    thresholds: Thresholds | None = None,
    xlim: tuple[float, float] = DEFAULT_XLIM,
    ylim: tuple[float, float] = DEFAULT_YLIM,
    figsize: tuple[float, float] = (9.0, 4.2),
) -> Figure:
    """Example intervals beside their points on the RRMap (paper Fig. 2).

    Left, one small panel per pair: the reference interval (grey) and the
    query interval (coloured by its quality zone), as bars or, with
    ``gaussians=True``, as the normal densities they stand for. Right, the
    RRMap with each pair's point numbered like its panel.

    Parameters
    ----------
    pairs : DataFrame or sequence of ((low, high), (low, high)), optional
        Reference and query intervals; a DataFrame needs ``low_ref``,
        ``high_ref``, ``low_query``, ``high_query`` (and may have ``label``).
        Default :func:`example_interval_pairs` (the paper's nine).
    gaussians : bool, default False
        Draw the Gaussians instead of the intervals.
    ncols : int, optional
        Columns of the small panels (default ⌈√n⌉).
    coverage, z : float
        Interval → Gaussian convention (see :func:`rrmap.interval_to_gaussian`).
    thresholds : Thresholds, optional
        Zone thresholds.
    xlim, ylim : (float, float)
        View of the RRMap.
    figsize : (float, float)
        Figure size in inches.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from rrmap.figures import plot_interval_examples
    >>> fig = plot_interval_examples([((30, 50), (35, 45)), ((30, 50), (20, 60))])
    >>> len(fig.subfigs[0].axes)
    2
    >>> plt.close(fig)
    """
    df = _pairs_frame(pairs)
    th = thresholds or Thresholds()
    m1, s1 = interval_to_gaussian(df["low_ref"], df["high_ref"], coverage=coverage, z=z)
    m2, s2 = interval_to_gaussian(df["low_query"], df["high_query"], coverage=coverage, z=z)
    delta, r, bc = compare(m1, s1, m2, s2)
    pts = df.assign(delta=delta, r=r, bc=bc, quality=classify(delta, r, bc, th))
    pts["number"] = np.arange(1, len(pts) + 1)
    n = len(pts)
    ncols = ncols or math.ceil(math.sqrt(n))
    nrows = math.ceil(n / ncols)

    fig = plt.figure(figsize=figsize, layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=[1.0, 1.25])
    small = left.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
    lo = float(min(df["low_ref"].min(), df["low_query"].min()))
    hi = float(max(df["high_ref"].max(), df["high_query"].max()))
    pad = 0.08 * (hi - lo)
    grid_x = np.linspace(lo - pad, hi + pad, 300)
    for k, ax in enumerate(small.flat):
        if k >= n:
            ax.set_visible(False)
            continue
        row = pts.iloc[k]
        qcol = QUALITY_COLORS[str(row["quality"])]
        if gaussians:
            for m, s, col, lw in ((m1[k], s1[k], "0.45", 1.0), (m2[k], s2[k], qcol, 1.6)):
                dens = np.exp(-0.5 * ((grid_x - m) / s) ** 2) / (s * math.sqrt(2 * math.pi))
                ax.plot(grid_x, dens, color=col, linewidth=lw)
                ax.fill_between(grid_x, dens, color=col, alpha=0.15, linewidth=0)
            ax.set_yticks([])
        else:
            ax.hlines(1, row["low_ref"], row["high_ref"], color="0.45", linewidth=4)
            ax.hlines(0, row["low_query"], row["high_query"], color=qcol, linewidth=4)
            ax.set_ylim(-0.8, 1.8)
            ax.set_yticks([0, 1], ["query", "ref."])
        ax.set_title(f"{row['number']}", fontsize="small", fontweight="bold", pad=2)
        ax.tick_params(labelsize="x-small")
    small.flat[0].set_xlim(lo - pad, hi + pad)
    for ax in small[-1, :]:
        ax.set_xlabel("rating", fontsize="small")
    left.suptitle("(a) reference (grey) and query ratings", fontsize="medium")

    ax = right.subplots()
    plot_rrmap(pts, "quality", ax=ax, thresholds=th, xlim=xlim, ylim=ylim, size=40.0, legend=False)
    for _, row in pts.iterrows():
        x = float(np.clip(row["delta"], *xlim))
        y = float(np.clip(row["r"], *ylim))
        ax.annotate(
            str(row["number"]),
            (x, y),
            xytext=(5, 4),
            textcoords="offset points",
            fontsize="small",
            fontweight="bold",
            zorder=5,
        )
    styles = _style_map(
        [q for q in QUALITY_LEVELS if q in set(pts["quality"].astype(str))], None, None, "quality"
    )
    ax.legend(
        handles=_legend_handles(styles, 40.0, panel_artists(ax).n_clipped, True),
        loc="upper right",
        fontsize="x-small",
        framealpha=0.85,
        frameon=True,
    )
    right.suptitle("(b) their points on the RRMap", fontsize="medium")
    return fig


def save_analysis_figures(
    points: pd.DataFrame,
    folder: str | Path,
    *,
    color: str | None = None,
    rater: str = "expert",
    categories: Sequence[str] | None = None,
    formats: Sequence[str] = ("pdf", "png"),
    dpi: int = 200,
) -> list[Path]:
    """Write the per-rater and the grid figures of an analysis (paper style).

    Files: ``rrmap_by_rater.<fmt>`` and ``rrmap_grid.<fmt>`` for each format,
    drawn with the ``rrmap-paper`` style (text kept as text in PDF/SVG, the
    background as an embedded raster). Existing files are replaced; figures
    are closed after saving.

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
        Rows of the grid figure (see :func:`plot_rrmap_grid`).
    formats : sequence of str, default ("pdf", "png")
        File formats (``pdf``, ``svg``, ``png``...).
    dpi : int, default 200
        Resolution of raster formats.

    Returns
    -------
    list of Path
        The files written.

    Examples
    --------
    >>> import rrmap, tempfile
    >>> from rrmap.figures import save_analysis_figures
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> files = save_analysis_figures(pts, tempfile.mkdtemp())  # doctest: +SKIP
    >>> [f.name for f in files]  # doctest: +SKIP
    ['rrmap_by_rater.pdf', 'rrmap_by_rater.png', 'rrmap_grid.pdf', 'rrmap_grid.png']
    """
    from rrmap.styles import PAPER_STYLE

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if color is None:
        cats = points.attrs.get("rrmap", {}).get("categories") or []
        color = cats[0] if cats else None
    written: list[Path] = []
    with plt.style.context(PAPER_STYLE):
        makers = {
            "rrmap_by_rater": lambda: plot_rrmap_by_rater(points, color, rater=rater),
            "rrmap_grid": lambda: plot_rrmap_grid(points, categories, rater=rater),
        }
        for stem, make in makers.items():
            fig = make()
            try:
                for fmt in formats:
                    path = folder / f"{stem}.{fmt}"
                    fig.savefig(path, dpi=dpi)
                    written.append(path)
            finally:
                plt.close(fig)
    return written
