"""One RRMap panel drawn on an Axes: the drawing every matplotlib figure of rrmap shares.

:func:`draw_panel` draws the Bhattacharyya coefficient as background, the stereotype and
fair rectangles, the BC = 0.98 curve of the excellent zone, zone names, the reference
points (0, 1) and (0, 0), and the points coloured (and shaped) by a category, those
beyond the view moved onto its edge as arrowheads (:class:`PanelStyle` says how, from
the keywords of :func:`rrmap.plot.plot_rrmap`, :data:`PANEL_KEYWORDS`). Its caller adds
the colorbar and the legend: :func:`rrmap.plot.plot_rrmap` beside its one panel (or on
a user's Axes, :mod:`rrmap.plot.figures._user_axes`), the layouts under theirs.
:func:`record_panel` keeps what a panel drew beside its Axes (:class:`PanelRecord`),
read back by :func:`rrmap.plot.panel_artists`.

The plotnine and plotly figures check their points, order their options and name their
axes with the same functions (:func:`check_points`, :func:`levels_of`,
:func:`thresholds_of`, :func:`axis_name`, :func:`background_cmap`).

Examples
--------
>>> from matplotlib.figure import Figure
>>> ax = Figure().add_subplot()
>>> drawn = draw_panel(ax, None, None, panel_style({"resolution": 20}))
>>> record_panel(ax, drawn).n_points, panel_record(ax).colorbar
(0, None)
>>> sorted({a.get_gid().split(".")[1] for a in ax.get_children() if a.get_gid()})
['background', 'excellent', 'label', 'reference', 'zone']
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib import patheffects
from matplotlib.axes import Axes
from matplotlib.colorbar import Colorbar
from matplotlib.colors import Colormap, LinearSegmentedColormap
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon
from matplotlib.transforms import ScaledTranslation
from numpy.typing import NDArray

from rrmap.errors import InputError
from rrmap.plot.base._keywords import check_keywords
from rrmap.plot.base._raster import BackgroundImage
from rrmap.plot.base._style import dense_alpha, figure_text, option_label, style_map, title
from rrmap.plot.base.geometry import (
    DEFAULT_XLIM,
    DEFAULT_YLIM,
    bc_contour,
    bc_grid,
    check_limits,
    clip_to_view,
    zone_rectangles,
)
from rrmap.zones import Thresholds

__all__ = [
    "CLIPPED_GID",
    "GID",
    "PANEL_KEYWORDS",
    "DrawnPanel",
    "PanelRecord",
    "PanelStyle",
    "axis_label",
    "axis_name",
    "background_cmap",
    "check_points",
    "draw_panel",
    "legend_handles",
    "levels_of",
    "panel_record",
    "panel_style",
    "record_panel",
    "thresholds_of",
]

#: Prefix of the ``gid`` of every artist of a panel (``rrmap.zone.fair``, ...), also the
#: element ids of an SVG file.
GID = "rrmap"
#: gid of the legend entry counting the clipped points (told apart from the options by it,
#: never by its text: an option may be called "clipped").
CLIPPED_GID = "rrmap.legend.clipped"
#: Characters of an axis label renamed by ``labels=`` (beyond: "…").
_AXIS_LIMIT = 60
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


def thresholds_of(points: pd.DataFrame | None, thresholds: Thresholds | None) -> Thresholds:
    """The zone thresholds of a panel: *thresholds* if given, else those recorded in
    ``points.attrs`` by :func:`rrmap.points`, else the paper's.

    Examples
    --------
    >>> thresholds_of(None, None) == Thresholds()
    True
    """
    if thresholds is not None:
        return thresholds
    if points is not None:
        recorded = points.attrs.get("rrmap", {}).get("thresholds")
        if recorded:
            return Thresholds(**recorded)
    return Thresholds()


def check_points(points: pd.DataFrame, columns: Sequence[str | None]) -> None:
    """Refuse *points* that cannot be drawn: not a DataFrame, without ``delta``, ``r`` or
    one of *columns* (None: no column), or with a non-finite Δ or R (rows named).

    Examples
    --------
    >>> check_points(pd.DataFrame({"delta": [0.0], "r": [1.0]}), ["movement", None])
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: points have no column 'movement'; available: delta, r
    """
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


def levels_of(values: pd.Series, order: Sequence[Any] | None) -> list[Any]:
    """The options of *values* in legend order: *order* (which must hold every value), else
    the categorical order of those present, else sorted as text.

    Examples
    --------
    >>> levels_of(pd.Series(["b", "a", "b"]), None)
    ['a', 'b']
    >>> levels_of(pd.Series(["b", "a"], name="movement"), ["b"])
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: order leaves out the values ['a'] of column 'movement'
    """
    if order is not None:
        missing = sorted(set(values.dropna().unique()) - set(order), key=str)
        if missing:
            raise InputError(f"order leaves out the values {missing} of column {values.name!r}")
        return list(order)
    if isinstance(values.dtype, pd.CategoricalDtype):
        present = set(values.dropna().unique())
        return [c for c in values.cat.categories if c in present]
    return sorted(values.dropna().unique(), key=str)


def legend_handles(
    styles: Mapping[Any, tuple[str, str]],
    size: float,
    n_clipped: int | None,
    clip: bool,
    labels: Mapping[str, str] | None = None,
) -> list[Line2D]:
    """Legend entries of the options *styles* (option → colour, marker) of points of area
    *size*, and one counting the *n_clipped* points (None: not counted; none when 0).

    Examples
    --------
    >>> handles = legend_handles({"cubism": ("#0072B2", "o")}, 22.0, 2, True)
    >>> [h.get_label() for h in handles], handles[-1].get_gid() == CLIPPED_GID
    (['cubism', 'clipped to the edge (2)'], True)
    """
    ms = max(math.sqrt(size), 4.5)  # legible keys even for small points
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
            label=option_label(level, labels),
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
                gid=CLIPPED_GID,
            )
        )
    return handles


def _draw_background(
    ax: Axes,
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    cmap: str | Colormap | None,
    resolution: int,
    contour: bool = False,
) -> Any:
    """BC as a raster (one embedded image), or as ten filled contour bands (vector only,
    for formats such as EPS that store images uncompressed)."""
    cmap = background_cmap() if cmap is None else cmap
    if contour:
        # ten bands on a coarser grid: about 60 KB of PostScript per panel
        x, y, bc = bc_grid(xlim, ylim, min(resolution, 80))
        filled = ax.contourf(
            x, y, bc, levels=np.linspace(0.0, 1.0, 11), cmap=cmap, vmin=0.0, vmax=1.0, zorder=0
        )
        filled.set_gid(f"{GID}.background")
        return filled
    _, _, bc = bc_grid(xlim, ylim, resolution)
    # imshow(bc, aspect="auto", vmin=0, vmax=1), as an image a PDF embeds once for all panels;
    # not rasterized: PDF and SVG embed the grid's cells as they are (no resampling of the
    # whole page at the dpi), a third smaller and faster to write
    im = BackgroundImage(
        ax,
        cmap=cmap,
        origin="lower",
        extent=(*xlim, *ylim),
        interpolation="none",
        zorder=0,
        gid=f"{GID}.background",
    )
    ax.set_aspect("auto")
    im.set_data(bc)
    im.set_clim(0.0, 1.0)
    im.set_clip_path(ax.patch)
    im.set_extent(im.get_extent())
    ax.add_image(im)
    return im


#: Zone outlines, the excellent curve and the reference stars are drawn above the points
#: (zorder 3), each on a white halo, so that the dense centre never buries them.
_ABOVE = 3.6
_HALO = [patheffects.withStroke(linewidth=2.4, foreground="white")]


def _draw_zones(ax: Axes, th: Thresholds) -> NDArray[np.float64]:
    line_kw = {
        "fill": False,
        "linewidth": 0.9,
        "zorder": _ABOVE,
        "joinstyle": "miter",
        "path_effects": _HALO,
    }
    rects = zone_rectangles(th)
    for name, style in (("stereotype", "--"), ("fair", "-")):
        ax.add_patch(
            Polygon(
                rects[name],
                closed=True,
                edgecolor="black",
                linestyle=style,
                gid=f"{GID}.zone.{name}",
                **line_kw,
            )
        )
    curve = bc_contour(th.excellent_bc)
    ax.plot(
        curve[:, 0],
        curve[:, 1],
        color="black",
        linewidth=1.0,
        zorder=_ABOVE + 0.1,
        path_effects=_HALO,
        gid=f"{GID}.excellent",
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
    # under the points (zorder 3): a label never hides a point
    size = max(6.0, 0.8 * float(mpl.rcParams["font.size"]))
    text_kw = {"fontsize": size, "zorder": 2.6, "bbox": _BOX}
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
                    gid=f"{GID}.label.{name}",
                    **text_kw,
                )
        ax.text(
            0.015,
            0.985,
            "bad",
            transform=ax.transAxes,
            ha="left",
            va="top",
            gid=f"{GID}.label.bad",
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
            gid=f"{GID}.label.{name}",
            **text_kw,
        )


def _draw_references(
    ax: Axes, ylim: tuple[float, float], xlim: tuple[float, float], size: float = 120.0
) -> None:
    refs = {"alignment": (0.0, 1.0), "stereotype": (0.0, 0.0)}
    for name, (x, y) in refs.items():
        if not (xlim[0] <= x <= xlim[1] and ylim[0] <= y <= ylim[1]):
            continue
        ax.scatter(
            [x],
            [y],
            marker="*",
            s=size,
            facecolor="none",
            edgecolor="black",
            linewidth=0.9,
            zorder=4,  # above the points, hollow: the landmark and the points both show
            path_effects=_HALO,
            clip_on=False,
            gid=f"{GID}.reference.{name}",
        )


@dataclass
class PanelStyle:
    """How :func:`plot_rrmap` draws (the keywords every layout passes on to its panels).

    Examples
    --------
    >>> style = PanelStyle(zone_labels=False)
    >>> style.zone_labels, style.xlim == DEFAULT_XLIM, "cmap" in PANEL_KEYWORDS
    (False, True, True)
    """

    thresholds: Thresholds | None = None
    xlim: tuple[float, float] = DEFAULT_XLIM
    ylim: tuple[float, float] = DEFAULT_YLIM
    order: Sequence[Any] | None = None
    palette: Any = None
    markers: Any = None
    size: float = 22.0
    alpha: float | None = None
    background: bool | str = True
    cmap: str | Colormap | None = None
    zones: bool = True
    zone_labels: bool = True
    references: bool = True
    clip: bool = True
    resolution: int = 400
    labels: Mapping[str, str] | None = None


#: The keywords of :func:`plot_rrmap` that every layout passes on to its panels.
PANEL_KEYWORDS: tuple[str, ...] = tuple(PanelStyle.__dataclass_fields__)


def panel_style(kw: dict[str, Any]) -> PanelStyle:
    """The panel keywords of *kw* (popped) as a :class:`PanelStyle`; ``labels=True/False``
    is read as ``zone_labels``.

    Examples
    --------
    >>> kw = {"labels": False, "size": 10.0}
    >>> style = panel_style(kw)
    >>> style.zone_labels, style.size, kw
    (False, 10.0, {})
    >>> panel_style({"colour": "red"})
    Traceback (most recent call last):
    ...
    TypeError: plot_rrmap() got an unexpected keyword argument 'colour'; it accepts: ...
    """
    labels = kw.pop("labels", None)
    if isinstance(labels, bool):
        kw.setdefault("zone_labels", labels)
        labels = None
    elif labels is not None and not isinstance(labels, Mapping):
        raise InputError(f"labels must map names to display names, got {labels!r}")
    check_keywords("plot_rrmap", kw, PANEL_KEYWORDS)
    style = PanelStyle(**{k: kw.pop(k) for k in list(kw)}, labels=labels)
    style.xlim, style.ylim = check_limits(style.xlim, style.ylim)
    if style.background not in (True, False, "raster", "contour"):
        raise InputError(
            f"background must be True, False, 'raster' or 'contour', got {style.background!r}"
        )
    return style


def _draw_points(
    ax: Axes, points: pd.DataFrame, color: str | None, st: PanelStyle
) -> tuple[dict[Any, tuple[str, str]], int, int]:
    """The points, coloured and shaped by *color*, and the clipped ones as arrowheads.

    Returns the colour and marker of every option (empty without *color*), the points
    drawn and those clipped (:attr:`DrawnPanel.n_points`, :attr:`DrawnPanel.n_clipped`)."""
    if color is None:
        levels: list[Any] = ["points"]
        keys = np.zeros(len(points), dtype=int)
        styles = style_map(levels, st.palette or ["#0072B2"], st.markers, None)
    else:
        levels = levels_of(points[color], st.order)
        styles = style_map(levels, st.palette, st.markers, color, list(points.columns))
        keys = pd.Index(levels).get_indexer(points[color].to_numpy(dtype=object))
    placed = clip_to_view(points["delta"], points["r"], st.xlim, st.ylim)
    inside = ~placed.clipped
    alpha = st.alpha if st.alpha is not None else dense_alpha(int(inside.sum()))
    for i, level in enumerate(levels):
        col, mk = styles[level]
        sel = inside & (keys == i)
        ax.scatter(
            placed.x[sel],
            placed.y[sel],
            s=st.size,
            marker=mk,
            color=col,
            edgecolors="black",
            linewidths=0.4,
            alpha=alpha,
            zorder=3,
            gid=f"{GID}.points.{level}",
            label=option_label(level, st.labels),
        )
    if st.clip:
        _draw_clipped(ax, placed, [styles[lv][0] for lv in levels], keys, st.size * 1.6)
    n_points = len(points) if st.clip else int(inside.sum())
    return (styles if color is not None else {}), n_points, int(placed.clipped.sum())


def _draw_clipped(
    ax: Axes, placed: Any, colors: Sequence[str], keys: NDArray[np.intp], area: float
) -> None:
    """Arrowheads for points moved onto the edge, pointing outwards and drawn just inside
    the edge, so that they never run into a neighbouring panel or a title."""
    half = math.sqrt(area) / 2.0 + 0.4  # points from the marker's centre to its tip
    inward = {">": (-half, 0.0), "<": (half, 0.0), "^": (0.0, -half), "v": (0.0, half)}
    palette = np.array(colors, dtype=object)
    for direction, (dx, dy) in inward.items():
        sel = placed.direction == direction
        if not sel.any():
            continue
        shift = ScaledTranslation(dx / 72.0, dy / 72.0, ax.figure.dpi_scale_trans)
        ax.scatter(
            placed.x[sel],
            placed.y[sel],
            s=area,
            marker=direction,
            color=list(palette[keys[sel]]),
            edgecolors="black",
            linewidths=0.5,
            zorder=3.5,
            clip_on=False,
            transform=ax.transData + shift,
            gid=f"{GID}.clipped.{direction}",
        )


@dataclass(frozen=True)
class DrawnPanel:
    """What :func:`draw_panel` drew that its caller still places: the background (for a
    colorbar), the legend entries, and how many points were drawn and clipped.

    Examples
    --------
    >>> DrawnPanel().n_points, DrawnPanel().handles
    (0, ())
    """

    #: The BC background (an image, or filled contours), None without one.
    mappable: Any = None
    #: Legend entries of the options, and the one counting clipped points.
    handles: tuple[Line2D, ...] = ()
    #: Points drawn (inside the view plus clipped; only those inside with ``clip=False``).
    n_points: int = 0
    #: Points moved onto the edge of the view (or, with ``clip=False``, left out of it).
    n_clipped: int = 0
    #: The legend's title: the colour column as the user's file names it.
    title: str | None = None


def draw_panel(
    ax: Axes, points: pd.DataFrame | None, color: str | None, st: PanelStyle
) -> DrawnPanel:
    """Everything of one panel on *ax* but its colorbar and legend: the background, zones,
    references and zone names of style *st*, and *points* (if any) coloured by *color*.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> drawn = draw_panel(ax, pd.DataFrame({"delta": [0.0, 9.0], "r": [1.0, 1.0]}), None,
    ...                    panel_style({"resolution": 20}))
    >>> drawn.n_points, drawn.n_clipped, [h.get_label() for h in drawn.handles]
    (2, 1, ['clipped to the edge (1)'])
    """
    th = thresholds_of(points, st.thresholds)
    mappable = None
    if st.background:
        mappable = _draw_background(
            ax, st.xlim, st.ylim, st.cmap, st.resolution, st.background == "contour"
        )
    curve = _draw_zones(ax, th) if st.zones else None
    if st.references:
        _draw_references(ax, st.ylim, st.xlim, 3.5 * st.size)
    if st.zone_labels:
        _draw_labels(ax, th, curve, st.xlim, st.ylim, st.references)
    drawn = DrawnPanel(mappable)
    if points is not None:
        styles, n_points, n_clipped = _draw_points(ax, points, color, st)
        handles = legend_handles(styles, st.size, n_clipped, st.clip, st.labels)
        head = title(color, points, st.labels)
        drawn = DrawnPanel(mappable, tuple(handles), n_points, n_clipped, head)
    ax.set_xlim(*st.xlim)
    ax.set_ylim(*st.ylim)
    ax.set_xlabel(axis_label("delta", st.labels))
    ax.set_ylabel(axis_label("r", st.labels))
    return drawn


def axis_name(name: str, labels: Mapping[str, str] | None = None) -> str:
    """Name of ``delta``, ``r`` or ``bc`` (the colorbar); *labels* may rename them.

    Examples
    --------
    >>> axis_name("bc"), axis_name("delta", {"delta": "Δ"})
    ('Bhattacharyya coefficient', 'Δ')
    """
    if labels and name in labels:
        return str(labels[name])
    return _LABELS[{"delta": "x", "r": "y"}.get(name, name)]


def axis_label(name: str, labels: Mapping[str, str] | None = None) -> str:
    r""":func:`axis_name` as the plain text of a matplotlib axis label.

    Examples
    --------
    >>> print(axis_label("delta"), axis_label("r", {"r": "$R$"}))
    relative shift Δ \$R\$
    """
    return figure_text(axis_name(name, labels), _AXIS_LIMIT)


def _nothing() -> None:
    """The colorbar or legend of a panel that has none."""
    return None


@dataclass(frozen=True)
class PanelRecord:
    """What rrmap drew on one Axes besides the artists its ``gid`` names: how many points,
    how many of them were clipped, and the colorbar and legend it added for that panel
    (:func:`rrmap.plot.panel_artists` reads them).

    Kept by :func:`record_panel` beside the Axes, never on it. The colorbar and the legend
    are held weakly: each holds its Axes, and a record holding them would keep its figure
    alive as long as rrmap is loaded.

    Examples
    --------
    >>> PanelRecord(n_points=3).colorbar is None
    True
    """

    #: Points drawn (inside the view plus clipped; only those inside with ``clip=False``).
    n_points: int = 0
    #: Points moved onto the edge of the view (or, with ``clip=False``, left out of it).
    n_clipped: int = 0
    #: The colorbar added for the panel (a weak reference to it).
    colorbar_ref: Callable[[], Colorbar | None] = _nothing
    #: The legend added for the panel (a weak reference to it).
    legend_ref: Callable[[], Legend | None] = _nothing
    #: The legend entries of the panel's options (and of its clipped points), whether or
    #: not it drew a legend: :func:`rrmap.plot.add_legend` gathers them for a figure.
    handles: tuple[Line2D, ...] = ()
    #: Their title (the colour column).
    title: str | None = None

    @property
    def colorbar(self) -> Colorbar | None:
        """The colorbar added for the panel, if any."""
        return self.colorbar_ref()

    @property
    def legend(self) -> Legend | None:
        """The legend added for the panel, if any."""
        return self.legend_ref()


#: The record of every Axes a panel was drawn on: an entry goes with its Axes.
_RECORDS: weakref.WeakKeyDictionary[Axes, PanelRecord] = weakref.WeakKeyDictionary()


def record_panel(
    ax: Axes, drawn: DrawnPanel, colorbar: Colorbar | None = None, legend: Legend | None = None
) -> PanelRecord:
    """Keep what was drawn on *ax* (*drawn*, and the *colorbar* and *legend* added for it)
    as its :class:`PanelRecord`, replacing any earlier one.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> record_panel(ax, DrawnPanel(n_points=4, n_clipped=1)).n_clipped
    1
    """
    record = PanelRecord(
        drawn.n_points,
        drawn.n_clipped,
        _nothing if colorbar is None else weakref.ref(colorbar),
        _nothing if legend is None else weakref.ref(legend),
        drawn.handles,
        drawn.title,
    )
    _RECORDS[ax] = record
    return record


def panel_record(ax: Axes) -> PanelRecord | None:
    """The :class:`PanelRecord` of *ax*; None where rrmap drew no panel.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> panel_record(Figure().add_subplot()) is None
    True
    """
    return _RECORDS.get(ax)
