"""report.md past the row limit: one row per family, as report.html; headers escaped once."""

from __future__ import annotations

import re

import pandas as pd
import pytest

import rrmap
from rrmap.report.designs import design_table
from rrmap.report.page import ROW_LIMIT


@pytest.mark.filterwarnings("ignore::rrmap.errors.PermutationWarning")  # 99 permutations
def test_a_design_past_the_row_limit_is_one_row_per_family_in_report_md():
    res = rrmap.analyze(
        rrmap.datasets.load_example_ratings(), by=["criterion"], n_perm=99, n_boot=0,
        rng=0, p_adjust="none",
    )  # fmt: skip
    per_rater = res.tests[res.tests["by"] == "criterion"]
    assert per_rater.groupby(["within", "groups"]).ngroups == 111 > ROW_LIMIT
    text = res.report()
    section = text[text.index("## Effect of criterion per rater") :]
    section = section[: section.index("\n## ", 1)]
    assert (
        "111 comparisons in 3 families, past 60 rows: each family's test of all its groups at "
        "once, and how many of its pairs pass p < 0.05. Every test, pairs included: `tests.csv`."
    ) in section
    rows = [line for line in section.splitlines() if line.startswith("| E")]
    assert [r.split(" | ")[0] for r in rows] == ["| E1", "| E2", "| E3"]
    head = next(line for line in section.splitlines() if line.startswith("| rater"))
    cells = [c.strip() for c in head.strip("|").split("|")]
    assert cells[:5] == [
        "rater", "groups", "n", r"pairs p \< 0.05 (energy)", r"pairs p \< 0.05 (zones)"
    ]  # fmt: skip
    # the counts are those of the tests table: each rater's pairs with raw p < 0.05
    for row in rows:
        rater = row.split(" | ")[0].removeprefix("| ")
        mine = per_rater[(per_rater["within"] == f"expert={rater}")]
        pairs = mine[mine["groups"].str.count(r"(?<!\\)\|") == 1]
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row.strip("|"))]
        for kind, col in (("energy", 3), ("chi2", 4)):
            of = pairs[pairs["test"] == kind]
            assert cells[col] == f"{int((of['pvalue'] < 0.05).sum())} of {len(of)}"
    counts = [int(r.split(" | ")[3].split(" of ")[0]) for r in rows]
    assert sum(counts) > 0  # some pairs pass: the count is not trivially 0


def test_a_design_at_the_row_limit_is_shown_whole():
    frame = pd.DataFrame(
        {"rater": ["E1"] * 2, "groups": ["a|b", "a|c"], "n": [10, 10],
         "energy": [1.0, 2.0], "energy_p": [0.01, 0.2], "energy_method": ["", ""]}
    )  # fmt: skip
    table = design_table(frame, "rater")
    assert table.count("\n| E1 |") == 2 and "pairs" not in table


def test_a_column_name_is_escaped_once():
    frame = pd.DataFrame(
        {"size<5": ["a*b"], "groups": ["x|y"], "n": [4], "energy": [1.5], "energy_p": [0.5],
         "energy_method": [""]}
    )  # fmt: skip
    head = design_table(frame, "size<5").splitlines()[0]
    assert head.startswith(r"| size\<5 | groups | n |")
