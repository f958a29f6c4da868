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

#: Further sizes and themes of a layout check: run by .ci/run (pytest -m slow).
SLOW = pytest.mark.slow

#: Background cells along each side in the checks of text, legends and panels: where they
#: lie does not depend on the cells (the colour bar's scale is fixed at 0 to 1), and a
#: 12-panel plot draws in two thirds of the time at 40 as at the default 200.
CELLS = 40


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
    assert d["clipped"].sum() == outside.sum() > 0
    assert d["x"].between(-4, 4).all() and d["y"].between(0, 2.5).all()
    assert (d.loc[~d.clipped, "x"] == pts.loc[~outside, "delta"]).all()
    assert set(d.loc[d.clipped, "direction"]) <= {">", "<", "^", "v"}


def test_builder_renders_and_accepts_theme_bw(pts, tmp_path):
    p = ggrrmap(pts, "movement", resolution=CELLS)
    assert isinstance(p, ggplot)
    p2 = p + theme_bw() + labs(title="E1–E3")
    fig = p2.draw()
    ax = fig.axes[0]
    assert ax.get_xlim() == (-4.0, 4.0) and ax.get_ylim() == (0.0, 2.5)
    texts = {t.get_text() for t in fig.findobj(matplotlib.text.Text)}
    assert {"E1–E3", "fair", "stereotype", "bad", "movement", "abstract art"} <= texts
    n = int((~pts.delta.between(-4, 4) | ~pts.r.between(0, 2.5)).sum())
    assert f"{n} points beyond the view clipped to its edge (triangles)" in texts
    out = tmp_path / "gg.png"
    p2.save(out, width=5, height=4, dpi=50, verbose=False)
    assert out.read_bytes()[:4] == b"\x89PNG"


#: Further layers of the plots the legend checks draw, by name.
EXTRAS = {
    "wrap, theme_rrmap": lambda: [facet_wrap("expert"), theme_rrmap()],
    "grid, theme_classic": lambda: [facet_grid("modality ~ expert"), theme_classic()],
    "grid, theme_minimal": lambda: [facet_grid("modality ~ expert"), theme_minimal()],
    "wrap, theme_bw, right": lambda: [
        facet_wrap("expert"),
        theme_bw(),
        theme(legend_position="right"),
    ],
    "wrap": lambda: [facet_wrap("expert")],
}


def _gg_drawn(points, color, extra, size):
    """``ggrrmap(points, color) + EXTRAS[extra] + theme(figure_size=size)``, drawn (for
    the session's ``drawn`` fixture: tests that only look at it share one drawing)."""
    return (ggrrmap(points, color) + EXTRAS[extra]() + theme(figure_size=size)).draw()


def test_builder_facets_repeat_background(drawn):
    # the figure of test_legends_are_never_cropped's first case: one drawing, looked at twice
    fig = drawn(_gg_drawn, "movement", "wrap, theme_rrmap", (3.5, 3.2))
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
    # the direction each clipped point points (Δ wins beyond a corner), from the data
    out_x = np.where(e2.delta > 4, ">", np.where(e2.delta < -4, "<", ""))
    out_y = np.where(e2.r > 2.5, "^", np.where(e2.r < 0, "v", ""))
    directions = sorted(set(np.where(out_x != "", out_x, out_y)) - {""})
    assert len(directions) >= 2
    shapes = sorted(layer.geom.aes_params.get("shape") for layer in p.layers[-len(clipped) :])
    assert shapes == directions
    inside = e2[e2.delta.between(-4, 4) & e2.r.between(0, 2.5)]
    np.testing.assert_allclose(np.sort(main["x"]), np.sort(inside.delta))


def test_no_clip_caption(pts):
    e3 = pts[pts.expert == "E3"]
    n = int((~e3.delta.between(-4, 4) | ~e3.r.between(0, 2.5)).sum())
    assert n > 0
    p = ggrrmap(e3, clip=False)
    assert p.labels.caption == f"{n} points beyond the view not shown"
    layers = _point_layers(p)
    assert len(layers) == 1 and len(layers[0]) == 135 - n


@SLOW  # a further theme of test_ggplot_save_keeps_text_as_text_under_any_theme's check
def test_theme_rrmap_keeps_pdf_text_truetype(pts, tmp_path):
    p = ggrrmap(pts[pts.expert == "E1"], "modality", resolution=CELLS) + theme_rrmap()
    out = tmp_path / "gg.pdf"
    p.save(out, width=4, height=3.5, verbose=False)
    data = out.read_bytes()
    assert b"/FontFile2" in data and b"/Subtype /Type3" not in data


