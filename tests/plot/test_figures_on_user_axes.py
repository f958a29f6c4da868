"""Every figure of one chart draws on the user's own Axes (``ax=``), the multi-part ones
into the user's Figure or SubFigure (``fig=``); the whiskers of the proportions keep off
the percentages.

Measured before: ``plot_proportions(pts, ax=ax)`` raised TypeError, ``plot_agreement`` and
``plot_interval_examples`` had no ``ax=``; in the proportions figure the whiskers crossed
3 of the 12 percentages at 3.5 in (E3's "4" and "7", E1's "3") and 4 at 7 in.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from matplotlib.transforms import Bbox
from plot_helpers import printed

from rrmap.errors import InputError
from rrmap.plot import plot_agreement, plot_interval_examples, plot_proportions
from rrmap.plot.base._sizing import renderer_of

CALLS = {
    "proportions": lambda pts, ax: plot_proportions(pts, ax=ax),
    "proportions by": lambda pts, ax: plot_proportions(
        pts[pts.expert == "E1"], by="movement", ax=ax
    ),
    "agreement": lambda pts, ax: plot_agreement(pts, ax=ax),
    "intervals": lambda pts, ax: plot_interval_examples(ax=ax),
}


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("layout", [None, "constrained"])
@pytest.mark.parametrize("name", list(CALLS))
def test_one_chart_on_a_small_user_axes(pts, name, layout):
    fig, ax = plt.subplots(figsize=(3.5, 3), layout=layout)
    assert CALLS[name](pts, ax) is ax
    assert fig.axes[0] is ax and (ax.patches or ax.collections)
    seen = printed(fig)
    assert seen.outside == [] and seen.overlapping == []
    box = ax.get_window_extent().transformed(fig.dpi_scale_trans.inverted())
    assert box.width >= 1.4 and box.height >= 1.2, box.bounds


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("make", [plot_agreement, plot_interval_examples])
@pytest.mark.parametrize("layout", [None, "constrained"])
def test_multi_part_figures_draw_into_the_users_figure(pts, make, layout):
    fig = plt.figure(figsize=(7, 5.5), layout=layout)
    _left, right = fig.subfigures(1, 2, width_ratios=[1, 2])
    args = (pts,) if make is plot_agreement else ()
    assert make(*args, fig=right) is right
    assert fig.get_size_inches().tolist() == [7, 5.5]  # the user's size kept
    seen = printed(fig)
    inside = right.bbox.padded(1.0)  # every part drawn into the right subfigure
    assert fig.axes and all(inside.contains(*ax.get_window_extent().p0) for ax in fig.axes)
    assert all(inside.contains(*ax.get_window_extent().p1) for ax in fig.axes)
    assert seen.outside == [] and seen.overlapping == []


def test_ax_and_width_or_several_raters_by_option_are_refused(pts):
    _fig, ax = plt.subplots()
    with pytest.raises(InputError, match="width sizes a new figure"):
        plot_proportions(pts, ax=ax, width=3.5)
    with pytest.raises(InputError, match=r"by='movement' draws one panel per rater and the"):
        plot_proportions(pts, "movement", ax=ax)
    with pytest.raises(InputError, match="give one of ax="):
        plot_agreement(pts, ax=ax, width=3.5)
    with pytest.raises(InputError, match="fig must be a matplotlib Figure or SubFigure"):
        plot_interval_examples(fig=ax)


def whisker_boxes(ax):
    """Display boxes of the proportions' whiskers: each line and each cap."""
    out = []
    for coll in ax.collections:
        if coll.get_gid() == "rrmap.intervals":
            out += [path.get_extents(ax.transData) for path in coll.get_paths()]
    for line in ax.lines:  # the caps
        if line.get_marker() == "|":
            h = line.get_markersize() / 2 * ax.figure.dpi / 72
            for x, y in ax.transData.transform(line.get_xydata()):
                out.append(Bbox([[x - 0.5, y - h], [x + 0.5, y + h]]))
    return out


@pytest.mark.parametrize("width", ["3.5in", "7in"])
def test_whiskers_keep_off_the_percentages(drawn, width):
    fig = drawn(plot_proportions, width=width)
    renderer = renderer_of(fig)
    crossed = []
    for ax in fig.axes:
        labels = [t for t in ax.texts if t.get_gid() == "rrmap.share"]
        for t in labels:
            box = t.get_window_extent(renderer)
            for w in whisker_boxes(ax):
                if w.overlaps(box):
                    crossed.append(t.get_text())
    assert labels and crossed == []
