"""Writing tables: CSV in chunks (the same text as pandas' ``to_csv``, faster), and Parquet.

pandas formats floats for CSV through numpy's ``astype(str)``, about a
microsecond per value: a million RRMap points (a dozen float columns) took
13 s to write. Python's ``repr`` gives the same shortest round-trip text
in half the time, each distinct value is formatted once (ratings and the
Gaussians made of them repeat), and :mod:`csv` quotes as pandas does; rows
are written in chunks, so the whole text is never held in memory. For
large tables, Parquet (:func:`write_parquet`) is faster still.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import numpy as np
import pandas as pd

from rrmap.errors import InputError

#: Rows formatted and written at a time.
CHUNK_ROWS = 100_000


def _column_text(col: pd.Series) -> list[str]:
    """The CSV text of one column (missing values empty, as pandas writes them)."""
    if pd.api.types.is_float_dtype(col.dtype) and not isinstance(col.dtype, pd.ArrowDtype):
        values = col.to_numpy(dtype=float, na_value=np.nan)
        missing = np.isnan(values)
        # distinct bit patterns, so that -0.0 and 0.0 keep their own text
        uniq, inverse = np.unique(values.view(np.int64), return_inverse=True)
        if 2 * len(uniq) < len(values):  # ratings repeat (whole numbers): format each value once
            words = [repr(v) for v in uniq.view(np.float64).tolist()]
            text = [words[i] for i in inverse.tolist()]
        else:
            text = [repr(v) for v in values.tolist()]
    else:
        values = col.to_numpy(dtype=object)
        missing = pd.isna(col).to_numpy()
        text = [str(v) for v in values.tolist()]
    if missing.any():
        for i in np.flatnonzero(missing).tolist():
            text[i] = ""
    return text


def _rows(df: pd.DataFrame, chunk_rows: int) -> Iterator[list[tuple[str, ...]]]:
    for start in range(0, len(df), chunk_rows):
        part = df.iloc[start : start + chunk_rows]
        yield list(zip(*(_column_text(part[c]) for c in part.columns), strict=True))


def write_csv(
    df: pd.DataFrame, target: str | os.PathLike[str] | TextIO, chunk_rows: int = CHUNK_ROWS
) -> None:
    """Write *df* as CSV without its index: the text of ``df.to_csv(index=False)``.

    Parameters
    ----------
    df : DataFrame
    target : path or text stream
    chunk_rows : int
        Rows formatted at a time (bounds the memory).

    Examples
    --------
    >>> import io, pandas as pd
    >>> buf = io.StringIO()
    >>> write_csv(pd.DataFrame({"a": [0.1, None], "b": ["x,y", "z"]}), buf)
    >>> buf.getvalue() == pd.DataFrame({"a": [0.1, None], "b": ["x,y", "z"]}).to_csv(index=False)
    True
    """
    if hasattr(target, "write"):
        _write(df, target, chunk_rows)  # type: ignore[arg-type]
        return
    with open(target, "w", encoding="utf-8", newline="") as fh:
        _write(df, fh, chunk_rows)


def _write(df: pd.DataFrame, fh: TextIO, chunk_rows: int) -> None:
    writer = csv.writer(fh, lineterminator="\n")
    writer.writerow([str(c) for c in df.columns])
    for rows in _rows(df, chunk_rows):
        writer.writerows(rows)


def csv_text(df: pd.DataFrame) -> str:
    """:func:`write_csv` into a string."""
    buf = io.StringIO()
    write_csv(df, buf)
    return buf.getvalue()


def write_parquet(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write *df* as Parquet (pyarrow, from the ``parquet`` extra); ``attrs`` go in its metadata.

    Raises
    ------
    InputError
        pyarrow is not installed.
    """
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise InputError("Parquet output needs pyarrow: pip install 'rrmap[parquet]'") from None
    out = df.copy()
    for col in out.columns:
        if isinstance(out[col].dtype, pd.CategoricalDtype):
            out[col] = out[col].astype(str)
    out.to_parquet(Path(path), index=False)
