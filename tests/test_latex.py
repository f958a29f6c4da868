"""Tests of rrmap.report.latex: the LaTeX tables hold the analysis' numbers, one p-value style per
column, aligned on the decimal mark, and fit their column in one- and two-column documents."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import rrmap
from rrmap.errors import InputError
from rrmap.report.latex import agreement_latex, latex_pvalue, proportions_latex, result_latex
from rrmap.report.latex import tests_latex as render_tests  # not collected as a test

BY = ["movement", "criterion", "criterion_group", "modality"]


@pytest.fixture(scope="module")
def result():
    return rrmap.analyze(
        rrmap.datasets.load_example_ratings(), by=["modality"], n_perm=199, rng=7, p_adjust="holm"
    )


@pytest.fixture(scope="module")
def every_category():
    """Every category of the example tested: the widest and longest tables."""
    return rrmap.analyze(rrmap.datasets.load_example_ratings(), by=BY, n_perm=199, rng=7)


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0.0312, "\\textbf{0.0312}"),
        (0.049999, "\\textbf{0.0500}"),
        (0.05, "0.0500"),
        (0.2, "0.200"),
        (0.28, "0.280"),
        (1.0, "1.00"),
        (0.000475, "\\textbf{$<$\\,0.001}"),
        (4.32e-6, "\\textbf{$<$\\,0.001}"),
        (0.00299, "\\textbf{0.00299}"),
        (float("nan"), ""),
    ],
)
def test_pvalues_have_one_style_three_digits_down_to_a_thousandth(p, text):
    assert latex_pvalue(p) == text


def test_a_permutation_floor_reads_as_a_bound_and_cochran_failures_are_not_bold():
    assert latex_pvalue(1 / 5001, floor=True) == "\\textbf{$\\le$\\,0.0002}"
    assert latex_pvalue(3 / 5001, floor=True) == "\\textbf{$\\le$\\,0.0006}"
    assert latex_pvalue(8 / 1000, floor=True) == "\\textbf{$\\le$\\,0.00800}"
    assert latex_pvalue(0.003, unreliable=True) == "0.00300"


def _body_lines(tex):
    """Data lines (between \\midrule and \\bottomrule) of every float."""
    out = []
    for body in re.findall(r"\\midrule\n(.*?)\\bottomrule", tex, re.S):
        out += [ln for ln in body.splitlines() if ln.endswith("\\\\") and "multicolumn" not in ln]
    return out


def _cells(line):
    return [c.strip() for c in line[:-2].split(" & ")]


def test_tests_tables_show_every_test_and_bold_the_significant(result):
    tex = render_tests(result.tests, result.settings, result=result)
    assert tex.count("\\toprule") == tex.count("\\midrule") == tex.count("\\bottomrule")
    assert tex.count("\\label{") == 3  # three designs (one continues in a second float)
    lines = _body_lines(tex)
    # the column layout: one row per test, the energy test and the zone test of a comparison
    assert len(lines) == len(result.tests)
    bold = sum(line.count("\\textbf{0}") + line.count("\\textbf{$") for line in lines)
    assert bold == int((result.tests["pvalue_holm"] < 0.05).sum())
    assert "199 permutations, seed 7" in tex and "adjusted (Holm)" in tex
    assert "\\label{tab:rrmap-expert-effect-overall}" in tex
    e = result.tests[(result.tests.within == "all") & (result.tests.groups == "E1|E2|E3")]
    energy, zones = e[e.test == "energy"].iloc[0], e[e.test != "energy"].iloc[0]
    first, second = _cells(lines[0]), _cells(lines[1])
    assert first[:3] == ["\\raggedright\\hspace{0pt}E1, E2, E3", "405", "$E$"]
    assert "".join(first[3:5]) == f"{energy.statistic:.3g}"
    assert second[:3] == ["", "", "MH"]  # the comparison's names once
    assert "".join(second[3:5]) == f"{zones.statistic:.3g}"
    # the MH p-value at its floor (1/5001): a bound, with its method's mark
    assert second[6:8] == ["\\textbf{$\\le$\\,0}", "\\textbf{.0002}$^{\\ast}$"]
    assert "$^{\\ast}$ within-key permutation" in tex


def test_every_number_column_is_aligned_on_its_decimal_mark(every_category):
    for width in ("column", "text"):
        tex = result_latex(every_category, "tests", width=width)
        for spec in re.findall(r"\\begin\{tabular\}\{(.*)\}\n", tex):
            assert "r@{}l" in spec
        for line in _body_lines(tex):
            for cell in _cells(line):
                # the part after the mark of a pair starts with it (bold or not)
                assert not re.fullmatch(r"(\\textbf\{)?\d+\.\d+.*", cell), line


def test_group_labels_are_written_once_per_block(every_category):
    def design(tex):
        start = tex.index("\\label{tab:rrmap-expert-effect-per-movement}")
        return tex[start : tex.index("\\caption{Expert effect per criterion.", start)]

    movements = ["abstract art", "cubism", "expressionism", "impressionism", "surrealism"]
    table = design(result_latex(every_category, "tests"))  # column: the option as a heading
    for m in movements:
        assert table.count(f"\\itshape movement: {m}}}") == 1
        assert f"{m} &" not in table
    assert table.count("}E1, E2, E3 &") == len(movements)  # a comparison's groups once
    wide = design(result_latex(every_category, "tests", width="text"))
    side = wide.split("\\else\\endgroup")[1]  # side by side: the option in a column, once
    for m in movements:
        assert side.count(f"}}{m} &") == 1


def test_captions_name_the_categories_as_the_file_does(every_category):
    tex = result_latex(every_category, "tests")
    assert "Expert effect per criterion group." in tex
    assert "Effect of criterion group per rater." in tex
    assert "criterion\\_group" not in tex and "criterion_group" not in tex.replace(
        "criterion-group", ""
    )
    assert "\\label{tab:rrmap-expert-effect-per-criterion-group}" in tex
    props = result_latex(every_category, "proportions")
    assert "per rater and criterion group:" in props and "criterion\\_group" not in props
    # a header the file spelt with LaTeX specials is escaped
    odd = render_tests(
        every_category.tests, every_category.settings, headers={"criterion_group": "group_&_%"}
    )
    assert "Expert effect per group\\_\\&\\_\\%." in odd


def test_chi2_rows_failing_cochran_are_marked_and_not_bold():
    study = rrmap.analyze(
        rrmap.datasets.load_example_ratings(), by=["movement"], n_perm=199, rng=7,
        p_adjust="none", design="independent", chi2_n_perm=0,
    )  # fmt: skip
    tests = study.tests
    chi2 = tests[tests.test == "chi2"]
    fails = (chi2["min_expected"] < 1) | (chi2["share_expected_below_5"] > 0.2)
    assert fails.any() and (~fails).any()
    tex = render_tests(tests, study.settings, result=study)
    zone_rows = [_cells(ln) for ln in _body_lines(tex) if "$\\chi^2$" in ln]
    assert len(zone_rows) == len(chi2)
    marked = [row for row in zone_rows if any("$^{\\S}$" in c for c in row)]
    assert len(marked) == int(fails.sum())
    assert not any("\\textbf" in c for row in marked for c in row)
    assert "Cochran's rule fails" in tex
    significant = chi2[~fails & (chi2["pvalue"] < 0.05)]
    bold_rows = [row for row in zone_rows if any("\\textbf" in c for c in row)]
    assert len(bold_rows) == len(significant)


def test_long_tables_continue_in_further_floats(every_category):
    tex = render_tests(every_category.tests, every_category.settings, result=every_category)
    assert "longtable" not in tex  # it fails in two-column documents
    assert "Effect of criterion per rater (continued)." in tex
    assert tex.count("\\label{tab:rrmap-effect-of-criterion-per-rater}") == 1


def test_widths_are_a_column_or_the_text_block(result):
    assert "\\begin{table}" in result_latex(result, "agreement")
    assert "\\begin{table*}" in result_latex(result, "agreement", width="text")
    assert "\\begin{table*}" not in result_latex(result, "tests")
    with pytest.raises(InputError, match="column, text"):
        result_latex(result, "tests", width="page")


def test_proportions_table_counts_and_shares(result):
    tex = proportions_latex(result.proportions, result.settings)
    overall = result.proportions[result.proportions.category == "all"]
    lines = _body_lines(tex)
    for line in lines[:3]:
        rater, n, *cells = _cells(line)
        rater = rater.removeprefix("\\raggedright\\hspace{0pt}")
        sub = overall[overall.expert == rater].set_index("quality")
        for i, q in enumerate(["excellent", "fair", "stereotype", "bad"]):
            share, count = sub.loc[q, "share"], int(sub.loc[q, "count"])
            assert cells[2 * i : 2 * i + 2] == [f"{100 * share:.0f}", f"\\,({count})"]
        assert int(n) == int(sub["n"].iloc[0])
    assert len(lines) == 3 + 9  # per rater, then per rater × modality
    assert tex.count("\\itshape rater: E1") == 1  # the rater once, above its block


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
    assert "\\hspace{0pt}E\\_1 & 4 &" in tex
    summary = pd.DataFrame(
        {"pattern": ["partial"], "detail": ["A&B|C%"], "count": [2], "share": [np.nan]}
    )
    assert "A\\&B = C\\%" in agreement_latex(summary, 2)


def test_the_table_command_takes_a_width(result, tmp_path):
    from click.testing import CliRunner

    from rrmap.cli import main

    result.write(tmp_path / "res", figures=False)
    run = CliRunner().invoke(
        main, ["table", str(tmp_path / "res"), "tests", "--table-width", "text"]
    )
    assert run.exit_code == 0, run.output
    assert "\\begin{table*}" in run.output and "\\begin{table}" not in run.output


#: Documents the tables go into: a single-column article, a two-column one (A4, 10 pt).
LAYOUTS = {
    "one column": "\\documentclass[a4paper,10pt]{article}",
    "two columns": "\\documentclass[a4paper,10pt,twocolumn]{article}",
}


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("width", ["column", "text"])
def test_every_table_compiles_and_fits_its_column(every_category, layout, width, tmp_path):
    body = "\n".join(result_latex(every_category, t, width=width) for t in ("tests", "proportions", "agreement"))  # fmt: skip
    doc = (
        LAYOUTS[layout] + "\\usepackage{booktabs}\\usepackage[T1]{fontenc}"
        "\\usepackage[utf8]{inputenc}\\begin{document}\n" + body + "\\end{document}\n"
    )
    (tmp_path / "t.tex").write_text(doc, encoding="utf-8")
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (tmp_path / "t.log").read_text(errors="replace")
    assert run.returncode == 0, run.stdout[-2000:]
    assert "Overfull \\hbox" not in log, re.findall(r"Overfull \\hbox.*", log)[:5]
    assert "Float too large" not in log
    assert log.count("\\begin{table") == 0 and "Float(s) lost" not in log
