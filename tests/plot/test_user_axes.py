"""A map drawn on the user's own Axes (the notebook path), and what helps it print.

``plot_rrmap(ax=...)`` cannot size the figure: its colorbar and legend have to fit into the
room the Axes has, with constrained layout and without, at one- and two-column widths;
``paper_style()`` gives journal type sizes and TrueType fonts for ``fig.savefig``; unknown
keywords name the accepted ones.
"""

from __future__ import annotations

import itertools
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from plot_helpers import drawn_texts, printed

import rrmap
from rrmap.plot import (
    panel_artists,
    paper_style,
    plot_agreement,
    plot_interval_examples,
    plot_proportions,
    plot_rrmap,
    plot_rrmap_by_rater,
    plot_rrmap_grid,
)

PTS = rrmap.points(rrmap.datasets.load_example_ratings())
E1 = PTS[PTS.expert == "E1"]


def _boxes_meet(a, b, shrink=0.005):
    return (
        a.x0 + shrink < b.x1 - shrink
        and b.x0 + shrink < a.x1 - shrink
        and a.y0 + shrink < b.y1 - shrink
        and b.y0 + shrink < a.y1 - shrink
    )


def _colorbar_and_legend_clear(fig, ax):
    """The colorbar and the legend touch no text of the panel (ticks, axis labels) and
    not the panel itself; every text lies in the figure and none overlaps another. The
    figure as drawn (:func:`plot_helpers.printed`), for more checks."""
    drawn = panel_artists(ax)
    fig.draw_without_rendering()
    to_in = fig.dpi_scale_trans.inverted()
    renderer = fig._get_renderer()
    panel = ax.get_window_extent(renderer).transformed(to_in)
    own = [
        t for t in (*ax.get_xticklabels(), *ax.get_yticklabels(), ax.xaxis.label) if t.get_text()
    ]
    own_boxes = [t.get_window_extent(renderer).transformed(to_in) for t in own]
    for part in (drawn.colorbar.ax, drawn.legend):
        box = part.get_window_extent(renderer).transformed(to_in)
        assert not _boxes_meet(box, panel), part
        assert not any(_boxes_meet(box, b) for b in own_boxes), part
    page = printed(fig)
    assert page.outside == []
    assert page.overlapping == []
    return page


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("layout", [None, "constrained"])
@pytest.mark.parametrize("width", [3.5, pytest.param(7.0, marks=pytest.mark.slow)])  # 7: further
def test_map_on_own_axes_with_paper_style(width, layout):
    with paper_style(width), warnings.catch_warnings():
        warnings.simplefilter("error")  # no "constrained_layout not applied"
        fig, ax = plt.subplots(layout=layout)
        plot_rrmap(E1, "movement", ax=ax)
        assert _colorbar_and_legend_clear(fig, ax).smallest >= 6.0
    assert fig.get_figwidth() == width


@pytest.fixture(scope="module")
def own_axes():
    """``own_axes(size, layout)``: E1's map by movement on ``plt.subplots(figsize=size,
    layout=layout)`` with matplotlib's defaults, drawn once for the tests that look at it
    (measure or save it, never change it): (figure, Axes)."""
    made = {}

    def get(size, layout):
        if (size, layout) not in made:
            fig, ax = plt.subplots(figsize=size, layout=layout)
            plot_rrmap(E1, "movement", ax=ax)
            made[size, layout] = fig, ax
        return made[size, layout]

    return get


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("layout", [None, "constrained"])
@pytest.mark.parametrize("size", [(3.5, 3.6), (7.0, 5.25)])
def test_map_on_own_axes_with_matplotlib_defaults(own_axes, size, layout):
    """10 pt type, as a notebook draws it: at 3.5 in the legend goes under the colorbar."""
    fig, ax = own_axes(size, layout)
    _colorbar_and_legend_clear(fig, ax)
    legend = (
        panel_artists(ax).legend.get_window_extent().transformed(fig.dpi_scale_trans.inverted())
    )
    beside = legend.x0 > ax.get_position().x1 * size[0]
    assert beside == (size[0] > 5)


def test_colorbar_ticks_do_not_run_together_in_a_narrow_constrained_figure():
    with paper_style("3.5in"):
        fig, ax = plt.subplots(layout="constrained")
        plot_rrmap(E1, "movement", ax=ax)
        cb = panel_artists(ax).colorbar
        fig.draw_without_rendering()
        labels = [t for t in cb.ax.get_xticklabels() if t.get_text()]
        boxes = sorted((t.get_window_extent() for t in labels), key=lambda b: b.x0)
    assert len(labels) >= 3
    gaps = [b.x0 - a.x1 for a, b in itertools.pairwise(boxes)]
    assert min(gaps) > 2.0  # pixels at 100 dpi


