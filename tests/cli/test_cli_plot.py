"""Tests of ``rrmap plot`` through click's CliRunner."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest
from click.testing import CliRunner

import rrmap
from rrmap.cli import main

EXAMPLE = str(rrmap.datasets.example_ratings_path())


@pytest.fixture
def runner():
    return CliRunner()


def n_outside(xlim=(-4, 4), ylim=(0, 2.5)):
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    return int((~pts.delta.between(*xlim) | ~pts.r.between(*ylim)).sum())


@pytest.mark.first_case_by_default
@pytest.mark.parametrize(
    ("facet", "name", "magic"),
    [
        ("expert", "fig.pdf", b"%PDF"),
        ("grid", "fig.svg", b"<?xml"),
        ("none", "fig.png", b"\x89PNG"),
    ],
)
def test_plot_writes_each_format(runner, tmp_path, facet, name, magic):
    out = tmp_path / name
    # the grid of one category row (3 panels): the default rows are drawn below, as PDF and EPS
    rows = ["--row", "modality"] if facet == "grid" else []
    args = ["plot", EXAMPLE, "--facet", facet, *rows, "-o", str(out), "--dpi", "50"]
    res = runner.invoke(main, args)
    assert res.exit_code == 0, res.output
    assert out.read_bytes().startswith(magic)
    assert f"wrote {out} (405 points, {n_outside()} clipped to the edge of the view)" in res.stderr


def test_plot_pdf_text_is_truetype(runner, tmp_path):
    out = tmp_path / "fig.pdf"
    res = runner.invoke(main, ["plot", EXAMPLE, "-o", str(out), "--color", "quality"])
    assert res.exit_code == 0, res.output
    data = out.read_bytes()
    assert b"/FontFile2" in data and b"/Subtype /Type3" not in data


def test_plot_limits_and_no_clip_change_the_count(runner, tmp_path):
    out = tmp_path / "fig.png"
    res = runner.invoke(
        main,
        ["plot", EXAMPLE, "-o", str(out), "--dpi", "30", "--xlim", "-2", "2", "--no-clip"],
    )
    assert res.exit_code == 0, res.output
    expected = n_outside(xlim=(-2, 2))
    assert expected > n_outside()
    assert f"{expected} outside the view, not shown" in res.stderr


def test_plot_refuses_to_overwrite(runner, tmp_path):
    out = tmp_path / "fig.png"
    out.write_bytes(b"keep")
    res = runner.invoke(main, ["plot", EXAMPLE, "-o", str(out)])
    assert res.exit_code == 1
    assert "exists; use --force to overwrite it" in res.output
    assert out.read_bytes() == b"keep"
    res = runner.invoke(main, ["plot", EXAMPLE, "-o", str(out), "--force", "--dpi", "30"])
    assert res.exit_code == 0 and out.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--color", "colour"], "Error: --color 'colour': no such column; use one of expert,"),
        (["--facet", "grid", "--row", "era"], "Error: --row 'era': no such column"),
        (["-o", "fig.docx"], "fig.docx: unknown figure format 'docx'; use one of"),
        (["--xlim", "3", "-3"], "Error: xlim must be two finite increasing numbers"),
        (["--width", "wide"], "Error: width 'wide': give a number with a unit, e.g. 3.5in"),
        (
            ["--facet", "grid", "--color", "quality"],
            "Error: --color does not apply to --facet grid: each row is coloured by its own "
            "category (choose rows with --row)",
        ),
    ],
)
def test_plot_bad_options_one_line_error(runner, tmp_path, args, message):
    res = runner.invoke(main, ["plot", EXAMPLE, "-o", str(tmp_path / "fig.pdf"), *args])
    assert res.exit_code == 1
    assert message in res.output
    assert "Traceback" not in res.output


def test_plot_bad_ratings_file_one_line_error(runner, tmp_path):
    bad = tmp_path / "r.csv"
    raw = pd.read_csv(EXAMPLE, dtype=str).head(4)
    raw.loc[1, "low rating"] = "abc"
    raw.to_csv(bad, index=False)
    res = runner.invoke(main, ["plot", str(bad), "-o", str(tmp_path / "f.png")])
    assert res.exit_code == 1
    assert res.output.startswith("Error: ") and "low rating" in res.output
    assert not (tmp_path / "f.png").exists()


def test_plot_missing_file(runner, tmp_path):
    res = runner.invoke(main, ["plot", str(tmp_path / "nope.csv"), "-o", str(tmp_path / "f.pdf")])
    assert res.exit_code == 1 and "nope.csv" in res.output


def test_a_grid_too_narrow_for_its_panels_names_the_width_that_works(runner, tmp_path):
    out = tmp_path / "fig.pdf"
    res = runner.invoke(
        main, ["plot", EXAMPLE, "--facet", "grid", "--width", "1.5in", "-o", str(out)]
    )
    assert res.exit_code == 1  # narrower than one column of panels (wider ones wrap)
    assert "needs panels at least 1.35 in wide, so a width of at least 2.05 in" in res.output
    assert not out.exists()


@pytest.mark.parametrize(
    ("width", "points"),
    # 180 mm: a further size (the command draws the grid at 180 mm in test_grid_wrap.py too)
    [("4.75in", 342.0), pytest.param("180mm", 180 / 25.4 * 72, marks=pytest.mark.slow)],
)
def test_plot_width_is_the_printed_width(runner, tmp_path, width, points):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plot"))
    from plot_helpers import pdf_report

    out = tmp_path / "fig.pdf"
    res = runner.invoke(
        main, ["plot", EXAMPLE, "--facet", "grid", "--width", width, "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    report = pdf_report(out)
    assert report["width"] == pytest.approx(points, abs=0.01)
    assert min(size for *_, size in report["runs"]) >= 5.5
    assert "/Type3" not in report["fonts"]


@pytest.mark.slow
def test_plot_eps_is_vector_and_small(runner, tmp_path):
    out = tmp_path / "fig.eps"
    res = runner.invoke(main, ["plot", EXAMPLE, "--facet", "grid", "-o", str(out)])
    assert res.exit_code == 0, res.output
    data = out.read_bytes()
    assert data.startswith(b"%!PS-Adobe") and b"colorimage" not in data
    assert len(data) < 1_500_000  # a raster background made 9.9 MB
    assert "transparency" not in res.stderr  # points drawn opaque on purpose


def test_plot_html_is_an_interactive_map(runner, tmp_path):
    pytest.importorskip("plotly")
    out = tmp_path / "map.html"
    res = runner.invoke(main, ["plot", EXAMPLE, "-o", str(out)])
    assert res.exit_code == 0, res.output
    html = out.read_text()
    assert "Plotly.newPlot(" in html and "real: [" in html  # the file's own origin labels
    # without --width the map fills the window (responsive); with one it keeps that width
    assert 'style="height:max(' in html and "width:100%" in html and '"width":672' not in html
    fixed = tmp_path / "fixed.html"
    res = runner.invoke(main, ["plot", EXAMPLE, "--width", "7in", "-o", str(fixed)])
    assert res.exit_code == 0 and '"width":672' in fixed.read_text()
    res = runner.invoke(main, ["plot", EXAMPLE, "--facet", "grid", "-o", str(tmp_path / "g.html")])
    assert res.exit_code == 1 and "not the grid" in res.output


TWO = str(rrmap.datasets.example_ratings_path(generators=2))


@pytest.mark.first_case_by_default
@pytest.mark.parametrize(("args", "panels"), [(["--color", "query"], 3), (["--facet", "query"], 2)])
def test_plot_colours_or_facets_by_generator(runner, tmp_path, monkeypatch, args, panels):
    import rrmap.plot

    saved = []  # the figure the command wrote, looked at after it is saved
    real = rrmap.plot.save
    monkeypatch.setattr(
        rrmap.plot, "save", lambda fig, *a, **kw: saved.append(fig) or real(fig, *a, **kw)
    )
    out = tmp_path / "m.png"
    res = runner.invoke(main, ["plot", TWO, "-o", str(out), *args])
    assert res.exit_code == 0, res.output
    assert out.stat().st_size > 10_000
    color = "query" if args[0] == "--color" else "movement"  # rater: expert, or query
    (fig,) = saved
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert len(titles) == panels
    legend = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert ("gen-A" in legend) == (color == "query")


def test_plot_by_generator_needs_several(runner, tmp_path):
    for args in (["--color", "query"], ["--facet", "query"]):
        res = runner.invoke(main, ["plot", EXAMPLE, "-o", str(tmp_path / "m.png"), *args])
        assert res.exit_code == 1 and "the ratings hold one query corpus" in res.stderr
