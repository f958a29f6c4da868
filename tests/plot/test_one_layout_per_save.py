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


def _printed(fig: Figure, fmt: str, **kwargs) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, **kwargs)
    return buffer.getvalue()


def _as_matplotlib_prints(fig: Figure, fmt: str) -> bytes:
    """*fig* printed as matplotlib prints any figure with a layout engine: a first draw
    that runs the layout and renders nothing, then the draw that prints."""
    buffer = io.BytesIO()
    with text_as_text():
        Figure.savefig(fig, buffer, format=fmt)
    return buffer.getvalue()


@pytest.mark.parametrize("fmt", ["pdf", "svg", "png"])
def test_one_draw_writes_the_file_of_two(pts, draws, fmt):
    # the agreement figure: a constrained layout with a colorbar, quick to draw
    expected = _as_matplotlib_prints(plot_agreement(pts), fmt)
    fig = plot_agreement(pts)
    before = draws[0]
    got = _printed(fig, fmt)
    assert draws[0] - before == 1
    if fmt == "png":
        assert np.array_equal(
            np.asarray(Image.open(io.BytesIO(got))), np.asarray(Image.open(io.BytesIO(expected)))
        )
    else:
        assert _same_run(got) == _same_run(expected)
    assert fig.get_layout_engine() is not None  # held back while it prints only


@pytest.mark.parametrize("fmt", ["pdf", "svg"])
def test_a_map_saves_the_same_with_one_draw(pts, fmt):
    """The maps by rater: raster backgrounds, legends beside the panels."""
    expected = _as_matplotlib_prints(plot_rrmap_by_rater(pts, "movement", width="85mm").figure, fmt)
    got = _printed(plot_rrmap_by_rater(pts, "movement", width="85mm").figure, fmt)
    assert _same_run(got) == _same_run(expected)


@pytest.mark.parametrize(
    ("fmt", "options", "n_draws"),
    [
        ("eps", {}, 2),  # PostScript's printer cannot be asked for a renderer as it prints
        ("pdf", {"bbox_inches": "tight"}, 2),  # the box is measured from a first draw
        ("pdf", {}, 1),
    ],
)
def test_eps_and_tight_boxes_are_printed_as_matplotlib_prints_them(
    pts, draws, fmt, options, n_draws
):
    fig = plot_agreement(pts)
    before = draws[0]
    data = _printed(fig, fmt, **options)
    assert draws[0] - before == n_draws
    assert data.startswith(b"%!PS-Adobe" if fmt == "eps" else b"%PDF")
    if fmt == "eps":  # every text drawn, not an empty page
        assert data.count(b"glyphshow") + data.count(b" show") > 50


def test_a_failing_save_gives_the_figure_its_layout_back(pts):
    fig = plot_agreement(pts)
    engine = fig.get_layout_engine()
    with pytest.raises(ValueError, match="not supported"):
        fig.savefig(io.BytesIO(), format="no-such-format")
    with pytest.raises(OSError), mpl.rc_context({"savefig.format": "pdf"}):
        fig.savefig("/nonexistent-folder/figure")
    assert fig.get_layout_engine() is engine
