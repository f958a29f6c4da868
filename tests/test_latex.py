"""Tests of rrmap.latex: the LaTeX tables hold the analysis' numbers, formatted as report.md."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import rrmap
from rrmap.latex import agreement_latex, latex_pvalue, proportions_latex
from rrmap.latex import tests_latex as render_tests  # not collected as a test
from rrmap.report import format_pvalue


@pytest.fixture(scope="module")
def result():
    return rrmap.analyze(
        rrmap.datasets.load_example_ratings(), by=["modality"], n_perm=199, rng=7, p_adjust="holm"
    )


@pytest.mark.parametrize("p", [0.0312, 0.05, 0.049999, 0.2, 1.2e-9, 0.005, 1.0])
def test_pvalues_read_as_in_the_report(p):
    md = format_pvalue(p)
    tex = latex_pvalue(p)
    bold = md.startswith("**")
    assert tex.startswith(("\\textbf", "$\\mathbf")) == bold == (p < 0.05)
    digits = md.strip("*")
    if "e" in digits:
        mantissa, exponent = digits.split("e")
        assert f"{mantissa} \\times 10^{{{int(exponent)}}}" in tex
    else:
        assert digits in tex


def _rows(tex):
    """Data rows (between \\midrule and \\bottomrule) of every table, split into cells."""
    out = []
    for body in re.findall(r"\\midrule\n(.*?)\\bottomrule", tex, re.S):
        for line in body.strip().splitlines():
            if line.endswith("\\\\") and not line.startswith("\\"):
                out.append([c.strip() for c in line[:-2].split(" & ")])
    return out


def test_tests_tables_hold_every_test_and_bold_the_significant(result):
    tex = render_tests(result.tests, result.settings)
    assert tex.count("\\toprule") == tex.count("\\midrule") == tex.count("\\bottomrule") == 3
    rows = _rows(tex)
    energy = result.tests[result.tests.test == "energy"]
    assert len(rows) == len(energy)  # one row per compared group set, energy and χ² side by side
    # the tables show the adjusted p-values (raw ones stay in tests.csv), bold below 0.05
    bold = sum(cell.startswith(("\\textbf", "$\\mathbf")) for row in rows for cell in row)
    assert bold == int((result.tests["pvalue_holm"] < 0.05).sum())
    assert bold < int((result.tests["pvalue"] < 0.05).sum())
    assert "199 permutations, seed 7" in tex and "adjusted (Holm)" in tex
    assert "\\label{tab:rrmap-expert-effect-overall}" in tex
    first = rows[0]
    row = result.tests[(result.tests.within == "all") & (result.tests.groups == "E1|E2|E3")]
    e = row[row.test == "energy"].iloc[0]
    z = row[row.test != "energy"].iloc[0]
    assert first[:5] == [
        "E1, E2, E3",
        "405",
        "matched",
        f"{e.statistic:.3g}",
        latex_pvalue(e.pvalue_holm),
    ]
    assert first[5:] == [
        f"{e.effect:.3g}",
        "MH",
        f"{z.statistic:.3g}",
        "",
        latex_pvalue(z.pvalue_holm) + "$^{\\ast}$",
        f"{z.effect:.3g}",
    ]
    # the study's tests: raw p-values, χ² zone tests
    study = rrmap.analyze(
        rrmap.datasets.load_example_ratings(), by=["modality"], n_perm=199, rng=7,
        p_adjust="none", design="independent", chi2_n_perm=0,
    )  # fmt: skip
    rows = _rows(render_tests(study.tests, study.settings))
    bold = sum(cell.startswith(("\\textbf", "$\\mathbf")) for row in rows for cell in row)
    assert bold == int((study.tests["pvalue"] < 0.05).sum())
    assert all("$\\chi^2$" in row and "matched" not in row for row in rows)


def test_long_tables_break_across_pages(result):
    res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=["criterion"], n_perm=9, rng=0)
    tex = render_tests(res.tests, res.settings)
    assert "\\begin{longtable}" in tex  # 37 pairs × 3 raters
    assert tex.count("\\begin{table}") == 2


def test_proportions_table_counts_and_shares(result):
    tex = proportions_latex(result.proportions, result.settings)
    rows = _rows(tex)
    overall = result.proportions[result.proportions.category == "all"]
    for rater_row in rows[:3]:
        rater, n, *cells = rater_row
        sub = overall[overall.expert == rater].set_index("quality")
        for q, cell in zip(["excellent", "fair", "stereotype", "bad"], cells, strict=True):
            share, count = sub.loc[q, "share"], int(sub.loc[q, "count"])
            assert cell == f"{100 * share:.0f}\\,\\% ({count})"
        assert int(n) == int(sub["n"].iloc[0])
    assert len(rows) == 3 + 9  # per rater, then per rater × modality


def test_names_are_escaped():
    tab = pd.DataFrame(
        {
            "expert": ["E_1"] * 4,
            "category": ["all"] * 4,
            "option": ["all"] * 4,
            "quality": ["excellent", "fair", "stereotype", "bad"],
            "count": [1, 1, 1, 1],
            "n": [4] * 4,
            "share": [0.25] * 4,
        }
    )
    tex = proportions_latex(tab)
    assert "E\\_1 & 4 &" in tex
    summary = pd.DataFrame(
        {"pattern": ["partial"], "detail": ["A&B|C%"], "count": [2], "share": [np.nan]}
    )
    assert "A\\&B = C\\%" in agreement_latex(summary, 2)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_tables_compile(result, tmp_path):
    body = "\n".join(result.latex(t) for t in ("tests", "proportions", "agreement"))
    doc = (
        "\\documentclass{article}\\usepackage{booktabs,longtable}\\usepackage[T1]{fontenc}"
        "\\usepackage[utf8]{inputenc}\\begin{document}" + body + "\\end{document}"
    )
    (tmp_path / "t.tex").write_text(doc)
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-2000:]
