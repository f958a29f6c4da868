"""The tests table: its columns, in the documented order (docs/tests.md, "The tests
table"), and the table made of the rows of the tests."""

from __future__ import annotations

import pandas as pd

from rrmap.stats.adjust import study_pvalues

__all__ = ["EXTRA_COLUMNS", "TESTS_COLUMNS", "as_tests_table"]

#: The columns of the tests table, in the documented order (docs/tests.md).
TESTS_COLUMNS: tuple[str, ...] = (
    "test",
    "by",
    "within",
    "groups",
    "design",
    "n",
    "statistic",
    "dof",
    "pvalue",
    "p_method",
    "n_perm",
)

#: Columns appended after :data:`TESTS_COLUMNS` (mid-p and study-wide p-values, effect
#: sizes and their intervals, χ² diagnostics, notes); ``pvalue_<method>`` is inserted
#: before them when p-values are adjusted.
EXTRA_COLUMNS: tuple[str, ...] = (
    "pvalue_mid",
    "pvalue_study",
    "effect",
    "effect_low",
    "effect_high",
    "effect_undefined",
    "effect_pooled",
    "effect_corrected",
    "min_expected",
    "share_expected_below_5",
    "note",
)

_FLOATS = (
    "statistic",
    "pvalue",
    "pvalue_mid",
    "effect",
    "effect_low",
    "effect_high",
    "effect_pooled",
    "effect_corrected",
    "min_expected",
    "share_expected_below_5",
)


def as_tests_table(rows: list[dict], query: bool = False, mid_p: bool = False) -> pd.DataFrame:
    """The tests table of *rows* (with a ``query`` column after ``test`` when *query*), and
    ``pvalue_study``: Benjamini–Hochberg over every p-value of the table (of the mid-p
    values with *mid_p*).

    Examples
    --------
    >>> t = as_tests_table([{"test": "energy", "n": 10, "pvalue": 0.01}, {"test": "chi2", "n": 10}])
    >>> t.pvalue_study.tolist(), list(t.columns) == [*TESTS_COLUMNS, *EXTRA_COLUMNS]
    ([0.01, nan], True)
    """
    cols = [*TESTS_COLUMNS, *EXTRA_COLUMNS]
    if query:
        cols.insert(1, "query")
    df = pd.DataFrame(rows, columns=cols)
    if query:
        df["query"] = df["query"].fillna("").astype(str)
    df["n"] = df["n"].astype("int64")
    for col in ("dof", "n_perm", "effect_undefined"):
        df[col] = pd.array(df[col].tolist(), dtype="Int64")
    for col in _FLOATS:
        df[col] = df[col].astype(float)
    for col in ("design", "p_method", "note"):
        df[col] = df[col].astype(object).fillna("").astype(str)
    df["pvalue_study"] = study_pvalues(df["pvalue_mid" if mid_p else "pvalue"].to_numpy())
    return df


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
