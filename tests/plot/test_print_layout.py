"""Every figure at journal widths: its size, type sizes, nothing cut, nothing overlapping.

Each figure is drawn at one-column (3.5 in, 85 mm) and two-column (7 in, 180 mm) widths and
inspected as drawn (every text the renderer draws, legends, colorbars) and as saved (the
PDF's page size, fonts and text runs, read back with pypdf).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from plot_helpers import (
    drawn_texts,
    outside_page,
    overlapping_texts,
    pdf_report,
    printed,
    smallest_text,
)

import rrmap
from rrmap.plot import (
    parse_width,
    plot_agreement,
    plot_interval_examples,
    plot_proportions,
    plot_rrmap,
    plot_rrmap_by_rater,
    plot_rrmap_grid,
    save,
)

#: Each figure: (function, its arguments after the points, whose points: "all" raters, one
#: rater's, or None for none).
FIGURES = {
    "single": (plot_rrmap, ("movement",), "E1"),
    "by_rater": (plot_rrmap_by_rater, ("movement",), "all"),
    "by_rater_criterion": (plot_rrmap_by_rater, ("criterion",), "all"),
    "grid": (plot_rrmap_grid, (), "all"),
    "intervals": (plot_interval_examples, (), None),
    "proportions": (plot_proportions, (), "all"),
    "proportions_by": (plot_proportions, ("criterion",), "all"),
    "agreement": (plot_agreement, (), "all"),
}
#: The narrower one-column and the wider two-column width; 3.5 in and 7 in are further
#: sizes of the same checks, run by .ci/run (pytest -m slow).
WIDTHS = [
    pytest.param("3.5in", marks=pytest.mark.slow),
    "85mm",
    pytest.param("7in", marks=pytest.mark.slow),
    pytest.param("180mm", marks=pytest.mark.slow),  # its PDF test keeps the grid at 180 mm
]
#: The smallest type any figure prints (points).
MIN_SIZE = 6.0


#: Figures that refuse a width too narrow for their panels (and name the width that works);
#: the grid wraps its raters instead (tests/plot/test_grid_wrap.py).
REFUSED: set[tuple[str, str]] = set()


def _figure(drawn, name, width):
    """The figure *name* at *width*, drawn once for every test of it."""
    make, args, rater = FIGURES[name]
    return drawn(make, *args, rater=rater, width=width)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", list(FIGURES))
def test_figure_fits_its_printed_width(name, width, drawn):
    if (name, width) in REFUSED:
        with pytest.raises(rrmap.errors.InputError, match=r"at least [0-9.]+ in \([0-9]+ mm\)"):
            _figure(drawn, name, width)
        return
    fig = _figure(drawn, name, width)
    assert fig.get_figwidth() == pytest.approx(parse_width(width, 7.0), abs=1e-9)
    # the grid of 3 raters wraps to 2 (3.5 in) or 1 (85 mm) rater per row: taller
    assert 0.5 < fig.get_figheight() < (40 if name == "grid" else 12)
    page = printed(fig)
    assert page.smallest >= MIN_SIZE
    assert page.outside == []
    assert page.overlapping == []


@pytest.mark.parametrize("name", ["by_rater", "grid"])
def test_default_width_is_two_columns(name, drawn):
    make, args, _ = FIGURES[name]
    assert drawn(make, *args).get_figwidth() == 7.0


@pytest.mark.parametrize(
    ("name", "width"),
    [
        pytest.param("by_rater", "3.5in", marks=pytest.mark.slow),  # further size of 85 mm
        ("by_rater", "85mm"),
        pytest.param("grid", "180mm", marks=pytest.mark.slow),  # a further figure and size
    ],
)
def test_pdf_page_fonts_and_text(name, width, tmp_path, drawn):
    fig = _figure(drawn, name, width)
    out = save(fig, tmp_path / f"{name}.pdf")
    report = pdf_report(out)
    w, h = fig.get_size_inches()
    assert report["width"] == pytest.approx(72 * w, abs=0.01)  # exactly the laid-out size
    assert report["height"] == pytest.approx(72 * h, abs=0.01)
    # TrueType (Type 0 / CIDFontType2, i.e. Type 42), never Type 3
    assert report["fonts"] >= {"/Type0", "/CIDFontType2"} and "/Type3" not in report["fonts"]
    runs = report["runs"]
    assert len(runs) > 30
    for text, x, y, size in runs:
        assert size >= MIN_SIZE - 1e-6, (text, size)
        assert -0.5 <= x <= report["width"] + 0.5 and -0.5 <= y <= report["height"] + 0.5, text
    shown = {t for t, _, _ in drawn_texts(fig)}
    assert "movement" in shown and "zones" in shown


def test_the_checks_catch_what_they_look_for():
    fig = plt.figure(figsize=(3.5, 2.5))
    fig.text(0.1, 0.5, "small", fontsize=4.5)
    fig.text(0.12, 0.5, "overlaps")
    fig.text(0.95, 0.2, "cut at the edge")
    assert smallest_text(fig) == 4.5
    assert ("small", "overlaps") in overlapping_texts(fig)
    assert [t for t, _ in outside_page(fig)] == ["cut at the edge"]
    page = printed(fig)  # the three from one drawing
    assert (page.smallest, page.overlapping, page.outside) == (
        smallest_text(fig),
        overlapping_texts(fig),
        outside_page(fig),
    )


def test_shrinking_a_fixed_figure_is_what_width_avoids(drawn):
    """The measured problem: a figure laid out for 8.8 in and shrunk to 7 in prints 5.2 pt
    ticks; laid out for 7 in it prints 7 pt."""
    with plt.rc_context({"xtick.labelsize": 6.5}):
        fig, ax = plt.subplots(figsize=(8.76, 3))
        ax.plot([0, 1])
    printed = 6.5 * 7.0 / 8.76
    assert printed < 5.5
    fig = _figure(drawn, "by_rater", "7in")
    ticks = [t.get_fontsize() for ax in fig.axes for t in ax.get_xticklabels() if t.get_text()]
    assert min(ticks) == 7.0