def test_two_maps_side_by_side_keep_to_their_cells():
    with paper_style("7in", "3in"):
        fig, (left, right) = plt.subplots(1, 2)
        plot_rrmap(E1, "movement", ax=left)
        plot_rrmap(PTS[PTS.expert == "E2"], "movement", ax=right)
        fig.draw_without_rendering()
    page = printed(fig)
    assert page.outside == []
    assert page.overlapping == []
    to_in = fig.dpi_scale_trans.inverted()
    left_legend = panel_artists(left).legend.get_window_extent().transformed(to_in)
    assert left_legend.x1 <= right.get_tightbbox().transformed(to_in).x0 + 0.01


def test_plain_savefig_of_own_figure_keeps_text_as_text(own_axes, tmp_path):
    fig, _ = own_axes((7.0, 5.25), None)  # plt.subplots(figsize=(7, 5.25)): drawn once
    assert plt.rcParams["pdf.fonttype"] == 3  # the user's setting is left alone
    fig.savefig(tmp_path / "map.pdf")
    data = (tmp_path / "map.pdf").read_bytes()
    assert b"/Type3" not in data and b"/FontFile2" in data


def test_paper_style_sets_journal_sizes_and_fonts_then_restores(tmp_path):
    before = dict(plt.rcParams)
    with paper_style("85mm") as rc:
        assert plt.rcParams["pdf.fonttype"] == 42 and plt.rcParams["ps.fonttype"] == 42
        fig, ax = plt.subplots()
        ax.plot([0, 1])
        fig.savefig(tmp_path / "own.pdf")
    assert rc["xtick.labelsize"] == 6.0 and rc["font.size"] == 6.5
    assert fig.get_size_inches() == pytest.approx((85 / 25.4, 0.8 * 85 / 25.4))
    assert b"/Type3" not in (tmp_path / "own.pdf").read_bytes()
    assert dict(plt.rcParams) == before
    assert min(s for _, _, s in drawn_texts(fig)) == 6.0


def test_too_small_a_figure_is_a_warning_that_says_what_to_do():
    _, ax = plt.subplots(figsize=(3.5, 1.6))
    with pytest.warns(UserWarning, match=r"too small .*paper_style\(\)"):
        plot_rrmap(E1, "movement", ax=ax)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: plot_rrmap(E1, title="E1"), "plot_rrmap"),
        (lambda: plot_rrmap_by_rater(PTS, "movement", titel="x"), "plot_rrmap_by_rater"),
        (lambda: plot_rrmap_grid(PTS, colour="movement"), "plot_rrmap_grid"),
        (lambda: plot_proportions(PTS, witdh="3.5in"), "plot_proportions"),
        (lambda: plot_agreement(PTS, size=3), "plot_agreement"),
        (lambda: plot_interval_examples(legend=False), "plot_interval_examples"),
    ],
)
def test_unknown_keywords_list_the_accepted_ones(call, name):
    with pytest.raises(TypeError) as err:
        call()
    message = str(err.value)
    assert message.startswith(f"{name}() got an unexpected keyword argument")
    assert "it accepts: " in message and "width" in message.split("it accepts: ")[1]


def test_a_misspelt_keyword_names_the_one_meant():
    with pytest.raises(TypeError, match=r"'witdh' \(did you mean 'width'\?\)"):
        plot_proportions(PTS, witdh="3.5in")
    with pytest.raises(TypeError, match=r"accepts: .*palette.*zone_labels"):
        plot_rrmap_by_rater(PTS, "movement", pallete=["k"])


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("layout", [None, "constrained"])
def test_fitting_a_panel_into_a_users_axes_lays_the_figure_out_but_draws_nothing(
    layout, monkeypatch
):
    """The colorbar and legend are fitted from measures of the laid-out figure; drawing it
    (even without rendering) walked every artist on top of the layout, three times per
    panel, and measured nothing more. The panel lands where it did: see the tests above."""
    from matplotlib.figure import Figure

    draws = []
    real = Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda fig, r: draws.append(1) or real(fig, r))
    fig, axs = plt.subplots(1, 2, figsize=(7, 3.5), layout=layout)
    plot_rrmap(E1, "movement", ax=axs[0])
    plot_rrmap(E1, "modality", ax=axs[1])
    assert draws == []
    fig.canvas.draw()  # the figure itself still draws
    assert draws == [1]
    assert panel_artists(axs[1]).legend.get_window_extent().x0 >= 0
