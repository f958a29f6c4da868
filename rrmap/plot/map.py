"""One RRMap panel with matplotlib (docs/figures.md).

:func:`plot_rrmap` draws one RRMap panel on an Axes: the Bhattacharyya
coefficient as background (with a colorbar), the stereotype and fair
rectangles, the BC = 0.98 curve of the excellent zone, zone labels, the
reference points (0, 1) "perfect alignment" and (0, 0) "perfect stereotype",
and the points coloured (and shaped) by a category. Points beyond the view
are moved onto its edge and drawn as arrowheads pointing outwards; their
number is in the legend. Every element carries a ``gid`` (also the element
id in SVG files) and :func:`panel_artists` returns them. Whole figures of
panels are in :mod:`rrmap.plot.layouts` and :mod:`rrmap.plot.intervals`.
Nothing here calls ``show()``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.colorbar import Colorbar
from matplotlib.colors import Colormap, LinearSegmentedColormap
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon
from matplotlib.text import Text
from numpy.typing import NDArray

from rrmap.errors import InputError
from rrmap.plot._geometry import (
    DEFAULT_XLIM,
    DEFAULT_YLIM,
    _bc_contour,
    _bc_grid,
    _check_limits,
    _clip_to_view,
    _zone_rectangles,
)
from rrmap.zones import QUALITY_LEVELS, Thresholds

__all__ = [
    "DEFAULT_XLIM",
    "DEFAULT_YLIM",
    "MARKERS",
    "OKABE_ITO",
    "QUALITY_COLORS",
    "PanelArtists",
    "background_cmap",
    "panel_artists",
    "plot_rrmap",
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
    >>> from rrmap.plot import plot_rrmap, panel_artists
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
    >>> from rrmap.plot import plot_rrmap, panel_artists
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
    >>> from rrmap.plot import plot_rrmap, panel_artists
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
