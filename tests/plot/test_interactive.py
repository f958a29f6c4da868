"""Tests of rrmap.plot.interactive: the HTML file is rendered and read back."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

pytest.importorskip("plotly", reason="the interactive extra (plotly) is not installed")

from rrmap.errors import InputError
from rrmap.plot.base._style import style_map
from rrmap.plot.interactive import _SYMBOLS, interactive_rrmap, save_html


def _plotly_call(html):
    """The data and layout passed to Plotly.newPlot in a written HTML file."""
    start = html.index("Plotly.newPlot(")
    decoder = json.JSONDecoder()
    rest = html[start + len("Plotly.newPlot(") :]
    rest = rest[rest.index(",") + 1 :].lstrip()  # skip the element id
    data, end = decoder.raw_decode(rest)
    rest = rest[end:].lstrip()[1:].lstrip()
    layout, _ = decoder.raw_decode(rest)
    return data, layout


def _decode(values):
    """plotly stores numpy arrays as {"dtype", "bdata"} (base64) in JSON."""
    import base64

    if isinstance(values, dict) and "bdata" in values:
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
    return np.asarray(values)


def test_html_is_self_contained_and_hover_shows_rater_categories_intervals(pts, tmp_path):
    fig = interactive_rrmap(pts, "movement", facet="expert", width="7in")
    out = save_html(fig, tmp_path / "map.html")
    html = out.read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]+src=", html)  # plotly.js embedded: opens offline
    data, layout = _plotly_call(html)
    assert layout["width"] == 672  # 7 in at 96 px per inch
    points = [t for t in data if t.get("hovertemplate")]
    template = points[0]["hovertemplate"]
    for part in (
        "expert",
        "movement",
        "criterion group",
        "real: [",  # the origins as the file names them
        "generated: [",
        "Δ =",
        "quality",
    ):
        assert part in template
    # a known point: its hover data are its rater, categories and intervals
    row = pts[(pts.expert == "E2") & pts.delta.between(-4, 4) & pts.r.between(0, 2.5)].iloc[0]
    found = [
        c
        for t in points
        for c in t["customdata"]
        if c[0] == "E2"
        and c[1] == row.movement
        and c[2] == row.criterion
        and c[5] == row.modality_name
        and c[3] == row.criterion_group
    ]
    assert len(found) == 1
    custom = found[0]
    assert custom[6:10] == [row.low_ref, row.high_ref, row.low_query, row.high_query]
    assert custom[10] == pytest.approx(row.delta) and custom[11] == pytest.approx(row.r)


def test_every_point_drawn_once_with_the_figures_colours_and_markers(pts):
    fig = interactive_rrmap(pts, "movement", facet="expert")
    traces = [t for t in fig.data if t.hovertemplate]
    assert sum(len(t.x) for t in traces) == len(pts)
    styles = style_map(sorted(pts.movement.unique()), None, None, "movement")
    legend = [t for t in traces if t.showlegend]
    assert [t.name for t in legend] == sorted(pts.movement.unique())
    for t in legend:
        colour, marker = styles[t.name]
        assert t.marker.color == colour and t.marker.symbol == _SYMBOLS[marker]
    arrows = [t for t in traces if t.marker.symbol.startswith("triangle")]
    n_out = int((~pts.delta.between(-4, 4) | ~pts.r.between(0, 2.5)).sum())
    assert sum(len(t.x) for t in arrows) == n_out
    x = np.concatenate([_decode(t.x) for t in arrows])
    assert np.all(np.abs(x) <= 4)  # on the edge of the view


def test_background_is_bc_and_errors_are_named(pts):
    fig = interactive_rrmap(pts, resolution=40)
    heat = fig.data[0]
    x, y, z = _decode(heat.x), _decode(heat.y), np.asarray(heat.z)
    from rrmap.comparison import bhattacharyya

    np.testing.assert_allclose(z, bhattacharyya(x[None, :], y[:, None]), rtol=1e-6)
    with pytest.raises(InputError, match="no column 'nope'"):
        interactive_rrmap(pts, "nope")


def test_the_map_fills_its_container_and_the_page_loads_plotly_once(pts, tmp_path):
    """It was a fixed 672 × 383 px whatever the window, 5.5 MB a file."""
    fig = interactive_rrmap(pts, "movement", facet="expert")
    assert fig.layout.width is None and fig.layout.autosize is True
    html = save_html(fig, tmp_path / "map.html").read_text(encoding="utf-8")
    _, layout = _plotly_call(html)
    assert "width" not in layout and "height" not in layout  # the div's size, not fixed
    assert re.search(r'style="height:[^"]*100vw[^"]*; width:100%;"', html)
    assert '"responsive": true' in html
    assert html.count("Plotly.newPlot(") == 1
    small = save_html(fig, tmp_path / "cdn.html", include_plotlyjs="cdn")
    text = small.read_text(encoding="utf-8")
    assert re.search(r'<script[^>]+src="https://cdn\.plot\.ly/', text)
    assert small.stat().st_size < 1_000_000 < len(html)
    _, fixed = _plotly_call(
        save_html(interactive_rrmap(pts, width="7in"), tmp_path / "w.html").read_text()
    )
    assert fixed["width"] == 672  # a width asked for is kept


def test_the_colour_bar_stands_beside_the_panels(pts):
    """It lay over the bottom of the E2/E3 panels, its title over E1's axis."""
    fig = interactive_rrmap(pts, "movement", facet="expert")
    bars = [t for t in fig.data if t.type == "heatmap" and t.showscale]
    assert len(bars) == 1
    bar = bars[0].colorbar
    right = max(fig.layout[f"xaxis{k}"].domain[1] for k in ("", "2", "3"))
    assert bar.orientation == "v" and bar.x >= right and bar.xanchor == "left"
    assert bar.len == 1.0 and bar.title.side == "right"


