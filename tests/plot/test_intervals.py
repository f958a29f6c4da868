"""Tests of rrmap.plot.figures.intervals: the paper's Fig. 2, example intervals beside their points."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rrmap
from rrmap.errors import InputError
from rrmap.plot import (
    example_interval_pairs,
    panel_artists,
    plot_interval_examples,
)


def test_interval_examples_reproduce_paper_figure_2():
    pairs = example_interval_pairs()
    fig = plot_interval_examples(pairs)
    assert len(fig.subfigs[0].axes) == 9
    ax = fig.subfigs[1].axes[0]
    drawn = panel_artists(ax)
    counts = {k: len(c.get_offsets()) for k, c in drawn.points.items()}
    # paper §2.2.7: "1/9 Excel., 2/9 Fair, 3/9 Stereo., and 3/9 Bad"
    assert counts == {"excellent": 1, "fair": 2, "stereotype": 3, "bad": 3}
    ref = np.array(
        [rrmap.compare_intervals((a, b), (c, d))[:2] for _, _, a, b, c, d in pairs.itertuples()]
    )
    got = np.vstack([c.get_offsets() for c in drawn.points.values()])
    assert sorted(map(tuple, np.round(got, 12))) == sorted(map(tuple, np.round(ref, 12)))


def test_interval_examples_from_pairs_and_gaussians():
    fig = plot_interval_examples([((30, 50), (35, 45)), ((30, 50), (20, 60))], gaussians=True)
    small = fig.subfigs[0].axes
    assert len(small) == 2
    # each small panel: two Gaussian curves, the reference one integrating to ~1
    x, y = small[0].lines[0].get_data()
    assert np.trapezoid(y, x) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        ([((30, 50), (35, 45)), ((30, 50), (60, 20))], r"low < high; not so in pair\(s\) 2$"),
        ([((30, 50), ("a", 45)), ((30, 30), (1, 2))], r"not so in pair\(s\) 1, 2$"),
        ([(30, 50)], r"pair 1: \(30, 50\) is not \(\(low, high\), \(low, high\)\)"),
        ([], "no interval pairs given"),
        (pd.DataFrame({"low_ref": [1.0]}), "interval pairs have no column 'high_ref', 'low_query'"),
    ],
)
def test_interval_examples_bad_pairs(pairs, message):
    with pytest.raises(InputError, match=message):
        plot_interval_examples(pairs)
