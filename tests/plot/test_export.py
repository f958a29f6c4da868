"""Tests of rrmap.plot.export: save keeps text as text at the laid-out size; EPS; the set."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from plot_helpers import pdf_report, saved_analysis_figures

import rrmap
from rrmap.errors import InputError
from rrmap.plot import ggrrmap, plot_rrmap, plot_rrmap_by_rater, save, save_analysis_figures


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("rc", [{}, {"pdf.fonttype": 3, "savefig.bbox": "tight"}])
def test_save_writes_truetype_at_the_laid_out_size(pts, tmp_path, rc):
    """Whatever the user's rcParams (Type 3 fonts, tight bounding box), the page is the
    figure's width and the fonts TrueType."""
    # a figure of its own: saving under these settings lays it out again, and the shared
    # 85 mm figure is measured by the layout tests
    fig = plot_rrmap_by_rater(pts, "movement", width="85mm")
    with plt.rc_context(rc):
        out = save(fig, tmp_path / "fig.pdf")
    report = pdf_report(out)
    assert report["width"] == pytest.approx(85 / 25.4 * 72, abs=0.01)
    assert "/Type3" not in report["fonts"] and "/CIDFontType2" in report["fonts"]


def test_figures_made_here_keep_text_as_text_through_savefig(drawn, tmp_path):
    fig = drawn(plot_rrmap, "movement")
    with plt.rc_context({"pdf.fonttype": 3}):
        fig.savefig(tmp_path / "direct.pdf")
    assert b"/Subtype /Type3" not in (tmp_path / "direct.pdf").read_bytes()


def test_eps_with_a_raster_background_is_refused_with_the_reason(drawn, pts, tmp_path):
    fig = drawn(plot_rrmap, "movement")
    with pytest.raises(InputError, match=r"EPS/PS stores the BC background as an uncompressed"):
        save(fig, tmp_path / "map.eps")
    assert not (tmp_path / "map.eps").exists()
    ax = plot_rrmap(pts, "movement", background="contour", alpha=1.0)
    out = save(ax, tmp_path / "map.eps")
    data = out.read_bytes()
    assert data.startswith(b"%!PS-Adobe") and b"colorimage" not in data and b" image" not in data
    assert out.stat().st_size < 400_000  # vector bands, not a 1 MB hex image


@pytest.mark.slow
def test_save_a_ggplot_at_a_printed_size(pts, tmp_path):
    p = ggrrmap(pts, "movement")
    out = save(p, tmp_path / "gg.pdf", width="180mm", height="70mm")
    report = pdf_report(out)
    assert (report["width"], report["height"]) == pytest.approx(
        (180 / 25.4 * 72, 70 / 25.4 * 72), abs=0.01
    )
    assert "/Type3" not in report["fonts"]
    with pytest.raises(InputError, match="give both width and height"):
        save(p, tmp_path / "gg2.pdf", width="3.5in")
    with pytest.raises(InputError, match="width/height apply to a ggplot"):
        save(plot_rrmap(), tmp_path / "m.pdf", width="3.5in")


@pytest.mark.slow
def test_analysis_figures_png_at_300_dpi_and_eps(pts, tmp_path):
    files = save_analysis_figures(pts, tmp_path, formats=("png", "eps"), width="3.5in")
    png = tmp_path / "rrmap_by_rater.png"
    width_px = int.from_bytes(png.read_bytes()[16:20], "big")
    assert width_px == 3.5 * 300
    eps = [f for f in files if f.suffix == ".eps"]
    assert len(eps) == 4 and all(f.stat().st_size < 1_500_000 for f in eps)
    single = rrmap.points(rrmap.datasets.load_example_ratings())
    single = single[single.expert == "E1"]
    names = [f.name for f in save_analysis_figures(single, tmp_path / "one", formats=("pdf",))]
    assert names == ["rrmap_by_rater.pdf", "rrmap_grid.pdf", "proportions.pdf"]  # no agreement


@pytest.mark.slow
def test_the_figures_bar_advances_per_figure_on_a_terminal_only(
    example_points, tmp_path, monkeypatch
):
    import io

    from rrmap.plot import save_analysis_figures

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stream, shown in ((io.StringIO(), False), (Terminal(), True)):
        monkeypatch.setattr("sys.stderr", stream)
        files = save_analysis_figures(
            example_points[example_points.expert != "E3"],  # two raters: the four figures
            tmp_path / str(shown),
            formats=("png",),
            dpi=30,
            categories=["modality"],  # a grid of 3 panels: the bar counts figures
            progress=True,
        )
        assert len(files) == 4
        text = stream.getvalue()
        assert ("figures: 100%" in text and "4/4" in text) is shown
        if shown:
            assert [f"{i}/4" in text for i in range(5)] == [True] * 5


@pytest.mark.slow
def test_each_analysis_pdf_embeds_its_font_once(drawn, tmp_path, tmp_path_factory):
    """Without ligatures ("coefficient", "all different"), a PDF holds one subset of its
    font: matplotlib 3.11 put the "ff" and "ffi" glyphs in a second one, a second full
    read of the font file."""
    import re

    from matplotlib.text import Text

    files = _analysis_pdfs(tmp_path_factory)
    assert len(files) == 4
    for path in files:
        names = re.findall(rb"/BaseFont /([A-Z]{6}\+[\w-]+)", path.read_bytes())
        assert len(set(names)) == 1, (path.name, set(names))
    fig = drawn(plot_rrmap_by_rater, "movement")
    fig.savefig(tmp_path / "again.pdf")
    if hasattr(Text, "set_fontfeatures"):  # matplotlib 3.11: text features
        assert {t.get_fontfeatures() for t in fig.findobj(Text)} == {("-liga",)}