def test_bad_input_messages():
    with pytest.raises(InputError, match="no column 'delta'"):
        ggrrmap(pd.DataFrame({"x": [1.0]}))
    with pytest.raises(InputError, match="xlim must be"):
        ggrrmap(xlim=(1, 1))


def _drawn_legend_texts(fig, texts=None):
    """Texts drawn (a title wrapped onto lines read as one line) and whether each lies
    inside the figure; *texts*: ``drawn_texts(fig)``, if drawn already."""
    from matplotlib.text import Text
    from plot_helpers import drawn_texts

    w, h = fig.get_size_inches()
    return {
        " ".join(text.split()): bool(
            box.x0 >= -0.01 and box.x1 <= w + 0.01 and box.y0 >= -0.01 and box.y1 <= h + 0.01
        )
        for text, box, _ in (drawn_texts(fig) if texts is None else texts)
    }, Text


MOVEMENTS = ["abstract art", "cubism", "expressionism", "impressionism", "surrealism"]


@pytest.mark.parametrize(
    ("extra", "size"),
    [
        ("wrap, theme_rrmap", (3.5, 3.2)),
        # the other themes and layouts: run by .ci/run (pytest -m slow)
        pytest.param("grid, theme_classic", (7.0, 5.0), marks=SLOW),
        pytest.param("grid, theme_minimal", (7.0, 5.0), marks=SLOW),
        pytest.param("wrap, theme_bw, right", (3.5, 3.0), marks=SLOW),
        pytest.param("wrap", (3.5, 3.2), marks=SLOW),
    ],
)
def test_legends_are_never_cropped(drawn, extra, size):
    """At 3.5 in, theme_rrmap used to drop 2 of 5 movements and the colorbar."""
    from plot_helpers import drawn_texts, outside_page

    fig = drawn(_gg_drawn, "movement", extra, size)
    shown = drawn_texts(fig)
    texts, _ = _drawn_legend_texts(fig, shown)
    for name in [*MOVEMENTS, "movement", "Bhattacharyya coefficient", "0.00", "1.00"]:
        assert texts.get(name) is True, name  # drawn, and inside the figure
    assert outside_page(fig, texts=shown) == []


@pytest.mark.slow
def test_labs_and_manual_scales_work_as_in_any_ggplot(pts):
    p = ggrrmap(pts, "movement", resolution=CELLS) + labs(color="Movement", shape="Movement")
    fig = p.draw()
    texts, _ = _drawn_legend_texts(fig)
    assert "Movement" in texts and "movement" not in texts
    assert sum(t in MOVEMENTS for t in texts) == 5  # one legend: colour and shape merged
    colours = ["#000000", "#e69f00", "#56b4e9", "#009e73", "#cc79a7"]
    with pytest.warns(PlotnineWarning, match="Scale for 'color' is already present"):
        p = ggrrmap(pts, "movement", resolution=CELLS) + scale_color_manual(values=colours)
    fig = p.draw()
    texts, _ = _drawn_legend_texts(fig)
    assert sum(t in MOVEMENTS for t in texts) == 5 and "movement" in texts
    drawn = {
        matplotlib.colors.to_hex(c.get_facecolor()[0], keep_alpha=False)
        for c in fig.axes[0].collections
        if len(c.get_offsets()) > 5
    }
    assert set(colours) <= drawn


@pytest.mark.slow
def test_facet_ticks_do_not_collide_and_the_colorbar_title_is_shared(pts):
    from plot_helpers import overlapping_texts

    p = ggrrmap(pts, "movement", zone_labels=False, resolution=CELLS)
    p = p + facet_grid("modality ~ expert")
    fig = (p + theme_bw() + theme(figure_size=(7, 5))).draw()
    assert overlapping_texts(fig) == []
    ticks = {t.get_text() for ax in fig.axes for t in ax.get_xticklabels() if t.get_visible()}
    assert {"-4", "4", "-4.0", "4.0"}.isdisjoint(ticks)  # no labels at shared panel edges
    assert ggrrmap(pts).labels.fill == "Bhattacharyya coefficient"


