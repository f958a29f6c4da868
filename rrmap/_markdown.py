"""Render DataFrames as GitHub-flavoured markdown tables (no extra dependency)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def _cell(value: object, floatfmt: str) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, float | np.floating):
        return format(float(value), floatfmt)
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(df: pd.DataFrame, floatfmt: str = ".4g") -> str:
    """Return *df* as a markdown table (numbers right-aligned)."""
    cols = [str(c) for c in df.columns]
    numeric = [pd.api.types.is_numeric_dtype(df[c]) for c in df.columns]
    lines = [
        "| " + " | ".join(cols) + " |",
        "|" + "|".join("---:" if n else "---" for n in numeric) + "|",
    ]
    for row in df.itertuples(index=False, name=None):
        lines.append("| " + " | ".join(_cell(v, floatfmt) for v in row) + " |")
    return "\n".join(lines)
