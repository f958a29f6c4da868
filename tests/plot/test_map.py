"""Tests of rrmap.plot.figures.map and rrmap.plot.base.geometry: one panel, checked against the formulas."""

from __future__ import annotations

import re

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from plot_helpers import bc_paper, toy_points

import rrmap
from rrmap.errors import InputError
from rrmap.plot import (
    background_cmap,
    panel_artists,
    plot_rrmap,
)
from rrmap.plot.base.geometry import bc_contour, clip_to_view
from rrmap.plot.styles import PAPER_STYLE


@pytest.mark.parametrize(
    ("xlim", "ylim", "resolution"), [((-4, 4), (0, 2.5), 400), ((-1, 3), (0.2, 1.7), 57)]
)
def test_background_cells_equal_bc(xlim, ylim, resolution):
    ax = plot_rrmap(xlim=xlim, ylim=ylim, resolution=resolution)
    im = panel_artists(ax).background
    arr = np.asarray(im.get_array())
    assert arr.shape == (resolution, resolution)
    x0, x1, y0, y1 = im.get_extent()
    assert (x0, x1, y0, y1) == (*xlim, *ylim)
    rng = np.random.default_rng(1)
    i, j = rng.integers(0, resolution, size=(2, 50))
    xc = x0 + (j + 0.5) * (x1 - x0) / resolution
    yc = y0 + (i + 0.5) * (y1 - y0) / resolution  # origin="lower": row 0 at the bottom
    assert im.origin == "lower"
    np.testing.assert_allclose(arr[i, j], bc_paper(xc, yc), rtol=1e-12)
    assert im.get_clim() == (0.0, 1.0)


@pytest.mark.parametrize(
    ("thresholds", "corners"),
    [
        (rrmap.Thresholds(), {"stereotype": [(2, 0), (2, 2 / 3)], "fair": [(2, 2 / 3), (2, 1.5)]}),
        (
            rrmap.Thresholds(delta_bound=1.96, stereotype_r=0.5, fair_r=2.0),
            {"stereotype": [(1.96, 0), (1.96, 0.5)], "fair": [(1.96, 0.5), (1.96, 2.0)]},
        ),
    ],
)
def test_zone_outlines_pass_through_spec_corners(thresholds, corners):
    ax = plot_rrmap(thresholds=thresholds)
    zones = panel_artists(ax).zones
    for name, pts_ in corners.items():
        verts = zones[name].get_xy()
        for x, y in pts_:
            for sx in (x, -x):
                assert np.min(np.hypot(verts[:, 0] - sx, verts[:, 1] - y)) < 1e-12, (name, sx, y)
        assert np.allclose(verts[0], verts[-1])  # closed


def test_excellent_contour_is_bc_level_with_spec_extent():
    ax = plot_rrmap()
    line = panel_artists(ax).excellent
    x, y = line.get_xdata(), line.get_ydata()
    np.testing.assert_allclose(bc_paper(x, y), 0.98, rtol=1e-9)
    # docs/method.md: on Δ = 0 the excellent region is 0.7512 < R < 1.3313
    assert y.min() == pytest.approx(0.7512, abs=1e-4)
    assert y.max() == pytest.approx(1.3313, abs=1e-4)
    # on R = 1 it is |Δ| < 0.4020
    right = x >= 0
    order = np.argsort(y[right])
    assert np.interp(1.0, y[right][order], x[right][order]) == pytest.approx(0.4020, abs=2e-4)
    # and it lies inside the fair rectangle
    assert np.abs(x).max() < 2 and y.min() > 2 / 3 and y.max() < 1.5


@pytest.mark.parametrize("level", [0.9, 0.98, 0.995])
def test_bc_contour_closed_form(level):
    curve = bc_contour(level)
    np.testing.assert_allclose(bc_paper(curve[:, 0], curve[:, 1]), level, rtol=1e-9)
    np.testing.assert_allclose(curve[0], curve[-1], atol=1e-12)


