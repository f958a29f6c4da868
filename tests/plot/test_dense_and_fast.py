"""The dense centre (zones above the points, translucent crowds, a complete zone key) and
the analysis figures drawn once, in parallel, with light rasters.

The measured problems: in the E1 and E2 panels the excellent curve was buried under the
points, the zone key had no "bad" entry and its outlines touched their names; the
figures of ``rrmap analyze`` cost four times the statistics, each format laid the figure
out again and the PDF rasterised the whole page once per panel for its background.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from PIL import Image

import rrmap
from rrmap.plot import (
    panel_artists,
    plot_rrmap,
    plot_rrmap_by_rater,
    save,
    save_analysis_figures,
    zone_key,
)
from rrmap.plot.base._style import dense_alpha

PTS = rrmap.points(rrmap.datasets.load_example_ratings())


def test_zones_and_references_are_drawn_above_the_points_on_a_halo():
    ax = plot_rrmap(PTS[PTS.expert == "E1"], "movement", width="7in")
    drawn = panel_artists(ax)
    top_point = max(c.get_zorder() for c in drawn.points.values())
    for artist in (drawn.excellent, *drawn.zones.values(), *drawn.references.values()):
        assert artist.get_zorder() > top_point, artist.get_gid()
        effects = artist.get_path_effects()
        assert effects and effects[0]._gc["foreground"] == "white", artist.get_gid()
    assert max(t.get_zorder() for t in drawn.labels.values()) < top_point  # names under


def test_crowded_panels_are_translucent():
    assert dense_alpha(60) == 0.85
    assert dense_alpha(135) == pytest.approx(0.73)
    assert dense_alpha(1000) == 0.5
    ax = plot_rrmap(PTS, "movement", width="7in")  # 405 points in one panel
    alphas = {c.get_alpha() for c in panel_artists(ax).points.values()}
    assert alphas == {0.5}
    ax = plot_rrmap(PTS, "movement", width="7in", alpha=0.9)  # asked for: kept
    assert {c.get_alpha() for c in panel_artists(ax).points.values()} == {0.9}


def test_zone_key_names_every_zone_and_keeps_outlines_off_their_names():
    key = zone_key()
    labels = [h.get_label() for h in key["handles"]]
    assert labels[:4] == ["excellent: BC > 0.98", "fair", "stereotype", "bad: outside these"]
    fig = plot_rrmap_by_rater(PTS, "movement", width="7in")
    fig.draw_without_rendering()
    legend = next(leg for leg in fig.legends if leg.get_title().get_text() == "zones")
    gaps = []
    for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
        if text.get_text() in ("fair", "stereotype"):
            gaps.append(text.get_window_extent().x0 - handle.get_window_extent().x1)
    assert len(gaps) == 2 and min(gaps) >= 3.0 * fig.dpi / 72  # at least 3 pt of white


def test_pdf_background_is_the_grid_of_cells_not_a_page_raster(tmp_path):
    ax = plot_rrmap(PTS[PTS.expert == "E1"], width="7in")
    out = save(ax, tmp_path / "map.pdf", dpi=300)
    data = out.read_bytes()
    # one 400 × 400 image (the BC cells); rasterising would give a page-dpi image instead
    assert b"/Width 400" in data and b"/Height 400" in data


def test_png_is_opaque_rgb_at_the_dpi(tmp_path):
    fig = plot_rrmap_by_rater(PTS, "movement", width="3.5in")
    out = save(fig, tmp_path / "fig.png", dpi=200)
    with Image.open(out) as im:
        assert im.mode == "RGB"
        assert im.size[0] == 700 and abs(im.size[1] - fig.get_figheight() * 200) <= 1
        assert tuple(round(v) for v in im.info["dpi"]) == (200, 200)
        assert im.getpixel((0, 0)) == (255, 255, 255)


def test_parallel_figures_are_the_files_one_process_writes(tmp_path):
    one = save_analysis_figures(PTS, tmp_path / "one", formats=("png",), dpi=40, jobs=1)
    two = save_analysis_figures(PTS, tmp_path / "two", formats=("png",), dpi=40, jobs=2)
    assert [p.name for p in one] == [p.name for p in two]
    for a, b in zip(one, two, strict=True):
        with Image.open(a) as ia, Image.open(b) as ib:
            assert ia.size == ib.size
            assert np.array_equal(np.asarray(ia), np.asarray(ib)), a.name
    assert plt.get_fignums() == []


def test_every_format_reuses_one_layout(tmp_path, monkeypatch):
    """The figure is laid out once: saving PDF then PNG runs no layout engine."""
    from matplotlib import _constrained_layout

    calls = []
    original = _constrained_layout.do_constrained_layout

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(_constrained_layout, "do_constrained_layout", counted)
    files = save_analysis_figures(PTS, tmp_path, formats=("pdf", "png"), dpi=40, jobs=1)
    layouts_with_saving = len(calls)
    calls.clear()
    for make in (lambda: plot_rrmap_by_rater(PTS, "movement"),):
        plt.close(make())
    assert len(files) == 8
    # by rater alone lays out a few times; the four figures saved twice each must not add
    # a layout per file on top of their own fitting
    assert layouts_with_saving <= 4 * len(calls) + 2
