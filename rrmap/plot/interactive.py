"""The RRMap as an interactive plotly figure, for Jupyter and self-contained HTML files.

:func:`interactive_rrmap` draws the same map as :func:`rrmap.plot.plot_rrmap`
(BC background, zones, reference points, points coloured and shaped by a
category, clipped points as arrowheads on the edge) with one panel per rater
if asked; hovering a point shows its rater, its categories, both intervals
and its Δ, R, BC and quality, the intervals named by the file's origins (real,
generated). Without a width the figure fills its container; the colour bar
stands beside the panels. :func:`save_html` writes a file that opens offline
(plotly.js embedded) or, with ``include_plotlyjs="cdn"``, a small one that
loads plotly.js from the network. Needs the ``interactive`` extra (plotly).
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rrmap._util.atomic import atomic_path
from rrmap._util.escape import display_text, short_label
from rrmap.plot.base._style import (
    LABEL_LIMIT,
    column_name,
    option_name,
    style_map,
)
from rrmap.plot.base._widths import parse_width
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
    axis_name,
    background_cmap,
    check_points,
    levels_of,
    thresholds_of,
)
from rrmap.zones import Thresholds

__all__ = ["html_fragment", "interactive_rrmap", "save_html"]

#: matplotlib marker codes of rrmap's palettes → plotly marker symbols.
_SYMBOLS = {
    "o": "circle",
    "s": "square",
    "D": "diamond",
    "P": "cross",
    "X": "x",
    "h": "hexagon",
    "H": "hexagon2",
    "p": "pentagon",
    "d": "diamond-tall",
    "*": "star",
    "^": "triangle-up",
    "v": "triangle-down",
    "<": "triangle-left",
    ">": "triangle-right",
}
_ARROWS = {">": "triangle-right", "<": "triangle-left", "^": "triangle-up", "v": "triangle-down"}
_PX_PER_IN = 96.0


def html_text(value: Any, limit: int | None = None) -> str:
    """*value* as plotly text that shows its characters: HTML escaped (``<b>`` is no tag),
    ``$`` and ``%`` as character references (no LaTeX, no ``%{...}`` placeholder),
    shown as every format shows a label (:func:`rrmap._util.escape.display_text`), cut to
    *limit* characters with "…".

    Examples
    --------
    >>> html_text("<b>$x^2$</b> %{x}")
    '&lt;b&gt;&#36;x^2&#36;&lt;/b&gt; &#37;{x}'
    """
    text = display_text(value)
    if limit is not None:
        text = short_label(text, limit)
    return html.escape(text).replace("$", "&#36;").replace("%", "&#37;")


def _html_value(value: Any) -> Any:
    """A text cell of the hover data as :func:`html_text`; other values as they are."""
    return html_text(value) if isinstance(value, str) else value


def _colorscale() -> list[list[Any]]:
    cmap = background_cmap()
    return [
        [float(v), "rgb({:.0f},{:.0f},{:.0f})".format(*(255 * np.array(cmap(v)[:3])))]
        for v in np.linspace(0.0, 1.0, 11)
    ]


def _hover(points: pd.DataFrame, rater: str) -> tuple[np.ndarray, str]:
    """Per-point hover data and the template that shows it."""
    meta = points.attrs.get("rrmap", {})
    cats = [c for c in meta.get("categories") or [] if c in points.columns and c != rater]
    if "query" in points.columns and rater != "query":  # several query corpora: which one
        cats = ["query", *cats]
    cols = [rater, *cats]
    lines = [f"<b>{html_text(column_name(rater, points, None))}</b>: %{{customdata[0]}}"]
    lines += [
        f"{html_text(column_name(c, points, None))}: %{{customdata[{i}]}}"
        for i, c in enumerate(cats, start=1)
    ]
    k = len(cols)
    have_intervals = {"low_ref", "high_ref", "low_query", "high_query"} <= set(points.columns)
    if have_intervals:
        # the origins as the file names them (real, generated), else reference and query
        ref = html_text(meta.get("reference") or "reference", LABEL_LIMIT)
        named = meta.get("query")
        query = (
            "%{customdata[" + str(cols.index("query")) + "]}"  # each point's own corpus
            if "query" in cols
            else html_text(named if isinstance(named, str) and named else "query", LABEL_LIMIT)
        )
        cols += ["low_ref", "high_ref", "low_query", "high_query"]
        lines += [
            f"{ref}: [%{{customdata[{k}]:.4g}}, %{{customdata[{k + 1}]:.4g}}]",
            f"{query}: [%{{customdata[{k + 2}]:.4g}}, %{{customdata[{k + 3}]:.4g}}]",
        ]
    j = len(cols)
    cols += ["delta", "r"]
    lines.append(f"Δ = %{{customdata[{j}]:.3f}}, R = %{{customdata[{j + 1}]:.3f}}")
    for name in ("bc", "quality"):
        if name in points.columns:
            cols.append(name)
            fmt = ":.3f" if name == "bc" else ""
            lines.append(
                f"{'BC' if name == 'bc' else 'quality'}: %{{customdata[{len(cols) - 1}]{fmt}}}"
            )
    data = points[cols].astype(object).to_numpy()
    data[:, :k] = np.vectorize(_html_value, otypes=[object])(data[:, :k])
    return data, "<br>".join(lines) + "<extra></extra>"


def _map_traces(th: Thresholds, xlim: Any, ylim: Any, resolution: int, first: bool) -> list[Any]:
    """Background, zone outlines, BC curve and reference stars of one panel."""
    x, y, bc = bc_grid(xlim, ylim, resolution)
    traces: list[Any] = [
        go.Heatmap(
            x=x.astype(np.float32),
            y=y.astype(np.float32),
            z=bc.astype(np.float32),
            zsmooth="best",
            zmin=0.0,
            zmax=1.0,
            colorscale=_colorscale(),
            showscale=first,
            # beside the panels, as tall as they are: never over a panel or an axis title
            colorbar={
                "title": {"text": axis_name("bc"), "side": "right"},
                "orientation": "v",
                "x": 1.0,
                "xref": "paper",
                "xanchor": "left",
                "xpad": 12,
                "y": 0.5,
                "yanchor": "middle",
                "len": 1.0,
                "thickness": 12,
            },
            hoverinfo="skip",
            name="BC",
        )
    ]
    for name, rect in zone_rectangles(th).items():
        traces.append(
            go.Scatter(
                x=rect[:, 0],
                y=rect[:, 1],
                mode="lines",
                line={
                    "color": "black",
                    "width": 1.2,
                    "dash": "dash" if name == "stereotype" else "solid",
                },
                name=name,
                hoverinfo="name",
                showlegend=False,
            )
        )
    curve = bc_contour(th.excellent_bc)
    traces.append(  # a white halo under the ellipse, which lies over dense points
        go.Scatter(
            x=curve[:, 0],
            y=curve[:, 1],
            mode="lines",
            line={"color": "white", "width": 3.5},
            hoverinfo="skip",
            showlegend=False,
        )
    )
    traces.append(
        go.Scatter(
            x=curve[:, 0],
            y=curve[:, 1],
            mode="lines",
            line={"color": "black", "width": 1.2},
            name=f"excellent: BC > {th.excellent_bc:g}",
            hoverinfo="name",
            showlegend=False,
        )
    )
    for colour, line in (("white", 4.5), ("black", 1.5)):  # the stars, over a white halo
        traces.append(_reference_stars(colour, line))
    return traces


def _reference_stars(colour: str, line: float) -> Any:
    """The two reference points as open stars (the black ones carry the hover text)."""
    return go.Scatter(
        x=[0.0, 0.0],
        y=[1.0, 0.0],
        mode="markers",
        marker={"symbol": "star-open", "size": 13, "color": colour, "line": {"width": line}},
        text=["perfect alignment", "perfect stereotype"],
        hoverinfo="text" if colour == "black" else "skip",
        showlegend=False,
        cliponaxis=False,  # the star at R = 0 whole, not cut by the bottom edge
    )


def interactive_rrmap(
    points: pd.DataFrame,
    color: str | None = None,
    *,
    facet: str | None = None,
    thresholds: Thresholds | None = None,
    xlim: tuple[float, float] = DEFAULT_XLIM,
    ylim: tuple[float, float] = DEFAULT_YLIM,
    order: Sequence[Any] | None = None,
    palette: Sequence[str] | Mapping[Any, Any] | None = None,
    markers: Sequence[str] | Mapping[Any, Any] | None = None,
    labels: Mapping[str, str] | None = None,
    clip: bool = True,
    width: float | str | None = None,
    resolution: int = 150,
) -> go.Figure:
    """An interactive RRMap: hover a point for its rater, categories and intervals.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    color : str, optional
        Column colouring and shaping the points (same colours and markers as
        the matplotlib figures).
    facet : str, optional
        Column giving one panel per value (``"expert"``).
    thresholds, xlim, ylim, order, palette, markers, labels, clip
        As in :func:`rrmap.plot.plot_rrmap`. Clipped points sit on the edge as
        arrowheads; their hover shows their true Δ and R.
    width : float or str, optional
        Display width (``"7in"``: 672 px at 96 px per inch). Default: as wide as
        its container (a notebook cell, a page), resizing with it.
    resolution : int, default 150
        Background cells per side (smoothed when shown).

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.plot.interactive import interactive_rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> fig = interactive_rrmap(pts, "movement", facet="expert")
    >>> sorted({t.name for t in fig.data if t.legendgroup})[:2]
    ['abstract art', 'cubism']
    """
    check_points(points, [color, facet])
    from rrmap.limits import check_figure  # sizes past rrmap.limits, before any drawing

    check_figure(points, 1 if facet is None else points[facet].nunique(), [color], "the map")
    xlim, ylim = check_limits(xlim, ylim)
    th = thresholds_of(points, thresholds)
    panels = [None] if facet is None else levels_of(points[facet], None)
    w_in = parse_width(width, 7.0)
    fig = make_subplots(
        rows=1,
        cols=len(panels),
        shared_yaxes=True,
        horizontal_spacing=0.03,
        subplot_titles=None if facet is None else _panel_titles(panels, labels, w_in),
    )
    levels = levels_of(points[color], order) if color is not None else [None]
    styles = (
        style_map(levels, palette, markers, color, list(points.columns))
        if color is not None
        else {None: ("#0072B2", "o")}
    )
    rater = "expert" if "expert" in points.columns else (facet or color or "delta")
    for k, panel in enumerate(panels, start=1):
        # the background under the points; the zones, the ellipse and the stars over them,
        # as on the static map
        background, *overlays = _map_traces(th, xlim, ylim, resolution, k == 1)
        fig.add_trace(background, row=1, col=k)
        sub = points if panel is None else points[points[facet] == panel]
        for trace in _point_traces(sub, color, levels, styles, rater, xlim, ylim, clip, k, labels):
            fig.add_trace(trace, row=1, col=k)
        for trace in overlays:
            fig.add_trace(trace, row=1, col=k)
    fig.update_xaxes(range=list(xlim), title_text=_axis_title("delta", labels), zeroline=False)
    fig.update_yaxes(range=list(ylim), zeroline=False)
    fig.update_yaxes(title_text=_axis_title("r", labels), row=1, col=1)
    fig.update_layout(
        # no width: as wide as its container (a notebook cell, a page); a given width is kept
        width=None if width is None else round(w_in * _PX_PER_IN),
        autosize=width is None,
        height=round(_height_px(w_in * _PX_PER_IN, len(panels))),
        template="simple_white",
        legend={
            "title": {"text": _legend_title(color, points, labels)},
            "orientation": "h",
            "yref": "container",
            "y": 0.0,
            "yanchor": "bottom",
            "x": 0.0,
        },
        margin={"l": 60, "r": 20, "t": 40, "b": 40},
    )
    fig.layout.meta = {"rrmap_panels": len(panels)}
    return fig


def _height_px(width_px: float, panels: int) -> float:
    """Height of the figure *width_px* wide with *panels* panels in a row: the panels about
    as tall as wide, plus room for the titles, the axis title and the legend."""
    return 0.85 * max(width_px - 96.0, 200.0) / panels + 220.0


def _panel_titles(panels: list[Any], labels: Mapping[str, str] | None, w_in: float) -> list[str]:
    """The panels' titles, each cut with "…" to the width of its panel (16 px type, about
    9 px a character)."""
    limit = max(8, min(LABEL_LIMIT, int(w_in * _PX_PER_IN / len(panels) / 9.0)))
    return [html_text(option_name(p, labels), limit) for p in panels]


def _axis_title(name: str, labels: Mapping[str, str] | None) -> str:
    return html_text(axis_name(name, labels), LABEL_LIMIT)


def _legend_title(color: str | None, points: pd.DataFrame, labels: Mapping[str, str] | None) -> str:
    return "" if color is None else html_text(column_name(color, points, labels), LABEL_LIMIT)


def _point_traces(
    sub: pd.DataFrame,
    color: str | None,
    levels: list[Any],
    styles: Mapping[Any, tuple[str, str]],
    rater: str,
    xlim: Any,
    ylim: Any,
    clip: bool,
    panel: int,
    labels: Mapping[str, str] | None,
) -> list[Any]:
    """One trace per option (shared legend entry across panels), arrowheads for clipped points
    (whole, just inside the edge)."""
    placed = clip_to_view(sub["delta"], sub["r"], xlim, ylim)
    custom, template = _hover(sub, rater)
    traces = []
    for level in levels:
        col, mk = styles[level]
        of_level = np.ones(len(sub), bool) if color is None else (sub[color] == level).to_numpy()
        name = "points" if color is None else html_text(option_name(level, labels), LABEL_LIMIT)
        for direction in ("", *_ARROWS):
            sel = of_level & (placed.direction == direction)
            if not sel.any() or (direction and not clip):
                continue
            x, y = _inside(placed.x[sel], placed.y[sel], direction, xlim, ylim)
            traces.append(
                go.Scatter(
                    x=x,
                    y=y,
                    mode="markers",
                    # an arrowhead is drawn whole, just inside the edge, as in the figures
                    cliponaxis=not direction,
                    name=name,
                    legendgroup=name,
                    showlegend=panel == 1 and direction == "" and color is not None,
                    marker={
                        "symbol": _ARROWS.get(direction, _SYMBOLS.get(mk, "circle")),
                        "color": col,
                        "size": 9 if direction else 7,
                        "line": {"color": "black", "width": 0.5},
                    },
                    customdata=custom[sel],
                    hovertemplate=template,
                )
            )
    return traces


#: How far an arrowhead sits inside the edge of the view, as a share of the axis' range
#: (about half a marker at a panel's usual size).
_INSET = 0.018


def _inside(x: np.ndarray, y: np.ndarray, direction: str, xlim: Any, ylim: Any) -> tuple:
    """Positions of arrowheads pointing *direction* moved just inside the edge they sit on."""
    dx, dy = _INSET * (xlim[1] - xlim[0]), _INSET * (ylim[1] - ylim[0])
    shift = {">": (-dx, 0.0), "<": (dx, 0.0), "^": (0.0, -dy), "v": (0.0, dy)}
    sx, sy = shift.get(direction, (0.0, 0.0))
    return np.asarray(x, float) + sx, np.asarray(y, float) + sy


#: plotly's page options: no logo, the figure following its container's size.
_HTML_CONFIG = {"displaylogo": False, "responsive": True}


def save_html(
    fig: go.Figure, path: str | os.PathLike[str], *, include_plotlyjs: bool | str = True
) -> Path:
    """Write *fig* as one HTML file.

    A figure made without a width fills the page: as wide as the window, its
    height following the width (panels about as tall as wide, at most the
    window's height) and resizing with it.

    Parameters
    ----------
    fig : plotly Figure
        From :func:`interactive_rrmap`.
    path : path
        The HTML file.
    include_plotlyjs : bool or str, default True
        ``True``: plotly.js embedded (about 4.8 MB; opens offline). ``"cdn"``: a
        ``<script>`` tag loading it from the plotly CDN (a file of a few hundred
        kB; needs a network when opened). ``"directory"`` or ``False`` as in
        plotly's ``write_html`` (a ``plotly.min.js`` beside the file, or none:
        for a page that loads plotly.js once for several maps).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> import rrmap, tempfile, pathlib
    >>> from rrmap.plot.interactive import interactive_rrmap, save_html
    >>> fig = interactive_rrmap(rrmap.points(rrmap.datasets.load_example_ratings()), "movement")
    >>> out = save_html(fig, pathlib.Path(tempfile.mkdtemp()) / "map.html")
    >>> "<script src=" in out.read_text()
    False
    """
    path = Path(path)
    config = _HTML_CONFIG
    size: dict[str, str] = {}
    if fig.layout.width is None:  # the container's width, the height following it
        panels = (fig.layout.meta or {}).get("rrmap_panels", 1)
        size = {
            "default_width": "100%",
            "default_height": (
                f"max(320px, min(96vh, calc(0.85 * (100vw - 96px) / {panels} + 220px)))"
            ),
        }
        fig = go.Figure(fig)
        fig.update_layout(height=None, autosize=True)
    with atomic_path(path) as tmp:  # all-or-nothing, as every output
        fig.write_html(
            tmp, include_plotlyjs=include_plotlyjs, full_html=True, config=config, **size
        )
    return path


def html_fragment(points: pd.DataFrame, *, facet: str | None = "expert") -> str:
    """The interactive map, one panel per *facet*, as HTML to put in a page of one's own
    (the map of ``report.html``): plotly.js included, as wide as its container.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    facet : str or None, default "expert"
        Column giving one panel per value (see :func:`interactive_rrmap`).

    Returns
    -------
    str

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.plot.interactive import html_fragment
    >>> page = html_fragment(rrmap.points(rrmap.datasets.load_example_ratings()))
    >>> page.startswith("<div"), "<html" in page
    (True, False)
    """
    fig = interactive_rrmap(points, facet=facet)  # no width: the page's, whatever the window
    return fig.to_html(
        full_html=False,
        include_plotlyjs=True,
        default_width="100%",
        config=_HTML_CONFIG,
    )
