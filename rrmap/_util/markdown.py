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
    cols = [markdown_text(c) for c in df.columns]
    numeric = [pd.api.types.is_numeric_dtype(df[c]) for c in df.columns]
    lines = [
        "| " + " | ".join(cols) + " |",
        "|" + "|".join("---:" if n else "---" for n in numeric) + "|",
    ]
    # the columns as lists, then rows: itertuples walks Arrow-held text value by value
    columns = [df.iloc[:, k].tolist() for k in range(df.shape[1])]
    for row in zip(*columns, strict=True):
        lines.append("| " + " | ".join(_cell(v, floatfmt, escape) for v in row) + " |")
    return "\n".join(lines)
