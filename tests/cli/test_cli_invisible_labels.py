"""Labels holding invisible characters and bidirectional controls, through every output.

A rater ``E\\ufeff1`` (a byte-order mark inside the label) made every figure PDF
fail after all tests had run (``Error: unexpected IndexError … please report
it``, nothing written), ``rrmap plot -o x.pdf`` too; a rater ``abc\\u202edef``
turned the rest of report.html's sentences around ("… 405 .(fed", "50.0 > p")
and landed raw in the Markdown and LaTeX. Every output is written now; the
shown formats leave the invisible characters out and show the control as
``\\u202e``; CSV and results.json keep the labels as read.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import rrmap
from rrmap.cli import main

RATERS = {"E1": "E\ufeff1", "E2": "E\u200b2", "E3": "abc\u202edef"}
#: A raw character no shown output may hold.
RAW = re.compile("[\ufeff\u200b\u202e]")
#: The labels, not the statistics or the pixels, are checked: few permutations, and the
#: PNG figures (whose names only are read) at 30 dpi
FAST = ["--permutations", "99", "--p-adjust", "none", "--bootstrap", "0", "--dpi", "30", "-q"]


@pytest.fixture(scope="module")
def ratings(tmp_path_factory) -> Path:
    df = pd.read_csv(rrmap.datasets.example_ratings_path())
    path = tmp_path_factory.mktemp("invisible") / "invisible.csv"
    df.assign(expert=df["expert"].map(RATERS)).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def analysed(ratings, tmp_path_factory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("out") / "out"
    res = CliRunner().invoke(
        main, ["analyze", str(ratings), "--out", str(out), "--by", "movement", *FAST]
    )
    return out, res


def _pdf_text(path: Path) -> str:
    pdfium = pytest.importorskip("pypdfium2")
    return pdfium.PdfDocument(path)[0].get_textpage().get_text_range()


def test_analyze_writes_every_output(analysed):
    out, res = analysed
    assert res.exit_code == 0, res.output
    assert "IndexError" not in res.output
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert "figures/rrmap_by_rater.pdf" in names and "report.html" in names
    assert {n for n in names if n.endswith(".pdf")} == {
        n.replace(".png", ".pdf") for n in names if n.endswith(".png")
    }


def test_figures_show_the_labels_without_invisible_characters(analysed):
    out, _ = analysed
    text = _pdf_text(out / "figures" / "rrmap_by_rater.pdf")
    assert "E1 (n = 135" in text and "E2 (n = 135" in text
    assert "abc\\u202edef (n = 135" in text
    assert not RAW.search(text)
    assert "E1 (n = 135)" in _pdf_text(out / "figures" / "proportions.pdf")


def test_reports_show_the_control_as_its_code(analysed):
    out, _ = analysed
    page = (out / "report.html").read_text(encoding="utf-8")
    assert not RAW.search(page)
    assert "3 raters (E2, E1, abc\\u202edef). " in page  # the numbers after it stay as they are
    md = (out / "report.md").read_text(encoding="utf-8")
    assert not RAW.search(md)
    assert "3 raters (E2, E1, abc\\\\u202edef). " in md
    for table in ("tests", "proportions"):
        tex = (out / f"{table}.tex").read_text(encoding="utf-8")
        assert not RAW.search(tex)
        assert "abc\\textbackslash{}u202edef" in tex


def test_data_outputs_keep_the_labels_as_read(analysed):
    out, _ = analysed
    points = pd.read_csv(out / "points.csv")
    assert set(points["expert"]) == set(RATERS.values())
    settings = json.loads((out / "results.json").read_text(encoding="utf-8"))["settings"]
    assert set(settings["raters"]) == set(RATERS.values())


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("suffix", ["pdf", "ps", "svg", "png"])
def test_plot_writes_a_figure_of_a_byte_order_mark_label(ratings, tmp_path, suffix):
    target = tmp_path / f"x.{suffix}"
    res = CliRunner().invoke(main, ["plot", str(ratings), "-o", str(target)])
    assert res.exit_code == 0, res.output
    assert f"wrote {target} (405 points" in res.output
    if suffix == "pdf":
        assert "E1 (n = 135" in _pdf_text(target)
    if suffix == "svg":
        svg = target.read_text(encoding="utf-8")
        assert not RAW.search(svg) and "abc\\u202edef" in svg
