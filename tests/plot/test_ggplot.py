"""Tests of rrmap.plot.ggplot (the plotnine builder) and rrmap.plot.styles.theme_rrmap."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from plot_helpers import bc_paper
from plotnine import (
    facet_grid,
    facet_wrap,
    ggplot,
    labs,
    scale_color_manual,
    theme,
    theme_bw,
    theme_classic,
    theme_minimal,
)
from plotnine.exceptions import PlotnineWarning

from rrmap.errors import InputError
from rrmap.plot.ggplot import ggrrmap, rrmap_layers_data
from rrmap.plot.styles import theme_rrmap


def test_layers_data_match_formulas():
    d = rrmap_layers_data(xlim=(-3, 3), ylim=(0.1, 2.0), resolution=31)
    bg = d["background"]
    assert len(bg) == 31 * 31
    np.testing.assert_allclose(bg.bc, bc_paper(bg.delta, bg.r), rtol=1e-12)
    assert bg.delta.min() == pytest.approx(-3 + 3 / 31) and bg.r.max() == pytest.approx(
        2 - 0.95 / 31
    )
    fair = d["zones"][d["zones"].zone == "fair"][["delta", "r"]].to_numpy()
    for corner in [(-2, 2 / 3), (2, 2 / 3), (2, 1.5), (-2, 1.5)]:
        assert np.min(np.hypot(*(fair - corner).T)) < 1e-12
    ex = d["excellent"]
    np.testing.assert_allclose(bc_paper(ex.delta, ex.r), 0.98, rtol=1e-9)


def test_points_data_clipped(pts):
    d = rrmap_layers_data(pts)["points"]
    outside = ~pts.delta.between(-4, 4) | ~pts.r.between(0, 2.5)
    assert d["clipped"].sum() == outside.sum() == 42
    assert d["x"].between(-4, 4).all() and d["y"].between(0, 2.5).all()
    assert (d.loc[~d.clipped, "x"] == pts.loc[~outside, "delta"]).all()
    assert set(d.loc[d.clipped, "direction"]) <= {">", "<", "^", "v"}


def test_builder_renders_and_accepts_theme_bw(pts, tmp_path):
    p = ggrrmap(pts, "movement")
    assert isinstance(p, ggplot)
    p2 = p + theme_bw() + labs(title="E1–E3")
    fig = p2.draw()
    ax = fig.axes[0]
    assert ax.get_xlim() == (-4.0, 4.0) and ax.get_ylim() == (0.0, 2.5)
    texts = {t.get_text() for t in fig.findobj(matplotlib.text.Text)}
    assert {"E1–E3", "fair", "stereotype", "bad", "movement", "abstract art"} <= texts
    assert "42 points beyond the view clipped to its edge (triangles)" in texts
    out = tmp_path / "gg.png"
    p2.save(out, width=5, height=4, dpi=50, verbose=False)
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_builder_facets_repeat_background(pts):
    p = ggrrmap(pts, "movement") + facet_wrap("expert") + theme_rrmap()
    fig = p.draw()
    panels = fig.axes[:3]
    # each facet repeats the background raster and the three outlines
    assert [len(ax.get_images()) for ax in panels] == [1, 1, 1]
    assert [len(ax.lines) for ax in panels] == [3, 3, 3]
    img = panels[1].get_images()[0].get_array()
    assert float(np.nanmax(img)) == pytest.approx(1.0, abs=1e-3)


def _point_layers(p):
    """Data of the geom_point layers that draw rating points (not the reference stars)."""
    return [
        layer.geom.data
        for layer in p.layers
        if type(layer.geom).__name__ == "geom_point" and layer.geom.aes_params.get("shape") != "*"
    ]


def test_point_layer_positions(pts):
    e2 = pts[pts.expert == "E2"]
    p = ggrrmap(e2, "criterion_group")
    main, *clipped = _point_layers(p)
    assert len(main) + sum(len(d) for d in clipped) == len(e2)
    assert sorted(layer.geom.aes_params.get("shape") for layer in p.layers[-len(clipped) :]) == [
        "<",
        ">",
        "^",
    ]
    inside = e2[e2.delta.between(-4, 4) & e2.r.between(0, 2.5)]
    np.testing.assert_allclose(np.sort(main["x"]), np.sort(inside.delta))


def test_no_clip_caption(pts):
    p = ggrrmap(pts[pts.expert == "E3"], clip=False)
    assert p.labels.caption == "28 points beyond the view not shown"
    layers = _point_layers(p)
    assert len(layers) == 1 and len(layers[0]) == 135 - 28


def test_theme_rrmap_keeps_pdf_text_truetype(pts, tmp_path):
    p = ggrrmap(pts[pts.expert == "E1"], "modality") + theme_rrmap()
    out = tmp_path / "gg.pdf"
    p.save(out, width=4, height=3.5, verbose=False)
    data = out.read_bytes()
    assert b"/FontFile2" in data and b"/Subtype /Type3" not in data


def test_bad_input_messages():
    with pytest.raises(InputError, match="no column 'delta'"):
        ggrrmap(pd.DataFrame({"x": [1.0]}))
    with pytest.raises(InputError, match="xlim must be"):
        ggrrmap(xlim=(1, 1))


def _drawn_legend_texts(fig):
    """Texts of the drawn legends and whether each lies inside the figure."""
    from matplotlib.text import Text
    from plot_helpers import drawn_texts

    w, h = fig.get_size_inches()
    return {
        text: bool(
            box.x0 >= -0.01 and box.x1 <= w + 0.01 and box.y0 >= -0.01 and box.y1 <= h + 0.01
        )
        for text, box, _ in drawn_texts(fig)
    }, Text


MOVEMENTS = ["abstract art", "cubism", "expressionism", "impressionism", "surrealism"]


@pytest.mark.parametrize(
    ("extra", "size"),
    [
        (lambda: [facet_wrap("expert"), theme_rrmap()], (3.5, 3.2)),
        (lambda: [facet_grid("modality ~ expert"), theme_classic()], (7.0, 5.0)),
        (lambda: [facet_grid("modality ~ expert"), theme_minimal()], (7.0, 5.0)),
        (lambda: [facet_wrap("expert"), theme_bw(), theme(legend_position="right")], (3.5, 3.0)),
        (lambda: [facet_wrap("expert")], (3.5, 3.2)),
    ],
)
def test_legends_are_never_cropped(pts, extra, size):
    """At 3.5 in, theme_rrmap used to drop 2 of 5 movements and the colorbar."""
    p = ggrrmap(pts, "movement") + extra() + theme(figure_size=size)
    fig = p.draw()
    texts, _ = _drawn_legend_texts(fig)
    for name in [*MOVEMENTS, "movement", "Bhattacharyya coefficient", "0.00", "1.00"]:
        assert texts.get(name) is True, name  # drawn, and inside the figure
    from plot_helpers import outside_page

    assert outside_page(fig) == []


def test_labs_and_manual_scales_work_as_in_any_ggplot(pts):
    p = ggrrmap(pts, "movement") + labs(color="Movement", shape="Movement")
    fig = p.draw()
    texts, _ = _drawn_legend_texts(fig)
    assert "Movement" in texts and "movement" not in texts
    assert sum(t in MOVEMENTS for t in texts) == 5  # one legend: colour and shape merged
    colours = ["#000000", "#e69f00", "#56b4e9", "#009e73", "#cc79a7"]
    with pytest.warns(PlotnineWarning, match="Scale for 'color' is already present"):
        p = ggrrmap(pts, "movement") + scale_color_manual(values=colours)  # as in any ggplot
    fig = p.draw()
    texts, _ = _drawn_legend_texts(fig)
    assert sum(t in MOVEMENTS for t in texts) == 5 and "movement" in texts
    drawn = {
        matplotlib.colors.to_hex(c.get_facecolor()[0], keep_alpha=False)
        for c in fig.axes[0].collections
        if len(c.get_offsets()) > 5
    }
    assert set(colours) <= drawn


def test_facet_ticks_do_not_collide_and_the_colorbar_title_is_shared(pts):
    from plot_helpers import overlapping_texts

    p = ggrrmap(pts, "movement", zone_labels=False) + facet_grid("modality ~ expert")
    fig = (p + theme_bw() + theme(figure_size=(7, 5))).draw()
    assert overlapping_texts(fig) == []
    ticks = {t.get_text() for ax in fig.axes for t in ax.get_xticklabels() if t.get_visible()}
    assert {"-4", "4", "-4.0", "4.0"}.isdisjoint(ticks)  # no labels at shared panel edges
    assert ggrrmap(pts).labels.fill == "Bhattacharyya coefficient"


def test_ggplot_save_keeps_text_as_text_under_any_theme(pts, tmp_path):
    p = ggrrmap(pts[pts.expert == "E1"], "modality") + theme_classic()
    out = tmp_path / "gg.pdf"
    p.save(out, width=3.5, height=3, verbose=False)
    data = out.read_bytes()
    assert b"/FontFile2" in data and b"/Subtype /Type3" not in data


def test_the_users_legend_position_is_kept_when_the_panels_have_room(pts):
    """Every 3-facet plot used to move its legend below (one facet < 0.35 of the width)."""
    from plot_helpers import drawn_texts

    p = ggrrmap(pts, "movement") + facet_wrap("expert") + theme_bw()
    fig = (p + theme(legend_position="right", figure_size=(12, 4))).draw()
    legend = {t: b for t, b, _ in drawn_texts(fig) if t in [*MOVEMENTS, "movement"]}
    right = max(ax.get_position().x1 for ax in fig.axes)  # the panels, as drawn
    w, _ = fig.get_size_inches()
    assert len(legend) == 6
    assert all(b.x0 > right * w for b in legend.values())  # beside the panels, not below


def test_a_long_title_wraps_and_nothing_is_cut_at_single_column_width(pts):
    from plot_helpers import drawn_texts, outside_page

    long = "Relative ratings of the three raters, by movement and modality"
    p = ggrrmap(pts[pts.expert == "E1"], "movement") + theme_rrmap() + labs(title=long)
    fig = (p + theme(figure_size=(3.5, 3.2))).draw()
    assert outside_page(fig) == []
    titles = [t for t, _, _ in drawn_texts(fig) if "Relative ratings" in t]
    assert titles and "\n" in titles[0] and " ".join(titles[0].split()) == long
    assert p.labels.title == long  # the user's plot is left as it was


def test_zone_labels_are_at_least_6_pt_and_inside_the_panel(pts):
    from plot_helpers import drawn_texts

    p = ggrrmap(pts[pts.expert == "E1"], "movement") + theme_rrmap()
    fig = (p + theme(figure_size=(3.5, 3.2))).draw()
    ax = fig.axes[0]
    _, h = fig.get_size_inches()
    panel = ax.get_position()
    names = {"excellent", "perfect\nalignment", "perfect\nstereotype", "fair", "stereotype", "bad"}
    seen = {}
    for text, box, size in drawn_texts(fig):
        if text in names:
            seen[text] = size
            assert box.y0 >= panel.y0 * h - 0.01 and box.y1 <= panel.y1 * h + 0.01, text
    assert set(seen) == names
    assert min(seen.values()) >= 6.0
