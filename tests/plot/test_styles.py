"""Tests of rrmap.plot.styles: the paper style by file and by dotted name."""

from __future__ import annotations

import matplotlib.pyplot as plt


def test_style_by_dotted_name():
    with plt.style.context("rrmap.plot.rrmap-paper"):
        assert plt.rcParams["pdf.fonttype"] == 42
        assert plt.rcParams["svg.fonttype"] == "none"
