"""What rrmap keeps of a panel lives beside the user's objects, not on them.

- ``panel_artists(ax)`` reads a typed, frozen record kept in a registry keyed weakly by
  the Axes (it was an untyped dict set on the user's Axes, ``ax._rrmap_panel``);
- a user's Figure drawn on keeps its class (it was re-classed to rrmap's own Figure
  subclass), and still saves its text as text, pickled or not.
"""

from __future__ import annotations

import dataclasses
import gc
import io
import pickle
import weakref

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

import rrmap
from rrmap.plot import panel_artists, plot_rrmap, plot_rrmap_by_rater
from rrmap.plot.figures.panel import PanelRecord, panel_record

PTS = rrmap.points(rrmap.datasets.load_example_ratings())
E1 = PTS[PTS.expert == "E1"]
#: Cells of the background: enough to draw it, few enough to draw it at once.
COARSE = {"resolution": 40}


def _rrmap_attributes(obj) -> list[str]:
    return [name for name in vars(obj) if "rrmap" in name]


def test_the_panel_record_is_kept_beside_the_axes_not_on_it():
    ax = plot_rrmap(E1, "movement", width="3.5in", **COARSE)
    assert _rrmap_attributes(ax) == []
    record = panel_record(ax)
    assert isinstance(record, PanelRecord)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.n_points = 0  # type: ignore[misc]
    drawn = panel_artists(ax)
    assert (drawn.n_points, drawn.n_clipped) == (
        135,
        int((~E1.delta.between(-4, 4) | ~E1.r.between(0, 2.5)).sum()),
    )
    assert drawn.colorbar is record.colorbar and drawn.colorbar.ax in ax.figure.axes
    assert drawn.legend is record.legend and drawn.legend.get_title().get_text() == "movement"


def test_the_record_neither_loses_the_colorbar_nor_keeps_the_figure_alive():
    fig, ax = plt.subplots(figsize=(7, 5))
    plot_rrmap(E1, "movement", ax=ax, **COARSE)
    gc.collect()
    drawn = panel_artists(ax)
    assert drawn.colorbar is not None and drawn.legend is not None  # the figure holds them
    del drawn
    alive = weakref.ref(fig)
    plt.close(fig)
    del fig, ax
    gc.collect()
    assert alive() is None


def test_the_panels_of_a_layout_are_recorded_without_colorbar_or_legend():
    fig = plot_rrmap_by_rater(PTS, "movement", width="7in", **COARSE)
    panels = [panel_artists(ax) for ax in fig.axes if panel_record(ax) is not None]
    expected = [
        (
            135,
            int(
                (
                    ~PTS[PTS.expert == r].delta.between(-4, 4)
                    | ~PTS[PTS.expert == r].r.between(0, 2.5)
                ).sum()
            ),
        )
        for r in ("E1", "E2", "E3")
    ]
    assert [(p.n_points, p.n_clipped) for p in panels] == expected
    assert all(p.colorbar is None and p.legend is None for p in panels)
    assert all(_rrmap_attributes(ax) == [] for ax in fig.axes)


def test_a_users_figure_keeps_its_class_and_saves_text_as_text():
    fig, ax = plt.subplots(figsize=(7, 5))
    plot_rrmap(E1, "movement", ax=ax, **COARSE)
    assert type(fig) is Figure
    again = pickle.loads(pickle.dumps(fig))
    for figure in (fig, again):
        buffer = io.BytesIO()
        figure.savefig(buffer, format="pdf")
        assert b"/Type3" not in buffer.getvalue() and b"/FontFile2" in buffer.getvalue()
    plt.close(again)
