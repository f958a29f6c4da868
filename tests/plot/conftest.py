"""Shared by the figure tests: the example points, and every figure closed after each test."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

import rrmap


@pytest.fixture(scope="module")
def pts():
    return rrmap.points(rrmap.datasets.load_example_ratings())


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")
