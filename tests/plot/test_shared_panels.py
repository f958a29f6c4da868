"""Panels side by side are linked: a zoom or pan of one moves them all, and their ticks
follow; the panels are linked once the figure is laid out, by their limits' callbacks.

Measured before: joined from the start, every read of a panel's limits during the layout
checked all its siblings for a pending autoscale (``Grouper.get_siblings``): 2,079 such
lookups to build the grid of the example's four raters, tens of thousands for ten raters
(a quarter of the 13 s the grid of ten raters at 180 mm took to build and draw).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest
from matplotlib import cbook
from matplotlib.ticker import FixedLocator, MaxNLocator

from rrmap.plot import plot_rrmap_by_rater, plot_rrmap_grid
from rrmap.plot.base._sizing import off_screen
from rrmap.plot.figures.panel import panel_record


def _panels(fig):
    return [ax for ax in fig.axes if ax.get_visible() and panel_record(ax)]


@pytest.fixture
def sibling_lookups(monkeypatch):
    """How many times matplotlib looked up the siblings of an Axes shared with others."""
    seen = [0]
    get = cbook.Grouper.get_siblings

    def counted(self, a, **kw):
        out = get(self, a, **kw)
        seen[0] += len(out) > 1
        return out

    monkeypatch.setattr(cbook.Grouper, "get_siblings", counted)
    return seen


@pytest.mark.parametrize(
    "make",
    [
        lambda pts, **kw: plot_rrmap_grid(pts, ["movement"], **kw),
        lambda pts, **kw: plot_rrmap_by_rater(pts, "movement", **kw),
    ],
    ids=["grid", "by_rater"],
)
def test_panels_zoom_together_and_their_ticks_follow(example_points, make):
    fig = make(example_points, width="7in")
    panels = _panels(fig)
    assert len(panels) >= 3
    panels[1].set_xlim(-1.0, 1.0)
    panels[2].set_ylim(0.5, 1.5)
    assert {ax.get_xlim() for ax in panels} == {(-1.0, 1.0)}
    assert {ax.get_ylim() for ax in panels} == {(0.5, 1.5)}
    assert all(isinstance(ax.xaxis.get_major_locator(), MaxNLocator) for ax in panels)
    fig.canvas.draw()
    shown = [t.get_text() for t in panels[-1].get_xticklabels() if t.get_visible()]
    assert shown == ["−0.5", "0.0", "0.5"]


def test_building_and_drawing_the_grid_look_up_no_siblings(example_points, sibling_lookups):
    """Linked by their limits' callbacks: shared axes, joined once laid out, made 1,008
    sibling lookups in each drawing of the example's grid (2,079 more, joined from the
    start, while it was built)."""
    fig = plot_rrmap_grid(example_points, ["movement"], width="7in")
    fig.canvas.draw()
    first, *rest = _panels(fig)
    assert not any(first.get_shared_x_axes().joined(first, ax) for ax in rest)
    rest[-1].set_ylim(0.25, 1.75)  # the last panel moves the first
    fig.canvas.draw()
    assert first.get_ylim() == (0.25, 1.75)
    assert sibling_lookups[0] == 0


def test_ticks_stay_fixed_until_a_panel_moves_and_a_users_locator_is_kept(example_points):
    """Before any zoom the ticks are fixed, at the places the locators find; at the first
    move the locators come back, but where the user set one of their own."""
    fig = plot_rrmap_grid(example_points, ["movement"], width="7in")
    panels = _panels(fig)
    assert all(isinstance(ax.yaxis.get_major_locator(), FixedLocator) for ax in panels)
    fig.canvas.draw()
    fixed = [list(ax.get_yticks()) for ax in panels]
    limits = panels[0].get_ylim()
    mine = FixedLocator([0.5, 1.5])
    panels[0].yaxis.set_major_locator(mine)
    panels[-1].set_ylim(0.0, 2.0)
    assert panels[0].yaxis.get_major_locator() is mine
    assert all(isinstance(ax.yaxis.get_major_locator(), MaxNLocator) for ax in panels[1:])
    panels[-1].set_ylim(limits)  # back where they were: the locators' ticks are the fixed ones
    fig.canvas.draw()
    assert [list(ax.get_yticks()) for ax in panels[1:]] == fixed[1:]
    assert list(panels[0].get_yticks()) == [0.5, 1.5]


def test_a_users_callbacks_on_every_panel_hear_of_a_move_once(example_points):
    """As on shared axes: a move of one panel calls the ``xlim_changed`` callbacks of each
    panel once, with that panel and its new limits."""
    fig = plot_rrmap_grid(example_points, ["movement"], width="7in")
    panels = _panels(fig)
    heard = []
    for ax in panels:
        ax.callbacks.connect("xlim_changed", lambda ax: heard.append((ax, ax.get_xlim())))
    panels[1].set_xlim(-2.0, 2.0)
    assert sorted(map(id, (ax for ax, _ in heard))) == sorted(map(id, panels))
    assert {limits for _, limits in heard} == {(-2.0, 2.0)}


def test_a_figure_only_saved_keeps_its_ticks_fixed_and_its_panels_apart(example_points):
    with off_screen():
        fig = plot_rrmap_grid(example_points, ["movement"], width="7in")
    assert all(isinstance(ax.xaxis.get_major_locator(), FixedLocator) for ax in _panels(fig))
    first, *rest = _panels(fig)
    assert not any(first.get_shared_x_axes().joined(first, ax) for ax in rest)
