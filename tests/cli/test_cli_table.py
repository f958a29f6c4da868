"""Tests of ``rrmap table``: a LaTeX table from an analyze results folder."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import rrmap
from rrmap.cli import main

EXAMPLE = str(rrmap.datasets.example_ratings_path())


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("res")
    args = ["analyze", EXAMPLE, "--by", "modality", "--permutations", "49", "--seed", "5"]
    res = CliRunner().invoke(main, [*args, "--out", str(out), "--force", "-q", "--no-figures"])
    assert res.exit_code == 0, res.output
    return out


@pytest.mark.parametrize("which", ["tests", "proportions", "agreement"])
def test_table_matches_the_file_analyze_wrote(results, which):
    res = CliRunner().invoke(main, ["table", str(results), which])
    assert res.exit_code == 0, res.output
    assert res.stdout == (results / f"{which}.tex").read_text()
    assert "\\toprule" in res.stdout


def test_table_to_a_file_and_from_results_json(results, tmp_path):
    out = tmp_path / "t.tex"
    res = CliRunner().invoke(
        main, ["table", str(results / "results.json"), "tests", "-o", str(out)]
    )
    assert res.exit_code == 0 and "49 permutations, seed 5" in out.read_text()
    res = CliRunner().invoke(main, ["table", str(results), "tests", "-o", str(out)])
    assert res.exit_code == 1 and "exists; use --force to overwrite it" in res.output


def test_table_errors_are_one_line(tmp_path):
    res = CliRunner().invoke(main, ["table", str(tmp_path), "tests"])
    assert res.exit_code == 1
    assert res.output.strip() == (
        f"Error: {tmp_path}: no results.json; give a folder written by rrmap analyze"
    )
    bad = tmp_path / "results.json"
    bad.write_text("{}")
    res = CliRunner().invoke(main, ["table", str(bad), "tests"])
    assert res.exit_code == 1 and "not a results.json of rrmap analyze" in res.output
    res = CliRunner().invoke(main, ["table", str(tmp_path), "figures"])
    assert res.exit_code == 2  # a usage error: click lists the choices