def test_clipped_points_counted_and_on_edge():
    df = toy_points([0.0, 5.0, -6.0, 1.0, 0.5], [1.0, 1.0, 0.5, 3.0, 0.3], list("abcab"))
    df = df.rename(columns={"movement": "group"})
    ax = plot_rrmap(df, "group", xlim=(-4, 4), ylim=(0, 2.5))
    drawn = panel_artists(ax)
    assert drawn.n_clipped == 3 and drawn.n_points == 5
    edge = np.vstack([c.get_offsets() for c in drawn.clipped])
    expected = {(4.0, 1.0), (-4.0, 0.5), (1.0, 2.5)}
    assert {tuple(map(float, p)) for p in edge} == expected
    markers = sorted(c.get_gid().rsplit(".", 1)[1] for c in drawn.clipped)
    assert markers == ["<", ">", "^"]
    assert all(not c.get_clip_on() for c in drawn.clipped)  # visible over the frame
    inside = np.vstack([c.get_offsets() for c in drawn.points.values() if len(c.get_offsets())])
    assert {tuple(map(float, p)) for p in inside} == {(0.0, 1.0), (0.5, 0.3)}
    texts = [t.get_text() for t in drawn.legend.get_texts()]
    assert "clipped to the edge (3)" in texts


def test_unclipped_points_are_counted_not_hidden():
    df = toy_points([0.0, 5.0, -6.0], [1.0, 1.0, 0.5])
    ax = plot_rrmap(df, clip=False)
    drawn = panel_artists(ax)
    assert drawn.n_clipped == 2 and drawn.n_points == 1 and drawn.clipped == []
    texts = [t.get_text() for t in drawn.legend.get_texts()]
    assert texts == ["outside the view (not shown) (2)"]


def test_clip_to_view_corner_goes_horizontal():
    c = clip_to_view([10.0, 0.0], [10.0, -1.0], (-4, 4), (0.5, 2.5))
    assert c.direction.tolist() == [">", "v"]
    assert c.x.tolist() == [4.0, 0.0] and c.y.tolist() == [2.5, 0.5]


def test_points_coloured_and_shaped_by_category(pts):
    e1 = pts[pts.expert == "E1"]
    ax = plot_rrmap(e1, "movement")
    drawn = panel_artists(ax)
    assert sorted(drawn.points) == sorted(e1.movement.unique())
    colours = {tuple(c.get_facecolor()[0][:3]) for c in drawn.points.values()}
    paths = {c.get_paths()[0].vertices.tobytes() for c in drawn.points.values()}
    assert len(colours) == len(paths) == 5
    n_in = sum(len(c.get_offsets()) for c in drawn.points.values())
    assert n_in + drawn.n_clipped == len(e1) == drawn.n_points
    cubism = drawn.points["cubism"].get_offsets()
    sel = e1[(e1.movement == "cubism") & e1.delta.between(-4, 4) & e1.r.between(0, 2.5)]
    np.testing.assert_allclose(np.sort(cubism[:, 0]), np.sort(sel.delta))


def test_reference_points_and_labels():
    ax = plot_rrmap()
    drawn = panel_artists(ax)
    offsets = {k: tuple(v.get_offsets()[0]) for k, v in drawn.references.items()}
    assert offsets == {"alignment": (0.0, 1.0), "stereotype": (0.0, 0.0)}
    texts = {k: t.get_text() for k, t in drawn.labels.items()}
    assert texts["alignment"] == "perfect\nalignment"
    assert texts["stereotype_point"] == "perfect\nstereotype"
    assert {"stereotype", "fair", "bad", "excellent"} <= set(texts)
    assert drawn.colorbar is not None and drawn.colorbar.vmin == 0 and drawn.colorbar.vmax == 1


def test_quality_colours_fixed(pts):
    ax = plot_rrmap(pts, "quality")
    drawn = panel_artists(ax)
    assert list(drawn.points) == ["excellent", "fair", "stereotype", "bad"]
    got = matplotlib.colors.to_hex(drawn.points["excellent"].get_facecolor()[0], keep_alpha=False)
    assert got == rrmap.plot.QUALITY_COLORS["excellent"].lower()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"color": "nope"}, "no column 'nope'"),
        ({"xlim": (3, -3)}, "xlim must be two finite increasing numbers"),
        ({"ylim": (-1, 2)}, "ylim must be two finite increasing numbers >= 0"),
        ({"color": "movement", "order": ["cubism"]}, "order leaves out the values"),
    ],
)
def test_bad_arguments_have_clear_messages(pts, kwargs, message):
    with pytest.raises(InputError, match=re.escape(message)):
        plot_rrmap(pts, **kwargs)


def test_non_finite_points_are_named():
    df = toy_points([0.0, np.nan, 1.0, np.inf], [1.0, 1.0, np.nan, 1.0])
    with pytest.raises(
        InputError, match=r"3 points have a non-finite delta or r \(rows \[1, 2, 3\]"
    ):
        plot_rrmap(df)


