"""Colours that survive print: greyscale, deuteranopia, text on filled cells, shapes.

The measured problems: in the proportions figure fair and stereotype were L* 70 and 71,
excellent and bad 58 and 54 (one grey each in print); white on vermillion was 3.9 : 1 and
black on the darkest agreement cells 3.5 : 1; shares under 10 % carried no number even
where it fitted; the ninth option's marker was the reference points' star.
"""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from matplotlib.colors import to_rgba

import rrmap
from rrmap.plot import (
    MARKERS,
    OKABE_ITO,
    QUALITY_COLORS,
    background_cmap,
    panel_artists,
    plot_agreement,
    plot_proportions,
    plot_rrmap,
)
from rrmap.plot.base._contrast import contrast, deuteranope, greyscale, lab, text_color
from rrmap.plot.base._style import RESERVED_MARKERS, style_map
from rrmap.zones import QUALITY_LEVELS

PTS = rrmap.points(rrmap.datasets.load_example_ratings())


def test_the_colour_arithmetic_matches_known_values():
    assert lab("white")[0] == pytest.approx(100.0, abs=0.01)
    assert lab("#777777")[0] == pytest.approx(50.0, abs=0.5)
    assert contrast("#777777", "white") == pytest.approx(4.48, abs=0.01)  # the WCAG example
    # full deuteranopia maps pure red and green to close yellows
    assert np.linalg.norm(deuteranope("#FF0000")[1:] - deuteranope("#00AA00")[1:]) < 25


def test_the_old_quality_colours_fail_the_checks():
    old = {"excellent": "#009E73", "fair": "#56B4E9", "stereotype": "#E69F00", "bad": "#D55E00"}
    assert abs(lab(old["fair"])[0] - lab(old["stereotype"])[0]) < 1.0
    assert contrast(old["bad"], "white") < 4.5


@pytest.mark.parametrize("view", [lab, greyscale, deuteranope], ids=["colour", "grey", "deutan"])
def test_neighbouring_quality_colours_differ_in_lightness(view):
    """Neighbours in the stacked bars (and in the legend) differ by 15 L* or more, in
    colour, in grey print and for a deuteranope."""
    for a, b in itertools.pairwise(QUALITY_LEVELS):
        dl = abs(view(QUALITY_COLORS[a])[0] - view(QUALITY_COLORS[b])[0])
        assert dl >= 15, (view.__name__, a, b, dl)


def test_every_pair_of_quality_colours_is_told_apart_in_grey():
    for a, b in itertools.combinations(QUALITY_LEVELS, 2):
        dl = abs(greyscale(QUALITY_COLORS[a])[0] - greyscale(QUALITY_COLORS[b])[0])
        assert dl >= 10, (a, b, dl)


def test_black_or_white_text_reaches_four_and_a_half_to_one_on_any_fill():
    rng = np.random.default_rng(3)
    for fill in [*QUALITY_COLORS.values(), *rng.random((200, 3))]:
        assert contrast(fill, text_color(fill)) >= 4.5


def _fill_under(ax, text):
    """Colour of the bar or matrix cell right under the centre of *text*."""
    box = text.get_window_extent()
    event = _Event((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)
    for patch in reversed(ax.patches):
        if patch.get_fill() and patch.contains(event)[0]:
            return to_rgba(patch.get_facecolor())[:3]
    for coll in ax.collections:
        if coll.get_array() is None:
            continue
        hit, info = coll.contains(event)
        if hit and len(info["ind"]):
            return tuple(coll.get_facecolor()[info["ind"][0]][:3])
    return None


class _Event:
    def __init__(self, x, y):
        self.x, self.y = x, y


@pytest.mark.first_case_by_default
@pytest.mark.parametrize(
    "make",
    [
        lambda: plot_proportions(PTS, width="7in"),
        lambda: plot_proportions(PTS, "movement", width="7in"),
        lambda: plot_proportions(PTS, "criterion", width="3.5in"),
        lambda: plot_agreement(PTS, width="7in"),
        lambda: plot_agreement(PTS, width="3.5in"),
    ],
    ids=["proportions", "proportions_by", "proportions_narrow", "agreement", "agreement_narrow"],
)
def test_every_number_on_a_filled_cell_has_contrast(make):
    fig = make()
    fig.draw_without_rendering()
    checked = 0
    for ax in fig.axes:
        for text in ax.texts:
            if not (text.get_visible() and text.get_text().strip().isdigit()):
                continue
            fill = _fill_under(ax, text)
            assert fill is not None, text.get_text()  # numbers sit on their cells
            ratio = contrast(fill, text.get_color())
            assert ratio >= 4.5, (text.get_text(), fill, text.get_color(), ratio)
            checked += 1
    assert checked >= 12


def test_small_shares_are_labelled_where_they_fit():
    fig = plot_proportions(PTS, "movement", width="7in")
    fig.draw_without_rendering()
    labels = [
        float(t.get_text()) for ax in fig.axes for t in ax.texts if t.get_gid() == "rrmap.share"
    ]
    assert any(v < 10 for v in labels)  # 7 %, 4 %... (none before)
    for ax in fig.axes:
        for t in ax.texts:
            if t.get_gid() != "rrmap.share":
                continue
            left, y, v, _ = next(
                s
                for s in ax._rrmap_shares
                if abs(s[0] + s[2] / 2 - t.get_position()[0]) < 1e-9 and s[1] == t.get_position()[1]
            )
            box = t.get_window_extent()
            x0, x1 = ax.transData.transform([(left, y), (left + v, y)])[:, 0]
            assert x0 <= box.x0 and box.x1 <= x1  # inside its segment


def test_options_never_take_a_reserved_marker():
    assert not set(RESERVED_MARKERS) & set(MARKERS)
    styles = style_map([f"c{i}" for i in range(40)], None, None, "criterion")
    assert not {m for _, m in styles.values()} & set(RESERVED_MARKERS)
    nine = toy_nine()
    ax = plot_rrmap(nine, "criterion", width="7in")
    drawn = panel_artists(ax)
    star_paths = {id(c) for c in drawn.references.values()}
    assert len(star_paths) == 2
    assert drawn.points["c8"].get_paths()[0] is not drawn.references["alignment"].get_paths()[0]


def toy_nine():
    import pandas as pd

    return pd.DataFrame({"delta": np.linspace(-1, 1, 9), "r": np.linspace(0.5, 1.5, 9)}).assign(
        criterion=[f"c{i}" for i in range(9)]
    )


def test_point_colours_keep_off_the_background_and_apart_for_deuteranopes():
    """Every option colour is at least 15 L* darker in grey than the map's light centre
    (BC ≥ 0.9, where most points are; the old yellow was 1 L* from it), the black marker
    edges 50 L* darker than the darkest background; under deuteranopia two options sharing
    a marker stay apart."""
    centre = background_cmap()(np.linspace(0.9, 1.0, 20))
    lightest = min(greyscale(bg[:3])[0] for bg in centre)
    for colour in OKABE_ITO:
        assert lightest - greyscale(colour)[0] >= 15, colour
    assert min(greyscale(background_cmap()(v)[:3])[0] for v in np.linspace(0, 1, 50)) > 50
    styles = style_map([f"c{i}" for i in range(14)], None, None, "criterion")
    for (c1, m1), (c2, m2) in itertools.combinations(styles.values(), 2):
        if m1 == m2:
            assert np.linalg.norm(deuteranope(c1) - deuteranope(c2)) > 10, (c1, c2)
