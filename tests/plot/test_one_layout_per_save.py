"""Saving a figure rrmap made draws it once, running its constrained layout in the draw that
prints, and writes the file matplotlib writes with its first draw that renders nothing
(rrmap.plot.base._sizing._laid_out_once)."""

from __future__ import annotations

import base64
import hashlib
import io
import re

import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from rrmap.plot import plot_agreement, plot_rrmap_by_rater
from rrmap.plot.base._sizing import text_as_text


def _pixels(match: re.Match) -> bytes:
    image = np.asarray(Image.open(io.BytesIO(base64.b64decode(match[1]))))
    return b"%r:%s" % (image.shape, hashlib.sha256(image.tobytes()).hexdigest().encode())


def _same_run(data: bytes) -> bytes:
    """*data* without what differs between two prints of the same figure: dates, the ids
    SVG derives from objects' addresses, and how its images' pixels are encoded."""
    data = re.sub(rb"/CreationDate \([^)]*\)", b"", data)
    data = re.sub(rb"<dc:date>[^<]*</dc:date>", b"", data)
    data = re.sub(rb"data:image/png;base64,\s*([A-Za-z0-9+/=\s]+)", _pixels, data)
    ids: dict[bytes, bytes] = {}
    return re.sub(
        rb"\b(?:[pm]|image)[0-9a-f]{10}\b", lambda m: ids.setdefault(m[0], b"id%d" % len(ids)), data
    )


@pytest.fixture
def draws(monkeypatch):
    """The number of figure draws (rendering or not) since the test began."""
    count = [0]
    real = Figure.draw

    def counted(self, renderer):
        count[0] += 1
        return real(self, renderer)

    monkeypatch.setattr(Figure, "draw", counted)
    return count


#: Dots per inch of the PNGs compared (the layout does not depend on it).
_DPI = 40


def _printed(fig: Figure, fmt: str, **kwargs) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, dpi=_DPI, **kwargs)
    return buffer.getvalue()


def _as_matplotlib_prints(fig: Figure, fmt: str) -> bytes:
    """*fig* printed as matplotlib prints any figure with a layout engine: a first draw
    that runs the layout and renders nothing, then the draw that prints."""
    buffer = io.BytesIO()
    with text_as_text():
        Figure.savefig(fig, buffer, format=fmt, dpi=_DPI)
    return buffer.getvalue()


def _same(got: bytes, expected: bytes, fmt: str) -> bool:
    if fmt == "png":
        return np.array_equal(
            np.asarray(Image.open(io.BytesIO(got))), np.asarray(Image.open(io.BytesIO(expected)))
        )
    return _same_run(got) == _same_run(expected)


def test_one_draw_writes_the_file_of_two(pts, draws):
    """The agreement figure (a constrained layout with a colorbar) in every format of a
    figure saved by the other way: each save runs the layout once either way, so the two
    figures go on from the same positions."""
    theirs, ours = plot_agreement(pts), plot_agreement(pts)
    for fmt in ("pdf", "svg", "png"):
        expected = _as_matplotlib_prints(theirs, fmt)
        before = draws[0]
        got = _printed(ours, fmt)
        assert draws[0] - before == 1, fmt
        assert _same(got, expected, fmt), fmt
    assert ours.get_layout_engine() is not None  # held back while it prints only


@pytest.mark.slow
def test_a_map_saves_the_same_with_one_draw(pts):
    """The maps by rater: raster backgrounds, legends beside the panels."""
    theirs, ours = (plot_rrmap_by_rater(pts, "movement", width="85mm").figure for _ in range(2))
    for fmt in ("pdf", "svg"):
        assert _same(_printed(ours, fmt), _as_matplotlib_prints(theirs, fmt), fmt), fmt


@pytest.mark.slow
def test_eps_and_tight_boxes_are_printed_as_matplotlib_prints_them(pts, draws):
    """PostScript's printer cannot be asked for a renderer while it prints, and a tight
    box is measured from a first draw: two draws, as matplotlib makes them."""
    fig = plot_agreement(pts)
    for fmt, options, n_draws in [
        ("eps", {}, 2),
        ("pdf", {"bbox_inches": "tight"}, 2),
        ("pdf", {}, 1),
    ]:
        before = draws[0]
        data = _printed(fig, fmt, **options)
        assert draws[0] - before == n_draws, (fmt, options)
        assert data.startswith(b"%!PS-Adobe" if fmt == "eps" else b"%PDF")
        if fmt == "eps":  # every text drawn, not an empty page
            assert data.count(b"glyphshow") + data.count(b" show") > 50


def test_a_failing_save_gives_the_figure_its_layout_back(drawn):
    fig = drawn(plot_agreement)  # nothing is drawn: the shared figure is left as it was
    engine = fig.get_layout_engine()
    with pytest.raises(ValueError, match="not supported"):
        fig.savefig(io.BytesIO(), format="no-such-format")
    with pytest.raises(OSError), mpl.rc_context({"savefig.format": "pdf"}):
        fig.savefig("/nonexistent-folder/figure")
    assert fig.get_layout_engine() is engine
