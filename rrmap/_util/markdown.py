"""Render DataFrames as GitHub-flavoured markdown tables (no extra dependency).

Text cells and column names are escaped (:func:`rrmap._util.escape.markdown_text`), so a
label shows its characters: ``**x**``, ``<script>``, ``[l](u)`` or ``a|b`` are
neither markup nor a new cell.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rrmap._util.escape import markdown_text


def _cell(value: object, floatfmt: str, escape: bool) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, float | np.floating):
        return format(float(value), floatfmt)
    if escape:
        return markdown_text(value)
    return " ".join(str(value).splitlines())


def markdown_table(df: pd.DataFrame, floatfmt: str = ".4g", *, escape: bool = True) -> str:
    """Return *df* as a markdown table (numbers right-aligned).

    With ``escape=False`` the cells are already Markdown (their labels escaped
    by the caller, ``|`` included; markup such as ``**bold**`` kept); only line
    breaks are replaced. Column names are always escaped.

    Examples
    --------
    >>> import pandas as pd
    >>> print(markdown_table(pd.DataFrame({"rater": ["**x**", "a|b"], "n": [1, 2]})))
    | rater | n |
    |---|---:|
    | \\*\\*x\\*\\* | 1 |
    | a\\|b | 2 |
    """
    numeric = [pd.api.types.is_numeric_dtype(df[c]) for c in df.columns]
    # the columns as lists, then rows: itertuples walks Arrow-held text value by value
    columns = [df.iloc[:, k].tolist() for k in range(df.shape[1])]
    return columns_markdown(list(df.columns), numeric, columns, floatfmt, escape=escape)


def columns_markdown(
    names: list[object],
    numeric: list[bool],
    columns: list[list[object]],
    floatfmt: str = ".4g",
    *,
    escape: bool = True,
) -> str:
    """:func:`markdown_table` of a table given as its column *names*, whether each is
    numeric (right-aligned) and its *columns* of values, without a DataFrame.

    Examples
    --------
    >>> print(columns_markdown(["rater", "n"], [False, True], [["E1"], [3]]))
    | rater | n |
    |---|---:|
    | E1 | 3 |
    """
    cols = [markdown_text(c) for c in names]
    lines = [
        "| " + " | ".join(cols) + " |",
        "|" + "|".join("---:" if n else "---" for n in numeric) + "|",
    ]
    for row in zip(*columns, strict=True):
        lines.append("| " + " | ".join(_cell(v, floatfmt, escape) for v in row) + " |")
    return "\n".join(lines)
