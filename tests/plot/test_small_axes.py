"""The map on a user's own small figure, alone and side by side with a shared legend.

Measured before, on ``plt.subplots(figsize=(3.5, 3))``: the panel was 3.01 × 0.63 in
(plain) and 2.85 × 1.00 in (constrained) under a legend and a colorbar taking two thirds
of the figure, "relative dispersion R" reached past the top edge, and "excellent",
"perfect alignment" and "perfect stereotype" ran over each other; on ``subplots(1, 2)``
each panel had its own legend and colorbar and the zone names covered points.
"""

from __future__ import annotations

import re
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.text import Text
from plot_helpers import printed

import rrmap
from rrmap.plot import add_legend, panel_artists, plot_rrmap
from rrmap.plot.base._sizing import renderer_of

PTS = rrmap.points(rrmap.datasets.load_example_ratings())
CASES = [(layout, color) for layout in (None, "constrained") for color in ("movement", "quality")]


@pytest.fixture(scope="module")
def small():
    """The 3.5 × 3 in figures, drawn once: (figure, Axes, what was seen, the warnings
    drawing it gave)."""
    out = {}
    for layout, color in CASES:
        fig, ax = plt.subplots(figsize=(3.5, 3), layout=layout)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")  # the colorbar left out is said; tested below
            plot_rrmap(PTS, color, ax=ax)
        out[layout, color] = fig, ax, printed(fig), caught
    yield out
    for fig, *_ in out.values():
        plt.close(fig)


def inches(fig, box):
    return box.transformed(fig.dpi_scale_trans.inverted())


@pytest.mark.first_case_by_default
@pytest.mark.parametrize(("layout", "color"), CASES)
def test_a_small_figure_keeps_the_panel_and_its_text_inside(small, layout, color):
    fig, ax, seen, _ = small[layout, color]
    assert seen.outside == []
    assert seen.overlapping == []
    panel = inches(fig, ax.get_window_extent())
    assert panel.width >= 1.4 and panel.height >= 1.2, panel.bounds
    legend = panel_artists(ax).legend
    assert legend is not None  # the legend kept, beside or under the panel


@pytest.mark.first_case_by_default
@pytest.mark.parametrize(("layout", "color"), CASES)
def test_zone_names_cover_no_point_and_no_other_name(small, layout, color):
    fig, ax, _, _ = small[layout, color]
    renderer = renderer_of(fig)
    names = panel_artists(ax).labels
    boxes = [Text.get_window_extent(t, renderer) for t in names.values()]  # not the leader
    centres = np.vstack(
        [c.get_offset_transform().transform(c.get_offsets()) for c in ax.collections
         if (c.get_gid() or "").startswith(("rrmap.points.", "rrmap.clipped."))]
    )  # fmt: skip
    for box in boxes:
        inside = (centres[:, 0] > box.x0) & (centres[:, 0] < box.x1)
        inside &= (centres[:, 1] > box.y0) & (centres[:, 1] < box.y1)
        assert not inside.any()
    for i, a in enumerate(boxes):
        assert not any(a.overlaps(b) for b in boxes[i + 1 :])
    assert 1 <= len(names) < 6  # those over points here are left out, the others kept


def test_what_is_left_out_for_room_is_said(small):
    _, ax, _, caught = small[None, "movement"]  # plt.subplots(figsize=(3.5, 3)), drawn once
    said = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert any(re.search(r"too small for the colorbar \(3\.44 × 2\.94 in", m) for m in said)
    assert panel_artists(ax).colorbar is None and panel_artists(ax).legend is not None


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("layout", [None, "constrained"])
def test_panels_side_by_side_share_one_legend_and_one_colorbar(layout):
    fig, axs = plt.subplots(1, 2, figsize=(7, 3.2), layout=layout)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for ax, rater in zip(axs, ["E1", "E2"], strict=True):
            plot_rrmap(PTS[PTS.expert == rater], "movement", ax=ax, legend=False, colorbar=False)
        legend = add_legend(fig, colorbar=True)
    assert [panel_artists(ax).legend for ax in axs] == [None, None]
    assert len(fig.legends) == 1 and legend is fig.legends[0]
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels[:5] == ["abstract art", "cubism", "expressionism", "impressionism", "surrealism"]
    two = PTS[PTS.expert.isin(["E1", "E2"])]
    n = int((~two.delta.between(-4, 4) | ~two.r.between(0, 2.5)).sum())
    assert n > 0 and labels[5] == f"clipped to the edge ({n})"  # E1's and E2's together
    bars = [ax for ax in fig.axes if ax.get_xlabel() == "Bhattacharyya coefficient"]
    assert len(bars) == 1
    seen = printed(fig)
    assert seen.outside == [] and seen.overlapping == []
    for ax in axs:
        panel = inches(fig, ax.get_window_extent())
        assert panel.width >= 2.5 and panel.height >= 1.2, panel.bounds
    box = inches(fig, legend.get_window_extent())
    assert box.y1 <= min(inches(fig, ax.get_tightbbox()).y0 for ax in axs) + 0.01
