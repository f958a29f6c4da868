"""EPS files measure the box of every glyph of their font once per process, the same box."""

from __future__ import annotations

import io
import re

import matplotlib

matplotlib.use("Agg")

import fontTools.pens.boundsPen
import fontTools.ttLib
import pytest
from matplotlib import font_manager
from matplotlib.backends import backend_ps

from rrmap.plot import plot_rrmap, save
from rrmap.plot.base import _subset


@pytest.fixture
def measures(monkeypatch):
    """The fonts measured glyph by glyph (one ``BoundsPen`` each) while the test runs, with
    no box kept from earlier tests."""
    made = []

    class Counted(fontTools.pens.boundsPen.BoundsPen):
        def __init__(self, glyphset, *args, **kwargs):
            made.append(glyphset)
            super().__init__(glyphset, *args, **kwargs)

    monkeypatch.setattr(fontTools.pens.boundsPen, "BoundsPen", Counted)
    monkeypatch.setattr(_subset, "_font_boxes", {}, raising=False)
    return made


@pytest.mark.slow
def test_eps_files_measure_their_fonts_box_once_and_give_matplotlibs_numbers(
    pts, tmp_path, measures
):
    """matplotlib draws each of DejaVu Sans's 6,241 glyphs for the FontBBox of every EPS
    it writes (1.5 s a file); the box is now measured once, with the same numbers."""
    ax = plot_rrmap(pts, "movement", width="3.5in", background="contour")
    files = [save(ax, tmp_path / f"map{i}.eps") for i in range(3)]
    assert len(measures) == 1  # the figure's one font, measured for the first file only
    font = fontTools.ttLib.TTFont(font_manager.findfont("DejaVu Sans"))
    expected = backend_ps._nums_to_str(*backend_ps._bounds(font))  # matplotlib's own
    assert expected == "-2090 -948 3673 2524"  # DejaVu Sans's head table says the same
    for f in files:
        boxes = re.findall(r"/FontBBox \[([^\]]*)\] def", f.read_text("latin-1"))
        assert boxes == [expected], f.name


def test_a_font_not_read_from_a_file_is_measured_each_time(measures):
    with open(font_manager.findfont("DejaVu Sans"), "rb") as handle:
        data = handle.read()
    with _subset.lean_font_subsets():
        boxes = {backend_ps._bounds(fontTools.ttLib.TTFont(io.BytesIO(data))) for _ in "ab"}
    assert len(measures) == 2 and boxes == {(-2090, -948, 3673, 2524)}


#: matplotlib's ``backend_ps._bounds`` of the fonts it ships (every glyph drawn, 0.8 to
#: 1.7 s a font): its numbers, kept here so as not to draw them all again
MATPLOTLIBS_BOXES = {
    "DejaVu Sans": (-2090, -948, 3673, 2524),
    "DejaVu Sans:bold": (-2190, -850.0, 4045, 2405.027777777778),
    "DejaVu Sans Mono": (-1142.010152284264, -767, 1471, 2105.021276595745),
    "DejaVu Serif:italic": (-1718, -710, 3380.0558139534883, 2272),
}


@pytest.mark.parametrize("name", list(MATPLOTLIBS_BOXES))
def test_the_box_is_drawn_from_the_glyphs_at_its_edges(name, monkeypatch):
    """matplotlib drew every outline of the font (6,241 glyphs of DejaVu Sans, 1.5 s);
    only the few whose recorded boxes reach the edges are drawn, and the box is the same
    (bold, mono and italic: edges reached by a curve between points, or by a scaled
    component)."""
    contours = []

    class Counted(fontTools.pens.boundsPen.BoundsPen):
        def moveTo(self, pt):
            contours.append(pt)
            super().moveTo(pt)

    monkeypatch.setattr(fontTools.pens.boundsPen, "BoundsPen", Counted)
    monkeypatch.setattr(_subset, "_font_boxes", {}, raising=False)
    with _subset.lean_font_subsets():
        box = backend_ps._bounds(fontTools.ttLib.TTFont(font_manager.findfont(name)))
    assert box == MATPLOTLIBS_BOXES[name]
    assert 0 < len(contours) < 100  # matplotlib's: one per contour of every glyph, 10,000s
