"""One normaliser for every format that shows a label (rrmap._util.escape.display_text).

Characters drawn as nothing (a byte-order mark, zero-width spaces and joiners,
marks, soft hyphens, variation selectors, tags) are left out, control
characters become spaces, and the bidirectional embeddings, overrides and
isolates are shown as their code (``\\u202e``), in LaTeX, Markdown, HTML, the
interactive map and figures alike; a figure's own texts lay out no invisible
character either.
"""

from __future__ import annotations

import io
import re

import pytest

from rrmap._util.escape import (
    INVISIBLE,
    display_text,
    html_text,
    latex_text,
    markdown_text,
    plain_figure_text,
    template_text,
    without_invisible,
)
from rrmap.plot.base._style import figure_text, fitted_text

#: Raw characters no shown text may hold: invisible ones and bidirectional controls.
RAW = re.compile(f"[{INVISIBLE}\u202a-\u202e\u2066-\u2069]")
HOSTILE = "E\ufeff1 \u200babc\u202edef\u2066x\u2069 \u200e12\u00ad3\U000e0041"


def test_invisible_characters_are_left_out():
    assert display_text("E\ufeff1") == "E1"
    assert display_text("\ufeffE\u200b1\u2060\u00ad\u200c\u200d\u200e\u200f\u061c") == "E1"
    assert display_text("a\ufe0fb\u034fc\U000e0001\U000e0041d\u3164e\u180ef") == "abcdef"


def test_bidi_controls_show_as_their_code():
    assert display_text("abc\u202edef (n = 12)") == "abc\\u202edef (n = 12)"
    assert display_text("\u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d") == (
        "\\u2066\\u2067\\u2068\\u2069\\u202a\\u202b\\u202c\\u202d"
    )


def test_controls_are_spaces_and_half_surrogates_replaced():
    assert display_text("a\r\nb\tc\x00d\x85e\u2028f") == "a  b c d e f"
    assert display_text("x\ud800") == "x\ufffd"


def test_ordinary_labels_are_kept_as_they_are():
    for label in ["E1", "Münter", "专家", "\u05e9\u05dc\u05d5\u05dd", "Café", "a\u0301", "[1pt]"]:
        assert display_text(label) == label
    assert display_text(3.5) == "3.5"


def test_the_normaliser_is_idempotent():
    once = display_text(HOSTILE)
    assert display_text(once) == once
    assert not RAW.search(once)


@pytest.mark.parametrize(
    ("escape", "shown"),
    [
        (
            latex_text,
            r"E1 abc\textbackslash{}u202edef\textbackslash{}u2066x\textbackslash{}u2069 123",
        ),
        (markdown_text, r"E1 abc\\u202edef\\u2066x\\u2069 123"),
        (plain_figure_text, r"E1 abc\u202edef\u2066x\u2069 123"),
        (html_text, r"E1 abc\u202edef\u2066x\u2069 123"),
        (figure_text, r"E1 abc\u202edef\u2066x\u2069 123"),
        (template_text, r"E1 abc\u202edef\u2066x\u2069 123"),
    ],
)
def test_every_format_shows_the_same_characters(escape, shown):
    assert escape(HOSTILE) == shown


def test_the_interactive_map_shows_them_too():
    pytest.importorskip("plotly")
    from rrmap.plot.interactive import html_text as map_text

    assert map_text(HOSTILE) == r"E1 abc\u202edef\u2066x\u2069 123"


def test_markup_the_page_made_is_left_to_the_template():
    from markupsafe import Markup

    cell = Markup("<b>0.01</b>")
    assert template_text(cell) is cell
    assert template_text(None) is None


def test_a_cut_label_is_cut_after_the_normaliser():
    assert figure_text("\ufeff" * 100 + "E1") == "E1"
    assert fitted_text("\u200b" * 60 + "E1", 8.0, 3.0) == "E1"


def test_a_figure_lays_out_no_invisible_character(tmp_path):
    """A title set on an rrmap figure with a byte-order mark: matplotlib 3.11 stopped
    writing the PDF with an IndexError; the text is drawn without the mark."""
    from rrmap.plot.base._sizing import new_figure, off_screen

    with off_screen():
        fig = new_figure(3.0, 2.0)
    title = fig.suptitle("E\ufeff1 and E\u200b2\nline two")
    for fmt in ("pdf", "ps", "svg", "png"):
        fig.savefig(io.BytesIO(), format=fmt)
    assert title.get_text() == "E1 and E2\nline two"
    pdfium = pytest.importorskip("pypdfium2")
    fig.savefig(tmp_path / "t.pdf")
    text = pdfium.PdfDocument(tmp_path / "t.pdf")[0].get_textpage().get_text_range()
    assert "E1 and E2" in text


def test_without_invisible_keeps_line_breaks_and_bidi():
    assert without_invisible("a\ufeff\nb\u202e") == "a\nb\u202e"
