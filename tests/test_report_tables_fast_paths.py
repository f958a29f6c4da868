"""The reports' tables made from columns (not row by row): the same cells as before."""

from __future__ import annotations

import numpy as np
import pandas as pd
from markupsafe import Markup

from rrmap.report.designs import display_frame, summarise_families
from rrmap.report.page import columns_table, page_table


def _families() -> pd.DataFrame:
    """Two families interleaved, each one's k-sample test not its first row, a label
    holding an escaped ``|`` (two labels, not three), a tie of sizes, a missing p-value."""
    return pd.DataFrame(
        {
            "rater": ["E1", "E2", "E1", "E2", "E1", "E2", "E2"],
            "groups": ["a|b", "x\\|y|z", "a|b|c", "x|z", "a|c", "x|w", "x|y|z"],
            "energy_p": [0.01, 0.2, 0.3, 0.04, 0.02, np.nan, 0.5],
            "zones_p": [0.5, 0.01, 0.01, 0.01, 0.9, 0.03, 0.02],
        },
        index=[10, 11, 12, 13, 14, 15, 16],
    )


def test_summarise_families_picks_each_familys_largest_test_and_counts_its_pairs():
    out = summarise_families(_families(), "rater")
    assert out[["rater", "groups", "pairs_energy", "pairs_zones"]].values.tolist() == [
        ["E1", "a|b|c", "2 of 2", "0 of 2"],
        ["E2", "x|y|z", "1 of 3", "3 of 3"],
    ]
    assert out.index.tolist() == [0, 1]


def test_summarise_families_without_a_leading_column_is_one_family():
    out = summarise_families(_families(), "groups by nothing")
    assert out[["groups", "pairs_energy", "pairs_zones"]].values.tolist() == [
        ["a|b|c", "3 of 6", "4 of 6"]
    ]


def test_summarise_families_reads_adjusted_p_values_when_there_are():
    frame = _families().assign(energy_p_holm=1.0, zones_p_holm=[0.01] * 7)
    out = summarise_families(frame, "rater")
    assert out[["pairs_energy", "pairs_zones"]].values.tolist() == [
        ["0 of 2", "2 of 2"],
        ["0 of 3", "3 of 3"],
    ]


def test_summarise_families_of_no_rows():
    out = summarise_families(_families().iloc[:0], "rater")
    assert out.empty and {"pairs_energy", "pairs_zones"} <= set(out.columns)


def test_columns_table_is_page_table_of_the_frame_the_columns_make():
    frame = pd.DataFrame(
        {
            "groups": [Markup("a &amp; b"), Markup("c")],
            "n": np.array([12, 7]),
            "p (energy)": ["<b>0.01</b>", "0.2"],
            "note": ["", "matched"],
        }
    )
    columns = {c: frame[c].to_numpy() if c == "n" else frame[c].tolist() for c in frame}
    assert columns_table(columns, escaped=True, note="see tests.csv") == page_table(
        frame, escaped=True, note="see tests.csv"
    )


def test_display_frame_formats_p_values_of_plain_floats_and_missing_ones():
    frame = pd.DataFrame(
        {
            "groups": ["E1|E2", "E1|E3"],
            "n": [10, 12],
            "energy_p": [0.0123, np.nan],
            "energy_method": ["permutation", ""],
            "zones_p": [0.5, 0.001],
            "zones_method": ["monte_carlo", "asymptotic"],
        }
    )
    shown = display_frame(frame, "groups", lambda t: f"*{t}*")
    assert shown[["p (energy)", "p (zones)"]].values.tolist() == [
        ["*0.0123*", "0.5 (MC)"],
        ["", "*0.001*"],
    ]