def test_hover_names_the_intervals_by_the_files_origins(pts):
    renamed = pts.copy()
    renamed.attrs = {
        "rrmap": {**pts.attrs["rrmap"], "reference": "<b>human</b>", "query": "AI %{x}"}
    }
    template = next(t.hovertemplate for t in interactive_rrmap(renamed).data if t.hovertemplate)
    assert "&lt;b&gt;human&lt;/b&gt;: [" in template and "AI &#37;{x}: [" in template
    assert "reference" not in template and "query" not in template


def test_clipped_points_are_whole_arrowheads_inside_the_edge(pts):
    """They were half markers, cut by the edge of the panel."""
    fig = interactive_rrmap(pts, "movement", facet="expert")
    arrows = [t for t in fig.data if t.hovertemplate and t.marker.symbol.startswith("triangle")]
    assert arrows and all(t.cliponaxis is False for t in arrows)
    assert all(t.cliponaxis is not False for t in fig.data if t.hovertemplate and t not in arrows)
    for t in arrows:
        x, y = _decode(t.x), _decode(t.y)
        assert np.all((x > -4) & (x < 4) & (y > 0) & (y < 2.5))  # just inside, not on it
        if t.marker.symbol == "triangle-right":
            assert np.all(x > 3.8)


def test_every_marker_of_the_palettes_has_a_plotly_symbol():
    from rrmap.plot.base._style import MARKERS, QUALITY_MARKERS
    from rrmap.plot.interactive import _SYMBOLS

    assert set(MARKERS) | set(QUALITY_MARKERS.values()) <= set(_SYMBOLS)


def test_zones_ellipse_and_stars_are_drawn_over_the_points_with_a_halo(pts):
    fig = interactive_rrmap(pts, "movement", facet="expert")
    for axis in ("x", "x2", "x3"):
        traces = [t for t in fig.data if (t.xaxis or "x") == axis]
        kinds = []
        for t in traces:
            if t.type == "heatmap":
                kinds.append("background")
            elif t.name in set(pts.movement) or (t.name or "").startswith("clipped"):
                kinds.append("points")
            else:
                kinds.append("overlay")
        first_overlay = kinds.index("overlay")
        assert kinds[0] == "background"
        assert "points" not in kinds[first_overlay:]  # every point trace below the overlays
        scatter = [t for t in traces if t.type == "scatter"]
        stars = [t for t in scatter if t.marker.symbol == "star-open"]
        assert [s.marker.color for s in stars] == ["white", "black"]  # halo first, then star
        halo = [t for t in scatter if t.mode == "lines" and t.line.color == "white"]
        assert len(halo) == 1 and halo[0].line.width > 1.2  # the ellipse's halo
