"""One RRMap panel with matplotlib (docs/figures.md).

:func:`plot_rrmap` draws one RRMap panel on an Axes: the Bhattacharyya
coefficient as background (with a colorbar), the stereotype and fair
rectangles, the BC = 0.98 curve of the excellent zone, zone labels, the
reference points (0, 1) "perfect alignment" and (0, 0) "perfect stereotype",
and the points coloured (and shaped) by a category. Points beyond the view
are moved onto its edge and drawn as arrowheads pointing outwards; their
number is in the legend. Every element carries a ``gid`` (also the element
id in SVG files) and :func:`panel_artists` returns them. Whole figures of
panels are in :mod:`rrmap.plot.figures.layouts` and :mod:`rrmap.plot.figures.intervals`.
Nothing here calls ``show()``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib import patheffects
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.colorbar import Colorbar
from matplotlib.colors import Colormap, LinearSegmentedColormap
from matplotlib.font_manager import FontProperties
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon
from matplotlib.text import Text
from matplotlib.transforms import ScaledTranslation
from numpy.typing import NDArray

from rrmap.errors import InputError
from rrmap.plot.base._geometry import (
    DEFAULT_XLIM,
    DEFAULT_YLIM,
    _bc_contour,
    _bc_grid,
    _check_limits,
    _clip_to_view,
    _zone_rectangles,
)
from rrmap.plot.base._glyphs import gathers_glyph_warnings
from rrmap.plot.base._keywords import check_keywords, lists_keywords
from rrmap.plot.base._raster import BackgroundImage
from rrmap.plot.base._style import (
    MARKERS,
    OKABE_ITO,
    QUALITY_COLORS,
    QUALITY_MARKERS,
    dense_alpha,
    figure_text,
    option_label,
    style_map,
    title,
)
from rrmap.zones import Thresholds

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

_GID = "rrmap"
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


def _legend_handles(
    styles: Mapping[Any, tuple[str, str]],
    size: float,
    n_clipped: int | None,
    clip: bool,
    labels: Mapping[str, str] | None = None,
) -> list[Line2D]:
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
        x, y, bc = _bc_grid(xlim, ylim, min(resolution, 80))
        filled = ax.contourf(
            x, y, bc, levels=np.linspace(0.0, 1.0, 11), cmap=cmap, vmin=0.0, vmax=1.0, zorder=0
        )
        filled.set_gid(f"{_GID}.background")
        return filled
    _, _, bc = _bc_grid(xlim, ylim, resolution)
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
        gid=f"{_GID}.background",
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
        zorder=_ABOVE + 0.1,
        path_effects=_HALO,
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
            gid=f"{_GID}.reference.{name}",
        )


@dataclass
class _PanelStyle:
    """How :func:`plot_rrmap` draws (the keywords every layout passes on to its panels)."""

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
PANEL_KEYWORDS: tuple[str, ...] = tuple(_PanelStyle.__dataclass_fields__)


def _panel_style(kw: dict[str, Any]) -> _PanelStyle:
    """The panel keywords of *kw* (popped) as a :class:`_PanelStyle`; ``labels=True/False``
    is read as ``zone_labels``."""
    labels = kw.pop("labels", None)
    if isinstance(labels, bool):
        kw.setdefault("zone_labels", labels)
        labels = None
    elif labels is not None and not isinstance(labels, Mapping):
        raise InputError(f"labels must map names to display names, got {labels!r}")
    check_keywords("plot_rrmap", kw, PANEL_KEYWORDS)
    style = _PanelStyle(**{k: kw.pop(k) for k in list(kw)}, labels=labels)
    style.xlim, style.ylim = _check_limits(style.xlim, style.ylim)
    if style.background not in (True, False, "raster", "contour"):
        raise InputError(
            f"background must be True, False, 'raster' or 'contour', got {style.background!r}"
        )
    return style


def _draw_points(
    ax: Axes, points: pd.DataFrame, color: str | None, st: _PanelStyle, meta: dict[str, Any]
) -> dict[Any, tuple[str, str]]:
    """The points, coloured and shaped by *color*, and the clipped ones as arrowheads.

    Returns the colour and marker of every option (empty without *color*)."""
    if color is None:
        levels: list[Any] = ["points"]
        keys = np.zeros(len(points), dtype=int)
        styles = style_map(levels, st.palette or ["#0072B2"], st.markers, None)
    else:
        levels = _levels(points[color], st.order)
        styles = style_map(levels, st.palette, st.markers, color, list(points.columns))
        keys = pd.Index(levels).get_indexer(points[color].to_numpy(dtype=object))
    placed = _clip_to_view(points["delta"], points["r"], st.xlim, st.ylim)
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
            gid=f"{_GID}.points.{level}",
            label=option_label(level, st.labels),
        )
    if st.clip:
        _draw_clipped(ax, placed, [styles[lv][0] for lv in levels], keys, st.size * 1.6)
    meta["n_clipped"] = int(placed.clipped.sum())
    meta["n_points"] = len(points) if st.clip else int(inside.sum())
    return styles if color is not None else {}


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
            gid=f"{_GID}.clipped.{direction}",
        )


def _draw_panel(
    ax: Axes, points: pd.DataFrame | None, color: str | None, st: _PanelStyle
) -> tuple[dict[str, Any], list[Line2D]]:
    """Everything of one panel but the colorbar and the legend: (metadata, legend handles)."""
    th = _thresholds_of(points, st.thresholds)
    meta: dict[str, Any] = {}
    if st.background:
        meta["mappable"] = _draw_background(
            ax, st.xlim, st.ylim, st.cmap, st.resolution, st.background == "contour"
        )
    curve = _draw_zones(ax, th) if st.zones else None
    if st.references:
        _draw_references(ax, st.ylim, st.xlim, 3.5 * st.size)
    if st.zone_labels:
        _draw_labels(ax, th, curve, st.xlim, st.ylim, st.references)
    handles: list[Line2D] = []
    if points is not None:
        styles = _draw_points(ax, points, color, st, meta)
        handles = _legend_handles(styles, st.size, meta["n_clipped"], st.clip, st.labels)
    ax.set_xlim(*st.xlim)
    ax.set_ylim(*st.ylim)
    ax.set_xlabel(axis_label("delta", st.labels))
    ax.set_ylabel(axis_label("r", st.labels))
    return meta, handles


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
        Draw the legend (beside *ax*, or under it in a narrow new figure).
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
    (2, 3.5)
    >>> rrmap.plot.save(ax.figure, "/tmp/rrmap_E1.pdf")  # doctest: +SKIP
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    st = _panel_style(style)
    if points is not None:
        _check_points(points, [color])
    if ax is not None:
        if width is not None:
            raise InputError("width sizes a new figure; with ax=, size your own figure")
        from rrmap.plot.figures._user_axes import plot_on_user

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
    st: _PanelStyle,
    colorbar: bool,
    legend: bool,
    below: float | None,
) -> Axes:
    """Draw the panel on *ax*, its colorbar and its legend (beside *ax*, or under the
    figure when *below* gives the figure width)."""
    meta, handles = _draw_panel(ax, points, color, st)
    if colorbar and "mappable" in meta:
        meta["colorbar"] = _add_colorbar(
            ax.figure, meta["mappable"], ax, st.labels, fraction=0.04, pad=0.03, aspect=40
        )
    if legend and handles:
        head = title(color, points, st.labels)
        if below is None:
            meta["legend"] = ax.legend(
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
            meta["legend"] = ax.figure.legend(
                handles=handles, title=head, loc="outside lower center", ncols=ncols
            )
    ax._rrmap_panel = meta  # read back by panel_artists
    return ax
