"""Private: numbers from text cells — missing-value words, decimal marks, a fast path."""

from __future__ import annotations

import numpy as np
import pandas as pd

_MISSING_WORDS = ("na", "nan", "null", "none")
#: Cells that mean "no value": empty, or a missing-value word in any usual spelling.
MISSING_TEXT = sorted(
    {"", *_MISSING_WORDS, *(w.upper() for w in _MISSING_WORDS), "NaN", "Na", "Null", "None"}
)


def point_numbers(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """One vectorised pass: the numbers as written with a decimal point, and the missing mask."""
    fast = _arrow_point_numbers(col)
    if fast is not None:
        return fast
    obj = col.astype(object)
    missing = (obj.isna() | obj.isin(MISSING_TEXT)).to_numpy(dtype=bool, copy=True)
    vals = pd.to_numeric(obj.where(~missing), errors="coerce").to_numpy(dtype=float, copy=True)
    return vals, missing


def _arrow_point_numbers(col: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`point_numbers` for a pyarrow-backed column whose every cell is missing or a
    number Arrow's parser reads (a subset of what pandas reads); ``None`` sends any other
    column to the general path. Arrow rounds correctly, as Python's ``float`` does; pandas'
    parser can differ in the last bit for numbers of more than 15 significant digits.
    """
    arr = getattr(col.array, "_pa_array", None)
    if arr is None:
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    missing = (col.isna() | col.isin(MISSING_TEXT)).to_numpy(dtype=bool, copy=True)
    try:
        vals = pc.cast(pc.if_else(pa.array(missing), None, arr), pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    out = vals.to_numpy().astype(float, copy=True)
    out[missing] = np.nan
    return out, missing


def numeric(
    col: pd.Series, decimal: str, first: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parse a column to float with decimal mark *decimal* (``"."``, ``","`` or ``"either"``).

    Returns the values, the missing mask and the not-a-number mask. Numbers
    are parsed in one vectorised pass (*first*, if already done); only the
    values that fail it are looked at again (for a decimal comma).
    """
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        vals = col.astype(float).to_numpy()
        return vals, np.isnan(vals), np.zeros(len(col), dtype=bool)
    vals, missing = first if first is not None else point_numbers(col)
    vals, missing = vals.copy(), missing.copy()
    # text only where it is needed: one Python object per cell costs ~50 bytes
    if decimal == ",":
        # with a decimal comma, a number written with a point is not a number
        text = col.astype(object).astype("string").str.strip()
        wrong = text.str.contains(".", regex=False).to_numpy(dtype=bool, na_value=False)
        vals[wrong & ~missing] = np.nan
    failed = np.flatnonzero(np.isnan(vals) & ~missing)
    if len(failed):
        text = col.iloc[failed].astype(object).astype("string").str.strip()
        blank = (text.isna() | text.str.lower().isin(["", *_MISSING_WORDS])).to_numpy(
            dtype=bool, na_value=True
        )
        if decimal == ",":
            point = text.str.contains(".", regex=False).fillna(True).astype(bool)
            text = text.str.replace(",", ".", regex=False).where(~point)
        elif decimal == "either":
            text = text.str.replace(",", ".", regex=False)
        vals[failed] = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
        missing[failed[blank]] = True
    bad = np.isnan(vals) & ~missing
    return vals, missing, bad
