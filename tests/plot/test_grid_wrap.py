"""Many raters: the grid wraps its raters to the width asked for, and analyze keeps it.

Measured before: ``plot_rrmap_grid`` of 10 raters at 180 mm (and ``rrmap plot --facet grid
--width 180mm``) refused, suggesting ``width='7in'`` (7.09 in had just been refused);
``rrmap analyze`` drew the grid 14.2 in (361 mm) wide whatever its ``--width``. The
per-rater figure at 85 mm was 111.7 mm tall (kept).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest
from click.testing import CliRunner
from plot_helpers import pdf_report, printed
from test_figure_limits import many_raters

import rrmap
from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.plot import plot_rrmap_by_rater, plot_rrmap_grid
from rrmap.plot.analysis_figures import figure_plan
from rrmap.plot.figures.panel import panel_record

MM = 25.4


@pytest.fixture(scope="module")
def ten(example_points):
    pts = many_raters(example_points, 10)  # E1's ratings as R0 ... R9
    pts.attrs = example_points.attrs
    return pts


@pytest.fixture(scope="module")
def grid10(ten):
    fig = plot_rrmap_grid(ten, width="180mm")
    return fig, printed(fig)


@pytest.mark.slow
def test_ten_raters_wrap_to_180_mm(grid10, ten):
    fig, seen = grid10
    assert fig.get_figwidth() * MM == pytest.approx(180.0, abs=0.01)
    assert seen.smallest >= 5.5
    assert seen.outside == [] and seen.overlapping == []
    panels = [ax for ax in fig.axes if ax.get_visible() and panel_record(ax)]
    assert len(panels) == 10 * 4  # every rater in every category
    columns = {round(ax.get_position().x0, 3) for ax in panels}
    assert len(columns) == 4  # 4 + 4 + 2 raters per row at 180 mm
    titles = [ax.get_title() for ax in panels[:10]]
    r0 = ten[ten.expert == "R0"]
    n = int((~r0.delta.between(-4, 4) | ~r0.r.between(0, 2.5)).sum())
    assert titles[0] == f"R0 (n = 135, {n} clipped)" and titles[9].startswith("R9")
    widths = {round(ax.get_window_extent().width / fig.dpi, 3) for ax in panels}
    assert min(widths) >= 1.35


@pytest.mark.slow
def test_each_category_keeps_its_legend_under_its_rows(grid10):
    fig, _ = grid10
    heads = [leg.get_title().get_text() for leg in fig.legends]
    assert heads[:4] == ["movement", "criterion", "criterion group", "modality"]


def test_raters_per_row_can_be_asked_and_are_checked(ten):
    fig = plot_rrmap_grid(ten, ["movement"], width="180mm", ncols=2)
    xs = {
        round(ax.get_position().x0, 3) for ax in fig.axes if ax.get_visible() and panel_record(ax)
    }
    assert len(xs) == 2
    with pytest.raises(InputError, match=r"ncols=5: give 1 to 4 raters per row at 7\.09 in"):
        plot_rrmap_grid(ten, ["movement"], width="180mm", ncols=5)


def test_too_narrow_for_one_column_names_a_wider_width(ten):
    with pytest.raises(InputError) as info:
        plot_rrmap_grid(ten, width="1.5in")
    assert str(info.value).startswith(
        "the grid needs panels at least 1.35 in wide, so a width of at least 2.05 in (53 mm); "
        "1.50 in is too narrow. Print it at 53 mm or wider"
    )


def test_one_panel_per_rater_at_85_mm_is_at_most_120_mm_tall(drawn):
    fig = drawn(plot_rrmap_by_rater, "movement", width="85mm")
    assert fig.get_figwidth() * MM == pytest.approx(85.0, abs=0.01)
    assert fig.get_figheight() * MM <= 120.0


def test_analyze_draws_the_grid_at_its_width(ten):
    args = {"color": None, "rater": "expert", "categories": None, "formats": ["pdf"], "dpi": 300}
    plan = {job[1]: job[2] for job in figure_plan(ten, **args, width="180mm")}
    assert plan["grid"]["width"] * MM == pytest.approx(180.0)
    plan = {job[1]: job[2] for job in figure_plan(ten, **args, width="50mm")}
    assert "grid" not in plan  # not one column of panels fits 50 mm: left out, not widened


@pytest.mark.slow
def test_the_command_line_draws_the_grid_of_ten_raters_at_180_mm(tmp_path):
    src, out = tmp_path / "ten.csv", tmp_path / "grid.pdf"
    raw = pd.read_csv(rrmap.datasets.example_ratings_path())
    raw = raw[raw["expert"] == "E1"]  # the file as users export it, E1's rows as R0 ... R9
    pd.concat([raw.assign(expert=f"R{i}") for i in range(10)]).to_csv(src, index=False)
    # one category row (10 panels): the raters wrap as in the four rows drawn above
    args = ["plot", str(src), "--facet", "grid", "--row", "movement", "--width", "180mm"]
    res = CliRunner().invoke(main, [*args, "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = pdf_report(out)
    assert page["width"] / 72 * MM == pytest.approx(180.0, abs=0.1)
    assert min(size for *_, size in page["runs"]) >= 5.5