def _analysis_pdfs(tmp_path_factory):
    """The PDFs of the analysis figures at 7 in (written once)."""
    return saved_analysis_figures(tmp_path_factory, formats=("pdf",), width="7in").files


def _embedded_fonts(path):
    """The tables of every font file a PDF embeds, and the PDF's text."""
    import io

    from fontTools.ttLib import TTFont
    from pypdf import PdfReader

    page = PdfReader(path).pages[0]
    tables = []
    for font in page["/Resources"].get_object().get("/Font", {}).values():
        for desc in font.get_object().get("/DescendantFonts", []):
            data = desc.get_object()["/FontDescriptor"].get_object()["/FontFile2"].get_data()
            tables.append({str(t).strip() for t in TTFont(io.BytesIO(data)).keys()})
    return tables, page.extract_text()


LAYOUT_TABLES = {"GSUB", "GPOS", "GDEF"}
DRAWING_TABLES = {"glyf", "loca", "head", "hhea", "hmtx", "maxp", "cmap", "post", "name"}
#: matplotlib 3.11 subsets fonts by glyph index, the subsetting rrmap's saving replaces
LEAN = tuple(int(p) for p in matplotlib.__version__.split(".")[:2]) >= (3, 11)


@pytest.mark.slow
@pytest.mark.skipif(not LEAN, reason="matplotlib before 3.11 subsets fonts its own way")
def test_analysis_pdfs_embed_their_fonts_without_the_layout_tables(pts, tmp_path, tmp_path_factory):
    """No viewer shapes the text of a PDF: the subset keeps the outlines, metrics and
    names, not GSUB/GPOS/GDEF (subsetting those was 0.09 s of 0.13 s per PDF)."""
    files = _analysis_pdfs(tmp_path_factory)
    assert len(files) == 4
    fig = plot_rrmap(pts[pts.expert == "E1"], "movement").figure
    fig.savefig(tmp_path / "own.pdf")  # the figure's savefig
    save(fig, tmp_path / "saved.pdf")
    for path in [*files, tmp_path / "own.pdf", tmp_path / "saved.pdf"]:
        tables, _ = _embedded_fonts(path)
        assert len(tables) == 1, path.name
        assert not tables[0] & LAYOUT_TABLES and DRAWING_TABLES <= tables[0], (path, tables)
    plt.close(fig)


@pytest.mark.skipif(not LEAN, reason="matplotlib before 3.11 subsets fonts its own way")
def test_a_plain_matplotlib_pdf_keeps_matplotlibs_subset(tmp_path):
    """Outside rrmap's saving, matplotlib's own subsetting is untouched."""
    from rrmap.plot.base._subset import lean_font_subsets

    with lean_font_subsets():  # installs the lean subsetting
        pass
    fig, ax = plt.subplots()
    ax.set_title("plain matplotlib")
    with plt.rc_context({"pdf.fonttype": 42}):
        fig.savefig(tmp_path / "plain.pdf")
    plt.close(fig)
    tables, _ = _embedded_fonts(tmp_path / "plain.pdf")
    assert tables[0] & LAYOUT_TABLES


@pytest.mark.first_case_by_default
@pytest.mark.skipif(not LEAN, reason="matplotlib before 3.11 subsets fonts its own way")
@pytest.mark.parametrize("kind", ["by_rater", "agreement"])
def test_the_lean_font_draws_the_same_pixels_and_text(pts, tmp_path, kind):
    """The page drawn by Ghostscript (or MuPDF) and the text a reader extracts are the same
    with matplotlib's subset and with the lean one."""
    import shutil
    import subprocess

    from matplotlib.figure import Figure

    from rrmap.plot import plot_agreement
    from rrmap.plot._render import freeze_layout
    from rrmap.plot.base._sizing import TEXT_AS_TEXT

    fig = plot_rrmap_by_rater(pts, "movement") if kind == "by_rater" else plot_agreement(pts)
    freeze_layout(fig)  # as the analysis figures: each save draws the same layout
    fig.savefig(tmp_path / "lean.pdf")
    with plt.rc_context(TEXT_AS_TEXT):
        Figure.savefig(fig, tmp_path / "full.pdf")  # matplotlib's own savefig and subset
    plt.close(fig)
    lean, full = _embedded_fonts(tmp_path / "lean.pdf"), _embedded_fonts(tmp_path / "full.pdf")
    assert full[0][0] & LAYOUT_TABLES and not lean[0][0] & LAYOUT_TABLES  # two subsets
    assert lean[1] == full[1] and len(lean[1]) > 100
    if shutil.which("gs"):
        cmd = ["gs", "-q", "-dNOPAUSE", "-dBATCH", "-sDEVICE=png16m", "-r150"]
    elif shutil.which("mutool"):
        cmd = ["mutool", "draw", "-q", "-r", "150"]
    else:
        pytest.skip("neither Ghostscript nor MuPDF to draw the pages")
    pages = {}
    for name in ("lean", "full"):
        out = tmp_path / f"{name}.png"
        if cmd[0] == "gs":
            run = [*cmd, f"-sOutputFile={out}", str(tmp_path / f"{name}.pdf")]
        else:
            run = [*cmd, "-o", str(out), str(tmp_path / f"{name}.pdf")]
        subprocess.run(run, check=True, capture_output=True)
        pages[name] = out.read_bytes()
    assert len(pages["lean"]) > 10_000 and pages["lean"] == pages["full"]
