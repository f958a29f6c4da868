"""Shared by the figure tests: the example points, figures of them drawn once for every test
that only looks at them, and every pyplot figure closed after each test."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

import rrmap


@pytest.fixture(scope="module")
def pts():
    return rrmap.points(rrmap.datasets.load_example_ratings())


@pytest.fixture(scope="session")
def drawn(example_points):
    """``drawn(make, *args, rater=..., **kwargs)``: the figure ``make(points, *args,
    **kwargs)`` of the example points (of one *rater*'s only; ``rater=None``: no points
    argument), drawn once in the session and shared by the tests that ask for the same
    call; an Axes gives its figure.

    A test given one only looks at it (draws, measures, saves it), never changes it, so
    that the next test sees it as it was drawn. Closed by pyplot after each test
    (``_close``), a figure stays whole: matplotlib's Agg canvas draws and saves it as
    before.
    """
    figures: dict[str, object] = {}

    def get(make, *args, rater="all", **kwargs):
        key = repr((make.__module__, make.__qualname__, rater, args, sorted(kwargs.items())))
        if key not in figures:
            if rater is None:
                made = make(*args, **kwargs)
            else:
                points = example_points
                if rater != "all":
                    points = points[points["expert"] == rater]
                made = make(points, *args, **kwargs)
            figures[key] = getattr(made, "figure", made)
        return figures[key]

    yield get
    figures.clear()


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")
