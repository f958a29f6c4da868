"""Tables as JSON: full-precision numbers, one record per line (``results.json``)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["json_text", "records"]


def json_text(payload: dict[str, Any]) -> str:
    """*payload* as JSON text: one top-level key per line, each table one record per line.

    The same JSON as ``json.dumps(payload, indent=1)`` once parsed, in a layout
    that diffs well; each record goes through the C encoder (an indented dump
    is encoded in pure Python, several times slower).
    """

    # one encoder for every record: json.dumps with options makes a new one per call
    dump = json.JSONEncoder(ensure_ascii=False, default=str).encode

    parts = []
    for key, value in payload.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            rows = ",\n".join("  " + dump(rec) for rec in value)
            parts.append(f" {dump(key)}: [\n{rows}\n ]")
        else:  # settings: small, one key per line
            text = json.dumps(value, indent=1, ensure_ascii=False, default=str)
            parts.append(f" {dump(key)}: " + text.replace("\n", "\n "))
    return "{\n" + ",\n".join(parts) + "\n}\n"


def records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-ready dicts with every float at full precision (``repr`` round-trips;
    ``DataFrame.to_json`` keeps 10 decimals, which turns p = 2.5e-12 into 0) and NaN as null.

    Converted column by column: numeric columns in one ``tolist`` each.
    """
    keys = [str(c) for c in df.columns]
    columns = [_json_values(df[c]) for c in df.columns]
    return [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)]


def _json_values(col: pd.Series) -> list[Any]:
    """One column as Python values: numbers as int/float/bool, missing and non-finite as None."""
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "biuf":
        values = col.to_numpy()
        out = values.tolist()
        if col.dtype.kind == "f":
            for i in np.flatnonzero(~np.isfinite(values)).tolist():
                out[i] = None
        return out
    if isinstance(col.dtype, pd.StringDtype):  # Python strings, missing as None
        return col.to_numpy(dtype=object, na_value=None).tolist()
    out = []
    for value in col.astype(object).tolist():
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, float) and not np.isfinite(value):
            value = None
        elif value is pd.NA or value is pd.NaT:
            value = None
        out.append(value)
    return out
