"""Labels that are commands of an output format come out as their characters.

Raters and options named ``[1pt]``, ``a|b``, ``=HYPERLINK(...)``, ``**x**``,
``<script>``, ``$x^2$``, ``[l](u)`` and a category header ``mv{1}``: the CSV
files neutralise formulas (``--raw-csv`` keeps them), the LaTeX tables
compile (with TeX installed), the Markdown report shows the labels literally
and the ``groups`` field gives the raters back.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import rrmap
from rrmap._util.escape import split_groups
from rrmap.cli import main

RATERS = {"E1": "[1pt]", "E2": "a|b", "E3": '=HYPERLINK("http://x","y")'}
OPTIONS = ["**x**", "<script>", "$x^2$", "[l](u)", "+50% & _"]
FAST = ["--permutations", "99", "--p-adjust", "none", "--bootstrap", "0", "-q"]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    df = pd.read_csv(rrmap.datasets.example_ratings_path())
    movements = dict(zip(sorted(df["movement"].unique()), OPTIONS, strict=True))
    df = df.assign(expert=df["expert"].map(RATERS), movement=df["movement"].map(movements))
    path = tmp_path_factory.mktemp("hostile") / "hostile.csv"
    df.rename(columns={"movement": "mv{1}"}).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def results(hostile, tmp_path_factory) -> dict[str, Path]:
    out = {}
    for name, extra in (("safe", []), ("raw", ["--raw-csv"])):
        folder = tmp_path_factory.mktemp(name) / "out"
        res = CliRunner().invoke(
            main,
            [
                "analyze",
                str(hostile),
                "--by",
                "mv{1}",
                "--out",
                str(folder),
                "--no-figures",
                *FAST,
                *extra,
            ],
        )
        assert res.exit_code == 0, res.output
        out[name] = folder
    return out


def test_csv_cells_a_spreadsheet_would_run_get_a_quote(results):
    points = pd.read_csv(results["safe"] / "points.csv")
    assert sorted(points["expert"].unique()) == sorted(
        ["'" + v if v[0] in "=+-@" else v for v in RATERS.values()]
    )
    assert "'+50% & _" in set(points["mv{1}"])
    for name in ("tests", "proportions", "agreement", "reliability", "points"):
        table = pd.read_csv(results["safe"] / f"{name}.csv", dtype=str, keep_default_na=False)
        cells = table.to_numpy().ravel().tolist() + list(table.columns)
        assert not [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r")], name
        assert not [c for c in cells if c[:1] == "-" and not _number(c)], name
    assert json.loads((results["safe"] / "results.json").read_text())["csv_cells"] == (
        "spreadsheet-safe"
    )


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_raw_csv_keeps_the_values(results):
    points = pd.read_csv(results["raw"] / "points.csv")
    assert set(points["expert"]) == set(RATERS.values())
    assert set(points["mv{1}"]) == set(OPTIONS)
    # results.json keeps the values whatever the CSV option
    for name in ("safe", "raw"):
        data = json.loads((results[name] / "results.json").read_text())
        assert set(data["settings"]["raters"]) == set(RATERS.values())


def test_groups_give_the_raters_back(results):
    tests = pd.read_csv(results["raw"] / "tests.csv")
    overall = tests[(tests["within"] == "all") & (tests["test"] == "energy")]
    groups = [split_groups(g) for g in overall["groups"]]
    assert groups[0] == sorted(RATERS.values())
    assert sorted(map(sorted, groups[1:])) == sorted(
        sorted(pair)
        for pair in (
            [RATERS["E1"], RATERS["E2"]],
            [RATERS["E1"], RATERS["E3"]],
            [RATERS["E2"], RATERS["E3"]],
        )
    )


def test_the_markdown_report_shows_labels_literally(results):
    report = (results["safe"] / "report.md").read_text()
    assert r"\*\*x\*\*" in report and "**x**" not in report.replace(r"\*\*x\*\*", "")
    assert r"\<script\>" in report and "<script>" not in report
    assert r"\[l\](u)" in report
    assert r"\$x^2\$" in report
    assert r"a\\\|b" in report  # the label a|b inside the groups field a\|b
    assert "## Expert effect per mv{1}" in report


def _compile(tex: Path) -> subprocess.CompletedProcess:
    doc = tex.with_name(f"doc_{tex.stem}.tex")
    doc.write_text(
        "\\documentclass{article}\\usepackage{booktabs,longtable}\\usepackage[T1]{fontenc}"
        f"\\begin{{document}}\\input{{{tex.name}}}\\end{{document}}\n"
    )
    return subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
        cwd=tex.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("table", ["tests", "proportions", "agreement"])
def test_the_latex_tables_compile_with_the_labels_as_text(results, table, tmp_path):
    tex = results["safe"] / f"{table}.tex"
    text = tex.read_text()
    assert "{[}1pt{]}" in text and "\\\\[" not in text.replace("\\\\{[}", "")
    if table != "agreement":
        assert r"\$x\textasciicircum{}2\$" in text
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed: the tables were checked as text only")
    shutil.copy(tex, tmp_path / tex.name)
    res = _compile(tmp_path / tex.name)
    assert res.returncode == 0, res.stdout[-2000:]
    pdftotext = shutil.which("pdftotext") or shutil.which("mutool")
    if pdftotext is None:
        return
    cmd = (
        ["pdftotext", f"doc_{table}.pdf", "-"]
        if pdftotext.endswith("pdftotext")
        else ["mutool", "draw", "-F", "txt", f"doc_{table}.pdf"]
    )
    shown = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True).stdout
    assert "[1pt]" in " ".join(shown.split())
