"""Writing tables: CSV in chunks (the same text as pandas' ``to_csv``, faster), and Parquet.

pandas formats floats for CSV through numpy's ``astype(str)``, about a
microsecond per value: a million RRMap points (a dozen float columns) took
13 s to write. Python's ``repr`` gives the same shortest round-trip text
in half the time, each distinct value is formatted once (ratings and the
Gaussians made of them repeat), and :mod:`csv` quotes as pandas does; rows
are written in chunks, so the whole text is never held in memory.

With pyarrow installed (the ``parquet`` extra) the rows are assembled by
Arrow instead of one Python tuple per row: each column becomes an Arrow
string array (a repeated float is formatted once and gathered with
``take``; text columns are quoted by the same rule as :mod:`csv`: a field
with a comma, a double quote or a line feed), the columns are joined element
by element, and the chunk's text is written straight from Arrow's buffer.
For large tables, Parquet (:func:`write_parquet`) is faster still.
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
    if df.attrs:  # every column taken from a frame deep-copies its attrs: once, not per column
        df = pd.DataFrame(df, copy=False)
        df.attrs = {}
    writer = csv.writer(fh, lineterminator="\n")
    writer.writerow([str(c) for c in df.columns])
    if df.shape[1] >= 2 and len(df) and _has_pyarrow():
        for start in range(0, len(df), chunk_rows):
            fh.write(_arrow_chunk(df.iloc[start : start + chunk_rows]))
        return
    for rows in _rows(df, chunk_rows):
        writer.writerows(rows)


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def _arrow_text(col: pd.Series):
    """One column's CSV fields as an Arrow string array (quoted where :mod:`csv` quotes)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    dtype = col.dtype
    if pd.api.types.is_float_dtype(dtype) and not isinstance(dtype, pd.ArrowDtype):
        values = col.to_numpy(dtype=float, na_value=np.nan)
        uniq, inverse = np.unique(values.view(np.int64), return_inverse=True)
        words = pa.array([repr(v) for v in uniq.view(np.float64).tolist()], pa.string())
        text = words.take(pa.array(inverse.astype(np.int64)))
        missing = np.isnan(values)
        if missing.any():
            text = pc.if_else(pa.array(missing), "", text)
        return text
    if pd.api.types.is_integer_dtype(dtype) and isinstance(dtype, np.dtype):
        return pc.cast(pa.array(col.to_numpy()), pa.string())  # str(int) of every value
    if isinstance(dtype, pd.CategoricalDtype):
        words = pa.array([str(c) for c in dtype.categories.tolist()] + [""], pa.string())
        codes = col.cat.codes.to_numpy().astype(np.int64)
        text = words.take(pa.array(np.where(codes < 0, len(words) - 1, codes)))
    elif isinstance(getattr(col.array, "_pa_array", None), pa.ChunkedArray) and pa.types.is_string(
        col.array._pa_array.type
    ):
        text = col.array._pa_array.combine_chunks().fill_null("")  # Arrow strings as they are
    else:
        text = pa.array(_column_text(col), pa.string())
    special = pc.match_substring_regex(text, '[,"\n]')
    if pc.any(special).as_py():
        quoted = pc.binary_join_element_wise('"', pc.replace_substring(text, '"', '""'), '"', "")
        text = pc.if_else(special, quoted, text)
    return text


def _arrow_chunk(part: pd.DataFrame) -> str:
    """The CSV text of some rows, assembled by Arrow."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = pc.binary_join_element_wise(*(_arrow_text(part[c]) for c in part.columns), ",")
    lines = pc.binary_join_element_wise(rows, "", "\n")  # each row followed by a line feed
    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)
    first, last = offsets[lines.offset], offsets[lines.offset + len(lines)]
    return memoryview(lines.buffers()[2])[first:last].tobytes().decode("utf-8")


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
    if not _has_pyarrow():
        raise InputError("Parquet output needs pyarrow: pip install 'rrmap[parquet]'")
    # categories as text; the other columns are shared, not copied
    categorical = [c for c in df.columns if isinstance(df[c].dtype, pd.CategoricalDtype)]
    out = df.assign(**{c: df[c].astype(str) for c in categorical})
    out.attrs = df.attrs
    out.to_parquet(Path(path), index=False)
