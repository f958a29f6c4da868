"""Figures past rrmap.limits are refused before anything is drawn (a 10,000-rater plot
drew for 15 minutes; a category of 3,000 options filled a legend that collapsed the
layout); an analysis leaves such a figure out instead of failing after its tests."""

from __future__ import annotations

import sys

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
import pytest
from click.testing import CliRunner

from rrmap import limits
from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.plot import plot_rrmap, plot_rrmap_by_rater, plot_rrmap_grid
from rrmap.plot.analysis_figures import figure_plan, map_html

PANELS_NOTE = (
    "raise it with the environment variable RRMAP_MAX_PANELS, or rrmap.limits.MAX_PANELS in Python"
)
LEGEND_NOTE = (
    "raise it with the environment variable RRMAP_MAX_LEGEND_ENTRIES, or "
    "rrmap.limits.MAX_LEGEND_ENTRIES in Python"
)


@pytest.fixture
def no_drawing(monkeypatch):
    """No figure is made: the refusal comes first."""

    def never(*args, **kwargs):
        raise AssertionError("a figure was made")

    monkeypatch.setattr(plt, "figure", never)
    monkeypatch.setattr(matplotlib.figure.Figure, "__init__", never)


def many_raters(points: pd.DataFrame, n: int) -> pd.DataFrame:
    one = points[points["expert"] == "E1"]
    return pd.concat([one.assign(expert=f"R{i}") for i in range(n)], ignore_index=True)


def test_one_panel_per_rater_past_the_limit(example_points, no_drawing):
    pts = many_raters(example_points, 201)
    with pytest.raises(InputError) as info:
        plot_rrmap_by_rater(pts, "movement")
    assert str(info.value) == (
        f"one panel per rater: 201 panels, more than rrmap draws in one figure (MAX_PANELS = "
        f"200; {PANELS_NOTE}): draw fewer raters, or all in one panel (plot_rrmap; rrmap plot "
        "--facet none)"
    )


def test_a_colour_of_too_many_options(example_points, no_drawing):
    pts = example_points.assign(movement=[f"m{i}" for i in range(len(example_points))])
    with pytest.raises(InputError) as info:
        plot_rrmap_by_rater(pts, "movement")
    assert str(info.value) == (
        f"colour by 'movement': {len(pts):,} options, more than one legend shows "
        f"(MAX_LEGEND_ENTRIES = 60; {LEGEND_NOTE}): colour by a column of fewer options "
        "(color=, --color)"
    )


def test_one_panel_is_refused_where_its_legend_is_made(example_points):
    """plot_rrmap's legend is checked where every figure's is made (style_map)."""
    pts = example_points.assign(movement=[f"m{i}" for i in range(len(example_points))])
    with pytest.raises(InputError, match=r"^colour by 'movement': 405 options, more than one"):
        plot_rrmap(pts, "movement")
    plt.close("all")


def test_the_grid_counts_raters_times_rows(example_points, monkeypatch, no_drawing):
    monkeypatch.setattr(limits, "MAX_PANELS", 11)  # 3 raters × 4 categories
    with pytest.raises(InputError, match=r"^the grid: 12 panels, more than rrmap draws in one "
                       r"figure \(MAX_PANELS = 11; "):  # fmt: skip
        plot_rrmap_grid(example_points)


def test_the_environment_raises_a_figure_limit(example_points, monkeypatch):
    monkeypatch.setattr(limits, "MAX_PANELS", 2)
    with pytest.raises(InputError, match=r"^one panel per rater: 3 panels"):
        plot_rrmap_by_rater(example_points, "movement")
    monkeypatch.setenv("RRMAP_MAX_PANELS", "3")
    fig = plot_rrmap_by_rater(example_points, "movement")
    assert len([ax for ax in fig.axes if ax.get_title()]) == 3
    plt.close(fig)


def test_the_interactive_map_too(example_points, monkeypatch):
    pytest.importorskip("plotly")
    from rrmap.plot.interactive import interactive_rrmap

    monkeypatch.setenv("RRMAP_MAX_PANELS", "2")
    with pytest.raises(InputError, match=r"^the map: 3 panels, more than rrmap draws"):
        interactive_rrmap(example_points, "movement", facet="expert")
    assert map_html(example_points) is None  # the report's map is left out, not an error


def test_the_command_line_refuses_before_the_points(tmp_path, monkeypatch):
    import rrmap.datasets

    def never(*args, **kwargs):
        raise AssertionError("the points were made")

    monkeypatch.setattr(sys.modules["rrmap.points"], "points", never)
    data = pd.read_csv(rrmap.datasets.example_ratings_path())
    path = tmp_path / "ratings.csv"
    data.to_csv(path, index=False)
    result = CliRunner(env={"RRMAP_MAX_PANELS": "2"}).invoke(
        main, ["plot", str(path), "-o", str(tmp_path / "map.pdf")]
    )
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == (
        f"Error: --facet expert: 3 panels, more than rrmap draws in one figure (MAX_PANELS = "
        f"2; {PANELS_NOTE}): draw fewer raters, or all in one panel (plot_rrmap; rrmap plot "
        "--facet none)"
    )
    assert not (tmp_path / "map.pdf").exists()


def test_an_analysis_leaves_out_what_it_cannot_draw(example_points, monkeypatch):
    def plan(**kw):
        args = {"color": None, "rater": "expert", "categories": None, "formats": ["pdf"]}
        return {
            job[1]: job[2] for job in figure_plan(example_points, **args, width=None, dpi=300, **kw)
        }

    assert set(plan()) == {"by_rater", "grid", "proportions", "agreement"}
    assert plan()["by_rater"]["color"] == "movement"
    monkeypatch.setenv("RRMAP_MAX_LEGEND_ENTRIES", "4")  # movement has 5 options
    assert plan()["by_rater"]["color"] is None  # drawn without colours
    monkeypatch.setenv("RRMAP_MAX_PANELS", "11")  # the grid has 12
    assert set(plan()) == {"by_rater", "proportions", "agreement"}
    monkeypatch.setenv("RRMAP_MAX_PANELS", "2")  # one panel per rater: 3
    assert set(plan()) == {"proportions", "agreement"}
