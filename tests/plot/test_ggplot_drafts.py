"""ggrrmap's layout is measured on drafts (quick renders): as few as give the same figure.

Measured before, with the example's points: a single panel at 7 × 3 in drew 4 drafts (2
with the legends beside the panels, 2 with them below, which could only leave the panels
shorter), at 3.5 × 3.5 in 7; at 20 dpi a caption that wrapping left as it was asked for
another draft until the 8 allowed were spent, and the legends went below the panels
(at 50 dpi and over: beside them). At plotnine's default size (6.4 × 4.8 in) it drew 3: the
first with the legends below already left the panel shorter than beside them, and a second
one wrapped their keys into two rows.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest
from plotnine import theme
from test_ggplot import CELLS, _legend_boxes, _panels

import rrmap.plot.ggplot as ggplot_module
from rrmap.plot import _plotnine_theme, ggrrmap


@pytest.fixture
def drafts(monkeypatch):
    """The drafts drawn while the test runs."""
    made = []
    original = _plotnine_theme._trial

    def counted(plot):
        made.append(plot)
        return original(plot)

    monkeypatch.setattr(_plotnine_theme, "_trial", counted)
    return made


def _drawn(points, size, dpi=100):
    fig = (ggrrmap(points, "movement", resolution=CELLS) + theme(figure_size=size, dpi=dpi)).draw()
    legend = _legend_boxes(fig)
    return fig, legend, _panels(fig, drawn=True)


@pytest.mark.first_case_by_default
@pytest.mark.parametrize(("dpi", "panel"), [(100, (5.097, 2.200)), (20, (5.074, 2.167))])
def test_a_wide_panel_drafts_its_legends_beside_it_only(pts, drafts, dpi, panel):
    """Legends below leave the panel no taller than beside it, where its height limits it;
    at 20 dpi they went below (a panel of 6.35 × 1.35 in) after 10 drafts."""
    _, legend, (left, bottom, right, top) = _drawn(pts, (7, 3), dpi)
    assert len(legend) == 9 and all(box.x0 > right for box in legend.values())
    assert (right - left, top - bottom) == pytest.approx(panel, abs=0.001)
    assert len(drafts) == 2  # the colour bar as long as it may be, then shortened to fit


@pytest.fixture
def built_and_drawn(monkeypatch):
    """The plots plotnine built, and the layers it drew, while the test runs."""
    from plotnine import ggplot
    from plotnine.layer import layer

    builds, drawn = [], []
    build, draw = ggplot._build, layer.draw
    monkeypatch.setattr(ggplot, "_build", lambda self: builds.append(self) or build(self))
    monkeypatch.setattr(layer, "draw", lambda self, *a: drawn.append(self) or draw(self, *a))
    return builds, drawn


def test_a_square_panel_leaves_out_the_names_and_wraps_the_caption_in_one_draft(
    pts, drafts, built_and_drawn
):
    """The names beside the Δ band overlap in a panel this narrow, and the caption runs
    into the legends: both are settled from the first draft (they took one each). The
    drafts share their builds and draw only the names they measure: each built the whole
    plot again (7 builds) and drew every layer, points and background included."""
    fig, legend, (left, bottom, right, top) = _drawn(pts, (3.5, 3.5))
    assert len(legend) == 9 and all(box.x0 > right for box in legend.values())
    texts = [t.get_text() for t in fig.texts]
    assert "37 points beyond the view\nclipped to its edge (triangles)" in texts
    assert not {"excellent", "perfect\nalignment"} & {t.get_text() for t in fig.axes[0].texts}
    assert (right - left, top - bottom) == pytest.approx((1.725, 2.661), abs=0.001)
    # 3 with the legends beside the panel; 2 below it, the second leaving the panel too
    # short to beat them (below, further drafts only wrap more lines: 3 were drawn)
    assert len(drafts) == 5
    builds, drawn = built_and_drawn
    assert len(builds) == 3  # the sketch with and without the names, then the figure
    kinds = [type(x.geom).__name__ for x in drawn]
    layers = ggrrmap(pts, "movement", resolution=CELLS).layers
    # the figure drew its background and points once, the drafts only the names
    assert kinds.count("geom_raster") == 1
    assert kinds.count("geom_point") == [type(x.geom).__name__ for x in layers].count("geom_point")
    assert set(kinds) - {type(x.geom).__name__ for x in layers} == set()


def test_facets_are_drawn_from_python_strings_and_the_users_plot_is_left_as_it_was(pts):
    """plotnine reads pandas' Arrow-backed text columns one element at a time when it puts
    the rows in their panels (the background repeats 40,000 cells in each); the strips and
    panels they give are drawn by test_facet_ticks_do_not_collide_... and the strips'
    labels by test_hostile_labels.py."""
    import pandas as pd
    from plotnine import facet_grid

    from rrmap.plot.ggplot import _facet_values_as_objects

    p = ggrrmap(pts, "movement", resolution=CELLS) + facet_grid("modality ~ expert")
    drawn = _facet_values_as_objects(p + theme())
    kinds = {
        (c, str(x._data[c].dtype))
        for plot in (p, drawn)
        for x in plot.layers
        if isinstance(x._data, pd.DataFrame)
        for c in ("expert", "modality", "movement")
        if c in x._data
    }
    assert kinds == {
        ("expert", "str"),
        ("modality", "str"),
        ("movement", "category"),  # not a facet: as it was
        ("expert", "object"),
        ("modality", "object"),
    }


@pytest.mark.slow
@pytest.mark.parametrize(
    ("size", "before", "after"),
    # plotnine's default size; two single-column sizes, further sizes of the same check
    # (more drafts below the panels), run by .ci/run (pytest -m slow)
    [
        ((6.4, 4.8), 3, 2),
        pytest.param((3.5, 3.5), 6, 5, marks=pytest.mark.slow),
        pytest.param((3.5, 3), 7, 6, marks=pytest.mark.slow),
    ],
)
def test_legends_below_stop_drafting_once_they_cannot_beat_those_beside(
    pts, drafts, monkeypatch, size, before, after
):
    """Each further draft with the legends below wraps a title or the keys into more
    lines, so the panels' height only shrinks: once it is at most the height of the
    panels beside the legends, no later draft can win. The figure is the one drawn when
    every draft is made (``beat`` ignored): the same panels, legends and texts."""

    def measured(fig):
        fig.canvas.draw()
        boxes = [tuple(round(v, 6) for v in ax.get_position().bounds) for ax in fig.axes]
        texts = sorted(
            (t.get_text(), round(t.get_window_extent().x0, 2), round(t.get_window_extent().y0, 2))
            for t in fig.findobj(matplotlib.text.Text)
            if t.get_visible() and t.get_text()
        )
        return boxes, _legend_boxes(fig), texts

    plot = ggrrmap(pts, "movement", resolution=CELLS) + theme(figure_size=size)
    fast = measured(plot.draw())
    assert len(drafts) == after
    drafts.clear()
    settled = _plotnine_theme.settled
    monkeypatch.setattr(
        ggplot_module,
        "settled",
        lambda sketch, recipe, user, beat=None: settled(sketch, recipe, user),
    )
    every = measured(plot.draw())
    assert len(drafts) == before
    assert fast[0] == every[0] and fast[2] == every[2]
    assert {k: tuple(b.bounds) for k, b in fast[1].items()} == {
        k: tuple(b.bounds) for k, b in every[1].items()
    }