@pytest.mark.slow
def test_ggplot_save_keeps_text_as_text_under_any_theme(pts, tmp_path):
    p = ggrrmap(pts[pts.expert == "E1"], "modality", resolution=CELLS) + theme_classic()
    out = tmp_path / "gg.pdf"
    p.save(out, width=3.5, height=3, verbose=False)
    data = out.read_bytes()
    assert b"/FontFile2" in data and b"/Subtype /Type3" not in data


@pytest.mark.slow
def test_the_users_legend_position_is_kept_when_the_panels_have_room(pts):
    """Every 3-facet plot used to move its legend below (one facet < 0.35 of the width)."""
    from plot_helpers import drawn_texts

    p = ggrrmap(pts, "movement", resolution=CELLS) + facet_wrap("expert") + theme_bw()
    fig = (p + theme(legend_position="right", figure_size=(12, 4))).draw()
    legend = {t: b for t, b, _ in drawn_texts(fig) if t in [*MOVEMENTS, "movement"]}
    right = max(ax.get_position().x1 for ax in fig.axes)  # the panels, as drawn
    w, _ = fig.get_size_inches()
    assert len(legend) == 6
    assert all(b.x0 > right * w for b in legend.values())  # beside the panels, not below


@pytest.mark.slow
def test_a_long_title_wraps_and_nothing_is_cut_at_single_column_width(pts):
    from plot_helpers import drawn_texts, outside_page

    long = "Relative ratings of the three raters, by movement and modality"
    p = ggrrmap(pts[pts.expert == "E1"], "movement", resolution=CELLS) + theme_rrmap()
    p = p + labs(title=long)
    fig = (p + theme(figure_size=(3.5, 3.2))).draw()
    shown = drawn_texts(fig)
    assert outside_page(fig, texts=shown) == []
    titles = [t for t, _, _ in shown if "Relative ratings" in t]
    assert titles and "\n" in titles[0] and " ".join(titles[0].split()) == long
    assert p.labels.title == long  # the user's plot is left as it was


@pytest.mark.slow
def test_zone_labels_are_at_least_6_pt_and_inside_the_panel(pts):
    from plot_helpers import drawn_texts

    p = ggrrmap(pts[pts.expert == "E1"], "movement", resolution=CELLS) + theme_rrmap()
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


# -- the legends placed for the figure's size ------------------------------------------


def _panels(fig, drawn=False):
    """The panels together as drawn: (left, bottom, right, top) in inches; *drawn*: the
    figure was drawn since it was last changed (by :func:`_legend_boxes`)."""
    if not drawn:
        fig.draw_without_rendering()  # plotnine lays the figure out when it is drawn
    w, h = fig.get_size_inches()
    boxes = [ax.get_position() for ax in fig.axes]
    return (
        min(b.x0 for b in boxes) * w,
        min(b.y0 for b in boxes) * h,
        max(b.x1 for b in boxes) * w,
        max(b.y1 for b in boxes) * h,
    )


def _legend_boxes(fig, texts=None):
    """Drawn boxes (inches) of the legends' texts, by text; *texts*: ``drawn_texts(fig)``,
    if drawn already."""
    from plot_helpers import drawn_texts

    keep = {*MOVEMENTS, "movement", "Bhattacharyya coefficient", "0.00", "1.00"}
    shown = drawn_texts(fig) if texts is None else texts
    return {" ".join(t.split()): b for t, b, _ in shown if " ".join(t.split()) in keep}


@pytest.mark.slow
def test_three_facets_at_7_by_3_in_keep_the_height_for_the_panels(pts):
    """The legend and colour bar below the panels took half the height: the panels were
    0.21 of it. Beside the panels (level with their top, a shorter colour bar) they leave
    the panels most of the height and over 1.5 in of width each."""
    p = ggrrmap(pts, "movement", resolution=CELLS) + facet_wrap("expert")
    p = p + theme(figure_size=(7, 3))
    fig = p.draw()
    legend = _legend_boxes(fig)  # drawn once: the panels as laid out for it
    _left, bottom, right, top = _panels(fig, drawn=True)
    assert (top - bottom) / 3 >= 0.6
    assert fig.axes[0].get_window_extent().width / fig.dpi >= 1.5
    assert len(legend) == 9 and all(b.x0 > right for b in legend.values())


