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
from plot_helpers import saved_analysis_figures

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
#: Where a test compares two ways of writing the same figures, not the example's figures:
#: two raters (the four figures, agreement included), the grid of one category row
TWO = {"raters": ["E1", "E2"], "categories": ["modality"]}


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


def test_zone_key_names_every_zone_and_keeps_outlines_off_their_names(drawn):
    key = zone_key()
    labels = [h.get_label() for h in key["handles"]]
    assert labels[:4] == ["excellent: BC > 0.98", "fair", "stereotype", "bad: outside these"]
    fig = drawn(plot_rrmap_by_rater, "movement", width="7in")
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


@pytest.mark.slow
def test_parallel_figures_are_the_files_one_process_writes(tmp_path, tmp_path_factory):
    one = saved_analysis_figures(tmp_path_factory, formats=("png",), dpi=40, jobs=1, **TWO).files
    two = _save_two(tmp_path / "two", formats=("png",), dpi=40, jobs=2)
    assert len(one) == 4
    assert [p.name for p in one] == [p.name for p in two]
    for a, b in zip(one, two, strict=True):
        with Image.open(a) as ia, Image.open(b) as ib:
            assert ia.size == ib.size
            assert np.array_equal(np.asarray(ia), np.asarray(ib)), a.name
    assert plt.get_fignums() == []


@pytest.mark.slow
def test_every_format_reuses_one_layout(tmp_path_factory):
    """The figure is laid out once: saving PDF then PNG runs no layout engine."""
    from matplotlib import layout_engine  # its engine calls the name it imported

    saved = saved_analysis_figures(tmp_path_factory, formats=("png", "pdf"), width="7in", **TWO)
    calls = []
    original = layout_engine.do_constrained_layout

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(layout_engine, "do_constrained_layout", counted)
        plt.close(plot_rrmap_by_rater(PTS[PTS.expert.isin(TWO["raters"])], "movement"))
    assert len(saved.files) == 8 and len(calls) > 0 and saved.layouts > 0  # both counted
    # by rater alone lays out a few times; the four figures saved twice each must not add
    # a layout per file on top of their own fitting
    assert saved.layouts <= 4 * len(calls) + 2


def _save_two(folder, **kwargs):
    """save_analysis_figures of the points of :data:`TWO`."""
    points = PTS[PTS.expert.isin(TWO["raters"])]
    return save_analysis_figures(points, folder, categories=TWO["categories"], **kwargs)


def _rgb(path):
    with Image.open(path) as im:
        return im.mode, np.asarray(im.convert("RGB")).astype(int), im.info.get("dpi")


@pytest.mark.slow
@pytest.mark.parametrize("width", ["85mm", "7in"])
def test_a_png_beside_its_pdf_is_the_pdfs_page(tmp_path_factory, width):
    """With PDF and PNG, the figure is drawn once: its PNG is the PDF's page rasterized by
    PDFium, at matplotlib's size and dpi, and looks as matplotlib's own PNG."""
    pytest.importorskip("pypdfium2")
    from rrmap.plot._pdf_pixels import page_pixels

    kwargs = {"width": width, **TWO}
    both = saved_analysis_figures(tmp_path_factory, formats=("png", "pdf"), **kwargs).files
    alone = saved_analysis_figures(tmp_path_factory, formats=("png",), **kwargs).files
    assert [p.name for p in both[::2]] == [p.name for p in alone]  # the order asked for
    for png, agg in zip(both[::2], alone, strict=True):
        mode, got, dpi = _rgb(png)
        _, drawn, _ = _rgb(agg)
        assert mode == "RGB" and tuple(round(v) for v in dpi) == (300, 300)
        assert got.shape == drawn.shape, png.name  # the figure's inches × 300, rounded down
        page = page_pixels(png.with_suffix(".pdf").read_bytes(), got.shape[1], got.shape[0], 300)
        assert np.array_equal(got, page), png.name
        # the same picture as matplotlib's rasterizer draws: edges differ by a fraction of
        # a pixel (a mean of 4 to 8 levels of 255); a shifted, mirrored or recoloured page
        # differs by far more
        assert np.abs(got - drawn).mean() < 12, png.name
        assert np.abs(got - np.roll(drawn, 6, axis=0)).mean() > 1.3 * np.abs(got - drawn).mean()


@pytest.mark.slow
def test_without_pdfium_the_png_is_matplotlibs(tmp_path, tmp_path_factory, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pypdfium2", None)  # as if not installed
    both = _save_two(tmp_path / "both", formats=("pdf", "png"), dpi=40)
    alone = saved_analysis_figures(tmp_path_factory, formats=("png",), dpi=40, jobs=1, **TWO).files
    assert [p.name for p in both[1::2]] == [p.name for p in alone]
    for png, agg in zip(both[1::2], alone, strict=True):
        assert np.array_equal(_rgb(png)[1], _rgb(agg)[1]), png.name


@pytest.mark.slow
def test_a_transparent_png_is_matplotlibs_with_its_alpha(tmp_path):
    with plt.rc_context({"savefig.transparent": True}):
        files = _save_two(tmp_path, formats=("pdf", "png"), dpi=60)
    assert len(files) == 8 and files[1].name == "rrmap_by_rater.png"
    for png in files[1::2]:
        with Image.open(png) as im:
            assert im.mode == "RGBA" and im.getpixel((0, 0))[3] == 0, png.name


def test_pdfium_refusing_a_page_leaves_it_to_matplotlib():
    from rrmap.plot._pdf_pixels import page_pixels

    pytest.importorskip("pypdfium2")
    assert page_pixels(b"%PDF-1.4 not a document", 10, 10, 72) is None
