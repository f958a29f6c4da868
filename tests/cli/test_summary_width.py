"""``rrmap analyze``'s summary keeps to the terminal's width (COLUMNS, 100 off a terminal):
the table of the overall tests wraps into blocks of columns, each led by the groups."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import rrmap
from rrmap.cli import main
from rrmap.report.overall import overall_text
from rrmap.stats.designs import expert_effect


def _summary(tmp_path, columns: str) -> str:
    args = ["analyze", "data/example_ratings.csv", "--by", "movement", "--no-figures"]
    args += ["--permutations", "99", "--bootstrap", "0", "-q", "--out", str(tmp_path / "r")]
    res = CliRunner(env={"COLUMNS": columns}).invoke(main, args)
    assert res.exit_code == 0, res.output
    return res.stdout


@pytest.mark.parametrize(("columns", "most"), [("100", 100), ("80", 80), ("200", 120)])
def test_the_summary_fits_the_terminal(tmp_path, columns, most):
    text = _summary(tmp_path, columns)
    assert "Expert effect, overall:" in text
    lines = text.splitlines()
    assert lines[-1].startswith("Report: ")  # a path, as long as it is
    assert max(len(line) for line in lines[:-1]) <= most


def test_a_wrapped_table_shows_the_energy_then_the_zone_columns(tmp_path):
    lines = _summary(tmp_path, "100").splitlines()
    heads = [line.split("  ") for line in lines if line.startswith("groups")]
    heads = [[h.strip() for h in head if h.strip()] for head in heads]
    assert heads == [
        ["groups", "n", "design", "E", "p (energy)", "p Holm (energy)", "E share"],
        ["groups", "zone test", "statistic", "dof", "p (zones)", "p Holm (zones)", "zone effect"],
    ]
    first = lines.index(next(line for line in lines if line.startswith("groups")))
    assert lines[first + 1].split()[:3] == ["E1|E2|E3", "405", "matched"]
    assert lines[-3] == "* adjusted p < 0.05"


@pytest.fixture(scope="module")
def tests_table():
    return expert_effect(rrmap.points(rrmap.datasets.load_example_ratings()), n_perm=9, rng=0)


def test_without_a_width_the_table_is_one_block(tests_table):
    text = overall_text(tests_table)
    assert sum(line.startswith("groups") for line in text.splitlines()) == 1


def test_long_names_are_cut_to_a_third_of_the_line(tests_table):
    long = tests_table.assign(groups=tests_table["groups"].str.replace("E", "expert_number_"))
    text = overall_text(long, width=60)
    assert max(len(line) for line in text.splitlines()) <= 60
    assert "expert_number_1|exp…" in text