def test_theme_rrmap_keeps_its_legend_below_in_one_row_with_a_thin_colorbar(pts):
    """theme_rrmap puts the legends below: at 7 × 3 in the keys take one row beside a thin
    colour bar, and the panels keep half the height (they had 0.28 of it)."""
    from matplotlib.collections import QuadMesh

    p = ggrrmap(pts, "movement", resolution=CELLS) + facet_wrap("expert") + theme_rrmap()
    p = p + labs(title="Generated vs historical, per expert")
    fig = (p + theme(figure_size=(7, 3))).draw()
    legend = _legend_boxes(fig)
    _left, bottom, _right, top = _panels(fig, drawn=True)
    assert (top - bottom) / 3 >= 0.45
    assert len(legend) == 9 and all(b.y1 < bottom for b in legend.values())
    rows = {round(legend[m].y0, 2) for m in MOVEMENTS}
    assert len(rows) == 1  # one row of keys
    bar = fig.findobj(QuadMesh)
    assert len(bar) == 1
    assert bar[0].get_window_extent().height / fig.dpi * 72 <= 8.0  # points: thin


@pytest.mark.first_case_by_default
@pytest.mark.parametrize(
    "size",
    [(7, 3), *(pytest.param(s, marks=SLOW) for s in [(7, 4), (3.5, 3.5), (12, 4)])],
    ids=str,
)
@pytest.mark.parametrize("facets", [True, False], ids=["faceted", "single"])
def test_nothing_is_cut_or_overlaps_at_any_size(pts, size, facets):
    """Legends, titles, the caption and the names beside the Δ band inside the figure (the
    names inside their panel), no two texts over each other, none under 6 pt. A single
    panel at 7 × 3 in had "perfect alignment" over "perfect stereotype"."""
    from plot_helpers import printed

    data = pts if facets else pts[pts.expert == "E1"]
    p = ggrrmap(data, "movement", resolution=CELLS)
    p = p + labs(title="Relative ratings of the three raters, by movement")
    p = p + (facet_wrap("expert") if facets else theme()) + theme(figure_size=size)
    fig = p.draw()
    page = printed(fig)  # drawn once, looked at five ways
    assert page.outside == []
    assert page.overlapping == []
    assert page.smallest >= 6.0
    assert len(_legend_boxes(fig, page.texts)) == 9  # every key, the titles, the bar's ends
    _, h = fig.get_size_inches()
    w = fig.get_size_inches()[0]
    panel = fig.axes[0].get_position()
    names = {"excellent", "perfect\nalignment", "perfect\nstereotype"}
    for text, box, _ in page.texts:
        if text in names:
            assert panel.x0 * w - 0.01 <= box.x0 and box.x1 <= panel.x1 * w + 0.01, text
            assert panel.y0 * h - 0.01 <= box.y0 and box.y1 <= panel.y1 * h + 0.01, text


@pytest.mark.parametrize(
    ("position", "size"),
    [
        ("bottom", (12, 4)),
        # further positions and sizes of the same check: run by .ci/run (pytest -m slow)
        pytest.param("left", (7, 4), marks=SLOW),
        pytest.param("top", (7, 3), marks=SLOW),
    ],
)
def test_the_users_legend_position_is_kept(pts, position, size):
    p = ggrrmap(pts, "movement", resolution=CELLS) + facet_wrap("expert") + theme_bw()
    fig = (p + theme(legend_position=position, figure_size=size)).draw()
    legend = _legend_boxes(fig).values()
    left, bottom, _right, top = _panels(fig, drawn=True)
    side = {
        "bottom": lambda b: b.y1 < bottom,
        "left": lambda b: b.x1 < left,
        "top": lambda b: b.y0 > top,
    }[position]
    assert len(legend) == 9 and all(side(b) for b in legend)


def test_only_the_users_own_theme_settings_are_kept():
    """A ``+ theme(...)`` setting is the user's (kept); a complete theme replaces them."""
    from rrmap.plot._plotnine_theme import Recipe, arranged

    p = ggrrmap() + theme(legend_title_position="left", legend_position="bottom")
    assert {"legend_title_position", "legend_position"} <= p._rrmap_user_theme
    assert p._legend_side() == "bottom"
    out = arranged(p, Recipe("bottom", "horizontal", 3), p._rrmap_user_theme)
    assert out.theme.getp("legend_title_position") == "left"
    assert out.theme.getp("legend_box") == "horizontal"
    q = p + theme_bw()
    assert q._rrmap_user_theme == frozenset() and q._legend_side() is None  # rrmap chooses
    assert (ggrrmap() + theme_rrmap())._legend_side() == "bottom"  # the theme's own side
