"""The RRMap as a plotnine ``ggplot`` that users extend with ``+`` (docs/figures.md).

:func:`ggrrmap` returns an ordinary ``ggplot``: add a theme
(``+ theme_bw()`` or :func:`rrmap.plot.styles.theme_rrmap`), facets
(``+ facet_wrap("expert")``), labels or scales as with any plotnine plot. The
background, zone outlines and labels carry no facet column, so they repeat in
every facet. Points beyond the view are moved onto its edge and drawn as
outward-pointing triangles; the caption says how many.

The point data keep every column of the points table plus ``x``/``y`` (the
drawn position), ``clipped`` and ``direction``, so facets and extra layers can
use any category.

Titles are plot labels, not scale names, so ``+ labs(color=..., shape=...)``
and ``+ scale_color_manual(values=...)`` work as in any ggplot and keep one
legend. When drawn, the plot is laid out for its figure's size and facets
(:mod:`rrmap.plot._plotnine_theme`): the legends go where the user's
``theme(legend_position=...)`` or theme puts them, else right of the panels or
below them, whichever leaves the larger panels, compactly (a short, thin colour
bar; keys in as few rows as fit). Titles and captions wider than their room
wrap. Facetted plots get tick labels away from the panels' shared edges. Saved
files keep text as text (Type 42).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from copy import deepcopy
from typing import Any

import numpy as np
import pandas as pd
from plotnine import (
    aes,
    annotate,
    coord_cartesian,
    geom_path,
    geom_point,
    geom_raster,
    ggplot,
    labs,
    scale_color_manual,
    scale_fill_gradientn,
    scale_shape_manual,
)
from plotnine.facets import facet_null
from plotnine.scales.scale_discrete import scale_discrete

from rrmap.plot._plotnine_theme import (
    FIRST_BOX,
    Recipe,
    Sketch,
    arranged,
    fills_height,
    settled,
    without_side_labels,
)
from rrmap.plot.base._glyphs import gathered_glyph_warnings
from rrmap.plot.base._style import figure_text, option_label, style_map, title
from rrmap.plot.base.geometry import (
    DEFAULT_XLIM,
    DEFAULT_YLIM,
    bc_contour,
    bc_grid,
    check_limits,
    clip_to_view,
    zone_rectangles,
)
from rrmap.plot.figures.panel import (
    axis_label,
    background_cmap,
    check_points,
    levels_of,
    thresholds_of,
)
from rrmap.zones import Thresholds

__all__ = ["RRMapPlot", "ggrrmap", "rrmap_layers_data"]

#: Size of the names beside the Δ band (points): the smallest text of the map.
ZONE_LABEL_PT = 6.0


def rrmap_layers_data(
    points: pd.DataFrame | None = None,
    *,
    thresholds: Thresholds | None = None,
    xlim: tuple[float, float] = DEFAULT_XLIM,
    ylim: tuple[float, float] = DEFAULT_YLIM,
    resolution: int = 200,
) -> dict[str, pd.DataFrame]:
    """The data behind each layer of :func:`ggrrmap`, as tidy DataFrames.

    Useful to build a custom plot from scratch (plotnine, seaborn, another tool).

    Parameters
    ----------
    points : DataFrame, optional
        Output of :func:`rrmap.points`.
    thresholds : Thresholds, optional
        Zone thresholds (default: recorded in ``points.attrs``, else the paper's).
    xlim, ylim : (float, float)
        The view.
    resolution : int, default 200
        Background cells along each side.

    Returns
    -------
    dict of DataFrame
        ``background`` (``delta``, ``r``, ``bc`` at cell centres), ``zones``
        (``zone``, ``delta``, ``r``: closed outlines of stereotype and fair),
        ``excellent`` (``delta``, ``r`` along BC = threshold) and, with
        points, ``points`` (the points plus ``x``, ``y``, ``clipped``, ``direction``).

    Examples
    --------
    >>> d = rrmap_layers_data(resolution=10)
    >>> d["background"].shape, sorted(d["zones"].zone.unique())
    ((100, 3), ['fair', 'stereotype'])
    """
    xlim, ylim = check_limits(xlim, ylim)
    th = thresholds_of(points, thresholds)
    x, y, bc = bc_grid(xlim, ylim, resolution)
    xx, yy = np.meshgrid(x, y)
    out = {
        "background": pd.DataFrame({"delta": xx.ravel(), "r": yy.ravel(), "bc": bc.ravel()}),
        "zones": pd.concat(
            [
                pd.DataFrame({"zone": name, "delta": xy[:, 0], "r": xy[:, 1]})
                for name, xy in zone_rectangles(th).items()
            ],
            ignore_index=True,
        ),
    }
    curve = bc_contour(th.excellent_bc)
    out["excellent"] = pd.DataFrame({"delta": curve[:, 0], "r": curve[:, 1]})
    if points is not None:
        check_points(points, [])
        placed = clip_to_view(points["delta"], points["r"], xlim, ylim)
        out["points"] = points.assign(
            x=placed.x, y=placed.y, clipped=placed.clipped, direction=placed.direction
        )
    return out


class RRMapPlot(ggplot):
    """A ``ggplot`` that places its legends for its figure and keeps text as text when saved.

    Everything else is plotnine's: add layers, themes, facets, scales and
    labels with ``+``. Made by :func:`ggrrmap`.

    Examples
    --------
    >>> import rrmap
    >>> from plotnine import facet_wrap
    >>> p = ggrrmap(rrmap.points(rrmap.datasets.load_example_ratings()), "movement")
    >>> p = p + facet_wrap("expert")
    >>> isinstance(p, RRMapPlot), isinstance(p, ggplot)
    (True, True)
    """

    #: Settings of the ``+ theme(...)`` added since the last complete theme (kept as given).
    _rrmap_user_theme: frozenset[str] = frozenset()

    def __iadd__(self, other: Any) -> Any:
        from plotnine import theme

        for item in other if isinstance(other, Sequence) else [other]:
            if isinstance(item, theme):
                # a complete theme replaces every theme added before it, as in plotnine
                given = self._rrmap_user_theme | frozenset(item.themeables)
                self._rrmap_user_theme = frozenset() if item.complete else given
        return super().__iadd__(other)

    def draw(self, *, show: bool = False) -> Any:
        with gathered_glyph_warnings():
            return ggplot.draw(self._fitted(), show=show)

    def save(self, filename: Any = None, *args: Any, **kwargs: Any) -> None:
        """``ggplot.save``, with text kept as text and 300 dpi unless *dpi* is given."""
        from rrmap.plot.base._sizing import text_as_text

        if not args and kwargs.get("dpi") is None:
            kwargs["dpi"] = 300
        with text_as_text(), gathered_glyph_warnings():
            super().save(filename, *args, **kwargs)

    def _legend_side(self) -> Any:
        """The legend position the user chose, or ``None`` when rrmap may choose: a
        ``+ theme(legend_position=...)`` is a choice, and so is a complete theme's position
        other than plotnine's default ("right")."""
        position = self.theme.getp("legend_position", "right")
        chosen = "legend_position" in self._rrmap_user_theme or position != "right"
        return position if chosen else None

    def _fitted(self) -> ggplot:
        """A copy laid out for its figure: the legends where the panels keep the most room,
        titles wrapped or shortened until they fit (measured on quick drafts)."""
        plot = _plain_labels(deepcopy(self))
        if not isinstance(plot.facet, facet_null):
            plot = _facet_values_as_objects(plot)
            # facets are too narrow for the names beside the Δ band: they would be cut
            plot = without_side_labels(plot)
            plot = _thin_facet_breaks(plot)
        side, user = self._legend_side(), self._rrmap_user_theme
        sketch = Sketch(plot)
        if side is not None and side not in ("right", "left", "top", "bottom"):
            found = [settled(sketch, Recipe(), user)]  # "none", inside the panels: as given
        else:
            found = []
            for where in [side] if side is not None else ["right", "bottom"]:
                if found and found[-1] is not None and fills_height(found[-1]):
                    break  # legends below would leave smaller panels: no drafts of them
                # legends below stop drafting once they cannot beat those beside
                beat = max((d.trial.score for d in found if d is not None), default=None)
                found.append(settled(sketch, Recipe(where, FIRST_BOX[where]), user, beat))
        found = [d for d in found if d is not None]
        if not found:  # beside the panels they would be cropped or squeeze the panels
            found = [settled(sketch, Recipe("bottom", "horizontal"), user)]
        best = max(found, key=lambda d: d.trial.score)
        plot = arranged(plot, best.recipe, user)
        plot += best.fixes
        return without_side_labels(plot) if best.bare else plot


def _plain_labels(plot: ggplot) -> ggplot:
    """*plot* (changed in place) with facet strips and the legend entries of discrete scales
    left at their default labels drawn as plain text: a value ``$x^2$`` is never mathtext,
    and one longer than :data:`_STRIP_LIMIT` characters is cut with "…" in a strip."""
    if not isinstance(plot.facet, facet_null):
        plot.facet.labeller = _PlainLabeller(plot.facet.labeller)
    for scale in plot.scales:
        if isinstance(scale, scale_discrete) and scale.labels is True:
            scale.labels = _plain_breaks
    return plot


def _facet_values_as_objects(plot: ggplot) -> ggplot:
    """*plot* (changed in place: a copy to draw) with its layers' text columns it is
    faceted by holding Python strings (object dtype) instead of pandas' Arrow-backed ones.

    plotnine puts every row in its panel with Python loops over the facet values, and reads
    an Arrow-backed column element by element, about fifty times slower; the background
    (40,000 cells) is repeated in each panel with the panels' values. The values, and so
    the panels, their order and their strips, stay as they were.
    """
    facet = plot.facet
    names = {*getattr(facet, "vars", ()), *getattr(facet, "rows", ()), *getattr(facet, "cols", ())}
    for layer in plot.layers:
        data = layer._data
        if not isinstance(data, pd.DataFrame):
            continue
        text = [n for n in names if n in data and isinstance(data[n].dtype, pd.StringDtype)]
        if text:
            layer._data = data.astype(dict.fromkeys(text, object))
    return plot


#: Characters of a value in a facet strip (beyond: "…").
_STRIP_LIMIT = 30


class _PlainLabeller:
    """A facet labeller giving the strips of *inner* as plain text."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __call__(self, label_info: Any) -> Any:
        out = self.inner(label_info)
        out.variables = {k: figure_text(v, _STRIP_LIMIT) for k, v in out.variables.items()}
        return out


def _plain_breaks(breaks: Sequence[Any]) -> list[str]:
    """Legend labels of a discrete scale as plain text."""
    return [figure_text(b) for b in breaks]


def _thin_facet_breaks(plot: ggplot) -> ggplot:
    """*plot* (changed in place) with breaks away from the panels' shared edges, unless
    the user set position scales."""
    from matplotlib.ticker import MaxNLocator
    from plotnine import scale_x_continuous, scale_y_continuous

    def inner(prune: str, nbins: int):
        def breaks(limits: tuple[float, float]) -> list[float]:
            return list(MaxNLocator(nbins=nbins, prune=prune).tick_values(*limits))

        return breaks

    have = {s.aesthetics[0] for s in plot.scales}
    if "x" not in have:
        plot += scale_x_continuous(breaks=inner("both", 4))
    if "y" not in have:
        plot += scale_y_continuous(breaks=inner("upper", 5))
    return plot


def ggrrmap(
    points: pd.DataFrame | None = None,
    color: str | None = None,
    *,
    thresholds: Thresholds | None = None,
    xlim: tuple[float, float] = DEFAULT_XLIM,
    ylim: tuple[float, float] = DEFAULT_YLIM,
    order: Sequence[Any] | None = None,
    palette: Sequence[str] | Mapping[Any, Any] | None = None,
    markers: Sequence[str] | Mapping[Any, Any] | None = None,
    size: float = 2.0,
    alpha: float = 0.85,
    labels: Mapping[str, str] | bool | None = None,
    zone_labels: bool = True,
    references: bool = True,
    clip: bool = True,
    resolution: int = 200,
) -> RRMapPlot:
    """Build the RRMap as a plotnine ``ggplot``.

    Parameters
    ----------
    points : DataFrame, optional
        Output of :func:`rrmap.points`; ``None`` draws the empty map.
    color : str, optional
        Column mapped to both colour and shape (one legend).
    thresholds : Thresholds, optional
        Zone thresholds.
    xlim, ylim : (float, float)
        The view (Δ ∈ [−4, 4], R ∈ [0, 2.5] by default).
    order, palette, markers
        As in :func:`rrmap.plot.plot_rrmap` (same colours and markers).
    size : float, default 2
        Point size (plotnine units).
    alpha : float, default 0.85
        Point opacity.
    labels : mapping, optional
        Display names of columns and options, as in :func:`rrmap.plot.plot_rrmap`
        (``+ labs(...)`` overrides the titles too). ``True``/``False`` is
        read as *zone_labels*.
    zone_labels : bool, default True
        Zone names and reference-point names.
    references : bool, default True
        Mark (0, 1) "perfect alignment" and (0, 0) "perfect stereotype".
    clip : bool, default True
        Move points beyond the view onto its edge (triangles, counted in the
        caption); with ``False`` they are dropped from the view and the
        caption says how many.
    resolution : int, default 200
        Background cells along each side.

    Returns
    -------
    RRMapPlot
        A ``ggplot``.

    Examples
    --------
    >>> import rrmap
    >>> from plotnine import facet_wrap, labs
    >>> from rrmap.plot import theme_rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> p = ggrrmap(pts, color="movement") + facet_wrap("expert") + theme_rrmap()
    >>> p = p + labs(color="Movement", shape="Movement")
    >>> rrmap.plot.save(p, "/tmp/rrmap_gg.pdf", width="3.5in", height="3in")  # doctest: +SKIP
    """
    if isinstance(labels, bool):
        zone_labels, labels = labels, None
    data = rrmap_layers_data(
        points, thresholds=thresholds, xlim=xlim, ylim=ylim, resolution=resolution
    )
    xlim, ylim = check_limits(xlim, ylim)
    th = thresholds_of(points, thresholds)
    p = RRMapPlot() + _background_layers(data) + _zone_layers(data)
    p.layers[0]._rrmap_role = "background"  # drafts of the layout draw it coarse
    p.scales[0]._rrmap_role = "bc"  # its breaks thin out along a short horizontal bar
    if references:
        p += annotate("point", x=[0.0, 0.0], y=[1.0, 0.0], shape="*", size=4.5, fill="white")
    if zone_labels:
        p += _label_layers(data, th, xlim, ylim)
        for layer in p.layers[-3:]:  # leaders and names beside the Δ band
            layer._rrmap_role = "side labels"
    caption = None
    if points is not None:
        if color is not None:
            p += _option_scales(points, color, order, palette, markers, labels)
        point_layers, caption = _point_layers(
            points, data["points"], color, order, size, alpha, clip, xlim, ylim
        )
        p += point_layers
    p += coord_cartesian(xlim=xlim, ylim=ylim, expand=False)
    head = title(color, points, labels) if color is not None else None
    names = {"color": head, "shape": head} if head is not None else {}
    p += labs(
        x=axis_label("delta", labels),
        y=axis_label("r", labels),
        fill=axis_label("bc", labels),
        caption=caption,
        **names,
    )
    p._rrmap_fill_title = p.labels.fill  # wrapped beside the panels unless changed by labs
    return p


def _background_layers(data: dict[str, pd.DataFrame]) -> list:
    """BC on the grid, with its colour scale."""
    cmap = background_cmap()
    return [
        geom_raster(aes("delta", "r", fill="bc"), data=data["background"], interpolation=None),
        scale_fill_gradientn(colors=[cmap(v) for v in np.linspace(0, 1, 11)], limits=(0.0, 1.0)),
    ]


def _zone_layers(data: dict[str, pd.DataFrame]) -> list:
    """The fair and stereotype rectangles and the BC = 0.98 curve."""
    zones = data["zones"]
    return [
        geom_path(aes("delta", "r"), data=zones[zones.zone == "fair"], color="black", size=0.5),
        geom_path(
            aes("delta", "r"),
            data=zones[zones.zone == "stereotype"],
            color="black",
            size=0.5,
            linetype="dashed",
        ),
        geom_path(aes("delta", "r"), data=data["excellent"], color="black", size=0.5),
    ]


def _label_layers(
    data: dict[str, pd.DataFrame],
    th: Thresholds,
    xlim: tuple[float, float],
    ylim: tuple[float, float],
) -> list:
    """Zone names in their corners; excellent and the reference points named beside the band."""
    d, s, f = th.delta_bound, th.stereotype_r, th.fair_r
    dx = 0.02 * (xlim[1] - xlim[0])
    dy = 0.015 * (ylim[1] - ylim[0])
    corners = annotate(
        "text",
        x=[-d + dx, -d + dx, xlim[0] + dx],
        y=[s - dy, f - dy, ylim[1] - dy],
        label=["stereotype", "fair", "bad"],
        ha="left",
        va="top",
        size=7,
    )
    side = min(d, xlim[1]) + dx
    curve = data["excellent"]
    k = int(((curve.r - 1.2).abs() + (curve.delta < 0)).to_numpy().argmin())
    targets = [(curve.delta[k], curve.r[k]), (0.0, 1.0), (0.0, 0.0)]
    # "perfect stereotype" stands on the bottom edge and grows upwards: never cut there
    bottom = max(0.12, ylim[0] + 0.02 * (ylim[1] - ylim[0]))
    y_text = [f + 0.12, 1.0, bottom]
    leaders = annotate(
        "segment",
        x=[side - dx / 2] * 3,
        y=[*y_text[:2], bottom + 0.04 * (ylim[1] - ylim[0])],
        xend=[t[0] for t in targets],
        yend=[t[1] for t in targets],
        size=0.25,
        color="black",
    )
    style = {
        "ha": "left",
        "size": ZONE_LABEL_PT,
        "label_size": 0,
        "label_padding": 0.1,
        "fill": "#ffffffbb",
    }
    names = annotate(
        "label",
        x=[side] * 2,
        y=y_text[:2],
        label=["excellent", "perfect\nalignment"],
        va="center",
        **style,
    )
    low = annotate("label", x=side, y=bottom, label="perfect\nstereotype", va="bottom", **style)
    return [corners, leaders, names, low]


def _point_layers(
    points: pd.DataFrame,
    pts: pd.DataFrame,
    color: str | None,
    order: Sequence[Any] | None,
    size: float,
    alpha: float,
    clip: bool,
    xlim: tuple[float, float],
    ylim: tuple[float, float],
) -> tuple[list, str | None]:
    """The points (coloured and shaped by *color*), clipped ones as triangles, and the caption."""
    layers: list = []
    n_clipped = int(pts["clipped"].sum())
    if color is None:
        inside = pts[~pts["clipped"]]
        layers.append(
            geom_point(
                aes("x", "y"), data=inside, color="#0072B2", size=size, alpha=alpha, stroke=0.3
            )
        )
    else:
        keys = [str(v) for v in levels_of(points[color], order)]
        pts = pts.assign(**{color: pd.Categorical(pts[color].astype(str), keys)})
        layers += [
            geom_point(
                aes("x", "y", color=color, shape=color),
                data=pts[~pts["clipped"]],
                size=size,
                alpha=alpha,
                stroke=0.3,
            ),
        ]
    if clip and n_clipped:
        layers += _clipped_layers(pts, color, size, xlim, ylim)
    caption = None
    if n_clipped:
        caption = f"{n_clipped} point{'s' * (n_clipped != 1)} beyond the view " + (
            "clipped to its edge (triangles)" if clip else "not shown"
        )
    return layers, caption


def _option_scales(
    points: pd.DataFrame,
    color: str,
    order: Sequence[Any] | None,
    palette: Sequence[str] | Mapping[Any, str] | None,
    markers: Sequence[str] | Mapping[Any, str] | None,
    labels: Mapping[str, str] | None,
) -> list:
    """Colour and shape of every option (as in the matplotlib figures), named in the legend
    by its display name as plain text."""
    levels = levels_of(points[color], order)
    styles = style_map(levels, palette, markers, color, list(points.columns))
    names = {str(v): option_label(v, labels) for v in levels}
    return [
        scale_color_manual(values={str(v): styles[v][0] for v in levels}, labels=names),
        scale_shape_manual(values={str(v): styles[v][1] for v in levels}, labels=names),
    ]


def _clipped_layers(
    pts: pd.DataFrame,
    color: str | None,
    size: float,
    xlim: tuple[float, float],
    ylim: tuple[float, float],
) -> list:
    """Triangles for the points moved onto the view's edge, pointing outwards."""
    # plotnine clips layers to the panel: pull the triangles just inside it
    inset_x = 0.012 * (xlim[1] - xlim[0])
    inset_y = 0.012 * (ylim[1] - ylim[0])
    shift = {">": (-inset_x, 0), "<": (inset_x, 0), "^": (0, -inset_y), "v": (0, inset_y)}
    mapping = aes("x", "y", color=color) if color is not None else aes("x", "y")
    extra = {} if color is not None else {"color": "#0072B2"}
    layers = []
    for direction in (">", "<", "^", "v"):
        sub = pts[pts["direction"] == direction]
        if sub.empty:
            continue
        sub = sub.assign(x=sub["x"] + shift[direction][0], y=sub["y"] + shift[direction][1])
        layers.append(
            geom_point(
                mapping, data=sub, shape=direction, size=size * 1.3, show_legend=False, **extra
            )
        )
    return layers
