"""Tests of rrmap.plot.layouts: panels per rater, the raters × categories grid, saved files."""

from __future__ import annotations

import re
import zlib

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from plot_helpers import inflates

from rrmap.errors import InputError
from rrmap.plot import (
    panel_artists,
    plot_rrmap_by_rater,
    plot_rrmap_grid,
    save_analysis_figures,
)
from rrmap.plot.styles import PAPER_STYLE


def test_by_rater_layout(pts):
    fig = plot_rrmap_by_rater(pts, "movement")
    axes = [ax for ax in fig.axes if panel_artists(ax).background is not None]
    assert len(axes) == 3
    for ax, name in zip(axes, ["E1", "E2", "E3"], strict=True):
        sub = pts[pts.expert == name]
        outside = (~sub.delta.between(-4, 4) | ~sub.r.between(0, 2.5)).sum()
        drawn = panel_artists(ax)
        assert drawn.n_clipped == outside
        assert ax.get_title().startswith(f"{name} (n = {len(sub)}")
    # same colour for a movement in every panel
    cols = {tuple(panel_artists(ax).points["cubism"].get_facecolor()[0][:3]) for ax in axes}
    assert len(cols) == 1
    assert len(fig.legends) == 1
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[:5] == sorted(pts.movement.unique()) and labels[-1] == "clipped to the edge"


def test_grid_layout_rows_categories_columns_raters(pts):
    fig = plot_rrmap_grid(pts)
    panels = [ax for ax in fig.axes if panel_artists(ax).background is not None]
    assert len(panels) == 4 * 3  # modality_name (15 options) left out by default
    titles = [ax.get_legend().get_title().get_text() for ax in fig.axes if ax.get_legend()]
    assert titles == ["movement", "criterion", "criterion_group", "modality"]
    crit = panels[3 * 1 + 2]  # row criterion, column E3
    assert set(panel_artists(crit).points) == set(pts.criterion.unique())
    fig2 = plot_rrmap_grid(pts, ["modality_name"], rater="expert")
    assert len([ax for ax in fig2.axes if panel_artists(ax).background is not None]) == 3
    with pytest.raises(InputError, match="no column 'nope'"):
        plot_rrmap_grid(pts, ["nope"])


def test_grid_without_categories_says_so():
    df = pd.DataFrame({"expert": ["E1", "E2"], "delta": [0.0, 1.0], "r": [1.0, 1.0]})
    with pytest.raises(InputError, match=r"no category column to draw rows for; pass categories"):
        plot_rrmap_grid(df)


def test_pdf_keeps_text_as_truetype_and_background_as_image(pts, tmp_path):
    with plt.style.context(PAPER_STYLE):
        fig = plot_rrmap_grid(pts)
        out = tmp_path / "grid.pdf"
        fig.savefig(out)
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    # Type 42: TrueType outlines embedded (FontFile2, CIDFontType2), never Type 3 glyph procedures
    assert b"/FontFile2" in data and b"/CIDFontType2" in data
    assert b"/Subtype /Type3" not in data
    assert data.count(b"/Subtype /Image") >= 12  # one raster background per panel
    # text objects: the page content has BT ... Tj/TJ ... ET operators, not glyph paths
    content = b"".join(
        zlib.decompress(m.group(1))
        for m in re.finditer(rb"/FlateDecode[^>]*>>\s*stream\r?\n(.*?)\r?\nendstream", data, re.S)
        if inflates(m.group(1))
    )
    assert content.count(b"BT") >= 20 and (b" Tj" in content or b" TJ" in content)
    assert out.stat().st_size < 2_000_000


def test_save_analysis_figures(pts, tmp_path):
    files = save_analysis_figures(pts, tmp_path / "figs", formats=("pdf", "png"), dpi=60)
    assert [f.name for f in files] == [
        "rrmap_by_rater.pdf",
        "rrmap_by_rater.png",
        "rrmap_grid.pdf",
        "rrmap_grid.png",
    ]
    assert all(f.stat().st_size > 1000 for f in files)
    assert files[1].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plt.get_fignums() == []  # closed after saving


def test_single_rater_layouts(pts):
    e2 = pts[pts.expert == "E2"]
    fig = plot_rrmap_by_rater(e2, "modality")
    panels = [ax for ax in fig.axes if panel_artists(ax).background is not None]
    assert len(panels) == 1 and panels[0].get_title() == "E2 (n = 135, 12 clipped)"
    fig = plot_rrmap_grid(e2, ["movement", "modality"])
    assert len([ax for ax in fig.axes if panel_artists(ax).background is not None]) == 2
