"""Tests of rrmap.plot.figures.summaries: the drawn bars and matrices are the tables' numbers."""

from __future__ import annotations

from itertools import combinations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from matplotlib.colors import to_hex

import rrmap
from rrmap.errors import InputError
from rrmap.plot import QUALITY_COLORS, plot_agreement, plot_proportions
from rrmap.tables import agreement, agreement_summary, proportions
from rrmap.zones import QUALITY_LEVELS


def _bars(ax, label_ax=None):
    """{(quality, y label): width} of the stacked bars of one panel (labels read from
    *label_ax*, the first panel of a row, when the panel hides its own)."""
    label_ax = label_ax or ax
    ticks = label_ax.get_yticks().round()
    names = dict(zip(ticks, [t.get_text() for t in label_ax.get_yticklabels()], strict=True))
    out = {}
    for patch in ax.patches:
        q = patch.get_gid().rsplit(".", 1)[1]
        out[q, names[round(patch.get_y() + patch.get_height() / 2)]] = patch.get_width()
    return out


def test_proportion_bars_are_the_shares(pts):
    fig = plot_proportions(pts)
    bars = _bars(fig.axes[0])
    tab = proportions(pts)
    for row in tab.itertuples():
        assert bars[row.quality, f"{row.expert} (n = {row.n})"] == pytest.approx(100 * row.share)
    # each bar adds to 100 %, in the quality colours of every figure
    for name in {k[1] for k in bars}:
        assert sum(v for (q, n), v in bars.items() if n == name) == pytest.approx(100)
    for patch in fig.axes[0].patches:
        q = patch.get_gid().rsplit(".", 1)[1]
        assert to_hex(patch.get_facecolor()) == QUALITY_COLORS[q].lower()
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == [*QUALITY_LEVELS, "95 % interval"]


def test_proportion_whiskers_are_the_wilson_intervals_of_the_boundaries(pts):
    """At each boundary between two levels, the Wilson 95 % interval of the share up to it."""
    from statsmodels.stats.proportion import proportion_confint

    fig = plot_proportions(pts)
    ax = fig.axes[0]
    (lines,) = [c for c in ax.collections if c.get_gid() == "rrmap.intervals"]
    segments = lines.get_segments()  # one horizontal whisker per boundary
    tab = proportions(pts, wide=True)
    y = {f"{e} (n = {n})": t for e, n, t in zip(tab.expert, tab.n, range(len(tab)), strict=True)}
    assert len(segments) == 3 * len(tab)
    ticks = dict(zip([t.get_text() for t in ax.get_yticklabels()], ax.get_yticks(), strict=True))
    for name in y:
        row = tab.iloc[y[name]]
        counts = (row[list(QUALITY_LEVELS)].to_numpy(float) * row.n).round().cumsum()[:3]
        low, high = proportion_confint(counts, row.n, alpha=0.05, method="wilson")
        mine = sorted(
            (seg[0][0], seg[1][0])
            for seg in segments
            if abs(seg[0][1] - (ticks[name] - 0.45)) < 1e-9  # in the gap under the bar
        )
        np.testing.assert_allclose(mine, sorted(zip(100 * low, 100 * high, strict=True)), rtol=1e-9)


def test_proportion_bars_per_option(pts):
    fig = plot_proportions(pts, "movement")
    panels = [ax for ax in fig.axes if ax.patches]
    assert [ax.get_title() for ax in panels] == ["E1 (n = 135)", "E2 (n = 135)", "E3 (n = 135)"]
    tab = proportions(pts, by="movement")
    for ax, rater in zip(panels, ["E1", "E2", "E3"], strict=True):
        bars = _bars(ax, panels[0])
        for row in tab[tab.expert == rater].itertuples():
            assert bars[row.quality, row.movement] == pytest.approx(100 * row.share)


def test_agreement_figure_counts(pts):
    fig = plot_agreement(pts)
    bars_ax, *mats = [ax for ax in fig.axes if ax.get_visible()]
    summary = agreement_summary(agreement(pts))
    names = dict(
        zip(
            bars_ax.get_yticks().round(),
            [t.get_text() for t in bars_ax.get_yticklabels()],
            strict=True,
        )
    )
    widths = {names[round(p.get_y() + p.get_height() / 2)]: p.get_width() for p in bars_ax.patches}
    for q in QUALITY_LEVELS:
        expected = summary[(summary.pattern == "all agree") & (summary.detail == q)]["count"]
        assert widths[f"all agree: {q}"] == int(expected.iloc[0])
    assert widths["all different"] == int(
        summary[summary.pattern == "all different"]["count"].iloc[0]
    )
    assert widths["E1 = E2 ≠ E3"] == int(summary[summary.detail == "E1|E2"]["count"].iloc[0])
    # one matrix per rater pair: rows the first rater's zone, columns the second's
    wide = pts.pivot_table(
        index=["movement", "criterion", "modality_name"],
        columns="expert",
        values="quality",
        aggfunc="first",
    )
    for ax, (a, b) in zip(mats, combinations(["E1", "E2", "E3"], 2), strict=True):
        m = np.asarray(ax.collections[0].get_array()).reshape(4, 4)
        expected = np.zeros((4, 4), int)
        for za, zb in zip(wide[a].astype(str), wide[b].astype(str), strict=True):
            expected[QUALITY_LEVELS.index(za), QUALITY_LEVELS.index(zb)] += 1
        np.testing.assert_array_equal(m, expected)
        same = np.trace(expected) / expected.sum()
        assert ax.get_title() == f"{a} × {b}: {100 * same:.0f} % same zone"


def test_agreement_needs_two_raters(pts):
    with pytest.raises(InputError, match="agreement needs at least two raters"):
        plot_agreement(pts[pts.expert == "E1"])


def test_proportions_of_several_query_corpora():
    import matplotlib.pyplot as plt

    from rrmap.errors import InputError
    from rrmap.plot import plot_proportions

    pts = rrmap.points(rrmap.datasets.load_example_ratings(generators=2))
    fig = plot_proportions(pts, width="3.5in")
    names = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert names[0] == "gen-A · E1 (n = 135)" and names[-1] == "gen-B · E3 (n = 135)"
    plt.close(fig)
    fig = plot_proportions(pts, by="query")
    assert [ax.get_title() for ax in fig.axes[:3]] == ["E1 (n = 270)", "E2 (n = 270)",
                                                       "E3 (n = 270)"]  # fmt: skip
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["gen-A", "gen-B"]
    plt.close(fig)
    with pytest.raises(InputError, match="several query corpora: draw the shares of 'movement'"):
        plot_proportions(pts, by="movement")