def test_background_cmap_lightness_monotonic():
    rgb = background_cmap()(np.linspace(0, 1, 64))[:, :3]
    lum = rgb @ np.array([0.2126, 0.7152, 0.0722])
    assert np.all(np.diff(lum) > 0)
    with pytest.raises(InputError, match="lighten"):
        background_cmap(1.0)


def test_points_must_be_a_dataframe():
    with pytest.raises(InputError, match="points must be a DataFrame"):
        plot_rrmap([[0.0, 1.0]])


def test_svg_text_as_text(tmp_path):
    with plt.style.context(PAPER_STYLE):
        ax = plot_rrmap()
        out = tmp_path / "map.svg"
        ax.figure.savefig(out)
    svg = out.read_text()
    assert "<text" in svg and "relative shift" in svg
    assert 'id="rrmap.zone.fair"' in svg and "<image" in svg


def test_recorded_thresholds_are_drawn():
    th = rrmap.Thresholds(excellent_bc=0.95, delta_bound=1.5, stereotype_r=0.5, fair_r=2.0)
    custom = rrmap.points(rrmap.datasets.load_example_ratings(), thresholds=th)
    drawn = panel_artists(plot_rrmap(custom))
    assert drawn.zones["fair"].get_xy()[:4].tolist() == [
        [-1.5, 0.5],
        [1.5, 0.5],
        [1.5, 2.0],
        [-1.5, 2.0],
    ]
    x, y = drawn.excellent.get_xdata(), drawn.excellent.get_ydata()
    np.testing.assert_allclose(bc_paper(x, y), 0.95, rtol=1e-9)


def _drawn_points_bbox(ax):
    """Display boxes of every drawn point (inside the view)."""
    import matplotlib.transforms as mtransforms

    boxes = []
    for coll in panel_artists(ax).points.values():
        for xy in coll.get_offsets():
            x, y = ax.transData.transform(xy)
            boxes.append(mtransforms.Bbox.from_bounds(x - 1, y - 1, 2, 2))
    return boxes


def test_labels_never_hide_points(pts):
    """E1 has points under the "stereotype" label: the label is drawn under them."""
    e1 = pts[pts.expert == "E1"]
    ax = plot_rrmap(e1, "movement")
    drawn = panel_artists(ax)
    ax.figure.draw_without_rendering()
    r = ax.figure.canvas.get_renderer()
    label = drawn.labels["stereotype"].get_window_extent(r)
    under = [b for b in _drawn_points_bbox(ax) if label.overlaps(b)]
    assert len(under) >= 1  # the situation of the report: points where the label is
    point_z = min(c.get_zorder() for c in drawn.points.values())
    assert all(t.get_zorder() < point_z for t in drawn.labels.values())
    # the reference stars are above the points but hollow: the landmark and the point show
    for star in drawn.references.values():
        assert star.get_zorder() > point_z
        assert star.get_facecolor().size == 0 or star.get_facecolor()[0][3] == 0


def test_legend_title_and_options_renamed_and_spelt_as_the_file(pts):
    ax = plot_rrmap(pts, "criterion_group")
    assert panel_artists(ax).legend.get_title().get_text() == "criterion group"
    ax = plot_rrmap(
        pts, "expert", labels={"expert": "Rater", "E1": "Expert 1", "delta": "Δ", "bc": "BC"}
    )
    drawn = panel_artists(ax)
    assert drawn.legend.get_title().get_text() == "Rater"
    assert [t.get_text() for t in drawn.legend.get_texts()][:3] == ["Expert 1", "E2", "E3"]
    assert ax.get_xlabel() == "Δ" and drawn.colorbar.ax.get_xlabel() == "BC"


def test_width_sizes_a_new_figure_only(pts):
    ax = plot_rrmap(pts, "movement", width="85mm")
    assert ax.figure.get_figwidth() == pytest.approx(85 / 25.4)
    assert panel_artists(ax).legend in ax.figure.legends  # under the panel when narrow
    _, ax = plt.subplots()
    with pytest.raises(InputError, match="width sizes a new figure; with ax=, size your own"):
        plot_rrmap(pts, ax=ax, width=3.5)


def test_contour_background_is_vector(tmp_path):
    ax = plot_rrmap(background="contour")
    drawn = panel_artists(ax)
    assert drawn.background is not None and not ax.get_images()
    levels = drawn.background.levels
    np.testing.assert_allclose(levels, np.linspace(0, 1, 11))
    with pytest.raises(InputError, match="background must be True, False, 'raster' or 'contour'"):
        plot_rrmap(background="png")
