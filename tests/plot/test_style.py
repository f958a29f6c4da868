"""Tests of rrmap.plot.base._style: printed widths, type sizes, palettes and markers, titles."""

from __future__ import annotations

from itertools import combinations

import pytest
from matplotlib.colors import to_rgb

import rrmap
from rrmap.errors import InputError
from rrmap.plot.base._style import (
    MARKERS,
    OKABE_ITO,
    QUALITY_COLORS,
    QUALITY_MARKERS,
    option_label,
    style_map,
    title,
    typography,
)
from rrmap.plot.base._widths import parse_width
from rrmap.zones import QUALITY_LEVELS


@pytest.mark.parametrize(
    ("text", "inches"),
    [
        ("3.5in", 3.5),
        ("7 in", 7.0),
        (" 180mm ", 180 / 25.4),
        ("8.9cm", 8.9 / 2.54),
        ("504pt", 7.0),
        ("5", 5.0),
        (3.5, 3.5),
        (7, 7.0),
    ],
)
def test_parse_width_units(text, inches):
    assert parse_width(text, 1.0) == pytest.approx(inches, rel=1e-12)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("wide", r"^width 'wide': give a number with a unit, e.g. 3.5in"),
        ("3.5px", "give a number with a unit"),
        ("0.5in", r"0.50 in is not a figure width \(1 to 20 in\)"),
        ("600mm", r"23.62 in is not a figure width"),
        (True, "give a number with a unit"),
    ],
)
def test_parse_width_errors(text, message):
    with pytest.raises(InputError, match=message):
        parse_width(text, 7.0)


@pytest.mark.parametrize(("width", "minimum"), [(3.5, 6.0), (5.0, 6.0), (7.0, 7.0), (10.0, 7.0)])
def test_typography_never_under_six_points(width, minimum):
    rc = typography(width)
    sizes = [v for k, v in rc.items() if k.endswith("size") and not k.endswith(".size")]
    assert min(sizes) == minimum
    assert rc["pdf.fonttype"] == rc["ps.fonttype"] == 42 and rc["svg.fonttype"] == "none"
    assert min(v for k, v in typography(3.5, 5.5).items() if k.endswith("labelsize")) == 5.5


def _deutan(hex_colour):
    """Deuteranope view (Viénot, Brettel & Mollon 1999 matrix in linear RGB)."""
    import numpy as np

    rgb = np.array(to_rgb(hex_colour))
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.29275, 0.70725, 0.0], [0.29275, 0.70725, 0.0], [-0.02234, 0.02234, 1.0]])
    return m @ lin


@pytest.mark.parametrize("n", [1, 5, 8, 9, 15, 30])
def test_any_number_of_options_stays_distinct(n):
    levels = [f"option {i}" for i in range(n)]
    styles = style_map(levels, None, None, "criterion")
    pairs = list(styles.values())
    assert len(set(pairs)) == n  # no two options share colour and marker
    for (c1, m1), (c2, m2) in combinations(pairs, 2):
        if m1 == m2:  # same marker: colours differ even for a deuteranope
            d = sum((a - b) ** 2 for a, b in zip(_deutan(c1), _deutan(c2), strict=True)) ** 0.5
            assert d > 0.05, (c1, c2)
    assert {c for c, _ in pairs} <= set(OKABE_ITO) and {m for _, m in pairs} <= set(MARKERS)
    assert not {"^", "v", "<", ">"} & set(MARKERS)  # arrowheads mean clipped


def test_nine_criteria_combine_colour_and_marker():
    styles = style_map([f"c{i}" for i in range(9)], None, None, "criterion")
    # seven colours, nine markers: the eighth and ninth repeat a colour, each with a shape
    # that colour has not had (and not "d" beside "D": they look alike)
    assert styles["c7"] == (OKABE_ITO[0], "D")
    assert styles["c8"] == (OKABE_ITO[1], "P")
    assert len(set(styles.values())) == 9
    assert styles["c0"] == (OKABE_ITO[0], MARKERS[0])
    assert "*" not in {m for _, m in styles.values()}  # the star marks the reference points


def test_quality_has_fixed_colours_and_markers_even_for_a_subset():
    full = style_map(list(QUALITY_LEVELS), None, None, "quality")
    part = style_map(["stereotype", "bad"], None, None, "quality")
    assert full == {q: (QUALITY_COLORS[q], QUALITY_MARKERS[q]) for q in QUALITY_LEVELS}
    assert part == {q: full[q] for q in ("stereotype", "bad")}


def test_palettes_per_category_and_their_errors():
    cols = ["movement", "modality"]
    per = {"movement": {"a": "#000000", "b": "#ffffff"}, "modality": ["#123456"]}
    assert style_map(["a", "b"], per, None, "movement", cols)["b"][0] == "#ffffff"
    assert style_map(["x", "y"], per, None, "modality", cols)["y"][0] == "#123456"
    # a palette made for all options serves a subset
    assert style_map(["a"], {"a": "k", "b": "r"}, None, "movement", cols)["a"][0] == "k"
    with pytest.raises(
        InputError,
        match=r"^palette: 'movment' is not a category \(categories: movement, modality\)$",
    ):
        style_map(["a"], {"movment": {"a": "k"}}, None, "movement", cols)
    with pytest.raises(
        InputError, match=r"^palette: 'cubsim' is not an option of 'movement' \(options: cubism\)$"
    ):
        style_map(["cubism"], {"cubsim": "k"}, None, "movement", cols)
    with pytest.raises(InputError, match=r"^markers: no entry for 'b' of 'movement'$"):
        style_map(["a", "b"], None, {"a": "o"}, "movement", cols)
    with pytest.raises(InputError, match="give a list or a mapping"):
        style_map(["a"], "red", None, "movement", cols)


def test_titles_as_the_file_spells_them():
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    assert title("criterion_group", pts, None) == "criterion group"
    assert title("modality_name", pts, None) == "modality name"
    assert title("criterion_group", pts, {"criterion_group": "Group"}) == "Group"
    assert title("quality", pts, None) == "quality"
    assert option_label("E1", {"E1": "Expert 1"}) == "Expert 1" and option_label(3, None) == "3"
